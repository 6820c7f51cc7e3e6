/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce XRC (eXtended Reliable Connected transport): XRC domains, the XRC
 * SRQ number space and what the responder of an XRC TGT QP needs from it.
 */
#ifndef SROCE_XRC_H
#define SROCE_XRC_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;
struct sroce_srq;
struct sroce_cqe;

/**
 * struct sroce_xrcd - an XRC domain
 * @ibxrcd: the core's object (which also shares it between processes
 *	through an inode); must be first for INIT_RDMA_OBJ_SIZE
 */
struct sroce_xrcd {
	struct ib_xrcd ibxrcd;
};

int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

int sroce_xrc_resp_begin(struct sroce_qp *qp, u32 srqn);
void sroce_xrc_resp_end(struct sroce_qp *qp);
void sroce_xrc_flush_rqe(struct sroce_qp *qp, struct sroce_cqe *cqe);

#endif /* SROCE_XRC_H */
