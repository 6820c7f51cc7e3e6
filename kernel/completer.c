// SPDX-License-Identifier: GPL-2.0
/*
 * sroce completer: ACKs, NAKs and READ responses coming back to the
 * requester; retires SQ entries in order and drives retransmission.
 */
#include <linux/module.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"

static inline struct sroce_send_wqe *sroce_shadow(struct sroce_qp *qp, u32 idx)
{
	return qp->sq_shadow + (size_t)(idx & (qp->sq_entries - 1)) * qp->sq_stride;
}

static inline struct sroce_swqe *sroce_swqe(struct sroce_qp *qp, u32 idx)
{
	return &qp->swqe[idx & (qp->sq_entries - 1)];
}

static bool sroce_is_read(struct sroce_qp *qp, u32 idx)
{
	return sroce_shadow(qp, idx)->opcode == IB_UVERBS_WR_RDMA_READ;
}

/* Retire the head entry with @status. */
static void sroce_retire(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;

	if (sroce_is_read(qp, req->comp_idx) && req->rd_outstanding)
		req->rd_outstanding--;
	/*
	 * Free the ring slot before the completion is visible: a consumer
	 * that polls the CQE may post again at once and must find room.
	 */
	sroce_queue_consumed(qp->sq, 1);
	sroce_req_complete(qp, req->comp_idx, status);
	req->comp_idx++;
}

/* Progress: reset the retry budgets, restart or stop the timer. */
static void sroce_progress(struct sroce_qp *qp)
{
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	if (qp->req.comp_idx == qp->req.send_idx && !qp->req.send_off)
		timer_delete(&qp->retrans_timer);
	else
		sroce_req_arm_timer(qp);
}

/*
 * Everything up to and including @psn is acknowledged: retire the
 * non-READ entries it covers. A READ in the way that has not got all its
 * data means its responses were lost: ask again.
 */
static void sroce_ack_upto(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;

	while (req->comp_idx != req->send_idx) {
		struct sroce_swqe *sw = sroce_swqe(qp, req->comp_idx);

		if (sroce_psn_diff(psn, sw->last_psn) < 0)
			break;
		if (sroce_is_read(qp, req->comp_idx)) {
			req->need_retry = true;
			req->retry_psn = sw->first_psn;
			break;
		}
		sroce_retire(qp, IB_WC_SUCCESS);
	}
	if (sroce_psn_diff(psn, req->una_psn) >= 0)
		req->una_psn = sroce_psn_inc(psn);
}

static enum ib_wc_status sroce_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_REM_OP:
		return IB_WC_REM_OP_ERR;
	default:
		return IB_WC_REM_INV_RD_REQ_ERR;
	}
}

static void sroce_rx_ack(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;
	u8 syn = hdr->aeth.syndrome;
	u32 psn = hdr->bth.psn;

	/* an ACK for a PSN never sent is bogus */
	if (sroce_psn_diff(psn, req->psn) >= 0)
		return;

	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
		sroce_ack_upto(qp, psn);
		sroce_progress(qp);
		break;
	case SROCE_AETH_RNR_NAK:
		sroce_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MASK)); /* psn - 1 */
		if (req->rnr_left == 0) {
			if (req->comp_idx != req->send_idx)
				sroce_retire(qp, IB_WC_RNR_RETRY_EXC_ERR);
			sroce_qp_error(qp);
			return;
		}
		if (req->rnr_left != 7)		/* 7: retry for ever */
			req->rnr_left--;
		req->rnr_wait = true;
		req->retry_psn = psn;
		timer_delete(&qp->retrans_timer);
		mod_timer(&qp->rnr_timer, jiffies + max_t(unsigned long, 1,
			  usecs_to_jiffies(sroce_rnr_timer_usecs(sroce_aeth_syn_value(syn)))));
		break;
	case SROCE_AETH_NAK:
		sroce_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MASK));
		if (sroce_aeth_syn_value(syn) == SROCE_NAK_PSN_SEQ_ERR) {
			req->need_retry = true;
			req->retry_psn = psn;
			sroce_progress(qp);
			break;
		}
		if (req->comp_idx != req->send_idx)
			sroce_retire(qp, sroce_nak_status(sroce_aeth_syn_value(syn)));
		sroce_qp_error(qp);
		break;
	default:
		break;
	}
}

static void sroce_rx_read_resp(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;
	u32 psn = hdr->bth.psn, idx, expect;
	struct sroce_send_wqe *wqe;
	struct sroce_swqe *sw;
	const u8 *payload;
	u32 op = hdr->info->flags;

	/* a READ response implicitly acknowledges every earlier request */
	for (idx = req->comp_idx; idx != req->send_idx; idx++) {
		sw = sroce_swqe(qp, idx);
		if (sroce_is_read(qp, idx) && sroce_psn_diff(psn, sw->first_psn) >= 0 &&
		    sroce_psn_diff(psn, sw->last_psn) <= 0)
			break;
	}
	if (idx == req->send_idx)
		return;		/* stale or bogus: drop */
	while (req->comp_idx != idx)
		sroce_retire(qp, IB_WC_SUCCESS);

	sw = sroce_swqe(qp, idx);
	expect = sroce_psn_add(sw->first_psn, sw->read_done / qp->mtu);
	if (psn != expect) {
		if (sroce_psn_diff(psn, expect) > 0) {	/* lost responses */
			req->need_retry = true;
			req->retry_psn = expect;
		}
		return;
	}
	/* every response but the last carries exactly one MTU */
	if ((op & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) && hdr->payload_len != qp->mtu)
		goto bad;
	if (hdr->payload_len > sw->length - sw->read_done)
		goto bad;
	if ((op & (SROCE_OPF_LAST | SROCE_OPF_ONLY)) &&
	    sw->read_done + hdr->payload_len != sw->length)
		goto bad;
	payload = skb->data + sizeof(struct udphdr) + hdr->hdr_len;
	wqe = sroce_shadow(qp, idx);
	if (sroce_sgl_copy(qp->sdev, qp->ibqp.pd, wqe->sge, wqe->num_sge, sw->read_done,
			   (void *)payload, hdr->payload_len, SROCE_COPY_TO_MR)) {
		sroce_retire(qp, IB_WC_LOC_PROT_ERR);
		sroce_qp_error(qp);
		return;
	}
	sw->read_done += hdr->payload_len;
	req->una_psn = sroce_psn_inc(psn);
	if (op & (SROCE_OPF_LAST | SROCE_OPF_ONLY))
		sroce_retire(qp, IB_WC_SUCCESS);
	sroce_progress(qp);
	return;
bad:
	sroce_retire(qp, IB_WC_BAD_RESP_ERR);
	sroce_qp_error(qp);
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

	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return;
	if (hdr->info->flags & SROCE_OPF_RESP) {
		sroce_rx_read_resp(qp, skb, hdr);
		/* the first/last/only responses carry an AETH */
		return;
	}
	if (hdr->bth.opcode == SROCE_OP_RC_ACKNOWLEDGE)
		sroce_rx_ack(qp, hdr);
}

/* The local ACK timer expired: retry or give up. */
void sroce_completer_timeout(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (req->comp_idx == req->send_idx && !req->send_off)
		return;
	if (req->retry_left == 0) {
		sroce_retire(qp, IB_WC_RETRY_EXC_ERR);
		sroce_qp_error(qp);
		return;
	}
	req->retry_left--;
	req->need_retry = true;
	req->retry_psn = req->una_psn;
}

/* An RNR NAK's wait is over: resend from the NAK'd PSN. */
void sroce_completer_rnr_done(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	if (!req->rnr_wait)
		return;
	req->rnr_wait = false;
	req->need_retry = true;
}
