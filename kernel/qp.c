// SPDX-License-Identifier: GPL-2.0
/*
 * sroce QPs: the object, the IBTA state machine, QPN lookup for the receive
 * path, and the per-QP worker that runs the RC transport.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"
#include "sroce_psn.h"

#define SROCE_QPN_MIN		16
#define SROCE_QPN_MAX		0xffffff

/* QPNs are unique module-wide: the receive path finds a QP from the BTH
 * alone, then checks the namespace.
 */
static DEFINE_XARRAY_ALLOC(sroce_qp_xa);
static u32 sroce_next_qpn;
struct workqueue_struct *sroce_wq;

/**
 * sroce_qp_get_net() - find a QP for a received packet
 * @net: namespace of the socket the packet arrived on
 * @qpn: BTH destination QP
 *
 * Any context. Return: the QP with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_get_net(struct net *net, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sroce_qp_xa, qpn);
	if (qp && (!refcount_inc_not_zero(&qp->ref)))
		qp = NULL;
	rcu_read_unlock();
	if (qp && !net_eq(dev_net(qp->sdev->ndev), net)) {
		sroce_qp_put(qp);
		qp = NULL;
	}
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->freed);
}

/* ib_qp pointer for a QPN, for kernel CQ polling */
/*
 * The QP's memory outlives an RCU reader that found it: destroy_qp waits a
 * grace period after unpublishing it. The pointer is the kernel consumer's
 * to use, as with any CQE of a QP it has not destroyed yet.
 */
struct ib_qp *sroce_qp_from_qpn(struct sroce_dev *sdev, u32 qpn)
{
	struct ib_qp *ibqp = NULL;
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = qpn == SROCE_GSI_QPN ? READ_ONCE(sdev->gsi_qp) : xa_load(&sroce_qp_xa, qpn);
	if (qp && qp->sdev == sdev)
		ibqp = &qp->ibqp;
	rcu_read_unlock();
	return ibqp;
}

/**
 * sroce_qp_peer_ok() - does a packet come from the RC QP's connected peer?
 * @qp: destination QP
 * @iph: the packet's IP header
 * @v6: @iph is IPv6
 */
bool sroce_qp_peer_ok(struct sroce_qp *qp, const u8 *iph, bool v6)
{
	if (v6 != qp->path.ipv6)
		return false;
	if (!v6)
		return ((const struct iphdr *)iph)->saddr == qp->path.daddr4;
	return ipv6_addr_equal(&((const struct ipv6hdr *)iph)->saddr,
			       &qp->path.daddr6);
}

/* The next QP at or after *@index completing to @ibcq, referenced */
static struct sroce_qp *sroce_qp_next_of_cq(struct ib_cq *ibcq,
					    unsigned long *index)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	xa_for_each_start(&sroce_qp_xa, *index, qp, *index) {
		if ((qp->ibqp.send_cq == ibcq || qp->ibqp.recv_cq == ibcq) &&
		    refcount_inc_not_zero(&qp->ref))
			break;
	}
	rcu_read_unlock();
	return qp;
}

/**
 * sroce_qp_sync_cq() - let every QP completing to @ibcq catch up with its
 *	rings
 * @ibcq: the CQ
 *
 * Flushes the worker of each QP whose send or receive CQ is @ibcq, so
 * completions of work posted (and doorbelled) before the call are in the
 * CQ when it returns. resize_cq uses it to judge how many CQEs are really
 * outstanding. (The GSI QP is not in the QPN table: its CQs are ib_mad's,
 * which never resizes them.)
 *
 * Context: process, may sleep.
 */
void sroce_qp_sync_cq(struct ib_cq *ibcq)
{
	unsigned long index = 0;
	struct sroce_qp *qp;

	while ((qp = sroce_qp_next_of_cq(ibcq, &index))) {
		flush_work(&qp->work);
		sroce_qp_put(qp);
		index++;
	}
}

void sroce_qp_sched(struct sroce_qp *qp)
{
	queue_work(sroce_wq, &qp->work);
}

/* Raise an affiliated asynchronous event of @qp. */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* Move to ERR from any context that holds no QP lock; the worker flushes. */
void sroce_qp_error(struct sroce_qp *qp)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&qp->state_lock, flags);
	changed = qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET;
	if (changed) {
		qp->state = IB_QPS_ERR;
		qp->attr.qp_state = IB_QPS_ERR;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (changed) {
		sroce_qp_event(qp, IB_EVENT_QP_FATAL);
		sroce_qp_sched(qp);
	}
}

static void sroce_retrans_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retrans_timer);

	set_bit(SROCE_QP_EV_TIMEOUT, &qp->events);
	sroce_qp_sched(qp);
}

static void sroce_rnr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);

	set_bit(SROCE_QP_EV_RNR_DONE, &qp->events);
	sroce_qp_sched(qp);
}

/**
 * sroce_qp_drain_rx() - hand the queued received packets to @rx, in order
 * @qp: the QP
 * @rx: the transport's receive handler
 *
 * At most 256 packets per call; the caller reschedules if more are left.
 */
void sroce_qp_drain_rx(struct sroce_qp *qp,
		       void (*rx)(struct sroce_qp *qp, struct sk_buff *skb,
				  const struct sroce_pkt_hdr *hdr))
{
	struct sroce_pkt_hdr hdr;
	struct sk_buff *skb;
	int budget = 256;

	lockdep_assert_held(&qp->lock);

	while (budget-- && (skb = skb_dequeue(&qp->rxq))) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RX_PKTS);
		/* parsed and checked on arrival; parse again for the fields */
		if (!sroce_pkt_parse(skb->data + sizeof(struct udphdr),
				     skb->len - sizeof(struct udphdr), &hdr))
			rx(qp, skb, &hdr);
		kfree_skb(skb);
	}
}

static void sroce_rc_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr)
{
	const u8 *iph = skb_network_header(skb);

	/* qp->path changes under qp->lock (modify_qp): check it here */
	if (!sroce_qp_peer_ok(qp, iph, (iph[0] >> 4) == 6)) {
		atomic64_inc(&sroce_rx_drops[SROCE_DROP_HDR]);
		return;
	}
	if (hdr->info->flags & (SROCE_OPF_RESP | SROCE_OPF_ACK))
		sroce_completer_rx(qp, skb, hdr);
	else
		sroce_responder_rx(qp, skb, hdr);
}

/**
 * sroce_qp_process() - the QP's transport: receive, timers, send
 * @qp: the QP
 * @budget: request packets the requester may send in this run
 *
 * Drains qp->rxq in arrival order (responder and completer), handles the
 * timer events, then lets the requester send within the windows.
 */
static void sroce_qp_process(struct sroce_qp *qp, int budget)
{
	lockdep_assert_held(&qp->lock);

	sroce_qp_drain_rx(qp, sroce_rc_rx);
	sroce_responder_flush_acks(qp);
	if (test_and_clear_bit(SROCE_QP_EV_TIMEOUT, &qp->events))
		sroce_completer_timeout(qp);
	if (test_and_clear_bit(SROCE_QP_EV_RNR_DONE, &qp->events))
		sroce_completer_rnr_done(qp);

	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTS:
		sroce_responder_send_reads(qp);
		sroce_requester(qp, budget);
		break;
	case IB_QPS_SQD:
		sroce_responder_send_reads(qp);
		sroce_requester(qp, budget);
		/* drained: every message started before SQD is acknowledged */
		if (!qp->sq_drained_sent && !sroce_req_busy(&qp->req)) {
			qp->sq_drained_sent = true;
			sroce_qp_event(qp, IB_EVENT_SQ_DRAINED);
		}
		break;
	case IB_QPS_RTR:
		sroce_responder_send_reads(qp);
		break;
	case IB_QPS_ERR:
		sroce_flush(qp);
		break;
	default:
		break;
	}
}

/* Request packets per run: the work item may send more than a softirq. */
#define SROCE_WORK_BUDGET	64
#define SROCE_KICK_BUDGET	32

unsigned int sroce_sq_poll_us;	/* off: see Documentation/transport.rst */
module_param_named(sq_poll_us, sroce_sq_poll_us, uint, 0644);
MODULE_PARM_DESC(sq_poll_us,
		 "microseconds a streaming QP waits for the next post before asking for a doorbell (0: always ask)");

/* Arm the polling grace's end: the transport runs again then. */
static void sroce_qp_arm_poll(struct sroce_qp *qp, u64 until)
{
	u64 now = ktime_get_ns();

	hrtimer_start(&qp->poll_timer, ns_to_ktime(until > now ? until - now : 0),
		      HRTIMER_MODE_REL_SOFT);
}

static enum hrtimer_restart sroce_poll_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, poll_timer);

	sroce_qp_kick(qp);
	return HRTIMER_NORESTART;
}

/* Rounds one context runs a QP for others before handing it to the worker */
#define SROCE_KICK_ROUNDS	8

/**
 * sroce_qp_run_unlock() - run the transport, drop the lock, follow up
 * @qp: the QP, its lock held
 * @budget: request packets per round
 *
 * A context that found the lock taken (sroce_qp_kick()) leaves
 * SROCE_QP_EV_KICK set and returns: the holder runs another round for it
 * here, up to SROCE_KICK_ROUNDS, then hands the QP to the work item. A
 * round that leaves received packets queued (past the receive budget) also
 * ends in the work item, so no context holds the QP for long.
 */
static void sroce_qp_run_unlock(struct sroce_qp *qp, int budget)
	__releases(&qp->lock)
{
	int rounds = SROCE_KICK_ROUNDS;
	bool poll;
	u64 until;

	for (;;) {
		lockdep_assert_held(&qp->lock);
		/* ordered: what a kicker queued before setting the bit is seen */
		test_and_clear_bit(SROCE_QP_EV_KICK, &qp->events);
		sroce_qp_process(qp, budget);
		poll = qp->req.want_poll;
		qp->req.want_poll = false;
		until = qp->req.poll_until;
		spin_unlock_bh(&qp->lock);
		if (poll)
			sroce_qp_arm_poll(qp, until);
		/* pairs with sroce_qp_kick(): it sees the lock free or we see the bit */
		smp_mb();
		if (!test_bit(SROCE_QP_EV_KICK, &qp->events)) {
			/* left over past the receive budget, nobody kicked: go on later */
			if (!skb_queue_empty(&qp->rxq))
				sroce_qp_sched(qp);
			return;
		}
		if (!--rounds) {
			sroce_qp_sched(qp);
			return;
		}
		/* taken meanwhile: that context clears the bit and runs the round */
		if (!spin_trylock_bh(&qp->lock))
			return;
	}
}

static void sroce_qp_work(struct work_struct *w)
{
	struct sroce_qp *qp = container_of(w, struct sroce_qp, work);

	spin_lock_bh(&qp->lock);
	sroce_qp_run_unlock(qp, SROCE_WORK_BUDGET);
}

/**
 * sroce_qp_kick() - run the QP's transport here if nobody else is
 * @qp: the QP (a reference held by the caller)
 *
 * Softirq (a packet was queued to qp->rxq) or process context (doorbell).
 * When another context holds the lock, the kick is left for it as
 * SROCE_QP_EV_KICK: the holder runs another round before it lets go, so
 * neither a work item wakeup nor spinning is needed.
 */
void sroce_qp_kick(struct sroce_qp *qp)
{
	/* UD and GSI QPs run in their work item only (sroce_ud_work()) */
	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC) {
		sroce_qp_sched(qp);
		return;
	}
	set_bit(SROCE_QP_EV_KICK, &qp->events);
	/* pairs with sroce_qp_run_unlock() and sroce_modify_qp() */
	smp_mb__after_atomic();
	if (spin_trylock_bh(&qp->lock))
		sroce_qp_run_unlock(qp, SROCE_KICK_BUDGET);
}

/* ---- create / destroy ------------------------------------------------ */

static int sroce_qp_check_init(struct sroce_dev *sdev, struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:	/* QP1: ib_mad's, on port 1 */
		if (udata || init->port_num != SROCE_PORT)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->srq && init->qp_type == IB_QPT_GSI)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	/* 0 WRs: a QP that only receives, or only sends */
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE || cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	/* with an SRQ the receive capabilities are the SRQ's */
	if (!init->srq && (cap->max_recv_wr > SROCE_MAX_QP_WR ||
			   cap->max_recv_sge > SROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_create_qp_resp resp = {};
	struct ib_qp_cap *cap = &init->cap;
	u32 qpn, ssge, rsge;
	int err;

	err = sroce_qp_check_init(sdev, init, udata);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->qp_count) > SROCE_MAX_QP) {
		err = -ENOMEM;
		goto err_dec_count;
	}

	ssge = max(cap->max_send_sge, 1u);
	rsge = max(cap->max_recv_sge, 1u);
	qp->sdev = sdev;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	/* a queue asked with 0 WRs gets a ring of one entry nobody may post to */
	qp->has_sq = cap->max_send_wr;
	qp->has_rq = cap->max_recv_wr && !init->srq;
	qp->sq_entries = roundup_pow_of_two(max(cap->max_send_wr, 1u));
	qp->rq_entries = roundup_pow_of_two(max(cap->max_recv_wr, 1u));
	qp->sq_stride = ALIGN(sizeof(struct sroce_send_wqe) +
			      max_t(u32, ssge * sizeof(struct sroce_sge),
				    cap->max_inline_data), 16);
	qp->rq_stride = ALIGN(sizeof(struct sroce_recv_wqe) +
			      rsge * sizeof(struct sroce_sge), 16);
	if (init->srq) {
		/* an RQ of one entry nobody posts to; receives come from the SRQ */
		qp->srq = to_ssrq(init->srq);
		qp->rq_entries = 1;
		qp->rq_stride = qp->srq->stride;
		rsge = qp->srq->max_sge;
	}
	qp->max_send_sge = ssge;
	qp->max_recv_sge = rsge;
	qp->max_inline = qp->sq_stride - sizeof(struct sroce_send_wqe);

	qp->sq = sroce_queue_create(udata, qp->sq_entries, qp->sq_stride);
	if (IS_ERR(qp->sq)) {
		err = PTR_ERR(qp->sq);
		goto err_dec_count;
	}
	qp->rq = sroce_queue_create(udata, qp->rq_entries, qp->rq_stride);
	if (IS_ERR(qp->rq)) {
		err = PTR_ERR(qp->rq);
		goto err_destroy_sq;
	}
	qp->sq_shadow = kvcalloc(qp->sq_entries, qp->sq_stride, GFP_KERNEL_ACCOUNT);
	qp->swqe = kvcalloc(qp->sq_entries, sizeof(*qp->swqe), GFP_KERNEL_ACCOUNT);
	qp->resp.rqe = kzalloc(qp->rq_stride, GFP_KERNEL_ACCOUNT);
	/*
	 * An RC QP's one path is routed once; a UD QP's path changes with
	 * every WQE's AH, so its cache stays unset and every lookup misses.
	 */
	if (!qp->sq_shadow || !qp->swqe || !qp->resp.rqe ||
	    (init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI &&
	     dst_cache_init(&qp->dst_cache, GFP_KERNEL))) {
		err = -ENOMEM;
		goto err_free_shadow;
	}

	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->mtu = 1024;
	spin_lock_init(&qp->kpost_lock);
	INIT_WORK(&qp->work, init->qp_type == IB_QPT_RC || init->qp_type == IB_QPT_UC ?
		  sroce_qp_work : sroce_ud_work);
	skb_queue_head_init(&qp->rxq);
	timer_setup(&qp->retrans_timer, sroce_retrans_timer, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer, 0);
	hrtimer_init(&qp->poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->poll_timer.function = sroce_poll_timer;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->freed);
	/* the first post must ring the doorbell */
	qp->sq->hdr->flags = SROCE_RING_F_NEED_WAKEUP;

	/*
	 * A user QP's number is reserved here (lookups find nothing) and
	 * published only once nothing can fail any more: the receive path
	 * must never find a QP that is about to be freed.
	 */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = SROCE_GSI_QPN;
		err = sroce_gsi_add(qp);
	} else {
		err = xa_alloc_cyclic(&sroce_qp_xa, &qpn, NULL,
				      XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX),
				      &sroce_next_qpn, GFP_KERNEL);
	}
	if (err < 0)
		goto err_free_shadow;
	ibqp->qp_num = qpn;

	cap->max_send_wr = qp->has_sq ? qp->sq_entries : 0;
	cap->max_recv_wr = qp->has_rq ? qp->rq_entries : 0;
	cap->max_send_sge = ssge;
	cap->max_recv_sge = qp->has_rq ? rsge : 0;
	cap->max_inline_data = qp->max_inline;

	if (udata) {
		/* else num_entries 0: no ring to post to */
		if (qp->has_sq)
			sroce_queue_info(qp->sq, &resp.sq);
		if (qp->has_rq)
			sroce_queue_info(qp->rq, &resp.rq);
		resp.qpn = qpn;
		err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_release_qpn;
	}
	if (init->qp_type != IB_QPT_GSI) {
		/* publish: a reserved entry reads as NULL until this store */
		err = xa_err(xa_store(&sroce_qp_xa, qpn, qp, GFP_KERNEL));
		if (err)
			goto err_release_qpn;
	}
	return 0;

err_release_qpn:
	if (init->qp_type == IB_QPT_GSI)
		sroce_gsi_del(qp);
	else
		xa_erase(&sroce_qp_xa, qpn);
err_free_shadow:
	dst_cache_destroy(&qp->dst_cache);	/* safe if never initialised */
	kfree(qp->resp.rqe);
	kvfree(qp->swqe);
	kvfree(qp->sq_shadow);
	sroce_queue_destroy(qp->rq);
err_destroy_sq:
	sroce_queue_destroy(qp->sq);
err_dec_count:
	atomic_dec(&sdev->qp_count);
	return err;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	spin_lock_irq(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	spin_unlock_irq(&qp->state_lock);

	if (ibqp->qp_type == IB_QPT_GSI)
		sroce_gsi_del(qp);
	else
		xa_erase(&sroce_qp_xa, ibqp->qp_num);
	/*
	 * The receive path looks QPs up under RCU: once a grace period has
	 * passed no reader can still be about to take a reference, and the
	 * ones taken are waited for.
	 */
	synchronize_rcu();
	sroce_qp_put(qp);
	wait_for_completion(&qp->freed);

	timer_shutdown_sync(&qp->retrans_timer);
	timer_shutdown_sync(&qp->rnr_timer);
	/*
	 * The poll timer and the work item may start each other; in RESET
	 * neither does any more, so one more round stops both for good.
	 */
	hrtimer_cancel(&qp->poll_timer);
	cancel_work_sync(&qp->work);
	hrtimer_cancel(&qp->poll_timer);
	cancel_work_sync(&qp->work);
	skb_queue_purge(&qp->rxq);
	sroce_responder_release(qp);

	dst_cache_destroy(&qp->dst_cache);
	kfree(qp->resp.rqe);
	kvfree(qp->swqe);
	kvfree(qp->sq_shadow);
	sroce_queue_destroy(qp->rq);
	sroce_queue_destroy(qp->sq);
	atomic_dec(&qp->sdev->qp_count);
	return 0;
}

/* ---- modify / query -------------------------------------------------- */

static int sroce_qp_set_path(struct sroce_qp *qp, const struct ib_qp_attr *attr)
{
	struct sroce_path path;
	int err;

	err = sroce_path_from_ah_attr(&attr->ah_attr, &path);
	if (!err)
		qp->path = path;
	return err;
}

static int sroce_qp_check_attr(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			       int mask, bool may_priv_qkey)
{
	int port_mtu;

	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	/* no larger than the port's active MTU: such packets would not fit */
	port_mtu = sroce_ib_mtu_from_netdev_mtu(READ_ONCE(qp->sdev->ndev->mtu));
	if ((mask & IB_QP_PATH_MTU) && (!port_mtu || attr->path_mtu > port_mtu))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MAX)
		return -EINVAL;
	/* a controlled Q_Key (high bit set) is for privileged consumers */
	if ((mask & IB_QP_QKEY) && (attr->qkey & SROCE_QKEY_PRIVILEGED) &&
	    !may_priv_qkey)
		return -EPERM;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if ((mask & IB_QP_CAP) && (attr->cap.max_send_wr > qp->sq_entries ||
				   attr->cap.max_recv_wr > qp->rq_entries))
		return -EINVAL;
	return 0;
}

/*
 * Discard what a ring holds: the consumer jumps to the producer, so the
 * provider sees every slot free without having to reset its own index.
 */
static u32 sroce_queue_discard(struct sroce_queue *q)
{
	u32 prod = READ_ONCE(q->hdr->producer);

	sroce_queue_consumed(q, prod - q->cons);
	return prod;
}

/* Forget all transport state: RESET, or a fresh INIT. */
static void sroce_qp_reset_transport(struct sroce_qp *qp)
{
	u32 idx;

	lockdep_assert_held(&qp->lock);

	memset(&qp->req, 0, sizeof(qp->req));
	idx = sroce_queue_discard(qp->sq);
	qp->req.comp_idx = idx;
	qp->req.send_idx = idx;
	qp->req.started = idx;
	qp->req.fetched = idx;
	sroce_queue_discard(qp->rq);
	sroce_responder_reset(qp);
	/* nothing of the old connection survives: packets, timers, their events */
	skb_queue_purge(&qp->rxq);
	timer_delete(&qp->retrans_timer);
	timer_delete(&qp->rnr_timer);
	/* a kick may be pending from another context: keep it (see sroce_qp_kick()) */
	clear_bit(SROCE_QP_EV_TIMEOUT, &qp->events);
	clear_bit(SROCE_QP_EV_RNR_DONE, &qp->events);
	qp->flushed = false;
	qp->sq_drained_sent = false;
	qp->comm_est_sent = false;
	qp->sq->hdr->flags = SROCE_RING_F_NEED_WAKEUP;
	qp->rq->hdr->flags = 0;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, next;
	bool may_priv_qkey;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EINVAL;
	/* capable() may sleep (audit): ask before taking the locks */
	may_priv_qkey = !qp->ibqp.uobject ||
		!((mask & IB_QP_QKEY) && (attr->qkey & SROCE_QKEY_PRIVILEGED)) ||
		capable(CAP_NET_RAW);

	spin_lock_bh(&qp->lock);
	spin_lock_irq(&qp->state_lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = -EINVAL;
	if (cur != qp->state || !ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		goto out_unlock;
	err = sroce_qp_check_attr(qp, attr, mask, may_priv_qkey);
	if (err)
		goto out_unlock;
	if (mask & IB_QP_AV) {
		err = sroce_qp_set_path(qp, attr);
		if (err)
			goto out_unlock;
		dst_cache_reset(&qp->dst_cache);
		qp->attr.ah_attr = attr->ah_attr;
		/* the core's reference is only good for this call */
		qp->attr.ah_attr.grh.sgid_attr = NULL;
	}

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		WRITE_ONCE(qp->attr.qkey, attr->qkey);
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_PATH_MTU) {
		qp->attr.path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->path.sport = htons(sroce_udp_sport(ibqp->qp_num,
						       qp->attr.dest_qp_num));

	if (mask & IB_QP_STATE) {
		switch (next) {
		case IB_QPS_RESET:
		case IB_QPS_INIT:
			if (cur == IB_QPS_RESET || next == IB_QPS_RESET)
				sroce_qp_reset_transport(qp);
			break;
		case IB_QPS_RTR:
			qp->resp.psn = qp->attr.rq_psn;
			break;
		case IB_QPS_SQD:
			qp->sq_drained_sent = false;
			break;
		case IB_QPS_RTS:
			if (cur == IB_QPS_RTR) {
				qp->req.psn = qp->attr.sq_psn;
				qp->req.una_psn = qp->attr.sq_psn;
				qp->req.retry_left = qp->attr.retry_cnt;
				qp->req.rnr_left = qp->attr.rnr_retry;
				qp->req.backoff = 0;
			}
			break;
		default:
			break;
		}
		qp->state = next;
		qp->attr.qp_state = next;
		qp->attr.cur_qp_state = next;
	}
	err = 0;
out_unlock:
	spin_unlock_irq(&qp->state_lock);
	spin_unlock_bh(&qp->lock);
	/* a kick that found us holding the lock (see sroce_qp_kick()) */
	smp_mb();
	if (test_bit(SROCE_QP_EV_KICK, &qp->events) ||
	    (!err && (mask & IB_QP_STATE) && next != cur &&
	     (next == IB_QPS_ERR || next == IB_QPS_RTS || next == IB_QPS_SQD)))
		sroce_qp_sched(qp);
	return err;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	spin_lock_irq(&qp->state_lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	spin_unlock_irq(&qp->state_lock);
	attr->cap.max_send_wr = qp->sq_entries;
	attr->cap.max_recv_wr = qp->rq_entries;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->sq_draining = 0;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* ---- posting ------------------------------------------------------- */

/*
 * User QPs post into the mmapped rings; a post_send that reaches the
 * kernel is the doorbell (the provider sends it with no WRs when the
 * worker asked for it with SROCE_RING_F_NEED_WAKEUP).
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_ring_hdr *h = qp->sq->hdr;

	if (wr && !qp->sq->mmap)
		return sroce_kpost_send(qp, wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(h->doorbells, READ_ONCE(h->doorbells) + 1);
	sroce_stat_inc(qp->sdev, SROCE_STAT_DOORBELLS);
	sroce_req_doorbell(qp);
	sroce_qp_kick(qp);
	return 0;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (wr && !qp->rq->mmap)
		return sroce_kpost_recv(qp, wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* a doorbell on the RQ: only needed to flush posts made in ERR */
	sroce_qp_kick(qp);
	return 0;
}

/* ---- debugfs: /sys/kernel/debug/sroce/qps ------------------------- */

static struct dentry *sroce_debugfs;

/* One line of transport state per QP; racy snapshot, for debugging only. */
static int sroce_qps_show(struct seq_file *m, void *v)
{
	struct sroce_qp *qp;
	unsigned long qpn;

	rcu_read_lock();
	xa_for_each(&sroce_qp_xa, qpn, qp) {
		const struct sroce_req *rq = &qp->req;

		seq_printf(m, "%s qpn %lu state %d psn %u una %u send %u/%u comp %u started %u fetched %u prod %u flags %#x rd %u rdgap %d rnr %d retry %d left %u | epsn %u msn %u ackp %d reads %u nakd %d | rxq %u work %d timer %d ev %#lx\n",
			   dev_name(&qp->sdev->ib_dev.dev), qpn, READ_ONCE(qp->state),
			   rq->psn, rq->una_psn, rq->send_idx, rq->send_off,
			   rq->comp_idx, rq->started, rq->fetched,
			   qp->sq ? READ_ONCE(qp->sq->hdr->producer) : 0,
			   qp->sq ? READ_ONCE(qp->sq->hdr->flags) : 0,
			   rq->rd_outstanding, rq->rd_gap, rq->rnr_wait, rq->need_retry,
			   rq->retry_left, qp->resp.psn, qp->resp.msn, qp->resp.ack_pending,
			   qp->resp.rd_tail - qp->resp.rd_head, qp->resp.nak_deferred,
			   skb_queue_len(&qp->rxq), work_pending(&qp->work),
			   timer_pending(&qp->retrans_timer), READ_ONCE(qp->events));
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_qps);

int sroce_qp_init_module(void)
{
	/*
	 * Per-CPU, not unbound: a QP's work item runs on the CPU that queued
	 * it, so a burst that a system call or softirq started and the work
	 * item continues enters the network stack from one CPU. Over veth
	 * and lo each CPU has its own receive backlog: two CPUs sending one
	 * QP's packets reorder them, which RC pays for with NAKs and resends
	 * and UC with lost messages.
	 */
	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI, 0);
	if (!sroce_wq)
		return -ENOMEM;
	sroce_debugfs = debugfs_create_dir("sroce", NULL);
	debugfs_create_file("qps", 0400, sroce_debugfs, NULL, &sroce_qps_fops);
	return 0;
}

void sroce_qp_exit_module(void)
{
	debugfs_remove_recursive(sroce_debugfs);
	destroy_workqueue(sroce_wq);
}
