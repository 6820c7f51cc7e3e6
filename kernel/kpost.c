// SPDX-License-Identifier: GPL-2.0
/*
 * sroce kernel post path: post_send/post_recv for QPs created by kernel
 * consumers (ib_mad's QP1, later storage ULPs).
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
	if (q->prod - smp_load_acquire(&q->hdr->consumer) >= q->num_entries)
		return NULL;
	return sroce_queue_at(q, q->prod);
}

static void sroce_kpost_publish(struct sroce_queue *q)
{
	q->prod++;
	smp_store_release(&q->hdr->producer, q->prod);
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
		if (ud)
			return -EINVAL;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (ud || wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		break;
	case IB_WR_SEND_WITH_INV:
		if (qp->ibqp.qp_type != IB_QPT_RC)
			return -EINVAL;
		break;
	case IB_WR_LOCAL_INV:
		if (ud)
			return -EINVAL;
		break;
	case IB_WR_REG_MR:
		if (ud || reg_wr(wr)->mr->device != qp->ibqp.device)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (wr->send_flags & ~SROCE_KPOST_SEND_FLAGS)
		return -EINVAL;
	if (ud && (!ud_wr(wr)->ah || ud_wr(wr)->ah->device != qp->ibqp.device))
		return -EINVAL;
	*inline_len = 0;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (wr->opcode == IB_WR_RDMA_READ)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->max_inline)
			return -EINVAL;
		*inline_len = len;
	} else if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge) {
		return -EINVAL;
	}
	return 0;
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
		w->wr.reg.key = reg_wr(wr)->key;
		w->wr.reg.access = reg_wr(wr)->access;
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
 * Context: any. Return: 0; -EINVAL for a QP in RESET/INIT or a malformed
 * WR (unsupported opcode or flag, too many SGEs, too much inline data, a
 * UD WR without an AH of this device); -ENOMEM when the SQ is full. WRs
 * before *@bad_wr are posted.
 */
int sroce_kpost_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct sroce_queue *q = qp->sq;
	unsigned long flags;
	u32 inline_len;
	void *slot;
	int err = 0;

	spin_lock_irqsave(&qp->kpost_lock, flags);
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		err = -EINVAL;
		break;
	default:
		if (!qp->has_sq)
			err = -EINVAL;
		break;
	}
	for (; wr && !err; wr = wr->next) {
		err = sroce_kpost_check_send(qp, wr, &inline_len);
		if (err)
			break;
		slot = sroce_kpost_slot(q);
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		sroce_kpost_write_send(qp, slot, wr, inline_len);
		sroce_kpost_publish(q);
	}
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	if (err)
		*bad_wr = wr;
	sroce_qp_sched(qp);
	return err;
}

/**
 * sroce_kpost_recv() - ib_device_ops.post_recv for a kernel QP
 * @qp: the QP (kernel rings)
 * @wr: the chain
 * @bad_wr: the first WR not posted, on error
 *
 * Context: any. Return: 0; -EINVAL in RESET or for too many SGEs;
 * -ENOMEM when the RQ is full.
 */
int sroce_kpost_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct sroce_queue *q = qp->rq;
	struct sroce_recv_wqe *w;
	unsigned long flags;
	int err = 0, i;

	spin_lock_irqsave(&qp->kpost_lock, flags);
	if (READ_ONCE(qp->state) == IB_QPS_RESET || !qp->has_rq)
		err = -EINVAL;
	for (; wr && !err; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > qp->max_recv_sge) {
			err = -EINVAL;
			break;
		}
		w = sroce_kpost_slot(q);
		if (!w) {
			err = -ENOMEM;
			break;
		}
		memset(w, 0, sizeof(*w));
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			w->sge[i].addr = wr->sg_list[i].addr;
			w->sge[i].length = wr->sg_list[i].length;
			w->sge[i].lkey = wr->sg_list[i].lkey;
		}
		sroce_kpost_publish(q);
	}
	spin_unlock_irqrestore(&qp->kpost_lock, flags);
	if (err)
		*bad_wr = wr;
	/* receives are taken when packets arrive; in ERR they must be flushed */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_sched(qp);
	return err;
}
