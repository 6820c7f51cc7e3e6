/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce driver attributes in RDMA netlink resource dumps (restrack.c).
 */
#ifndef SROCE_RESTRACK_H
#define SROCE_RESTRACK_H

struct sk_buff;
struct ib_qp;
struct ib_cq;
struct ib_mr;
struct ib_srq;

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int sroce_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);

#endif /* SROCE_RESTRACK_H */
