// SPDX-License-Identifier: GPL-2.0
/*
 * sroce kernel post path: post_send/post_recv for QPs created by kernel
 * consumers (ib_mad's QP1, and the ULPs: NVMe-oF, NFS, iSER, SRP).
 *
 * A kernel QP has the same SQ and RQ rings as a user QP, only in kernel
 * memory and unmapped. Posting translates each ib_send_wr/ib_recv_wr into
 * the ring entry format of uapi/sroce-abi.h, exactly what the provider
 * writes, and publishes the producer index; the worker then consumes the
 * entries as it does a user QP's. Kernel posters may run concurrently and
 * in any context, so they are serialised by qp->kpost_lock; the kernel is
 * the only producer of these rings, so q->prod is the producer index.
 *
 * SGE addresses are kernel virtual addresses (the device uses virt DMA),
 * lkeys those of DMA MRs (the PD's local_dma_lkey) or of kernel MRs.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "ah.h"
#include "kpost.h"

#define SROCE_KPOST_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

static_assert(SROCE_SEND_FENCE == IB_SEND_FENCE);
static_assert(SROCE_SEND_SIGNALED == IB_SEND_SIGNALED);
static_assert(SROCE_SEND_SOLICITED == IB_SEND_SOLICITED);
static_assert(SROCE_SEND_INLINE == IB_SEND_INLINE);
static_assert((int)IB_WR_SEND == (int)IB_UVERBS_WR_SEND);
static_assert((int)IB_WR_SEND_WITH_IMM == (int)IB_UVERBS_WR_SEND_WITH_IMM);
static_assert((int)IB_WR_RDMA_WRITE == (int)IB_UVERBS_WR_RDMA_WRITE);
static_assert((int)IB_WR_RDMA_WRITE_WITH_IMM == (int)IB_UVERBS_WR_RDMA_WRITE_WITH_IMM);
static_assert((int)IB_WR_RDMA_READ == (int)IB_UVERBS_WR_RDMA_READ);
static_assert((int)IB_WR_ATOMIC_CMP_AND_SWP == (int)IB_UVERBS_WR_ATOMIC_CMP_AND_SWP);
static_assert((int)IB_WR_ATOMIC_FETCH_AND_ADD == (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD);
static_assert((int)IB_WR_LOCAL_INV == (int)IB_UVERBS_WR_LOCAL_INV);
static_assert((int)IB_WR_SEND_WITH_INV == (int)IB_UVERBS_WR_SEND_WITH_INV);
static_assert((int)IB_WR_REG_MR == SROCE_WR_REG_MR);

/* A free slot of a kernel SQ/RQ, or NULL when the ring is full. */
static void *sroce_kpost_slot(struct sroce_queue *q)
{
	/* acquire: the slots consumed are read before we overwrite them */
	if (q->prod - smp_load_acquire(&q->hdr->consumer) >= q->num_entries)
		return NULL;
	return sroce_queue_at(q, q->prod);
}

static void sroce_kpost_publish(struct sroce_queue *q)
{
	q->prod++;
	/* release: the WQE is visible before the index that publishes it */
	smp_store_release(&q->hdr->producer, q->prod);
}

/* An IB_WR_REG_MR names one of our MRs, and a key of that MR */
static int sroce_kpost_check_reg(struct sroce_qp *qp, const struct ib_reg_wr *reg)
{
	if (reg->mr->device != qp->ibqp.device) {
		sroce_dbg_qp_rl(qp, "post_send: REG_MR of another device's MR");
		return -EINVAL;
	}
	/* the range is this MR's (sroce_kpost_write_send()), the key must be */
	if ((reg->key ^ reg->mr->lkey) >> 8) {
		sroce_dbg_qp_rl(qp, "post_send: REG_MR key 0x%x is not of its MR (lkey 0x%x)",
				reg->key, reg->mr->lkey);
		return -EINVAL;
	}
	return 0;
}

static int sroce_kpost_check_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
				  u32 *inline_len)
{
	bool ud = qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
	u64 len = 0;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_LOCAL_INV:
		if (ud)
			goto bad_opcode;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (ud)
			goto bad_opcode;
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    (wr->send_flags & IB_SEND_INLINE)) {
			sroce_dbg_qp_rl(qp,
					"post_send: atomic opcode %d needs one 8-byte SGE, not inline (num_sge %d, send_flags 0x%x)",
					wr->opcode, wr->num_sge, wr->send_flags);
			return -EINVAL;
		}
		break;
	case IB_WR_SEND_WITH_INV:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			goto bad_opcode;
		break;
	case IB_WR_REG_MR:
		if (ud)
			goto bad_opcode;
		if (sroce_kpost_check_reg(qp, reg_wr(wr)))
			return -EINVAL;
		break;
	default:
		goto bad_opcode;
	}
	if (wr->send_flags & ~SROCE_KPOST_SEND_FLAGS) {
		sroce_dbg_qp_rl(qp, "post_send: send_flags 0x%x: unsupported bits 0x%x",
				wr->send_flags, wr->send_flags & ~SROCE_KPOST_SEND_FLAGS);
		return -EINVAL;
	}
	if (ud && (!ud_wr(wr)->ah || ud_wr(wr)->ah->device != qp->ibqp.device)) {
		sroce_dbg_qp_rl(qp, "post_send: UD WR %s", ud_wr(wr)->ah ?
				"with another device's AH" : "without an AH");
		return -EINVAL;
	}
	*inline_len = 0;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (wr->opcode == IB_WR_RDMA_READ) {
			sroce_dbg_qp_rl(qp, "post_send: RDMA_READ with IB_SEND_INLINE");
			return -EINVAL;
		}
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->max_inline) {
			sroce_dbg_qp_rl(qp, "post_send: %llu bytes inline > max_inline_data %u",
					len, qp->max_inline);
			return -EINVAL;
		}
		*inline_len = len;
	} else if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge) {
		sroce_dbg_qp_rl(qp, "post_send: num_sge %d > max_send_sge %u", wr->num_sge,
				qp->max_send_sge);
		return -EINVAL;
	}
	return 0;

bad_opcode:
	sroce_dbg_qp_rl(qp, "post_send: opcode %d not supported on qp_type %d", wr->opcode,
			qp->ibqp.qp_type);
	return -EINVAL;
}

static void sroce_kpost_write_send(struct sroce_qp *qp, struct sroce_send_wqe *w,
				   const struct ib_send_wr *wr, u32 inline_len)
{
	u8 *data;
	int i;

	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		w->ex = wr->ex.imm_data;
	/* the rkey's bits, as the provider passes ibv_send_wr.invalidate_rkey */
	if (wr->opcode == IB_WR_SEND_WITH_INV || wr->opcode == IB_WR_LOCAL_INV)
		w->ex = (__force __be32)wr->ex.invalidate_rkey;
	if (wr->opcode == IB_WR_REG_MR) {
		const struct ib_mr *mr = reg_wr(wr)->mr;

		/* the range as posted: a consumer may change ib_mr.iova after
		 * map_mr_sg (xprtrdma puts the XID in its upper half)
		 */
		w->wr.reg.key = reg_wr(wr)->key;
		w->wr.reg.access = reg_wr(wr)->access;
		w->wr.reg.iova = mr->iova;
		w->wr.reg.length = mr->length;
		return;		/* no SGEs */
	}
	if (wr->opcode == IB_WR_LOCAL_INV)
		return;
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		w->wr.ud.ah = sroce_ah_id(ud_wr(wr)->ah);
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
	} else if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
	} else if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM &&
		   wr->opcode != IB_WR_SEND_WITH_INV) {
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		w->inline_len = inline_len;
		data = (u8 *)w->sge;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		return;
	}
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		w->sge[i].addr = wr->sg_list[i].addr;
		w->sge[i].length = wr->sg_list[i].length;
		w->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

/**
 * sroce_kpost_send() - ib_device_ops.post_send for a kernel QP
 * @qp: the QP (kernel rings)
 * @wr: the chain
 * @bad_wr: the first WR not posted, on error
 *
 * Context: any.
 * Return: 0; -EINVAL for a QP in RESET/INIT or a malformed WR (unsupported
 * opcode or flag, too many SGEs, too much inline data, a UD WR without an
 * AH of this device); -ENOMEM when the SQ is full. WRs before *@bad_wr are
 * posted.
 */
int sroce_kpost_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct sroce_queue *q = qp->sq;
	enum ib_qp_state state;
	unsigned long flags;
	u32 inline_len;
	void *slot;
	int err = 0;

	spin_lock_irqsave(&qp->kpost_lock, flags);
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		sroce_dbg_qp_rl(qp, "post_send: QP in %s (posting starts in RTS)",
				sroce_qp_state_name(state));
		err = -EINVAL;
	} else if (!qp->has_sq) {
		sroce_dbg_qp_rl(qp, "post_send: QP created with max_send_wr 0");
		err = -EINVAL;
	}
	for (; wr && !err; wr = wr->next) {
		err = sroce_kpost_check_send(qp, wr, &inline_len);
		if (err)
			break;
		slot = sroce_kpost_slot(q);
		if (!slot) {
			sroce_dbg_qp_rl(qp, "post_send: SQ full (%u WRs outstanding)",
					q->num_entries);
			err = -ENOMEM;
			break;
		}
		sroce_kpost_write_send(qp, slot, wr, inline_len);
		sroce_kpost_publish(q);
	}
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	if (err)
		*bad_wr = wr;
	sroce_qp_queue(qp);
	return err;
}

/**
 * sroce_kpost_recv() - ib_device_ops.post_recv for a kernel QP
 * @qp: the QP (kernel rings)
 * @wr: the chain
 * @bad_wr: the first WR not posted, on error
 *
 * Context: any.
 * Return: 0; -EINVAL in RESET or for too many SGEs; -ENOMEM when the RQ is
 * full.
 */
int sroce_kpost_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct sroce_queue *q = qp->rq;
	struct sroce_recv_wqe *w;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->kpost_lock, flags);
	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		sroce_dbg_qp_rl(qp, "post_recv: QP in RESET");
		err = -EINVAL;
	} else if (!qp->has_rq) {
		sroce_dbg_qp_rl(qp, "post_recv: QP has no RQ (max_recv_wr 0, or an SRQ)");
		err = -EINVAL;
	}
	for (; wr && !err; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > qp->max_recv_sge) {
			sroce_dbg_qp_rl(qp, "post_recv: num_sge %d > max_recv_sge %u", wr->num_sge,
					qp->max_recv_sge);
			err = -EINVAL;
			break;
		}
		w = sroce_kpost_slot(q);
		if (!w) {
			sroce_dbg_qp_rl(qp, "post_recv: RQ full (%u WRs posted)", q->num_entries);
			err = -ENOMEM;
			break;
		}
		sroce_recv_wqe_fill(w, wr);
		sroce_kpost_publish(q);
	}
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	if (err)
		*bad_wr = wr;
	/* receives are taken when packets arrive; in ERR they must be flushed */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_queue(qp);
	return err;
}
