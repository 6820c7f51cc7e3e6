/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.c: where a QP's transport runs (softirq, system call, work item), its receive queue and the post verbs (Documentation/datapath.rst)
 */
#ifndef SROCE_SCHED_H
#define SROCE_SCHED_H

#include "qp.h"

int sroce_sched_init_module(void);
void sroce_sched_exit_module(void);
void sroce_sched_init_qp(struct sroce_qp *qp, enum ib_qp_type type);
void sroce_sched_stop_qp(struct sroce_qp *qp);
void sroce_sched_rxq_purge(struct sroce_qp *qp);
void sroce_sched_settle_rx(struct sroce_qp *qp);

void sroce_sched_queue(struct sroce_qp *qp);
void sroce_sched_kick(struct sroce_qp *qp);
int sroce_sched_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_sched_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

#endif /* SROCE_SCHED_H */
