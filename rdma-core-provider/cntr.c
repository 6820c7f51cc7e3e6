// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: completion counters (rdma-core 6x,
 * ibv_create_comp_cntr()). The counts live in the kernel, which adds to
 * them as the QPs a counter is attached to complete work; every verb is
 * one command (set, increment and read included: no mapped page).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

#if SROCE_HAVE_COMP_CNTR

#define SROCE_CNTR_OPS	(IBV_QP_ATTACH_COMP_CNTR_OP_SEND |		\
			 IBV_QP_ATTACH_COMP_CNTR_OP_RECV |		\
			 IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ |		\
			 IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ |	\
			 IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE |	\
			 IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE)

/* Counting work requests only; no flags are defined yet. */
struct ibv_comp_cntr *sroce_create_comp_cntr(struct ibv_context *ibctx,
					     struct ibv_comp_cntr_init_attr *attr)
{
	struct ibv_comp_cntr *cc;
	int ret;

	if (attr->comp_mask) {
		sroce_dbg(ibctx, "create_comp_cntr: comp_mask 0x%x: unknown bits", attr->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->type != IBV_COMP_CNTR_TYPE_WRS) {
		sroce_dbg(ibctx, "create_comp_cntr: type %d: only work requests (%d) are counted",
			  attr->type, IBV_COMP_CNTR_TYPE_WRS);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->flags) {
		sroce_dbg(ibctx, "create_comp_cntr: flags 0x%x: none are defined", attr->flags);
		errno = EINVAL;
		return NULL;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NULL;
	ret = ibv_cmd_create_comp_cntr(ibctx, cc, NULL);
	if (ret) {
		sroce_dbg(ibctx, "create_comp_cntr: the kernel refused: %s", strerror(ret));
		free(cc);
		errno = ret;
		return NULL;
	}
	return cc;
}

/* EBUSY while a QP it is attached to exists */
int sroce_destroy_comp_cntr(struct ibv_comp_cntr *cc)
{
	int ret = ibv_cmd_destroy_comp_cntr(cc);

	if (ret) {
		sroce_dbg(cc->context, "destroy_comp_cntr: the kernel refused: %s", strerror(ret));
		return ret;
	}
	free(cc);
	return 0;
}

int sroce_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *cc,
			      struct ibv_qp_attach_comp_cntr_attr *attr)
{
	if (attr->comp_mask) {
		sroce_dbg(qp->context, "qp#%u: attach_comp_cntr: comp_mask 0x%x: unknown bits",
			  qp->qp_num, attr->comp_mask);
		return EOPNOTSUPP;
	}
	/* the command would drop bits it does not know */
	if (attr->op_mask & ~(uint32_t)SROCE_CNTR_OPS) {
		sroce_dbg(qp->context, "qp#%u: attach_comp_cntr: op_mask 0x%x: unknown operations",
			  qp->qp_num, attr->op_mask);
		return EOPNOTSUPP;
	}
	return ibv_cmd_qp_attach_comp_cntr(qp, cc, attr);
}

#endif /* SROCE_HAVE_COMP_CNTR */
