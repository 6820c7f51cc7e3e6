// SPDX-License-Identifier: GPL-2.0
/*
 * sroce transport scheduler: who runs a QP's transport, and when.
 *
 * The requester, responder and completer of an RC or UC QP run under
 * qp->lock in whichever context has work for them: the softirq that
 * received a packet (sroce_sched_rx()), the system call that rang a
 * doorbell (sroce_sched_post_send()), or the QP's work item, which timers,
 * yields, contended kicks and deferred doorbells use. A QP's work item is
 * queued on one workqueue only (sroce_qp_wq()): a user QP's on sroce_wq,
 * per-CPU, a kernel ULP's on sroce_kwq, unbound, whose posts always take
 * it; so no user's round ever runs on the ULPs' queue. UD and GSI QPs
 * always run in their work item.
 *
 * Layering: the network receive path and the verbs entry points call the
 * scheduler; the scheduler calls the roles (requester, responder,
 * completer, ud); the roles use the objects (qp, mr, cq, srq, queue) and
 * transmit through xmit.c. A role never schedules: it fails a QP with
 * sroce_qp_set_error() and asks for another round with sroce_qp_yield(),
 * and the scheduler acts on both when the round ends.
 */
#include <linux/module.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "trace.h"
#include "kpost.h"
#include "ud.h"
#include "requester.h"
#include "completer.h"
#include "responder.h"
#include "dcqcn.h"
#include "xmit.h"
#include "recv.h"
#include "sched.h"
#include "odp.h"

static struct workqueue_struct *sroce_wq;	/* user space's QPs */
static struct workqueue_struct *sroce_kwq;	/* kernel ULPs' QPs */

/*
 * The one workqueue a QP's work item is ever queued on, fixed when the QP
 * is created. The workqueue core runs a work item one instance at a time
 * only while it is always queued on the same workqueue, and
 * cancel_work_sync() waits only for the instance of the workqueue it was
 * last queued on: a second workqueue would let two rounds' tails run at
 * once and one outlive sroce_sched_stop_qp().
 */
static struct workqueue_struct *sroce_qp_wq(const struct sroce_qp *qp)
{
	return qp->kernel ? sroce_kwq : sroce_wq;
}

/**
 * sroce_sched_queue() - queue the QP's work item (a round soon, elsewhere)
 * @qp: the QP
 *
 * Nothing is queued once sroce_sched_stop_qp() has begun.
 */
void sroce_sched_queue(struct sroce_qp *qp)
{
	if (unlikely(READ_ONCE(qp->stopping)))
		return;
	queue_work(sroce_qp_wq(qp), &qp->work);
}

/*
 * sroce_sched_queue_away() - queue the QP's work item on another online CPU
 * than this one (the doorbell deferral's worker: the poster goes on here),
 * on the QP's one workqueue. When the item is running already, the
 * workqueue core queues it behind that instance wherever it runs, so it
 * never runs twice at once.
 */
static void sroce_sched_queue_away(struct sroce_qp *qp)
{
	unsigned int cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	if (unlikely(READ_ONCE(qp->stopping)))
		return;
	queue_work_on(cpu, sroce_qp_wq(qp), &qp->work);
}

/*
 * A QP's work item runs one instance at a time (sroce_qp_wq()): checked in
 * every module, so a path that ever runs it twice shows in the selftests'
 * kernel log (a WARNING), not as a use-after-free in a user's crash.
 */
static void sroce_qp_work_enter(struct sroce_qp *qp)
{
	WARN_ON_ONCE(atomic_inc_return(&qp->work_running) != 1);
}

static void sroce_qp_work_exit(struct sroce_qp *qp)
{
	atomic_dec(&qp->work_running);
}

/**
 * sroce_sched_sync_cq() - let every QP completing to @ibcq catch up with its
 *	rings
 * @ibcq: the CQ
 *
 * Flushes the worker of each QP whose send or receive CQ is @ibcq (and of
 * every XRC TGT QP of its device: any XRC SRQ's CQ may get theirs), so
 * completions of work posted (and doorbelled) before the call are in the
 * CQ when it returns. resize_cq uses it to judge how many CQEs are really
 * outstanding. (The GSI QP is not in the QPN table: its CQs are ib_mad's,
 * which never resizes them.)
 *
 * Context: process, may sleep.
 */
static void sroce_sched_sync_cq(struct ib_cq *ibcq)
{
	unsigned long index = 0;
	struct sroce_qp *qp;

	while ((qp = sroce_qp_next(ibcq, &index))) {
		flush_work(&qp->work);
		sroce_qp_put(qp);
		index++;
	}
}

/**
 * sroce_sched_flush() - complete everything the QP holds with WR_FLUSH_ERR
 * @qp: the QP, in ERR, its transport running here
 *
 * The QP-wide flush is the scheduler's: one flush per role, the send side
 * (sroce_req_flush()) and the receive side (sroce_responder_flush()).
 */
static void sroce_sched_flush(struct sroce_qp *qp)
{
	sroce_req_flush(qp);
	sroce_responder_flush(qp);
}

static void sroce_retrans_timer(struct timer_list *t)
{
	struct sroce_qp *qp = sroce_timer_container_of(qp, t, retrans_timer);

	set_bit(SROCE_QP_EV_TIMEOUT, &qp->events);
	sroce_sched_queue(qp);
}

static void sroce_rnr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = sroce_timer_container_of(qp, t, rnr_timer);

	set_bit(SROCE_QP_EV_RNR_DONE, &qp->events);
	sroce_sched_queue(qp);
}

static void sroce_sr_timer(struct timer_list *t)
{
	struct sroce_qp *qp = sroce_timer_container_of(qp, t, sr_timer);

	set_bit(SROCE_QP_EV_SR_GAP, &qp->events);
	sroce_sched_queue(qp);
}

/* A CNP for a QP doing DCQCN (recv.c checked the rest): from its peer? */
static void sroce_rc_cnp(struct sroce_qp *qp, struct sk_buff *skb)
{
	const u8 *iph = skb_network_header(skb);

	if (!qp->dcqcn.on || !sroce_qp_peer_ok(qp, iph, (iph[0] >> 4) == 6)) {
		sroce_drop_count(SROCE_DROP_CNP, qp->ibqp.qp_num);
		return;
	}
	sroce_dcqcn_cnp_rx(qp, skb);
}

/*
 * Received packets wait to be taken (not parked behind an ODP fault, see
 * sroce_qp_drain_rx()). Read after qp->lock is dropped: the wake-up that
 * ends a park kicks the QP, so a stale answer loses nothing.
 */
static bool sroce_rxq_ready(struct sroce_qp *qp)
{
	return !skb_queue_empty(&qp->rxq) && !READ_ONCE(qp->resp.odp_park);
}

/* rx_backlog_dev_kb: what all QPs of one device may have queued, KiB */
unsigned int sroce_dev_rxq_kb = 64 << 10;

static int sroce_dev_rxq_kb_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 64, 4 << 20);
}

static const struct kernel_param_ops sroce_dev_rxq_kb_ops = {
	.set = sroce_dev_rxq_kb_set,
	.get = param_get_uint,
};
module_param_cb(rx_backlog_dev_kb, &sroce_dev_rxq_kb_ops, &sroce_dev_rxq_kb, 0644);
MODULE_PARM_DESC(rx_backlog_dev_kb,
		 "KiB of received packets all QPs of one device may have queued or hold (selective repeat), 64 to 4194304 (default 65536); more are dropped (rx_drop_dev_backlog, sr_hold_drops)");

/*
 * Count @skb as queued to @qp, on the QP and on its device (both bounds:
 * sroce_rxq_full(), sroce_dev_rxq_full()). Return: the QP's new bytes.
 */
static unsigned int sroce_rxq_charge(struct sroce_qp *qp, const struct sk_buff *skb)
{
	percpu_counter_add_batch(&qp->sdev->rxq_bytes, skb->truesize, SROCE_DEV_RXQ_BATCH);
	return atomic_add_return(skb->truesize, &qp->rxq_bytes);
}

/* @skb, taken off @qp's queue, no longer counts */
static void sroce_rxq_uncharge(struct sroce_qp *qp, const struct sk_buff *skb)
{
	percpu_counter_add_batch(&qp->sdev->rxq_bytes, -(s64)skb->truesize,
				 SROCE_DEV_RXQ_BATCH);
	atomic_sub(skb->truesize, &qp->rxq_bytes);
}

/* Received packets one round takes (sroce_qp_drain_rx()) */
#define SROCE_RX_BUDGET		256

/**
 * sroce_qp_drain_rx() - hand the queued received packets to @rx, in order
 * @qp: the QP
 * @rx: the transport's receive handler
 * @budget: packets to take at most (a round's: SROCE_RX_BUDGET); the
 *	caller reschedules if more are left
 *
 * A UC or UD receive that meets an ODP page not present (the fault is
 * queued) cannot ask its sender to come back later as RC does with an RNR
 * NAK. It sets qp->resp.odp_park having executed nothing of the packet,
 * which goes back to the head of the queue; the queue is not taken again
 * until the ODP wake-up kicks the QP (sroce_odp_wait()), and the packet
 * then runs again. Packets arriving meanwhile queue behind it, within the
 * queue's bounds (sroce_rxq_full(), SROCE_UD_RXQ_MAX). A fault that fails
 * makes the next try fail with an error instead, so a park always ends.
 *
 * Return: the packets taken (a parked one is not).
 */
static unsigned int sroce_qp_drain_rx(struct sroce_qp *qp,
				      void (*rx)(struct sroce_qp *qp, struct sk_buff *skb,
						 const struct sroce_pkt_hdr *hdr),
				      unsigned int budget)
{
	struct sroce_pkt_hdr hdr;
	struct sk_buff *skb;
	unsigned int taken = 0;

	lockdep_assert_held(&qp->lock);

	if (unlikely(qp->resp.odp_park)) {
		if (READ_ONCE(qp->odp_waiting))
			return 0;	/* the page is still on its way */
		WRITE_ONCE(qp->resp.odp_park, false);
	}
	while (budget-- && (skb = skb_dequeue(&qp->rxq))) {
		sroce_rxq_uncharge(qp, skb);
		/* parsed and checked on arrival; parse again for the fields */
		if (!sroce_pkt_parse(skb->data + sizeof(struct udphdr),
				     skb->len - sizeof(struct udphdr), &hdr)) {
			trace_sroce_pkt_rx(qp, skb->data + sizeof(struct udphdr),
					   hdr.payload_len);
			rx(qp, skb, &hdr);
			if (unlikely(qp->resp.odp_park)) {
				sroce_rxq_charge(qp, skb);
				skb_queue_head(&qp->rxq, skb);
				sroce_stat_inc(qp->sdev, SROCE_STAT_ODP_RX_WAITS);
				sroce_odp_wait(qp);
				return taken;
			}
		} else if (skb->data[sizeof(struct udphdr)] == SROCE_OP_CNP) {
			trace_sroce_pkt_rx(qp, skb->data + sizeof(struct udphdr), 0);
			sroce_rc_cnp(qp, skb);	/* checked by sroce_cnp_rcv() */
		}
		sroce_stat_inc(qp->sdev, SROCE_STAT_RX_PKTS);
		kfree_skb(skb);
		taken++;
	}
	return taken;
}

static void sroce_rc_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr)
{
	const u8 *iph = skb_network_header(skb);

	/* qp->path changes under qp->lock (modify_qp): check it here */
	if (!sroce_qp_peer_ok(qp, iph, (iph[0] >> 4) == 6)) {
		sroce_drop_count(SROCE_DROP_HDR, qp->ibqp.qp_num);
		return;
	}
	sroce_qp_icrc_learn(qp, skb, hdr->info->flags);
	if (unlikely(qp->dcqcn.on))
		sroce_dcqcn_np_rx(qp, skb);
	if (hdr->info->flags & (SROCE_OPF_RESP | SROCE_OPF_ACK))
		sroce_completer_rx(qp, skb, hdr);
	else
		sroce_responder_rx(qp, skb, hdr);
}

/**
 * sroce_rc_process() - the RC/UC QP's transport: receive, timers, send
 * @qp: the QP
 * @budget: request packets the requester may send in this run
 *
 * Drains qp->rxq in arrival order (responder and completer), handles the
 * timer events, then lets the requester send within the windows.
 */
static void sroce_rc_process(struct sroce_qp *qp, int budget)
{
	lockdep_assert_held(&qp->lock);

	/* what the roles send in this round may leave as UDP GSO bursts (xmit.c) */
	sroce_txb_begin(qp);
	sroce_qp_drain_rx(qp, sroce_rc_rx, SROCE_RX_BUDGET);
	sroce_responder_flush_acks(qp);
	if (test_and_clear_bit(SROCE_QP_EV_TIMEOUT, &qp->events))
		sroce_completer_timeout(qp);
	if (test_and_clear_bit(SROCE_QP_EV_RNR_DONE, &qp->events))
		sroce_completer_rnr_done(qp);
	if (test_and_clear_bit(SROCE_QP_EV_SR_GAP, &qp->events))
		sroce_responder_sr_gap(qp);

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
	default:
		break;
	}
	sroce_txb_end(qp);
	/* a role that failed the QP left it in ERR: flush in this round */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_sched_flush(qp);
}

/**
 * sroce_sched_settle_rx() - handle what a connected QP has received, now
 * @qp: the QP, about to be moved to ERR by its consumer
 *
 * Hardware handles a packet as it arrives; here it may wait in qp->rxq for
 * the QP's next round, and a round in ERR drops it. So an ACK that arrived
 * before the consumer moved the QP to ERR would be thrown away and the
 * sends it acknowledges flushed as if never delivered: an iSER target's
 * logout response, acknowledged by the initiator, completed with
 * WR_FLUSH_ERR when the initiator's disconnect overtook the target QP's
 * round, and LIO freed that command while it was still listed (a list
 * corruption BUG). Every packet queued when this starts (at most the
 * queue's bound, SROCE_RXQ_MAX) is handled in the state it arrived in, and
 * the ACK of what they carried goes out; a role that failed the QP meanwhile
 * leaves it flushed here, as a round's end does. The move to ERR then
 * flushes only what was not delivered.
 *
 * Context: modify_qp's, qp->lock held, BH off: a kernel ULP's completion
 * and event handlers may run inside its ib_modify_qp() (ib_cq's handlers
 * only schedule; no in-tree ULP's QP event handler takes a lock it holds
 * across modify_qp).
 */
void sroce_sched_settle_rx(struct sroce_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned int queued;

	lockdep_assert_held(&qp->lock);

	if (!sroce_qpt_connected(qp->ibqp.qp_type) ||
	    (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD))
		return;
	queued = skb_queue_len(&qp->rxq);
	if (!queued)
		return;
	sroce_txb_begin(qp);
	queued = sroce_qp_drain_rx(qp, sroce_rc_rx, queued);
	sroce_responder_flush_acks(qp);
	sroce_txb_end(qp);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_sched_flush(qp);
	sroce_stat_add(qp->sdev, SROCE_STAT_ERR_RX_SETTLED, queued);
}

/* Request packets per run: the work item may send more than a softirq. */
#define SROCE_WORK_BUDGET	64
#define SROCE_KICK_BUDGET	32

/* Arm the polling grace's end: the transport runs again then. */
static void sroce_qp_arm_poll(struct sroce_qp *qp, u64 until)
{
	u64 now = ktime_get_ns();

	if (unlikely(READ_ONCE(qp->stopping)))
		return;
	hrtimer_start(&qp->poll_timer, ns_to_ktime(until > now ? until - now : 0),
		      HRTIMER_MODE_REL_SOFT);
}

static enum hrtimer_restart sroce_poll_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, poll_timer);

	sroce_sched_kick(qp);
	return HRTIMER_NORESTART;
}

/* Rounds one context runs a QP for others before handing it to the worker */
#define SROCE_KICK_ROUNDS	8

/**
 * sroce_qp_run_unlock() - run the transport, drop the lock, follow up
 * @qp: the QP, its lock held
 * @budget: request packets per round
 *
 * A context that found the lock taken (sroce_sched_kick()) leaves
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
		clear_bit(SROCE_QP_EV_YIELD, &qp->events);
		sroce_rc_process(qp, budget);
		poll = qp->req.want_poll;
		qp->req.want_poll = false;
		until = qp->req.poll_until;
		spin_unlock_bh(&qp->lock);
		if (poll)
			sroce_qp_arm_poll(qp, until);
		/* pairs with sroce_sched_kick(): it sees the lock free or we see the bit */
		smp_mb();
		if (!test_bit(SROCE_QP_EV_KICK, &qp->events)) {
			/* left over past a budget, nobody kicked: go on later */
			if (test_bit(SROCE_QP_EV_YIELD, &qp->events) ||
			    sroce_rxq_ready(qp))
				sroce_sched_queue(qp);
			return;
		}
		if (!--rounds) {
			sroce_sched_queue(qp);
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

	sroce_qp_work_enter(qp);
	spin_lock_bh(&qp->lock);
	sroce_qp_run_unlock(qp, SROCE_WORK_BUDGET);
	sroce_qp_work_exit(qp);
}

/*
 * Leave a kick on a connected @qp for whoever holds its lock: a holder
 * that lets go after this sees it, or the caller's spin_trylock_bh() next
 * finds the lock free.
 */
static void sroce_sched_kick_mark(struct sroce_qp *qp)
{
	set_bit(SROCE_QP_EV_KICK, &qp->events);
	/* pairs with sroce_qp_run_unlock() and sroce_modify_qp() */
	smp_mb__after_atomic();
}

/**
 * sroce_sched_kick() - run the QP's transport here if nobody else is
 * @qp: the QP (a reference held by the caller)
 *
 * Softirq (a packet was queued to qp->rxq) or process context (doorbell).
 * When another context holds the lock, the kick is left for it as
 * SROCE_QP_EV_KICK: the holder runs another round before it lets go, so
 * neither a work item wakeup nor spinning is needed.
 */
void sroce_sched_kick(struct sroce_qp *qp)
{
	/* UD and GSI QPs run in their work item only (sroce_ud_work()) */
	if (!sroce_qpt_connected(qp->ibqp.qp_type)) {
		sroce_sched_queue(qp);
		return;
	}
	sroce_sched_kick_mark(qp);
	if (spin_trylock_bh(&qp->lock))
		sroce_qp_run_unlock(qp, SROCE_KICK_BUDGET);
}

/*
 * Local delivery (xmit.c's sroce_xmit_local()) receives a packet inside the
 * round of the QP that sent it, so the destination QP's round would run
 * nested in the sender's, and whatever that one sends locally one level
 * deeper still. A symmetric pair stops at two (the sender's lock is held,
 * so its answer is left as a kick), but a chain or ring of QPs, each
 * pointing at the next (an RC packet names no source QP, so nothing stops
 * a user from building one), would nest one round per QP and overrun the
 * kernel stack. So this CPU counts the local deliveries it is inside of,
 * and a packet received deeper than SROCE_LOCAL_DEPTH_MAX does not run its
 * QP here: it is left as a kick to the context running that QP (the pair's
 * first QP, whose round is on this stack), or else queued for the QP's
 * work item.
 */
static DEFINE_PER_CPU(unsigned int, sroce_local_depth);
#define SROCE_LOCAL_DEPTH_MAX	1

/**
 * sroce_sched_local_enter() - a local delivery starts on this CPU
 *
 * Context: BH disabled (the sending QP's lock), so on one CPU until
 * sroce_sched_local_exit().
 */
static void sroce_sched_local_enter(void)
{
	this_cpu_inc(sroce_local_depth);
}

/* The local delivery sroce_sched_local_enter() announced is done. */
static void sroce_sched_local_exit(void)
{
	this_cpu_dec(sroce_local_depth);
}

/**
 * sroce_sched_kick_deep() - sroce_sched_kick() that never runs the QP on this stack
 * @qp: the QP (a reference held by the caller)
 *
 * For a packet received deeper in nested local deliveries than
 * SROCE_LOCAL_DEPTH_MAX. When another context holds the QP's lock (in a
 * symmetric pair: the QP whose round sent the packet this one answers, a
 * few frames up this stack) the kick is left for it as sroce_sched_kick()
 * leaves it, and the holder runs another round when it lets go: no
 * nesting, no work item. Only a QP nobody is running (the next one of a
 * chain or ring) is handed to its work item.
 *
 * Context: BH disabled.
 */
static void sroce_sched_kick_deep(struct sroce_qp *qp)
{
	if (sroce_qpt_connected(qp->ibqp.qp_type)) {
		sroce_sched_kick_mark(qp);
		if (!spin_trylock_bh(&qp->lock))
			return;	/* the holder runs a round for the kick */
		spin_unlock_bh(&qp->lock);
	}
	sroce_stat_inc(qp->sdev, SROCE_STAT_RX_DEFERRED);
	sroce_sched_queue(qp);
}

/**
 * sroce_sched_rx() - queue a received packet to its QP and run the QP
 * @qp: the destination QP (the caller's reference stays the caller's)
 * @skb: the packet, checked for this QP's type and state
 *
 * RC and UC QPs run here unless another context is running them (which
 * then runs another round), or this is a local delivery nested too deep
 * for a round here (see sroce_local_depth, sroce_sched_kick_deep()); UD and
 * GSI QPs in their work item.
 *
 * Context: softirq, or BH disabled.
 */
static void sroce_sched_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	/* counted before it is queued: a dequeue never subtracts first */
	unsigned int bytes = sroce_rxq_charge(qp, skb);

	if (bytes > READ_ONCE(qp->rxq_peak))
		WRITE_ONCE(qp->rxq_peak, bytes);
	skb_queue_tail(&qp->rxq, skb);
	if (this_cpu_read(sroce_local_depth) > SROCE_LOCAL_DEPTH_MAX)
		sroce_sched_kick_deep(qp);
	else
		sroce_sched_kick(qp);
}

/* Drop every packet queued to @qp, uncounting each. */
void sroce_sched_rxq_purge(struct sroce_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&qp->rxq))) {
		sroce_rxq_uncharge(qp, skb);
		kfree_skb(skb);
	}
}

/**
 * sroce_ud_work() - the work function of UD and GSI QPs
 * @w: qp->work
 *
 * Runs on sroce_wq, under qp->lock like the RC transport.
 */
static void sroce_ud_work(struct work_struct *w)
{
	struct sroce_qp *qp = container_of(w, struct sroce_qp, work);

	sroce_qp_work_enter(qp);
	spin_lock_bh(&qp->lock);
	clear_bit(SROCE_QP_EV_YIELD, &qp->events);
	sroce_qp_drain_rx(qp, sroce_ud_rx, SROCE_RX_BUDGET);
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		sroce_ud_send(qp);
		break;
	default:
		break;
	}
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_sched_flush(qp);
	spin_unlock_bh(&qp->lock);
	if (test_bit(SROCE_QP_EV_YIELD, &qp->events) || sroce_rxq_ready(qp))
		sroce_sched_queue(qp);
	sroce_qp_work_exit(qp);
}

/**
 * sroce_sched_init_qp() - set up a new QP's work item and timers
 * @qp: the QP, not yet published
 * @type: its type
 */
void sroce_sched_init_qp(struct sroce_qp *qp, enum ib_qp_type type)
{
	bool connected = sroce_qpt_connected(type);

	INIT_WORK(&qp->work, connected ? sroce_qp_work : sroce_ud_work);
	atomic_set(&qp->work_running, 0);
	qp->stopping = false;
	skb_queue_head_init(&qp->rxq);
	atomic_set(&qp->rxq_bytes, 0);
	qp->rxq_peak = 0;
	timer_setup(&qp->retrans_timer, sroce_retrans_timer, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer, 0);
	timer_setup(&qp->sr_timer, sroce_sr_timer, 0);
	sroce_hrtimer_setup(&qp->poll_timer, sroce_poll_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	sroce_dcqcn_init_qp(qp);
}

/* Anything of the QP's still queued, armed or running? */
static bool sroce_qp_busy(struct sroce_qp *qp)
{
	return work_busy(&qp->work) || atomic_read(&qp->work_running) ||
	       hrtimer_active(&qp->poll_timer) || sroce_dcqcn_armed(qp);
}

/**
 * sroce_sched_stop_qp() - stop everything that could run a QP again
 * @qp: the QP, in RESET, unpublished, its last reference gone
 *
 * With the references gone, what can still run the QP is its work item
 * (on its one workqueue), the timer callbacks and the unlocked tails of
 * rounds they started. From @stopping on (set under qp->lock, so no round
 * is between its decisions) nothing queues the work item or arms the poll
 * timer, and a round in RESET arms no pace timer: only the contexts that
 * began before it can, each once. The timer lists are shut down for good;
 * then each pass cancels the hrtimers and the work item and waits for
 * their callbacks: a context that began before @stopping and armed
 * another after that one's cancel is caught by the next pass. There are
 * at most three such (the work item and the two hrtimers' callbacks), so
 * the fourth pass finds nothing; a QP still busy after it is a lifetime
 * bug (WARNING), not a wait.
 *
 * Context: process, may sleep.
 */
void sroce_sched_stop_qp(struct sroce_qp *qp)
{
	int pass;

	spin_lock_bh(&qp->lock);
	WRITE_ONCE(qp->stopping, true);
	spin_unlock_bh(&qp->lock);
	timer_shutdown_sync(&qp->retrans_timer);
	timer_shutdown_sync(&qp->rnr_timer);
	timer_shutdown_sync(&qp->sr_timer);
	for (pass = 0; pass < 4; pass++) {
		hrtimer_cancel(&qp->poll_timer);
		sroce_dcqcn_cancel(qp);
		cancel_work_sync(&qp->work);
		if (!sroce_qp_busy(qp))
			break;
	}
	WARN_ON_ONCE(sroce_qp_busy(qp));
	sroce_sched_rxq_purge(qp);
}

/* ---- doorbells --------------------------------------------------- */

/* a deferral must gather this many posts to be worth its wakeup */
#define SROCE_DB_BATCH_MIN	4
/* after one that did not: doorbells run inline, doubling up to the max */
#define SROCE_DB_HOLD_MIN	16
#define SROCE_DB_HOLD_MAX	1024

/**
 * sroce_db_defer() - hand this doorbell's round to the worker?
 * @qp: a connected user QP in RTS
 * @prod: the SQ producer index user space published before this doorbell
 * @now: ktime_get_ns() at the doorbell
 *
 * A doorbell runs the QP's round in the system call that rang it: the
 * shortest path for a ping-pong. A streaming poster, though, then rings
 * once per post and waits for each round to finish before it posts the
 * next. Handed to the QP's work item on another CPU instead
 * (sroce_sched_queue_away()), the round leaves NEED_WAKEUP clear while it runs,
 * so the next posts need no system call, and the poster and the transport
 * run at once. That pays only when posts come faster than rounds: a
 * doorbell is deferred when it came sooner after the SQ went idle than the
 * last inline round took, and deferring stops, for a doubling number of
 * doorbells, when one deferral did not gather SROCE_DB_BATCH_MIN posts
 * before the next doorbell. The first test often passes for a ping-pong
 * too (its peer answers within a round); the second is what sends it back
 * inline, after one slow post in hundreds, as it does a stream whose
 * worker finds no idle CPU and takes turns with the poster.
 *
 * The fields are a heuristic shared by concurrent doorbells without a
 * lock; a lost update only misjudges one doorbell.
 *
 * Return: true to defer.
 */
static bool sroce_db_defer(struct sroce_qp *qp, u32 prod, u64 now)
{
	struct sroce_req *req = &qp->req;
	u32 hold, backoff;
	u64 since;

	if (READ_ONCE(req->db_deferred)) {
		backoff = READ_ONCE(req->db_backoff);
		/* user space's index: any value only decides this heuristic */
		if (prod - READ_ONCE(req->db_prod) >= SROCE_DB_BATCH_MIN) {
			WRITE_ONCE(req->db_backoff, SROCE_DB_HOLD_MIN);
			return true;
		}
		WRITE_ONCE(req->db_deferred, false);
		backoff = clamp_t(u32, backoff, SROCE_DB_HOLD_MIN, SROCE_DB_HOLD_MAX);
		WRITE_ONCE(req->db_hold, backoff);
		WRITE_ONCE(req->db_backoff, min_t(u32, 2 * backoff, SROCE_DB_HOLD_MAX));
		return false;
	}
	hold = READ_ONCE(req->db_hold);
	if (hold) {
		WRITE_ONCE(req->db_hold, hold - 1);
		return false;
	}
	since = READ_ONCE(req->idle_since);
	return since && now > since && now - since < READ_ONCE(req->db_round_ns);
}

/*
 * User QPs post into the mmapped rings; a post_send that reaches the
 * kernel is the doorbell (the provider sends it with no WRs when the
 * worker asked for it with SROCE_RING_F_NEED_WAKEUP).
 */
int sroce_sched_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	struct sroce_ring_hdr *h = qp->sq->hdr;
	unsigned int mode;
	u32 prod;
	u64 now;

	/* an XRC TGT QP has no queues: its SRQs take the receives */
	if (wr && ibqp->qp_type == IB_QPT_XRC_TGT) {
		sroce_dbg_qp_rl(qp, "post_send: an XRC TGT QP has no SQ");
		*bad_wr = wr;
		return -EINVAL;
	}
	if (wr && !qp->sq->mmap)
		return sroce_kpost_send(qp, wr, bad_wr);
	if (wr) {
		sroce_dbg_qp_rl(qp,
				"post_send: work requests of a user QP go into its SQ ring (only a doorbell with none)");
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(h->doorbells, READ_ONCE(h->doorbells) + 1);
	sroce_stat_inc(qp->sdev, SROCE_STAT_DOORBELLS);
	sroce_req_doorbell(qp);
	mode = READ_ONCE(sroce_db_defer_mode);
	if (!mode || !sroce_qpt_connected(ibqp->qp_type) || READ_ONCE(qp->state) != IB_QPS_RTS) {
		sroce_sched_kick(qp);
		return 0;
	}
	now = ktime_get_ns();
	prod = READ_ONCE(h->producer);
	if (mode == 2 || sroce_db_defer(qp, prod, now)) {
		WRITE_ONCE(qp->req.db_prod, prod);
		WRITE_ONCE(qp->req.db_deferred, true);
		sroce_stat_inc(qp->sdev, SROCE_STAT_DOORBELLS_DEFERRED);
		/* the worker raises it again when it finds the SQ empty */
		WRITE_ONCE(h->flags, 0);
		sroce_sched_kick_mark(qp);
		sroce_sched_queue_away(qp);
		return 0;
	}
	sroce_sched_kick(qp);
	WRITE_ONCE(qp->req.db_round_ns, ktime_get_ns() - now);
	return 0;
}

int sroce_sched_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);

	/* XRC QPs have no RQ: INI only sends, TGT receives into XRC SRQs */
	if (wr && sroce_qp_is_xrc(qp)) {
		sroce_dbg_qp_rl(qp, "post_recv: an XRC QP has no RQ");
		*bad_wr = wr;
		return -EINVAL;
	}
	if (wr && !qp->rq->mmap)
		return sroce_kpost_recv(qp, wr, bad_wr);
	if (wr) {
		sroce_dbg_qp_rl(qp,
				"post_recv: work requests of a user QP go into its RQ ring (only a doorbell with none)");
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* a doorbell on the RQ: only needed to flush posts made in ERR */
	sroce_sched_kick(qp);
	return 0;
}

/* what the objects and the wire call through sroce_qp_kick() and the like */
static const struct sroce_sched_hooks sroce_sched_hooks = {
	.kick = sroce_sched_kick,
	.queue = sroce_sched_queue,
	.rx = sroce_sched_rx,
	.local_enter = sroce_sched_local_enter,
	.local_exit = sroce_sched_local_exit,
	.sync_cq = sroce_sched_sync_cq,
};

int sroce_sched_init_module(void)
{
	/*
	 * Per-CPU, not unbound: a QP's work item runs on the CPU that queued
	 * it, so a burst that a system call or softirq started and the work
	 * item continues enters the network stack from one CPU. Over veth
	 * and lo each CPU has its own receive backlog: two CPUs sending one
	 * QP's packets reorder them, which RC pays for with NAKs and resends
	 * and UC with lost messages.
	 */
	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI | SROCE_WQ_PERCPU, 0);
	if (!sroce_wq)
		return -ENOMEM;
	/*
	 * Kernel ULPs' QPs are the exception: their posts (kpost.c) never
	 * run the transport in the caller's context, every round is a work
	 * item, and an NVMe-oF host and target on one device then ran all of
	 * an I/O's rounds on the CPU that issued it while the other CPU idled
	 * (4 KiB random reads, QD16, 6.12, 2 vCPUs: 4035-4187 IOPS per-CPU,
	 * 6416-6584 unbound). One round at a time runs a QP (qp->lock), and
	 * over veth and lo the packets a round queued to its CPU's backlog
	 * are received when it enables BHs again at its end, so the next
	 * round, wherever it runs, rarely overtakes them; when it does, RC
	 * pays a sequence NAK, not data.
	 */
	sroce_kwq = alloc_workqueue("sroce_k", WQ_HIGHPRI | WQ_UNBOUND, 0);
	if (!sroce_kwq) {
		destroy_workqueue(sroce_wq);
		return -ENOMEM;
	}
	sroce_qp_set_sched(&sroce_sched_hooks);
	return 0;
}

void sroce_sched_exit_module(void)
{
	/* the hooks go last: a work item still draining may call them */
	destroy_workqueue(sroce_kwq);
	destroy_workqueue(sroce_wq);
	sroce_qp_set_sched(NULL);
}
