// SPDX-License-Identifier: GPL-2.0
/*
 * sroce completer: ACKs, NAKs and READ responses coming back to the
 * requester; retires SQ entries in order and drives retransmission.
 */
#include <linux/module.h>

#include "sroce.h"
#include "qp.h"
#include "cntr.h"
#include "queue.h"
#include "trace.h"
#include "completer.h"
#include "cq.h"
#include "sr.h"
#include "mr_copy.h"
#include "sroce_rc_comp.h"

/* a READ or an atomic: only its response data completes it */
static bool sroce_is_read(struct sroce_qp *qp, u32 idx)
{
	return sroce_wqe_has_response(sroce_shadow(qp, idx));
}

/*
 * Does the entry at @idx wait for response data? A READ or an atomic, but
 * not a READ of zero bytes: the responder executes requests in PSN order,
 * so the ACK or response of a later one says it was done, and a responder
 * that answers no duplicate of it (sroce_read_rkey()) then costs nothing.
 */
static bool sroce_read_awaits_data(struct sroce_qp *qp, u32 idx)
{
	const struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);

	return sroce_wqe_has_response(wqe) &&
	       (wqe->opcode != IB_UVERBS_WR_RDMA_READ || sroce_swqe(qp, idx)->length);
}

/*
 * When the measured RTT's resend is due (jiffies, 0 for none): the RTO of
 * proto/sroce_cwnd.h, doubled per resend without progress, only with the
 * loss window on (loss_window=N keeps the QP's timeout alone)
 */
static unsigned long sroce_req_rto(struct sroce_qp *qp)
{
	u64 us = sroce_cwnd_rto_us(&qp->req.cwnd);

	if (!us || !READ_ONCE(sroce_loss_window))
		return 0;
	/*
	 * a selective repeat peer NAKs a gap with a SACK after its window
	 * when it expects reordering (our requests are sprayed: adaptive
	 * routing on here; else at once): give that NAK twice the window
	 * (its timer and ours tick in jiffies)
	 */
	if (qp->opt.selrep_peer && qp->opt.ar)
		us += jiffies_to_usecs(2 * sroce_sr_nak_delay());
	/* never below a jiffy or two, and never 0 (that means none) */
	return (jiffies + max_t(unsigned long, 2, usecs_to_jiffies(us))) ?: 1;
}

/**
 * sroce_req_arm_timer() - (re)start the local ACK timer while anything is
 *	unacknowledged
 * @qp: the QP
 *
 * Lazy: the deadline is kept in req->ack_due, and the timer itself is only
 * moved when it would fire after it (or is not pending). A timer that
 * fires before the deadline, or with nothing outstanding, is re-armed or
 * ignored by sroce_completer_timeout(). A small message is sent and
 * acknowledged before the next is posted, so deleting the timer on every
 * ACK and adding it again on every send took the timer base lock twice
 * per message.
 */
void sroce_req_arm_timer(struct sroce_qp *qp)
{
	u64 ns = sroce_retry_wait_ns(qp->attr.timeout, qp->req.backoff);
	unsigned long due, rto;

	lockdep_assert_held(&qp->lock);

	if (!ns || !sroce_req_busy(&qp->req) || sroce_qp_is_uc(qp))
		return;
	/* never below a jiffy or two: TCG guests are slow */
	due = jiffies + max_t(unsigned long, 2, nsecs_to_jiffies64(ns));
	qp->req.ack_due = due;
	rto = sroce_req_rto(qp);
	if (rto && time_before(rto, due)) {
		qp->req.rto_due = rto;
		due = rto;
	} else {
		qp->req.rto_due = 0;
	}
	/* only this QP's transport (under qp->lock) arms the timer */
	if (!timer_pending(&qp->retrans_timer) ||
	    time_before(due, READ_ONCE(qp->retrans_timer.expires)))
		mod_timer(&qp->retrans_timer, due);
}

/* Post the send completion of entry @idx (if it asks for one). */
void sroce_req_complete(struct sroce_qp *qp, u32 idx, enum ib_wc_status status)
{
	struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);
	struct sroce_swqe *sw = sroce_swqe(qp, idx);
	struct sroce_cqe cqe = {};

	lockdep_assert_held(&qp->lock);

	trace_sroce_wqe_complete(qp, idx, status);
	if (unlikely(READ_ONCE(qp->cntr_ops)))
		sroce_cntr_wr_done(qp, wqe->opcode, status != IB_WC_SUCCESS);
	if (status == IB_WC_SUCCESS && !qp->sig_all &&
	    !(wqe->send_flags & SROCE_SEND_SIGNALED))
		return;
	cqe.wr_id = wqe->wr_id;
	cqe.status = status;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.byte_len = sw->length;
	switch (wqe->opcode) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		cqe.opcode = IB_UVERBS_WC_RDMA_WRITE;
		break;
	case IB_UVERBS_WR_RDMA_READ:
		cqe.opcode = IB_UVERBS_WC_RDMA_READ;
		break;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		cqe.opcode = IB_UVERBS_WC_COMP_SWAP;
		break;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		cqe.opcode = IB_UVERBS_WC_FETCH_ADD;
		break;
	case SROCE_WR_ATOMIC_WRITE:
		cqe.opcode = SROCE_WC_ATOMIC_WRITE;
		break;
	case SROCE_WR_FLUSH:
		cqe.opcode = SROCE_WC_FLUSH;
		cqe.byte_len = 0;
		break;
	case IB_UVERBS_WR_LOCAL_INV:
		cqe.opcode = IB_WC_LOCAL_INV;
		break;
	case SROCE_WR_REG_MR:
		cqe.opcode = IB_WC_REG_MR;
		break;
	case IB_UVERBS_WR_BIND_MW:
		cqe.opcode = IB_UVERBS_WC_BIND_MW;
		break;
	default:
		cqe.opcode = IB_UVERBS_WC_SEND;
		break;
	}
	if (sroce_cq_post(sroce_to_cq(qp->ibqp.send_cq), &cqe, false))
		sroce_qp_set_error(qp);
}

/**
 * sroce_req_retire_local() - complete local operations at the head
 * @qp: the QP
 *
 * A local operation takes effect when the requester reaches it, in order,
 * and completes once everything before it has completed.
 */
void sroce_req_retire_local(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	while (req->comp_idx != req->send_idx &&
	       sroce_wqe_is_local(sroce_shadow(qp, req->comp_idx)) &&
	       sroce_swqe(qp, req->comp_idx)->tail_sent)
		sroce_comp_retire(qp, IB_WC_SUCCESS);
}

/**
 * sroce_comp_retire() - complete the oldest outstanding SQ entry
 * @qp: the QP
 * @status: its completion status
 *
 * An entry at or past send_idx (a go-back was about to send it again, or
 * it was only partly sent) takes send_idx and the next PSN along.
 */
void sroce_comp_retire(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *sw = sroce_swqe(qp, req->comp_idx);

	lockdep_assert_held(&qp->lock);

	if (sroce_is_read(qp, req->comp_idx) && sw->sent)
		req->rd_outstanding--;
	if (req->comp_idx == req->send_idx) {
		req->send_idx++;
		req->send_off = 0;
		if (sw->tail_sent)
			req->psn = sroce_psn_inc(sw->last_psn);
	}
	if (req->started == req->comp_idx)	/* never started: a local failure */
		req->started++;
	/*
	 * Free the ring slot before the completion is visible: a consumer
	 * that polls the CQE may post again at once and must find room.
	 */
	sroce_queue_consumed(qp->sq, 1);
	sroce_req_complete(qp, req->comp_idx, status);
	req->comp_idx++;
}

/* The head entry fails with @status; the QP goes to ERR. */
static void sroce_comp_fail(struct sroce_qp *qp, enum ib_wc_status status)
{
	if (sroce_req_busy(&qp->req))
		sroce_comp_retire(qp, status);
	sroce_qp_set_error(qp);
}

bool sroce_loss_window = true;
module_param_named(loss_window, sroce_loss_window, bool, 0644);
MODULE_PARM_DESC(loss_window,
		 "bound the requester's window of unacknowledged packets by loss and RTT, resend after the measured RTT (N: 128 to 1024 PSNs, never cut, the QP's timeout alone)");

/*
 * Packets were lost (@timeout: nothing came back): the loss window shrinks
 * (proto/sroce_cwnd.h says why and how). @timer: a timer resends (the
 * timeout or the RTO), which the next ACK may prove spurious.
 */
static void sroce_cwnd_cut(struct sroce_qp *qp, bool timeout, bool timer)
{
	struct sroce_req *req = &qp->req;
	bool cut;

	if (!READ_ONCE(sroce_loss_window))
		return;
	if (timer)
		cut = sroce_cwnd_timer_loss(&req->cwnd, timeout, req->hi_psn, ktime_get_ns());
	else
		cut = sroce_cwnd_loss(&req->cwnd, timeout, req->hi_psn);
	if (cut)
		sroce_stat_inc(qp->sdev, SROCE_STAT_CWND_CUTS);
}

/*
 * An RTO resend was judged needless or needed: counted when needless, and
 * traced with the RTO floor the judgment left.
 */
static void sroce_rto_judged(struct sroce_qp *qp, bool needless)
{
	trace_sroce_rto_judge(qp->ibqp.qp_num, qp->req.cwnd.rto_psn, needless,
			      qp->req.cwnd.rto_floor_us);
	if (needless)
		sroce_stat_inc(qp->sdev, SROCE_STAT_RTO_SPURIOUS);
}

/*
 * Progress after an RTO resend, if one waits (proto/sroce_cwnd.h,
 * sroce_cwnd_rto_judge()): needless if @spurious, or if it came sooner
 * than the smallest RTT after the resend (@now, ns).
 */
static void sroce_rto_judge(struct sroce_qp *qp, bool spurious, u64 now)
{
	struct sroce_cwnd *c = &qp->req.cwnd;

	if (c->rto_at)
		sroce_rto_judged(qp, sroce_cwnd_rto_judge(c, spurious ||
							  sroce_cwnd_rto_early(c, now)));
}

/*
 * The responder answered up to @next (an ACK or NAK through the PSN before
 * it, a READ response at it): past anything it answered before, it went
 * on, even where the oldest unacknowledged PSN stays (a READ missing
 * responses in the way). The transport retry budget is whole again: it
 * counts sequence NAKs and timeouts without forward progress (IBTA),
 * not NAKs of later gaps while a READ waits for a repair.
 */
static void sroce_peer_progress(struct sroce_qp *qp, u32 next)
{
	struct sroce_req *req = &qp->req;

	if (sroce_psn_diff(next, req->heard_psn) <= 0)
		return;
	req->heard_psn = next;
	req->retry_left = qp->attr.retry_cnt;
}

/*
 * The oldest unacknowledged PSN moves forward to @una. Past the next PSN
 * to send (a go-back resent less than the responder already had), the
 * requester goes on from @una instead of resending what is acknowledged.
 */
static void sroce_set_una(struct sroce_qp *qp, u32 una)
{
	struct sroce_req *req = &qp->req;
	u64 now = sroce_cwnd_wants_now(&req->cwnd, una) ? ktime_get_ns() : 0;
	u32 n = sroce_psn_diff(una, req->una_psn);

	sroce_peer_progress(qp, una);
	if (n)
		sroce_rto_judge(qp, false, now);
	if (sroce_cwnd_acked(&req->cwnd, n, una, now))
		sroce_stat_inc(qp->sdev, SROCE_STAT_CWND_UNDOS);
	req->una_psn = una;
	if (sroce_psn_diff(una, req->psn) > 0) {
		req->need_retry = true;
		req->retry_psn = una;
	}
}

/*
 * Progress: reset the retry budgets, restart or stop the timer; an RTO
 * probe not sent yet is not needed.
 */
static void sroce_progress(struct sroce_qp *qp)
{
	qp->req.probe_due = false;
	qp->req.probe_alone = false;
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->req.backoff = 0;
	qp->req.cwnd.rto_backoff = 0;
	sroce_req_retire_local(qp);
	/*
	 * Nothing outstanding: the timer is left to fire and find nothing
	 * (sroce_completer_timeout()) rather than deleted per message
	 */
	if (sroce_req_busy(&qp->req) && !qp->req.rnr_wait)
		sroce_req_arm_timer(qp);
}

/*
 * Responses of the READ at @idx were lost (a later response or an ACK past
 * it came first): ask for the rest again, once per gap; a retry that is
 * lost too is the retransmit timer's.
 */
static void sroce_read_gap(struct sroce_qp *qp, u32 idx)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *sw = sroce_swqe(qp, idx);
	u32 psn = sroce_read_expect(sw);
	struct sroce_selrd *s = &req->selrd;

	if (s->on) {
		/* an ACK past it: its missing responses are asked for alone */
		if (sroce_psn_diff(sw->last_psn, s->hi) >= 0)
			s->hi = sroce_psn_inc(sw->last_psn);
		s->repair_due = true;
		return;
	}
	if (req->rd_gap && req->rd_gap_psn == psn)
		return;
	req->rd_gap = true;
	req->rd_gap_psn = psn;
	trace_sroce_retransmit(qp->ibqp.qp_num, psn, req->retry_left, SROCE_RETX_READ_GAP);
	sroce_cwnd_cut(qp, false, false);
	sroce_cwnd_rto_forget(&req->cwnd);
	req->need_retry = true;
	req->retry_psn = psn;
}

/*
 * Everything up to and including @psn is acknowledged: retire the entries
 * it covers. A READ in the way that has not got all its data stops the
 * walk, and acknowledges nothing past its missing responses.
 *
 * Return: true if the oldest unacknowledged PSN moved (progress).
 */
static bool sroce_ack_upto(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 una = sroce_psn_inc(psn);

	sroce_peer_progress(qp, una);
	while (sroce_req_busy(req)) {
		struct sroce_swqe *sw = sroce_swqe(qp, req->comp_idx);

		if (!sw->tail_sent || sroce_psn_diff(psn, sw->last_psn) < 0)
			break;
		if (sroce_read_awaits_data(qp, req->comp_idx)) {
			una = sroce_read_expect(sw);
			sroce_read_gap(qp, req->comp_idx);
			break;
		}
		sroce_comp_retire(qp, IB_WC_SUCCESS);
	}
	if (sroce_psn_diff(una, req->una_psn) <= 0)
		return false;
	sroce_set_una(qp, una);
	return true;
}

/*
 * An ACK through @upto while the RTO's probe waits for its answer
 * (sroce_req_probe()). Through a PSN past the probe, the packets after it
 * arrived as well (the RTO only met a late ACK): nothing more goes.
 * Through the probe alone, with more sent after it, either the responder
 * has none of those or this is the late ACK of the probe's first
 * transmission, with more on its way (a stalled host releases them in a
 * burst): unless an ACK past it comes before the next RTO, that RTO goes
 * back (sroce_completer_rto()). An ACK before the probe says nothing yet;
 * a NAK goes back itself.
 */
static void sroce_probe_answered(struct sroce_qp *qp, u32 upto)
{
	struct sroce_req *req = &qp->req;

	if (!req->probing || sroce_psn_diff(upto, req->probe_psn) < 0)
		return;
	req->probing = false;
	req->probe_alone = upto == req->probe_psn &&
			   sroce_psn_diff(req->psn, req->una_psn) > 0;
}

/* The ib_wc_status of a decision's (proto/sroce_rc_comp.h) */
static enum ib_wc_status sroce_rc_wc_status(enum sroce_rc_status st)
{
	switch (st) {
	case SROCE_RC_ST_NONE:
		return IB_WC_SUCCESS;
	case SROCE_RC_ST_RETRY_EXC:
		return IB_WC_RETRY_EXC_ERR;
	case SROCE_RC_ST_RNR_RETRY_EXC:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case SROCE_RC_ST_REM_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_RC_ST_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_RC_ST_REM_OP:
		return IB_WC_REM_OP_ERR;
	case SROCE_RC_ST_REM_INV_RD_REQ:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		return IB_WC_BAD_RESP_ERR;
	}
}

/* The requester's state the decisions of proto/sroce_rc_comp.h read */
static void sroce_rc_send_of(const struct sroce_qp *qp, struct sroce_rc_send *s)
{
	s->heard_psn = qp->req.heard_psn;
	s->una_psn = qp->req.una_psn;
	s->hi_psn = qp->req.hi_psn;
	s->rnr_wait = qp->req.rnr_wait;
	s->retry_left = qp->req.retry_left;
	s->rnr_left = qp->req.rnr_left;
}

/*
 * A PSN sequence error NAK for @psn (sroce_rc_nak() said go back, @left
 * retries are left): resend from the oldest unacknowledged PSN, which is
 * @psn unless a READ before it still misses responses (the NAK's implicit
 * acknowledgment stopped there, see sroce_ack_upto()).
 */
static void sroce_rx_seq_nak(struct sroce_qp *qp, u32 psn, const struct sroce_sack *sack,
			     u32 left)
{
	struct sroce_req *req = &qp->req;

	req->retry_left = left;
	req->need_retry = true;
	req->retry_psn = req->una_psn;
	trace_sroce_retransmit(qp->ibqp.qp_num, req->retry_psn, req->retry_left, SROCE_RETX_NAK);
	sroce_cwnd_cut(qp, false, false);
	sroce_cwnd_rto_forget(&req->cwnd);
	/* selective repeat: the resend skips what the responder holds */
	req->sack_valid = sack;
	if (sack) {
		req->sack.psn = psn;
		sroce_rc_sacked_set(&req->sack, sack);
		req->sack.end = req->hi_psn;
		/*
		 * a gap the responder found room enough for: probe for more,
		 * an eighth, as a window grows
		 */
		if (req->sr_room && !req->sr_room_hit)
			req->sr_room = min(req->sr_room + req->sr_room / 8 + 1, SROCE_SR_WINDOW);
		req->sr_room_hit = false;
	}
}

/**
 * sroce_rx_sack() - check the SACK block of a NAK (hostile input)
 * @qp: the QP
 * @skb: the NAK
 * @hdr: its header, @hdr->sack_len set
 * @sack: the decoded block
 *
 * Only a peer that negotiated selective repeat sends one, only on a PSN
 * sequence NAK, and it names only PSNs that were sent.
 *
 * Return: its kind (SROCE_SACK_KIND, SROCE_SACK_KIND_UPDATE) if valid;
 * otherwise 0, the packet counted and dropped.
 */
static int sroce_rx_sack(struct sroce_qp *qp, const struct sk_buff *skb,
			 const struct sroce_pkt_hdr *hdr, struct sroce_sack *sack)
{
	const u8 *p = skb->data + sizeof(struct udphdr) + hdr->hdr_len;
	u8 syn = hdr->aeth.syndrome;
	int kind;

	if (!qp->opt.selrep_peer ||
	    (hdr->bth.opcode & SROCE_OP_OPERATION_MASK) != SROCE_OP_RC_ACKNOWLEDGE ||
	    sroce_aeth_syn_type(syn) != SROCE_AETH_NAK ||
	    sroce_aeth_syn_value(syn) != SROCE_NAK_PSN_SEQ_ERR)
		goto drop;
	kind = sroce_sack_get(p, hdr->sack_len, sack);
	if (kind < 0 || sroce_psn_diff(sroce_psn_add(hdr->bth.psn, sroce_sack_span(sack)),
				       qp->req.hi_psn) >= 0)
		goto drop;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_SACK_RX);
	trace_sroce_sr_sack(qp->ibqp.qp_num, false, hdr->bth.psn, sroce_sack_span(sack));
	return kind;
drop:
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_SACK_DROPS);
	return 0;
}

/*
 * A SACK update (SROCE_SACK_KIND_UPDATE): the responder found no room to
 * hold more than it does behind the hole at @psn. That is its room
 * (sroce_rc_sack_window()); for the hole still open, the map replaces the
 * NAK's. No resend, no retry spent, no cut, nothing acknowledged.
 */
static void sroce_rx_sack_update(struct sroce_qp *qp, u32 psn, const struct sroce_sack *sack)
{
	struct sroce_req *req = &qp->req;

	req->sr_room = sroce_sack_count(sack);
	req->sr_room_hit = true;
	if (req->sack_valid && req->sack.psn == psn && req->una_psn == psn)
		sroce_rc_sacked_set(&req->sack, sack);
}

/* An RNR NAK (sroce_rc_nak() said wait): resend after @step's wait. */
static void sroce_rx_rnr_nak(struct sroce_qp *qp, const struct sroce_rc_step *step)
{
	struct sroce_req *req = &qp->req;

	req->rnr_left = step->rnr_left;
	req->rnr_wait = true;
	req->retry_psn = req->una_psn;	/* the NAK's PSN, or a READ before it */
	req->sack_valid = false;	/* the responder dropped what it held */
	sroce_cwnd_rto_forget(&req->cwnd);
	timer_delete(&qp->retrans_timer);
	mod_timer(&qp->rnr_timer, jiffies + max_t(unsigned long, 1,
		  usecs_to_jiffies(step->rnr_usecs)));
}

/*
 * A second ACK through the newest acknowledged PSN, @upto, from a sroce
 * responder: it had the request before the last RTO resent it
 * (sroce_cwnd_rto_dup_ack()). Any other responder's duplicate ACKs say
 * less (rdma_rxe's may name an older PSN).
 */
static void sroce_rto_dup_ack(struct sroce_qp *qp, u32 upto)
{
	if (sroce_psn_inc(upto) == qp->req.una_psn && sroce_qp_peer_is_sroce(qp) &&
	    sroce_cwnd_rto_dup_ack(&qp->req.cwnd, upto))
		sroce_rto_judged(qp, true);
}

/*
 * An Acknowledge packet (@sack: a valid SACK block came with it): the
 * decisions are proto/sroce_rc_comp.h's, this does what they say.
 */
static void sroce_rx_ack(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr,
			 const struct sroce_sack *sack)
{
	u8 syn = hdr->aeth.syndrome;
	u32 psn = hdr->bth.psn, upto;
	struct sroce_rc_send s;
	struct sroce_rc_step step;
	enum sroce_rc_ack kind;
	bool progress;

	trace_sroce_ack(qp->ibqp.qp_num, false, syn, hdr->aeth.msn, psn);
	kind = sroce_rc_ack_kind(syn, psn, qp->req.hi_psn, &upto);
	if (kind == SROCE_RC_ACK_DROP)
		return;
	/* a duplicate ACK changes nothing: no budget reset, no timer push */
	progress = sroce_ack_upto(qp, upto);
	if (progress)
		sroce_progress(qp);
	if (kind == SROCE_RC_ACK_ACK) {
		if (!progress && !sack)
			sroce_rto_dup_ack(qp, upto);
		sroce_probe_answered(qp, upto);
		return;
	}
	sroce_rc_send_of(qp, &s);
	switch (sroce_rc_nak(&s, kind, syn, psn, &step)) {
	case SROCE_RC_ACT_GO_BACK:
		sroce_rx_seq_nak(qp, psn, sack, step.retry_left);
		break;
	case SROCE_RC_ACT_RNR_WAIT:
		sroce_rx_rnr_nak(qp, &step);
		break;
	case SROCE_RC_ACT_FAIL:
		sroce_comp_fail(qp, sroce_rc_wc_status(step.status));
		break;
	default:
		break;
	}
}

/*
 * The READ (or atomic) entry a response with @psn belongs to, among the
 * entries sent; req->started if none (stale or bogus).
 */
static u32 sroce_read_of_psn(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 idx;

	for (idx = req->comp_idx; idx != req->started; idx++) {
		struct sroce_swqe *sw = sroce_swqe(qp, idx);

		if (!sw->tail_sent)
			break;
		if (sroce_is_read(qp, idx) && sroce_psn_diff(psn, sw->first_psn) >= 0 &&
		    sroce_psn_diff(psn, sw->last_psn) <= 0)
			return idx;
	}
	return req->started;
}

/*
 * A response's data met a missing page of an ODP MR of ours: drop it, and
 * ask again from its PSN once the page is faulted in (odp.c).
 */
static void sroce_odp_retry(struct sroce_qp *qp, u32 psn)
{
	qp->req.odp_retry = true;
	qp->req.odp_retry_psn = psn;
	trace_sroce_retransmit(qp->ibqp.qp_num, psn, qp->req.retry_left, SROCE_RETX_ODP);
	sroce_cwnd_rto_forget(&qp->req.cwnd);
	sroce_odp_wait(qp);
}

/*
 * A READ response or ATOMIC ACK for entry @idx implicitly acknowledges every
 * earlier request: retire them. An earlier READ still missing data lost its
 * responses (they come in order): ask for them again, and keep this one
 * for the resend. Return: true when nothing is left before @idx.
 */
static bool sroce_retire_before(struct sroce_qp *qp, u32 idx)
{
	struct sroce_req *req = &qp->req;

	while (req->comp_idx != idx) {
		if (sroce_read_awaits_data(qp, req->comp_idx)) {
			sroce_read_gap(qp, req->comp_idx);
			return false;
		}
		sroce_comp_retire(qp, IB_WC_SUCCESS);
	}
	return true;
}

/*
 * The outcome @err of placing the response with @psn into the entry's
 * SGEs: false when it was not placed, for a missing ODP page (asked again
 * later) or a bad local key of ours (the entry fails).
 */
static bool sroce_rx_placed(struct sroce_qp *qp, int err, u32 psn)
{
	if (err == -EAGAIN)
		sroce_odp_retry(qp, psn);
	else if (err)
		sroce_comp_fail(qp, IB_WC_LOC_PROT_ERR);
	return !err;
}

static bool sroce_selective_read = true;
module_param_named(selective_read, sroce_selective_read, bool, 0644);
MODULE_PARM_DESC(selective_read,
		 "with a selective repeat sroce peer, keep the READ responses after a lost one and ask again only for the lost (N: go back to the first lost one)");

/* Selective READ with this QP's peer, now (not while an ODP fault goes back) */
static bool sroce_selrd_allowed(const struct sroce_qp *qp)
{
	return qp->opt.selrd_peer && READ_ONCE(sroce_selective_read) && !qp->req.odp_retry;
}

/* An episode from the oldest unacknowledged PSN on, nothing placed past it */
static void sroce_selrd_start(struct sroce_qp *qp)
{
	struct sroce_selrd *s = &qp->req.selrd;

	s->on = true;
	s->repair_due = false;
	s->reasked = false;
	s->probe = false;
	s->probe_due = false;
	s->hi = qp->req.una_psn;
	s->asked = qp->req.una_psn;
	bitmap_zero(s->got, SROCE_SELRD_BITS);
}

/**
 * sroce_selrd_begin() - start a selective READ episode?
 * @qp: the QP
 * @idx: the entry the READ response with @psn belongs to
 * @psn: its PSN
 *
 * When the response shows a loss (a READ before @idx, or @idx itself, is
 * missing responses before @psn), the peer answers READ repairs
 * (qp->opt.selrd_peer) and only READs of data and requests without a
 * response lie in the way, the responses after the hole are kept from
 * now on instead of going back to it.
 *
 * Return: true if an episode began (the caller places the response).
 */
static bool sroce_selrd_begin(struct sroce_qp *qp, u32 idx, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 i;

	if (!sroce_selrd_allowed(qp) || sroce_psn_diff(psn, req->una_psn) >= (int)SROCE_SELRD_BITS)
		return false;
	for (i = req->comp_idx; ; i++) {
		struct sroce_swqe *sw = sroce_swqe(qp, i);
		bool data = sroce_selrd_entry(qp, i);

		if (!data && sroce_wqe_has_response(sroce_shadow(qp, i)))
			return false;	/* atomics, zero-length READs: go back */
		if (i == idx ? sroce_psn_diff(psn, sroce_read_expect(sw)) > 0 :
		    data && sw->read_done < sw->length)
			break;
		if (i == idx)
			return false;	/* in order, or a duplicate */
	}
	sroce_selrd_start(qp);
	trace_sroce_retransmit(qp->ibqp.qp_num, req->una_psn, req->retry_left,
			       SROCE_RETX_READ_GAP);
	sroce_cwnd_cut(qp, false, false);
	return true;
}

/* Entry @sw's data placed in order grows over the responses placed after it */
static void sroce_selrd_fill(struct sroce_qp *qp, struct sroce_swqe *sw)
{
	struct sroce_selrd *s = &qp->req.selrd;
	u32 psn = sroce_read_expect(sw);

	while (sw->read_done < sw->length &&
	       __test_and_clear_bit(psn % SROCE_SELRD_BITS, s->got)) {
		sw->read_done = min(sw->length, sw->read_done + sw->seg);
		psn = sroce_psn_inc(psn);
	}
}

/**
 * sroce_selrd_advance() - complete what the responses placed allow
 * @qp: the QP, in a selective READ episode
 *
 * From the oldest entry: a READ whose data is all placed completes, and a
 * request without a response completes once a response after it came (the
 * responder executes in PSN order). The oldest unacknowledged PSN moves to
 * the first hole; the episode ends when none is left.
 */
static void sroce_selrd_advance(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;
	u32 una = s->hi;

	while (sroce_req_busy(req)) {
		u32 idx = req->comp_idx;
		struct sroce_swqe *sw = sroce_swqe(qp, idx);

		if (!sw->tail_sent) {
			una = sw->first_psn;
			break;
		}
		if (sroce_selrd_entry(qp, idx)) {
			sroce_selrd_fill(qp, sw);
			if (sw->read_done < sw->length) {
				una = sroce_read_expect(sw);
				break;
			}
		} else if (sroce_wqe_has_response(sroce_shadow(qp, idx)) ||
			   sroce_psn_diff(sw->last_psn, s->hi) >= 0) {
			una = sw->first_psn;
			break;
		}
		sroce_comp_retire(qp, IB_WC_SUCCESS);
	}
	if (sroce_psn_diff(una, s->hi) >= 0) {
		sroce_selrd_reset(s);
		una = s->hi;
	}
	if (sroce_psn_diff(una, req->una_psn) > 0) {
		sroce_set_una(qp, una);
		sroce_progress(qp);
	}
}

/*
 * A READ response placed at the oldest unacknowledged PSN that goes on with
 * a message (MIDDLE, LAST) after an RTO resend is the first request's: the
 * resend asked again from that PSN, and its answer begins with a FIRST or
 * ONLY; so is a FIRST while the resend was a probe (sroce_selrd_probe():
 * its answer is an ONLY). The resend was needless (proto/sroce_cwnd.h).
 */
static void sroce_rto_judge_resp(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr)
{
	u32 orig = SROCE_OPF_MIDDLE | SROCE_OPF_LAST;

	if (qp->req.selrd.on && qp->req.selrd.probe && qp->req.selrd.hi == qp->req.una_psn)
		orig |= SROCE_OPF_FIRST;	/* nothing placed since: no repair asked */
	if (hdr->bth.psn == qp->req.una_psn && (hdr->info->flags & orig))
		sroce_rto_judge(qp, true, 0);
}

/*
 * A READ response before the oldest unacknowledged PSN is a second answer:
 * at the PSN the last RTO resent from, it shows that resend needless
 * (sroce_cwnd_rto_dup()), however its first progress was judged.
 */
static void sroce_rto_dup_resp(struct sroce_qp *qp, u32 psn)
{
	if (sroce_psn_diff(psn, qp->req.una_psn) < 0 && sroce_cwnd_rto_dup(&qp->req.cwnd, psn))
		sroce_rto_judged(qp, true);
}

/*
 * A READ response in a selective READ episode: placed where its PSN says,
 * whatever came before it; a PSN past the newest one placed opens a hole
 * the requester asks for again (sroce_req_repair()).
 */
static void sroce_selrd_rx(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_hdr *hdr, u32 idx)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;
	struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);
	struct sroce_swqe *sw = sroce_swqe(qp, idx);
	struct sroce_rc_read rd = {
		.first_psn = sw->first_psn, .length = sw->length, .mtu = sw->seg,
	};
	u32 psn = hdr->bth.psn, off;

	if (!sroce_selrd_entry(qp, idx)) {
		/* a response of another kind in the way: go back instead */
		sroce_selrd_reset(s);
		req->need_retry = true;
		req->retry_psn = req->una_psn;
		return;
	}
	if (sroce_rc_read_resp_at(&rd, psn, hdr->payload_len, &off) != SROCE_RC_RRESP_PLACE) {
		sroce_comp_fail(qp, IB_WC_BAD_RESP_ERR);
		return;
	}
	if (off < sw->read_done || sroce_psn_diff(psn, req->una_psn) < 0 ||
	    sroce_psn_diff(psn, req->una_psn) >= (int)SROCE_SELRD_BITS ||
	    test_bit(psn % SROCE_SELRD_BITS, s->got))
		return;		/* a duplicate, or past the map: asked again later */
	if (!sroce_rx_placed(qp, sroce_sgl_copy_skb(qp->sdev, qp->ibqp.pd, wqe->sge,
						    wqe->num_sge, off, skb,
						    sizeof(struct udphdr) + hdr->hdr_len,
						    hdr->payload_len), req->una_psn))
		return;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SELRD_PLACED);
	sroce_peer_progress(qp, sroce_psn_inc(psn));
	sroce_rto_judge_resp(qp, hdr);
	__set_bit(psn % SROCE_SELRD_BITS, s->got);
	if (sroce_psn_diff(psn, s->hi) >= 0) {
		if (psn != s->hi)
			s->repair_due = true;
		s->hi = sroce_psn_inc(psn);
	}
	sroce_selrd_advance(qp);
}

/* Every hole below the newest response placed goes again (sroce_req_repair()) */
static void sroce_selrd_ask_again(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;

	s->asked = req->una_psn;
	s->repair_due = true;
	if (s->hi != req->una_psn)
		sroce_stat_inc(qp->sdev, SROCE_STAT_SELRD_REASKS);
	trace_sroce_retransmit(qp->ibqp.qp_num, req->una_psn, req->retry_left,
			       SROCE_RETX_READ_GAP);
}

/*
 * The resend timer expired in a selective READ episode: a repair, or its
 * responses, were lost too. The first time, every hole below the newest
 * response placed is asked for again instead of going back to the oldest
 * one (true: the caller does not go back); the next time it goes back.
 */
static bool sroce_selrd_reask(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;

	if (!s->on || s->reasked)
		return false;
	s->reasked = true;
	sroce_selrd_ask_again(qp);
	return true;
}

/*
 * The newest READ of data a probe may ask for: from the oldest entry on,
 * sent, READs of data and requests without a response only, its
 * responses within the map; req->started if none.
 */
static u32 sroce_selrd_probe_target(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 i, target = req->started;

	for (i = req->comp_idx; i != req->started; i++) {
		const struct sroce_swqe *sw = sroce_swqe(qp, i);

		if (!sw->tail_sent)
			break;
		if (!sroce_selrd_entry(qp, i)) {
			if (sroce_wqe_has_response(sroce_shadow(qp, i)))
				break;	/* atomics, zero-length READs */
			continue;
		}
		if (sroce_psn_diff(sw->last_psn, req->una_psn) >= (int)SROCE_SELRD_BITS)
			break;
		target = i;
	}
	return target;
}

/**
 * sroce_selrd_probe() - the resend timer's probe of the READs in flight
 * @qp: the QP, its resend timer expired
 *
 * With a peer that answers a READ probe behind its queued answers
 * (qp->opt.rdprobe_peer), an expiry while the oldest unacknowledged PSN is
 * a response of a READ of data, or in a selective READ episode, does not
 * go back (which asks again for the rest of that READ and for every
 * request after it, all of which come twice after a stall): one repair
 * asks for the last response of the newest READ in flight alone (the
 * probe, sroce_req_repair()), and the holes known are asked for again.
 * Late responses come before the probe's answer, which is then a
 * duplicate (with no hole known, the first ends the episode); else its
 * answer opens a hole up to it, asked for at once. Each expiry without
 * progress probes again, one packet; the QP's local ACK timeout still
 * goes back, so a peer that is gone fails as before. (If a READ request
 * itself was lost, the probe comes before its turn and is NAKed: that
 * goes back to it.)
 *
 * Return: true if the probe goes (the caller does not go back).
 */
static bool sroce_selrd_probe(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;
	u32 idx;

	if (!qp->opt.rdprobe_peer || !sroce_selrd_allowed(qp) || !sroce_req_busy(req) ||
	    (!s->on && !sroce_selrd_entry(qp, req->comp_idx)))
		return false;
	idx = sroce_selrd_probe_target(qp);
	if (idx == req->started)
		return false;
	if (!s->on) {
		sroce_selrd_start(qp);
		sroce_cwnd_cut(qp, false, true);
	}
	sroce_selrd_ask_again(qp);
	s->probe = true;
	/* every response of that READ placed already: the holes alone */
	s->probe_due = sroce_psn_diff(sroce_swqe(qp, idx)->last_psn, s->hi) >= 0;
	s->probe_idx = idx;
	if (s->probe_due)
		sroce_stat_inc(qp->sdev, SROCE_STAT_SELRD_PROBES);
	return true;
}

static void sroce_rx_read_resp(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;
	u32 psn = hdr->bth.psn, idx;
	enum sroce_rc_rresp verdict;
	struct sroce_send_wqe *wqe;
	struct sroce_rc_read rd;
	struct sroce_swqe *sw;
	u32 op = hdr->info->flags;

	sroce_rto_dup_resp(qp, psn);
	idx = sroce_read_of_psn(qp, psn);
	if (idx == req->started)
		return;		/* stale or bogus: drop */
	wqe = sroce_shadow(qp, idx);
	if (wqe->opcode != IB_UVERBS_WR_RDMA_READ && !sroce_wqe_empty_response(wqe))
		goto bad;	/* a READ response for an atomic's PSN */
	if (req->selrd.on || sroce_selrd_begin(qp, idx, psn)) {
		sroce_selrd_rx(qp, skb, hdr, idx);
		return;
	}
	if (!sroce_retire_before(qp, idx))
		return;

	sw = sroce_swqe(qp, idx);
	rd.first_psn = sw->first_psn;
	rd.length = sw->length;
	rd.done = sw->read_done;
	rd.mtu = sw->seg;
	rd.empty = sroce_wqe_empty_response(wqe);
	rd.repairs = qp->opt.selrd_peer;
	verdict = sroce_rc_read_resp(&rd, psn, op, hdr->payload_len);
	switch (verdict) {
	case SROCE_RC_RRESP_GAP:	/* lost responses */
		sroce_read_gap(qp, idx);
		return;
	case SROCE_RC_RRESP_DUP:
		return;
	case SROCE_RC_RRESP_BAD:
		goto bad;
	default:
		break;
	}
	if (!rd.empty) {
		if (!sroce_rx_placed(qp, sroce_sgl_copy_skb(qp->sdev, qp->ibqp.pd, wqe->sge,
							    wqe->num_sge, sw->read_done, skb,
							    sizeof(struct udphdr) + hdr->hdr_len,
							    hdr->payload_len), psn))
			return;
		sw->read_done += hdr->payload_len;
	}
	sroce_rto_judge_resp(qp, hdr);
	req->rd_gap = false;
	if (sroce_psn_diff(psn, req->una_psn) >= 0)
		sroce_set_una(qp, sroce_psn_inc(psn));
	if (verdict == SROCE_RC_RRESP_LAST)
		sroce_comp_retire(qp, IB_WC_SUCCESS);
	sroce_progress(qp);
	return;
bad:
	sroce_comp_fail(qp, IB_WC_BAD_RESP_ERR);
}

/* An ATOMIC ACK: the original remote value goes to the local buffer. */
static void sroce_rx_atomic_ack(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;
	u32 psn = hdr->bth.psn, idx;
	struct sroce_send_wqe *wqe;
	struct sroce_swqe *sw;
	u64 orig = hdr->atmack;

	if (sroce_aeth_syn_type(hdr->aeth.syndrome) != SROCE_AETH_ACK)
		return;		/* bogus: NAKs come as plain Acknowledge packets */
	idx = sroce_read_of_psn(qp, psn);
	if (idx == req->started)
		return;
	wqe = sroce_shadow(qp, idx);
	if (wqe->opcode != IB_UVERBS_WR_ATOMIC_CMP_AND_SWP &&
	    wqe->opcode != IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD)
		goto bad;	/* an ATOMIC ACK for a READ's PSN */
	if (!sroce_retire_before(qp, idx))
		return;
	sw = sroce_swqe(qp, idx);
	if (!sroce_rx_placed(qp, sroce_sgl_copy(qp->sdev, qp->ibqp.pd, wqe->sge, 1, 0, &orig,
						sizeof(orig), SROCE_COPY_TO_MR), psn))
		return;
	sw->read_done = sw->length;
	req->rd_gap = false;
	if (sroce_psn_diff(psn, req->una_psn) >= 0)
		sroce_set_una(qp, sroce_psn_inc(psn));
	sroce_comp_retire(qp, IB_WC_SUCCESS);
	sroce_progress(qp);
	return;
bad:
	sroce_comp_fail(qp, IB_WC_BAD_RESP_ERR);
}

/**
 * sroce_completer_rx() - an ACK or READ response for this QP's requests
 * @qp: the QP
 * @skb: the packet (data at the UDP header)
 * @hdr: its parsed transport header
 */
void sroce_completer_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_sack sack;
	int kind;

	lockdep_assert_held(&qp->lock);

	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return;
	if (unlikely(hdr->sack_len)) {
		kind = sroce_rx_sack(qp, skb, hdr, &sack);
		if (kind == SROCE_SACK_KIND_UPDATE)
			sroce_rx_sack_update(qp, hdr->bth.psn, &sack);
		else if (kind)
			sroce_rx_ack(qp, hdr, &sack);
		return;
	}
	if (hdr->info->flags & SROCE_OPF_RESP) {
		sroce_rx_read_resp(qp, skb, hdr);
		/* the first/last/only responses carry an AETH */
		return;
	}
	/* RC or XRC: the same operations */
	switch (hdr->bth.opcode & SROCE_OP_OPERATION_MASK) {
	case SROCE_OP_RC_ACKNOWLEDGE:
		sroce_rx_ack(qp, hdr, NULL);
		break;
	case SROCE_OP_RC_ATOMIC_ACKNOWLEDGE:
		sroce_rx_atomic_ack(qp, hdr);
		break;
	default:
		break;
	}
}

/*
 * The resend timer of the measured RTT expired before the QP's timeout
 * (proto/sroce_cwnd.h): the oldest unacknowledged packet goes again alone,
 * without spending a retry (sroce_req_probe(); a READ or atomic there goes
 * back instead, and in a selective READ episode its holes are asked for
 * again first); its answer decides what else goes (sroce_probe_answered()):
 * after an ACK of the probe alone, this one goes back. Its wait doubles
 * until progress, and the episode never moves the IBTA deadline it
 * started under (@fail_at): a peer that is gone still fails after
 * retry_cnt timeouts.
 */
static void sroce_completer_rto(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!req->cwnd.rto_backoff)
		req->fail_at = req->ack_due;
	sroce_cwnd_rto_fired(&req->cwnd, ktime_get_ns(), req->una_psn);
	sroce_stat_inc(qp->sdev, SROCE_STAT_RTO_RESENDS);
	req->rto_due = 0;
	if (sroce_selrd_probe(qp) || sroce_selrd_reask(qp)) {
		sroce_req_arm_timer(qp);
		return;
	}
	if (req->probe_alone) {
		/* the probe's answer was all: what followed it goes again */
		req->probe_alone = false;
		req->need_retry = true;
		req->retry_psn = req->una_psn;
		trace_sroce_retransmit(qp->ibqp.qp_num, req->retry_psn, req->retry_left,
				       SROCE_RETX_PROBE);
	} else {
		req->probe_due = true;
	}
	req->rd_gap = false;
	req->sack_valid = false;
	sroce_cwnd_cut(qp, false, true);
	sroce_req_arm_timer(qp);
}

/* The local ACK timer expired: retry from the oldest unacknowledged PSN. */
void sroce_completer_timeout(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_rc_step step;
	struct sroce_rc_send s;

	lockdep_assert_held(&qp->lock);

	if (!sroce_req_busy(req) || req->rnr_wait)
		return;
	/* the lazy timer fired before the deadline (sroce_req_arm_timer()) */
	if (time_before(jiffies, req->ack_due) &&
	    !(req->cwnd.rto_backoff && !time_before(jiffies, req->fail_at))) {
		if (req->rto_due && !time_before(jiffies, req->rto_due))
			sroce_completer_rto(qp);
		else
			mod_timer(&qp->retrans_timer, req->rto_due &&
				  time_before(req->rto_due, req->ack_due) ?
				  req->rto_due : req->ack_due);
		return;
	}
	req->cwnd.rto_backoff = 0;
	sroce_rc_send_of(qp, &s);
	switch (sroce_rc_timeout(&s, &step)) {
	case SROCE_RC_ACT_GO_BACK:
		break;
	case SROCE_RC_ACT_FAIL:
		sroce_comp_fail(qp, sroce_rc_wc_status(step.status));
		return;
	default:
		return;		/* nothing to resend (none today) */
	}
	req->retry_left = step.retry_left;
	req->need_retry = true;
	req->retry_psn = req->una_psn;
	req->probe_due = false;
	req->probe_alone = false;
	trace_sroce_retransmit(qp->ibqp.qp_num, req->retry_psn, req->retry_left,
			       SROCE_RETX_TIMEOUT);
	req->rd_gap = false;
	req->sack_valid = false;	/* everything unacknowledged goes again */
	sroce_cwnd_rto_forget(&req->cwnd);
	sroce_stat_inc(qp->sdev, SROCE_STAT_TIMEOUTS);
	sroce_cwnd_cut(qp, true, true);
	/*
	 * A short timeout waits twice as long next time (up to 8 times,
	 * never past 1 s: sroce_retry_wait_ns()) until something is
	 * acknowledged. A go-back makes the responder answer again what is
	 * still on its way to us: on a slow host (TCG) that backlog can take
	 * longer than a short timeout to drain, and a fixed timer would fire
	 * again and again over a working link until the retry budget is gone.
	 * A backlog never takes seconds, and stretching a long timeout (NCCL's
	 * 4.3 s) made three losses in a row cost 30 s instead of 13.
	 */
	if (req->backoff < SROCE_RETRY_BACKOFF_MAX)
		req->backoff++;
	/* armed again even if the go-back finds nothing to resend */
	sroce_req_arm_timer(qp);
}

/* An RNR NAK's wait is over: resend from the NAK'd PSN. */
void sroce_completer_rnr_done(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	if (!req->rnr_wait)
		return;
	req->rnr_wait = false;
	req->need_retry = true;
	trace_sroce_retransmit(qp->ibqp.qp_num, req->retry_psn, req->rnr_left, SROCE_RETX_RNR);
	sroce_req_arm_timer(qp);
}
