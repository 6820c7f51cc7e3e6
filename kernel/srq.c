// SPDX-License-Identifier: GPL-2.0
/*
 * sroce shared receive queues.
 *
 * An SRQ is a ring of struct sroce_recv_wqe, like a QP's RQ, filled by the
 * provider (mmapped) or by sroce_post_srq_recv() (kernel SRQ). Unlike an
 * RQ, whose entry is released when its receive completes, a QP takes an
 * SRQ entry out at once (sroce_srq_take(), under the SRQ's lock, as the
 * other QPs of the SRQ take theirs): the copy it keeps is its receive
 * buffer, and if the QP fails before the receive completes, the flush
 * completes the copy (sroce_responder_flush()).
 */
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"

/* ---- XRC SRQ numbers: module-wide, like QPNs; xrc.c looks them up ---- */

#define SROCE_XRC_SRQN_MIN	1
#define SROCE_XRC_SRQN_MAX	0xffffff	/* XRCETH: 24 bits */

static DEFINE_XARRAY_ALLOC(sroce_xsrq_xa);
static u32 sroce_xsrq_next;

/**
 * sroce_xrc_srq_reserve() - give a new XRC SRQ its number
 * @srq: the SRQ being created
 *
 * Lookups find nothing under the number until sroce_xrc_srq_publish().
 *
 * Return: 0 or -errno (-EBUSY: the number space is full).
 */
int sroce_xrc_srq_reserve(struct sroce_srq *srq)
{
	u32 srqn;
	int err;

	err = xa_alloc_cyclic(&sroce_xsrq_xa, &srqn, NULL,
			      XA_LIMIT(SROCE_XRC_SRQN_MIN, SROCE_XRC_SRQN_MAX),
			      &sroce_xsrq_next, GFP_KERNEL_ACCOUNT);
	if (err < 0)
		return err;
	srq->ibsrq.ext.xrc.srq_num = srqn;
	refcount_set(&srq->ref, 1);
	init_completion(&srq->freed);
	return 0;
}

/* Make a reserved XRC SRQ number find its SRQ: nothing can fail any more. */
void sroce_xrc_srq_publish(struct sroce_srq *srq)
{
	/* the reserved slot exists: storing into it allocates nothing */
	xa_store(&sroce_xsrq_xa, srq->ibsrq.ext.xrc.srq_num, srq, GFP_KERNEL);
}

void sroce_xrc_srq_put(struct sroce_srq *srq)
{
	if (refcount_dec_and_test(&srq->ref))
		complete(&srq->freed);
}

/**
 * sroce_xrc_srq_remove() - withdraw an XRC SRQ's number (destroy, or a
 *	failed create)
 * @srq: the SRQ
 *
 * Waits for the responders executing a packet into it, never for a peer.
 *
 * Context: process, may sleep.
 */
void sroce_xrc_srq_remove(struct sroce_srq *srq)
{
	xa_erase(&sroce_xsrq_xa, srq->ibsrq.ext.xrc.srq_num);
	/* a reader that found it before the erase has its reference by now */
	synchronize_rcu();
	sroce_xrc_srq_put(srq);
	wait_for_completion(&srq->freed);
}

/* The XRC SRQ @srqn of @sdev in XRC domain @xrcd, with a reference, or NULL. */
struct sroce_srq *sroce_xrc_srq_get(struct sroce_dev *sdev, struct ib_xrcd *xrcd,
				    u32 srqn, int *err)
{
	struct sroce_srq *srq;

	rcu_read_lock();
	srq = xa_load(&sroce_xsrq_xa, srqn);
	if (srq && (srq->ibsrq.device != &sdev->ib_dev || !refcount_inc_not_zero(&srq->ref)))
		srq = NULL;
	rcu_read_unlock();
	*err = -ENOENT;
	if (srq && srq->ibsrq.ext.xrc.xrcd != xrcd) {
		sroce_xrc_srq_put(srq);
		*err = -EACCES;
		return NULL;
	}
	return srq;
}

static u32 sroce_srq_stride(u32 max_sge)
{
	return ALIGN(sizeof(struct sroce_recv_wqe) + max_sge * sizeof(struct sroce_sge), 16);
}

/* What create_srq refuses: a type, sizes or driver data it does not take. */
static int sroce_srq_check_init(struct ib_device *ibdev, struct ib_srq_init_attr *init,
				struct ib_udata *udata)
{
	struct ib_srq_attr *attr = &init->attr;

	/* an XRC SRQ's XRCD and CQ are the core's to check and hold */
	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC) {
		sroce_dbg_dev(ibdev, "create_srq: srq_type %d not supported", init->srq_type);
		return -EOPNOTSUPP;
	}
	if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR) {
		sroce_dbg_dev(ibdev, "create_srq: max_wr %u outside 1..max_srq_wr %d",
			      attr->max_wr, SROCE_MAX_SRQ_WR);
		return -EINVAL;
	}
	if (attr->max_sge > SROCE_MAX_SGE) {
		sroce_dbg_dev(ibdev, "create_srq: max_sge %u > max %d", attr->max_sge,
			      SROCE_MAX_SGE);
		return -EINVAL;
	}
	if (!udata)
		return 0;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		sroce_dbg_dev(ibdev, "create_srq: %zu bytes of driver data not zero (takes none)",
			      udata->inlen);
		return -EINVAL;
	}
	if (udata->outlen < sizeof(struct sroce_create_srq_resp)) {
		sroce_dbg_dev(ibdev, "create_srq: response %zu bytes < %zu", udata->outlen,
			      sizeof(struct sroce_create_srq_resp));
		return -EINVAL;
	}
	return 0;
}

/*
 * The SRQ's ring (mappable when @udata), sized from @init->attr, which
 * then says what the SRQ got.
 */
static int sroce_srq_create_ring(struct sroce_srq *srq, struct ib_srq_attr *attr,
				 struct ib_udata *udata)
{
	u32 sge = max(attr->max_sge, 1u);
	u32 n = roundup_pow_of_two(attr->max_wr);
	int err;

	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->kpost_lock);
	srq->stride = sroce_srq_stride(sge);
	srq->max_sge = sge;
	srq->max_wr = n;
	srq->user = !!udata;
	srq->limit = 0;		/* armed by modify_srq only */
	srq->rq = sroce_queue_create(udata, n, srq->stride);
	if (IS_ERR(srq->rq)) {
		err = PTR_ERR(srq->rq);
		sroce_dbg_dev(srq->ibsrq.device, "create_srq: ring of %u x %u bytes: error %d",
			      n, srq->stride, err);
		return err;
	}
	attr->max_wr = n;
	attr->max_sge = sge;
	attr->srq_limit = 0;
	return 0;
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = sroce_to_dev(ibsrq->device);
	struct sroce_srq *srq = sroce_to_srq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	int err;

	err = sroce_srq_check_init(ibsrq->device, init, udata);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->srq_count) > SROCE_MAX_SRQ) {
		sroce_dbg_dev(ibsrq->device, "create_srq: the device has max_srq %d SRQs already",
			      SROCE_MAX_SRQ);
		err = -ENOMEM;
		goto err_uncount;
	}
	err = sroce_srq_create_ring(srq, &init->attr, udata);
	if (err)
		goto err_uncount;
	if (init->srq_type == IB_SRQT_XRC) {
		err = sroce_xrc_srq_reserve(srq);
		if (err) {
			sroce_dbg_dev(ibsrq->device,
				      "create_srq: no XRC SRQ number: error %d", err);
			goto err_destroy_ring;
		}
	}
	if (udata) {
		sroce_queue_info(srq->rq, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_dbg_dev(ibsrq->device, "create_srq: response not writable (%d)", err);
			goto err_remove_srqn;
		}
	}
	if (init->srq_type == IB_SRQT_XRC)
		sroce_xrc_srq_publish(srq);
	return 0;

err_remove_srqn:
	if (init->srq_type == IB_SRQT_XRC)
		sroce_xrc_srq_remove(srq);
err_destroy_ring:
	sroce_queue_destroy(srq->rq);
err_uncount:
	atomic_dec(&sdev->srq_count);
	return err;
}

/*
 * A user SRQ's modify_srq request: the address the new ring's description
 * goes to. Return: 0; -EOPNOTSUPP when the provider gave none (it predates
 * SRQ resize); -EINVAL for non-zero bytes beyond the request; -EFAULT.
 */
static int sroce_srq_resize_request(struct sroce_srq *srq, struct ib_udata *udata,
				    struct sroce_modify_srq *cmd)
{
	int err;

	if (udata->inlen < sizeof(*cmd)) {
		sroce_dbg_srq(srq, "modify_srq: max_wr: %zu bytes of driver data, no address for the new ring",
			      udata->inlen);
		return -EOPNOTSUPP;
	}
	if (udata->inlen > sizeof(*cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*cmd), udata->inlen - sizeof(*cmd))) {
		sroce_dbg_srq(srq, "modify_srq: %zu bytes of driver data, beyond %zu not zero",
			      udata->inlen, sizeof(*cmd));
		return -EINVAL;
	}
	err = ib_copy_from_udata(cmd, udata, sizeof(*cmd));
	if (err)
		return err;
	if (!cmd->ring_info_addr) {
		sroce_dbg_srq(srq, "modify_srq: max_wr: ring_info_addr is 0");
		return -EINVAL;
	}
	return 0;
}

/**
 * sroce_srq_resize() - replace an SRQ's ring by one of @max_wr entries
 * @srq: the SRQ
 * @max_wr: requested depth, rounded up to a power of two
 * @limit: a limit set with the resize, checked against the new depth
 *	before the switch; 0: none
 * @udata: a user SRQ's: holds struct sroce_modify_srq
 *
 * The entries posted and not taken yet are copied to the new ring at the
 * same indices. A user ring's producer index is read once and checked.
 *
 * Return: 0; -EINVAL for a depth outside 1..max_srq_wr or below the posted
 * entries or @limit, or a corrupt producer index; -EOPNOTSUPP for a user SRQ whose
 * provider gave no address for the new ring; -ENOMEM; -EFAULT. On error
 * the old ring is untouched.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr, u32 limit,
			    struct ib_udata *udata)
{
	struct sroce_modify_srq cmd = {};
	struct sroce_ring_info info;
	struct sroce_queue *nq, *oq;
	unsigned long flags;
	u32 n, prod, cons;
	int err;

	if (!max_wr || max_wr > SROCE_MAX_SRQ_WR) {
		sroce_dbg_srq(srq, "modify_srq: max_wr %u outside 1..max_srq_wr %d", max_wr,
			      SROCE_MAX_SRQ_WR);
		return -EINVAL;
	}
	if (!udata != !srq->user) {
		sroce_dbg_srq(srq, "modify_srq: a %s SRQ resized %s",
			      srq->user ? "user" : "kernel",
			      udata ? "from user space" : "by the kernel");
		return -EINVAL;
	}
	if (udata) {
		err = sroce_srq_resize_request(srq, udata, &cmd);
		if (err)
			return err;
	}
	n = roundup_pow_of_two(max_wr);
	if (limit > n) {
		sroce_dbg_srq(srq, "modify_srq: srq_limit %u > max_wr %u (%u entries)", limit,
			      max_wr, n);
		return -EINVAL;
	}
	nq = sroce_queue_create(udata, n, srq->stride);
	if (IS_ERR(nq)) {
		sroce_dbg_srq(srq, "modify_srq: ring of %u x %u bytes: error %ld", n, srq->stride,
			      PTR_ERR(nq));
		return PTR_ERR(nq);
	}
	/* before the switch: a failed copy must leave the old ring in place */
	if (udata) {
		sroce_queue_info(nq, &info);
		if (copy_to_user(u64_to_user_ptr(cmd.ring_info_addr), &info, sizeof(info))) {
			sroce_dbg_srq(srq, "modify_srq: ring_info_addr 0x%llx not writable",
				      cmd.ring_info_addr);
			err = -EFAULT;
			goto err_destroy_new;
		}
	}

	/* kernel posters, then the QPs taking entries */
	spin_lock_irqsave(&srq->kpost_lock, flags);
	spin_lock(&srq->lock);
	oq = srq->rq;
	prod = READ_ONCE(oq->hdr->producer);
	cons = oq->cons;
	if (prod - cons > oq->num_entries || prod - cons > n) {
		spin_unlock(&srq->lock);
		spin_unlock_irqrestore(&srq->kpost_lock, flags);
		if (prod - cons > oq->num_entries)
			sroce_dbg_srq(srq,
				      "modify_srq: producer index %u is corrupt (consumer %u, %u entries)",
				      prod, cons, oq->num_entries);
		else
			sroce_dbg_srq(srq,
				      "modify_srq: max_wr %u (%u entries) < the %u WRs posted",
				      max_wr, n, prod - cons);
		err = -EINVAL;
		goto err_destroy_new;
	}
	sroce_queue_carry(nq, oq, cons, prod);
	srq->rq = nq;
	WRITE_ONCE(srq->max_wr, n);
	spin_unlock(&srq->lock);
	spin_unlock_irqrestore(&srq->kpost_lock, flags);

	sroce_queue_destroy(oq);
	return 0;

err_destroy_new:
	sroce_queue_destroy(nq);
	return err;
}

/*
 * IB_SRQ_MAX_WR replaces the ring (sroce_srq_resize(), first, so that a
 * limit given with it is checked against the new depth, before the switch:
 * a failed call leaves the old ring); IB_SRQ_LIMIT arms the limit event.
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = sroce_to_srq(ibsrq);
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)) {
		sroce_dbg_srq(srq, "modify_srq: attr_mask 0x%x: unknown bits 0x%x", mask,
			      mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT));
		return -EINVAL;
	}
	if (mask & IB_SRQ_MAX_WR) {
		/* a limit refused after the switch would leave the new ring unknown */
		err = sroce_srq_resize(srq, attr->max_wr,
				       (mask & IB_SRQ_LIMIT) ? attr->srq_limit : 0, udata);
		if (err)
			return err;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > READ_ONCE(srq->max_wr)) {
		sroce_dbg_srq(srq, "modify_srq: srq_limit %u > max_wr %u", attr->srq_limit,
			      READ_ONCE(srq->max_wr));
		return -EINVAL;
	}
	spin_lock_bh(&srq->lock);
	srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = sroce_to_srq(ibsrq);

	attr->max_wr = READ_ONCE(srq->max_wr);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = sroce_to_srq(ibsrq);

	/*
	 * The core destroys the SRQ's QPs first (usecnt); XRC TGT QPs are
	 * not counted: they find an XRC SRQ per packet, and stop finding it
	 * here.
	 */
	if (ibsrq->srq_type == IB_SRQT_XRC)
		sroce_xrc_srq_remove(srq);
	sroce_queue_destroy(srq->rq);
	srq->rq = NULL;
	atomic_dec(&sroce_to_dev(ibsrq->device)->srq_count);
	return 0;
}

/**
 * sroce_post_srq_recv() - ib_device_ops.post_srq_recv for a kernel SRQ
 * @ibsrq: the SRQ
 * @wr: the chain
 * @bad_wr: the first WR not posted, on error
 *
 * Context: any.
 * Return: 0; -EINVAL for too many SGEs (or a user SRQ, whose provider
 * posts into the ring itself); -ENOMEM when the ring is full.
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = sroce_to_srq(ibsrq);
	struct sroce_recv_wqe *w;
	struct sroce_queue *q;
	unsigned long flags;
	int err = 0;

	if (srq->user) {
		sroce_dbg_srq_rl(srq, "post_srq_recv: a user SRQ is posted to in its ring");
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->kpost_lock, flags);
	q = srq->rq;	/* stable under kpost_lock (sroce_srq_resize()) */
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > srq->max_sge) {
			sroce_dbg_srq_rl(srq, "post_srq_recv: num_sge %d > max_sge %u",
					 wr->num_sge, srq->max_sge);
			err = -EINVAL;
			break;
		}
		/* the consumer index is ours (a kernel ring): read it under the lock */
		if (q->prod - smp_load_acquire(&q->hdr->consumer) >= q->num_entries) {
			sroce_dbg_srq_rl(srq, "post_srq_recv: SRQ full (%u WRs posted)",
					 q->num_entries);
			err = -ENOMEM;
			break;
		}
		w = sroce_queue_at(q, q->prod);
		sroce_recv_wqe_fill(w, wr);
		q->prod++;
		/* release: the WQE is visible before the index that publishes it */
		smp_store_release(&q->hdr->producer, q->prod);
	}
	spin_unlock_irqrestore(&srq->kpost_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

static void sroce_srq_limit_event(struct sroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * sroce_srq_take() - take the next receive buffer out of an SRQ
 * @srq: the SRQ
 * @rqe: where the entry is copied (srq->stride bytes)
 *
 * Raises IB_EVENT_SRQ_LIMIT_REACHED, and disarms the limit, when fewer
 * than the limit remain posted.
 *
 * Context: softirq or process, not under srq->lock.
 * Return: 0; -EAGAIN when the SRQ is empty; -EOVERFLOW for a corrupt
 * producer index; -EINVAL for an entry with too many SGEs (taken and lost:
 * the provider wrote it, only its QP suffers).
 */
int sroce_srq_take(struct sroce_srq *srq, void *rqe)
{
	struct sroce_recv_wqe *w = rqe;
	bool event = false;
	int n;

	spin_lock_bh(&srq->lock);
	n = sroce_queue_avail(srq->rq);
	if (n <= 0) {
		spin_unlock_bh(&srq->lock);
		if (n < 0)
			sroce_dbg_srq_rl(srq, "SRQ producer index corrupt");
		return n < 0 ? -EOVERFLOW : -EAGAIN;
	}
	/* copy before validating: user space may change the ring at any time */
	memcpy(rqe, sroce_queue_at(srq->rq, srq->rq->cons), srq->stride);
	sroce_queue_consumed(srq->rq, 1);
	if (srq->limit && n - 1 < srq->limit) {
		srq->limit = 0;
		event = true;
	}
	spin_unlock_bh(&srq->lock);
	if (event)
		sroce_srq_limit_event(srq);
	if (w->num_sge > srq->max_sge) {
		sroce_dbg_srq_rl(srq, "SRQ entry: num_sge %u > max_sge %u", w->num_sge,
				 srq->max_sge);
		return -EINVAL;
	}
	return 0;
}

/**
 * sroce_recv_take() - the next receive buffer of a QP, from its RQ or SRQ
 * @qp: the QP
 * @rqe: where the entry is copied (qp->rq_stride bytes)
 *
 * An RQ entry stays in the ring until sroce_recv_done(); an SRQ entry is
 * taken out at once.
 *
 * Return: 0; -EAGAIN when none is posted; -EOVERFLOW (corrupt producer
 * index) or -EINVAL (too many SGEs): fatal for the QP.
 */
int sroce_recv_take(struct sroce_qp *qp, struct sroce_recv_wqe *rqe)
{
	int n;

	if (qp->xsrq)	/* XRC TGT: the XRC SRQ the request names */
		return sroce_srq_take(qp->xsrq, rqe);
	if (qp->srq)
		return sroce_srq_take(qp->srq, rqe);
	n = sroce_queue_avail(qp->rq);
	if (n < 0) {
		sroce_dbg_qp_rl(qp, "RQ producer index corrupt (consumed up to %u, %u entries)",
				qp->rq->cons, qp->rq->num_entries);
		return -EOVERFLOW;
	}
	if (!n)
		return -EAGAIN;
	/* copy before validating: user space may change the ring at any time */
	memcpy(rqe, sroce_queue_at(qp->rq, qp->rq->cons), qp->rq_stride);
	if (rqe->num_sge > qp->max_recv_sge) {
		sroce_dbg_qp_rl(qp, "RQ entry %u: num_sge %u > max_recv_sge %u", qp->rq->cons,
				rqe->num_sge, qp->max_recv_sge);
		return -EINVAL;
	}
	return 0;
}

/* The receive buffer taken by sroce_recv_take() is completed. */
void sroce_recv_done(struct sroce_qp *qp)
{
	if (!qp->srq && !qp->xsrq)
		sroce_queue_consumed(qp->rq, 1);
}
