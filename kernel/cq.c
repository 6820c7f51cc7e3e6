// SPDX-License-Identifier: GPL-2.0
/*
 * sroce completion queues.
 *
 * A CQ is a ring of struct sroce_cqe (queue.h). The transport produces
 * CQEs with sroce_cq_post(). A user CQ's ring is mmapped and polled by the
 * provider, which publishes its consumer index in the ring header; a kernel
 * CQ is polled by sroce_poll_cq(). Arming (req_notify_cq) and the
 * completion and error upcalls are the kernel's in both cases.
 *
 * resize_cq replaces the ring. Indices carry over: the new ring starts
 * with the old ring's producer and consumer indices and holds the
 * outstanding CQEs at the same (free-running) indices, so a consumer keeps
 * its index across the remap.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "queue.h"
#include "cq.h"
#include "qp.h"

/* Driver input must be empty (or zero), output must hold the response. */
static int sroce_cq_check_udata(struct ib_device *ibdev, const char *verb,
				struct ib_udata *udata, size_t resp_len)
{
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		sroce_dbg_dev(ibdev, "%s: %zu bytes of driver data not zero (takes none)", verb,
			      udata->inlen);
		return -EINVAL;
	}
	if (udata->outlen < resp_len) {
		sroce_dbg_dev(ibdev, "%s: response %zu bytes < %zu", verb, udata->outlen,
			      resp_len);
		return -EINVAL;
	}
	return 0;
}

/* A CQ depth: 1..SROCE_MAX_CQE, as a power-of-two ring; 0 if refused */
static u32 sroce_cq_entries(struct ib_device *ibdev, const char *verb, long long cqe)
{
	u32 n;

	if (cqe < 1 || cqe > SROCE_MAX_CQE) {
		sroce_dbg_dev(ibdev, "%s: cqe %lld outside 1..max_cqe %d", verb, cqe,
			      SROCE_MAX_CQE);
		return 0;
	}
	n = sroce_queue_entries_for(cqe);
	if (!n)
		sroce_dbg_dev(ibdev, "%s: cqe %lld needs a ring larger than %u entries", verb, cqe,
			      SROCE_QUEUE_MAX_ENTRIES);
	return n;
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG *arg)
{
	struct ib_udata *udata = sroce_cq_udata(arg);
	struct sroce_dev *sdev = sroce_to_dev(ibcq->device);
	struct sroce_create_cq_resp resp = {};
	struct sroce_cq *cq = sroce_to_cq(ibcq);
	u32 n;
	int err;

	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) {
		sroce_dbg_dev(ibcq->device, "create_cq: flags 0x%x: unsupported bits 0x%x",
			      attr->flags, attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION);
		return -EOPNOTSUPP;
	}
	n = sroce_cq_entries(ibcq->device, "create_cq", attr->cqe);
	if (!n)
		return -EINVAL;
	if (udata) {
		err = sroce_cq_check_udata(ibcq->device, "create_cq", udata, sizeof(resp));
		if (err)
			return err;
	}

	if (atomic_inc_return(&sdev->cq_count) > SROCE_MAX_CQ) {
		sroce_dbg_dev(ibcq->device, "create_cq: the device has max_cq %d CQs already",
			      SROCE_MAX_CQ);
		err = -ENOMEM;
		goto err_dec_count;
	}
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->user = !!udata;
	cq->timestamp = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	cq->queue = sroce_queue_create(udata, n, sizeof(struct sroce_cqe));
	if (IS_ERR(cq->queue)) {
		err = PTR_ERR(cq->queue);
		sroce_dbg_dev(ibcq->device, "create_cq: ring of %u CQEs: error %d", n, err);
		goto err_dec_count;
	}
	ibcq->cqe = n;

	if (udata) {
		sroce_queue_info(cq->queue, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_dbg_dev(ibcq->device, "create_cq: response not writable (%d)", err);
			goto err_destroy_queue;
		}
	}
	return 0;

err_destroy_queue:
	sroce_queue_destroy(cq->queue);
err_dec_count:
	atomic_dec(&sdev->cq_count);
	return err;
}

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = sroce_to_cq(ibcq);

	sroce_queue_destroy(cq->queue);
	cq->queue = NULL;
	mutex_destroy(&cq->resize_mutex);
	atomic_dec(&sroce_to_dev(ibcq->device)->cq_count);
	return 0;
}

/* The consumer index of @cq's ring: user space's (hostile) or our own. */
static u32 sroce_cq_consumer(struct sroce_cq *cq)
{
	lockdep_assert_held(&cq->lock);

	/* acquire: the CQEs user space consumed are read before we reuse them */
	return cq->user ? smp_load_acquire(&cq->queue->hdr->consumer) :
			  cq->queue->cons;
}

/**
 * sroce_resize_cq() - ib_device_ops.resize_cq: replace the ring
 * @ibcq: the CQ
 * @cqe: requested depth; rounded up to a power of two
 * @udata: user CQ: receives struct sroce_resize_cq_resp
 *
 * Outstanding CQEs are copied to the new ring at the same indices: a user
 * ring's after the switch, outside the CQ's lock (sroce_queue_carry_late()).
 * Resizes of one CQ run one at a time (cq->resize_mutex).
 *
 * Context: process; sleeps, for another resize of the CQ too.
 * Return: 0; -EINVAL for a bad depth, a depth below the outstanding CQEs
 * or a corrupt consumer index; -ENOMEM; -EFAULT; -EINTR if killed while
 * another resize of the CQ ran. On error the old ring is untouched.
 */
int sroce_resize_cq(struct ib_cq *ibcq, sroce_cqe_t cqe, struct ib_udata *udata)
{
	struct sroce_resize_cq_resp resp = {};
	struct sroce_cq *cq = sroce_to_cq(ibcq);
	struct sroce_queue *nq, *oq;
	unsigned long flags;
	u32 n, cons, prod;
	int err;

	n = sroce_cq_entries(ibcq->device, "resize_cq", cqe);
	if (!n)
		return -EINVAL;
	if (!udata != !cq->user) {
		sroce_dbg_cq(cq, "resize_cq: a %s CQ resized %s", cq->user ? "user" : "kernel",
			     udata ? "from user space" : "by the kernel");
		return -EINVAL;
	}
	if (udata) {
		err = sroce_cq_check_udata(ibcq->device, "resize_cq", udata, sizeof(resp));
		if (err)
			return err;
	}

	if (mutex_lock_killable(&cq->resize_mutex))
		return -EINTR;
	/* CQEs of work already posted count as outstanding */
	sroce_qp_sync_cq(ibcq);
	nq = sroce_queue_create(udata, n, sizeof(struct sroce_cqe));
	if (IS_ERR(nq)) {
		sroce_dbg_cq(cq, "resize_cq: ring of %u CQEs: error %ld", n, PTR_ERR(nq));
		err = PTR_ERR(nq);
		goto err_unlock;
	}
	/* before the switch: a failed copy must leave the old ring in place */
	if (udata) {
		sroce_queue_info(nq, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_dbg_cq(cq, "resize_cq: response not writable (%d)", err);
			goto err_destroy_new;
		}
	}

	spin_lock_irqsave(&cq->lock, flags);
	oq = cq->queue;
	cons = sroce_cq_consumer(cq);
	if (oq->prod - cons > oq->num_entries || oq->prod - cons > n) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (oq->prod - cons > oq->num_entries)
			sroce_dbg_cq(cq,
				     "resize_cq: consumer index %u is corrupt (producer %u, %u entries)",
				     cons, oq->prod, oq->num_entries);
		else
			sroce_dbg_cq(cq,
				     "resize_cq: cqe %lld (%u entries) < the %u CQEs not polled yet",
				     (long long)cqe, n, oq->prod - cons);
		err = -EINVAL;
		goto err_destroy_new;
	}
	prod = oq->prod;
	if (cq->user)
		sroce_queue_carry_indices(nq, cons, prod);
	else
		sroce_queue_carry(nq, oq, cons, prod);
	cq->queue = nq;
	ibcq->cqe = n;
	spin_unlock_irqrestore(&cq->lock, flags);

	/* a hostile consumer index asks for the whole ring: not IRQs off */
	if (cq->user)
		sroce_queue_carry_late(nq, oq, cons, prod);
	sroce_queue_destroy(oq);
	mutex_unlock(&cq->resize_mutex);
	return 0;

err_destroy_new:
	sroce_queue_destroy(nq);
err_unlock:
	mutex_unlock(&cq->resize_mutex);
	return err;
}

static void sroce_cqe_to_wc(struct sroce_dev *sdev, const struct sroce_cqe *cqe,
			    struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = sroce_qp_from_qpn(sdev, cqe->qp_num);
	wc->src_qp = cqe->src_qp;
	if (cqe->wc_flags & SROCE_WC_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (cqe->wc_flags & SROCE_WC_F_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->ex;
	} else if (cqe->wc_flags & SROCE_WC_F_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		/* as in struct ibv_wc: the rkey's bits, host order */
		wc->ex.invalidate_rkey = (__force u32)cqe->ex;
	}
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = cqe->port_num;
	if (cqe->network_hdr_type) {
		wc->network_hdr_type = cqe->network_hdr_type;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/**
 * sroce_poll_cq() - ib_device_ops.poll_cq for kernel CQs
 * @ibcq: the CQ
 * @num_entries: at most this many completions
 * @wc: filled in
 *
 * A user CQ is polled through its mmapped ring only.
 *
 * Return: completions returned, or -EOPNOTSUPP for a user CQ.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_dev *sdev = sroce_to_dev(ibcq->device);
	struct sroce_cq *cq = sroce_to_cq(ibcq);
	struct sroce_queue *q;
	unsigned long flags;
	int avail, i;

	if (cq->user) {
		sroce_dbg_cq(cq, "poll_cq: a user CQ is polled in its ring, not by the kernel");
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&cq->lock, flags);
	q = cq->queue;
	avail = sroce_queue_avail(q);
	if (avail < 0)
		avail = 0;	/* kernel ring: cannot happen */
	for (i = 0; i < min(avail, num_entries); i++)
		sroce_cqe_to_wc(sdev, sroce_queue_at(q, q->cons + i), &wc[i]);
	sroce_queue_consumed(q, i);
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

/**
 * sroce_req_notify_cq() - ib_device_ops.req_notify_cq: arm the CQ
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * NEXT_COMP is not downgraded to SOLICITED by a later request. The next
 * completion that matches disarms the CQ and calls its comp_handler.
 *
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was given and CQEs are pending,
 * else 0.
 */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = sroce_to_cq(ibcq);
	unsigned long irqflags;
	int pending = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS)
		pending = cq->queue->prod != sroce_cq_consumer(cq);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return pending;
}

static void sroce_cq_err_event(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * sroce_cq_post() - complete a work request: add a CQE to @cq
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: the completion is solicited (wakes an IB_CQ_SOLICITED arm)
 *
 * Safe from any context, with any number of concurrent posters. A full
 * ring, or a ring whose consumer index user space corrupted, is an
 * overflow: the CQ enters the error state, IB_EVENT_CQ_ERR is raised once
 * and this and every later post fail. The comp_handler is called without
 * the CQ lock held, so it may poll.
 *
 * Return: 0, or -ENOSPC when the CQ overflowed.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited)
{
	bool raise = false, notify = false;
	struct sroce_cqe *slot;
	struct sroce_queue *q;
	unsigned long flags;
	u64 ts = 0, wall = 0;
	u32 nent = 0;
	int err = 0;

	if (cq->timestamp) {
		ts = ktime_get_ns();
		wall = ktime_get_real_ns();
	}
	spin_lock_irqsave(&cq->lock, flags);
	q = cq->queue;
	if (cq->overflow) {
		cq->overflows++;
		err = -ENOSPC;
		goto out_unlock;
	}
	if (sroce_queue_free(q) <= 0) {
		cq->overflow = true;
		cq->overflows++;
		raise = true;
		nent = q->num_entries;
		err = -ENOSPC;
		goto out_unlock;
	}
	slot = sroce_queue_producer_at(q);
	memcpy(slot, cqe, sizeof(*cqe));
	slot->ts_ns = ts;
	slot->wallclock_ns = wall;
	sroce_queue_produce(q);
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		notify = true;
	}
out_unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	if (raise) {
		sroce_dbg_cq(cq,
			     "overflow: no free CQE in a ring of %u (or its consumer index corrupt): the CQ is in error",
			     nent);
		sroce_cq_err_event(cq);
	}
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return err;
}
