// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: extended CQs (ibv_create_cq_ex, ibv_start_poll
 * ... ibv_end_poll, ibv_wc_read_*()).
 *
 * Same kernel object and ring as a plain CQ (cq.c): ibv_poll_cq and
 * resize_cq work on it too. start_poll takes the CQ lock and copies the
 * first CQE into cq->cur, next_poll the following ones, the read_*
 * functions answer from that copy; end_poll hands the consumed slots back
 * to the kernel and drops the lock.
 *
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP and _WALLCLOCK make libibverbs ask
 * the kernel for TIMESTAMP_COMPLETION: each CQE then carries when it was
 * written, CLOCK_MONOTONIC (the device clock, 1 GHz: see
 * sroce_query_rt_values()) and CLOCK_REALTIME, in ns. CVLAN, FLOW_TAG and
 * TM_INFO are refused.
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "sroce.h"

#define SROCE_CQX_WC_FLAGS	(IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
#define SROCE_CQX_CREATE_FLAGS	IBV_CREATE_CQ_ATTR_SINGLE_THREADED

static void sroce_cqx_set_current(struct sroce_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
}

static int sroce_start_poll(struct ibv_cq_ex *cqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);
	int ret;

	if (attr->comp_mask) {
		sroce_err(cqx->context, "start_poll: comp_mask 0x%x (none known)", attr->comp_mask);
		return EINVAL;
	}
	pthread_spin_lock(&cq->lock);
	ret = sroce_cq_read(cq, &cq->cur);
	if (ret) {
		/* no end_poll follows a failed start_poll */
		pthread_spin_unlock(&cq->lock);
		return ret;
	}
	sroce_cqx_set_current(cq);
	return 0;
}

static int sroce_next_poll(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);
	int ret;

	ret = sroce_cq_read(cq, &cq->cur);
	if (!ret)
		sroce_cqx_set_current(cq);
	return ret;
}

static void sroce_end_poll(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);

	sroce_cq_release(cq);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode sroce_read_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.opcode;
}

static uint32_t sroce_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.vendor_err;
}

static uint32_t sroce_read_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.byte_len;
}

/* also ibv_wc_read_invalidated_rkey(): bit for bit, as in poll_cq */
static __be32 sroce_read_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.ex;
}

static uint32_t sroce_read_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.qp_num;
}

static uint32_t sroce_read_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.src_qp;
}

static unsigned int sroce_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.wc_flags & SROCE_WC_F_ALL;
}

static uint32_t sroce_read_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.slid;
}

static uint8_t sroce_read_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.sl;
}

static uint8_t sroce_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.dlid_path_bits;
}

static uint64_t sroce_read_completion_ts(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.ts_ns;
}

static uint64_t sroce_read_completion_wallclock_ns(struct ibv_cq_ex *cqx)
{
	return cqx_to_scq(cqx)->cur.wallclock_ns;
}

static void sroce_cqx_set_ops(struct ibv_cq_ex *cqx, uint64_t wc_flags)
{
	cqx->start_poll = sroce_start_poll;
	cqx->next_poll = sroce_next_poll;
	cqx->end_poll = sroce_end_poll;
	cqx->read_opcode = sroce_read_opcode;
	cqx->read_vendor_err = sroce_read_vendor_err;
	cqx->read_wc_flags = sroce_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = sroce_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = sroce_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = sroce_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = sroce_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = sroce_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = sroce_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = sroce_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cqx->read_completion_ts = sroce_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cqx->read_completion_wallclock_ns = sroce_read_completion_wallclock_ns;
}

static int sroce_cqx_check(struct ibv_context *ibctx, const struct ibv_cq_init_attr_ex *attr)
{
	const uint32_t masks = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;

	/* a parent domain (IBV_CQ_INIT_ATTR_MASK_PD) changes nothing here */
	if (attr->comp_mask & ~masks) {
		sroce_err(ibctx, "create_cq_ex: comp_mask 0x%x: unsupported bits 0x%x",
			  attr->comp_mask, attr->comp_mask & ~masks);
		return EOPNOTSUPP;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!attr->parent_domain || !to_spd(attr->parent_domain)->parent_of)) {
		sroce_err(ibctx, "create_cq_ex: IBV_CQ_INIT_ATTR_MASK_PD without a parent domain");
		return EINVAL;
	}
	if (attr->wc_flags & ~(uint64_t)SROCE_CQX_WC_FLAGS) {
		sroce_err(ibctx, "create_cq_ex: wc_flags 0x%llx: unsupported bits 0x%llx (no CVLAN, flow tag, TM)",
			  (unsigned long long)attr->wc_flags,
			  (unsigned long long)(attr->wc_flags & ~(uint64_t)SROCE_CQX_WC_FLAGS));
		return EOPNOTSUPP;
	}
	/* SINGLE_THREADED is a hint (we lock anyway); no IGNORE_OVERRUN */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~SROCE_CQX_CREATE_FLAGS)) {
		sroce_err(ibctx, "create_cq_ex: flags 0x%x: unsupported bits 0x%x", attr->flags,
			  attr->flags & ~SROCE_CQX_CREATE_FLAGS);
		return EOPNOTSUPP;
	}
	return 0;
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct usroce_create_cq_ex_resp resp;
	struct usroce_create_cq_ex cmd;
	struct sroce_cq *cq;
	int ret;

	ret = sroce_cqx_check(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
#if SROCE_HAVE_CREATE_CQ_EX_PROV_ATTR
	ret = ibv_cmd_create_cq_ex(ibctx, attr, NULL, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
#else
	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
#endif
	ret = sroce_cq_created(cq, ibctx, ret, &resp.ring, "create_cq_ex", (int)attr->cqe);
	if (ret) {
		errno = ret;
		return NULL;
	}
	sroce_cqx_set_ops(&cq->vcq.cq_ex, attr->wc_flags);
	return &cq->vcq.cq_ex;
}
