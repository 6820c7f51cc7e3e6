// SPDX-License-Identifier: GPL-2.0
/*
 * sroce responder: executes incoming RC requests (SEND into posted receive
 * buffers, RDMA WRITE, READ and atomics against registered memory) and
 * answers with ACKs, NAKs, READ responses and ATOMIC ACKs. Requests that
 * arrive after a gap are selective repeat's (sr.c).
 */
#include "sroce.h"
#include "mw.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"
#include "xrc.h"
#include "trace.h"
#include "xmit.h"
#include "recv.h"
#include "responder.h"
#include "cq.h"
#include "mr.h"
#include "mr_copy.h"
#include "sr.h"
#include "sroce_rc_resp.h"

/* ---- sending ACKs and READ responses --------------------------------- */

/*
 * An ACK/NAK; with @sack (selective repeat peers only) the NAK carries the
 * SACK block of the PSNs held after @psn (sroce_sr.h).
 */
int sroce_send_ack_sack(struct sroce_qp *qp, u8 syndrome, u32 psn,
			const struct sroce_sack *sack, u8 kind)
{
	struct sroce_pkt_hdr hdr = {};
	u32 ext = sack ? SROCE_SACK_LEN : 0;
	struct sk_buff *skb;
	u8 *buf;

	lockdep_assert_held(&qp->lock);

	hdr.bth.opcode = sroce_qp_opcode(qp, SROCE_OP_RC_ACKNOWLEDGE);
	hdr.bth.pkey = 0xffff;
	hdr.bth.dqpn = qp->attr.dest_qp_num;
	hdr.bth.psn = psn & SROCE_PSN_MASK;
	hdr.aeth.syndrome = syndrome;
	hdr.aeth.msn = qp->resp.msn & SROCE_AETH_MSN_MASK;
	hdr.info = sroce_opcode(hdr.bth.opcode);
	skb = sroce_pkt_alloc(qp, hdr.info->hdr_len + ext);
	if (!skb)
		return -ENOMEM;
	buf = skb_put(skb, hdr.info->hdr_len);
	sroce_pkt_build_hdrs(buf, hdr.info->hdr_len, &hdr);
	trace_sroce_ack(qp->ibqp.qp_num, true, syndrome, hdr.aeth.msn, hdr.bth.psn);
	if (sack) {
		buf[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
		sroce_sack_put(skb_put(skb, ext), sack, kind);
		sroce_stat_inc(qp->sdev, SROCE_STAT_SR_SACK_TX);
		trace_sroce_sr_sack(qp->ibqp.qp_num, true, hdr.bth.psn, sroce_sack_span(sack));
	}
	return sroce_pkt_xmit(qp, skb, 0);
}

/**
 * sroce_send_ack() - send an ACK/NAK
 * @qp: the QP
 * @syndrome: AETH syndrome
 * @psn: BTH PSN (the acknowledged one, or the NAK'd one)
 */
int sroce_send_ack(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	return sroce_send_ack_sack(qp, syndrome, psn, NULL, 0);
}

/*
 * A NAK for the expected PSN; a PSN sequence NAK to a selective repeat
 * peer carries what is held after it, so only the rest is resent.
 */
static void sroce_resp_send_nak(struct sroce_qp *qp, u8 syndrome)
{
	struct sroce_sack sack;
	bool with = syndrome == sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR) &&
		    sroce_sr_sack(qp, &sack);

	sroce_send_ack_sack(qp, syndrome, qp->resp.psn, with ? &sack : NULL, SROCE_SACK_KIND);
}

/*
 * Selective repeat, the gap NAKed and still open: a packet found no room
 * to be held. Tell the requester what is held, all there is room for
 * (SROCE_SACK_KIND_UPDATE), so that its window stops counting more as held
 * (proto/sroce_rc_req.h, sroce_rc_sack_window()); it asks for no resend.
 */
static void sroce_resp_sack_update(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_sack sack;

	resp->sack_update = false;
	if (!resp->nak_sent || !sroce_sr_sack(qp, &sack))
		return;
	sroce_send_ack_sack(qp, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), resp->psn, &sack,
			    SROCE_SACK_KIND_UPDATE);
}

static void sroce_nak(struct sroce_qp *qp, enum sroce_nak_code code)
{
	sroce_send_ack(qp, sroce_aeth_syn_nak(code), qp->resp.psn);
}

static bool sroce_reads_queued(const struct sroce_resp *resp)
{
	return resp->rd_head != resp->rd_tail;
}

/*
 * A NAK that asks the requester to resend (sequence error, RNR) for the
 * expected PSN. It acknowledges every earlier PSN, so it waits behind
 * READ responses still queued (responses leave in PSN order); a request
 * that arrives in order meanwhile makes it moot (sroce_responder_rx()).
 */
void sroce_resp_nak_resend(struct sroce_qp *qp, u8 syndrome)
{
	struct sroce_resp *resp = &qp->resp;

	if (!sroce_reads_queued(resp)) {
		sroce_resp_send_nak(qp, syndrome);
		return;
	}
	resp->nak_deferred = true;
	resp->nak_syn = syndrome;
}

/*
 * UC: forget the message in progress (its receive buffer is kept for the
 * next one) and drop what is left of it, up to the next FIRST or ONLY.
 */
static void sroce_uc_drop_msg(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	resp->in_send = false;
	resp->recv_off = 0;
	resp->in_write = false;
	if (resp->wmr)
		sroce_mr_put(resp->wmr);
	resp->wmr = NULL;
	resp->uc_skip = true;
}

/*
 * NAK the gap before the expected PSN, once per gap (with the SACK of what
 * selective repeat holds), and count it.
 */
static void sroce_resp_seq_nak(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	if (resp->nak_sent)
		return;
	resp->nak_sent = true;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SEQ_NAKS_SENT);
	sroce_resp_nak_resend(qp, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR));
}

/*
 * Fatal responder error: NAK, then the QP goes to ERR. UC has neither: the
 * message is dropped (IBTA: silently), the QP goes on.
 */
static void sroce_resp_fatal(struct sroce_qp *qp, enum sroce_nak_code code)
{
	if (sroce_qp_is_uc(qp)) {
		sroce_uc_drop_msg(qp);
		return;
	}
	sroce_nak(qp, code);
	sroce_qp_set_error(qp);
}

/*
 * Coalesced ACK of the newest SEND or WRITE packet (resp->ack_psn), and a
 * deferred NAK. Both acknowledge every PSN before theirs, READs included:
 * they wait until the READ responses queued before them are sent (IBTA:
 * responses in order).
 */
void sroce_responder_flush_acks(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&qp->lock);

	if (sroce_reads_queued(resp))
		return;
	if (resp->nak_deferred) {
		resp->nak_deferred = false;
		resp->ack_pending = false;	/* the NAK acknowledges as much */
		resp->dup_ack_pending = false;
		resp->ack_twice = false;
		/* resp->psn has not moved since: an in-order request clears the NAK */
		sroce_resp_send_nak(qp, resp->nak_syn);
		return;
	}
	if (resp->ack_pending) {
		resp->ack_pending = false;
		resp->dup_ack_pending = false;	/* the newest covers it */
		sroce_send_ack(qp, sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID), resp->ack_psn);
		if (resp->ack_twice)
			sroce_send_ack(qp, sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID),
				       resp->ack_psn);
		resp->ack_twice = false;
	} else if (resp->dup_ack_pending) {
		resp->dup_ack_pending = false;
		sroce_send_ack(qp, sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID),
			       resp->dup_ack_psn);
	}
	if (resp->sack_update)
		sroce_resp_sack_update(qp);
}

/* The ATOMIC ACK of @rd; -ENOMEM leaves it queued for the next run. */
static int sroce_send_atomic_ack(struct sroce_qp *qp, const struct sroce_resp_read *rd)
{
	struct sroce_pkt_hdr hdr = {};
	struct sk_buff *skb;

	hdr.bth.opcode = sroce_qp_opcode(qp, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	hdr.info = sroce_opcode(hdr.bth.opcode);
	hdr.bth.pkey = 0xffff;
	hdr.bth.dqpn = qp->attr.dest_qp_num;
	hdr.bth.psn = rd->psn;
	hdr.aeth.syndrome = sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);
	hdr.aeth.msn = qp->resp.msn & SROCE_AETH_MSN_MASK;
	hdr.atmack = rd->orig;
	skb = sroce_pkt_alloc(qp, hdr.info->hdr_len);
	if (!skb)
		return -ENOMEM;
	sroce_pkt_build_hdrs(skb_put(skb, hdr.info->hdr_len), hdr.info->hdr_len, &hdr);
	sroce_pkt_xmit(qp, skb, 0);
	return 0;
}

static void sroce_read_release(struct sroce_resp_read *rd)
{
	if (rd->mr)
		sroce_mr_put(rd->mr);
	rd->mr = NULL;
}

/*
 * The @n bytes of @rd's next response after the headers of @skb, travelling
 * as @mode says (sroce_pkt_frag_mode()): by reference where the MR allows,
 * else copied, into page fragments a page at most each (a wide segment is
 * larger than one). Return: 0, -ENOMEM (no fragment: send it later), or
 * the MR copy's error.
 */
static int sroce_read_payload(struct sroce_qp *qp, struct sroce_resp_read *rd,
			      struct sk_buff *skb, u32 n, enum sroce_pkt_mode mode)
{
	u64 va = rd->va + rd->sent;
	u32 done = 0, len;
	int err;
	u8 *buf;

	/* through a window invalidated, rebound or freed since: as an MR gone */
	if (!sroce_rkey_still(qp->sdev, rd->key, rd->mr, rd->gen))
		return -EACCES;
	if (mode == SROCE_PKT_LINEAR)
		return sroce_mr_copy(rd->mr, rd->gen, va, skb_put(skb, n), n, SROCE_COPY_FROM_MR);
	if (mode == SROCE_PKT_ZCOPY) {
		err = sroce_pkt_zc_end(qp, skb, n, sroce_mr_frags(rd->mr, va, n, skb));
		if (err != -EOPNOTSUPP)
			return err;
	}
	do {
		len = min_t(u32, n - done, PAGE_SIZE);
		buf = sroce_pkt_frag_piece(skb, len, n, done + len == n);
		if (!buf)
			return -ENOMEM;
		err = sroce_mr_copy(rd->mr, rd->gen, va + done, buf, len, SROCE_COPY_FROM_MR);
		if (err)
			return err;
		done += len;
	} while (done < n);
	return 0;
}

/* Send READ responses that are due, a bounded batch per run. */
void sroce_responder_send_reads(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	enum sroce_pkt_mode mode;
	int budget = 64, err;

	lockdep_assert_held(&qp->lock);

	while (sroce_reads_queued(resp) && budget--) {
		struct sroce_resp_read *rd = &resp->reads[resp->rd_head % SROCE_MAX_RD_ATOMIC];
		struct sroce_pkt_hdr hdr = {};
		u32 n = min(rd->seg, rd->len - rd->sent);
		bool first = rd->sent == 0, last = rd->sent + n == rd->len;
		struct sk_buff *skb;

		if (rd->atomic) {
			if (sroce_send_atomic_ack(qp, rd))
				break;
			resp->rd_head++;
			continue;
		}
		if (first && last)
			hdr.bth.opcode = SROCE_OP_RC_READ_RESPONSE_ONLY;
		else if (first)
			hdr.bth.opcode = SROCE_OP_RC_READ_RESPONSE_FIRST;
		else if (last)
			hdr.bth.opcode = SROCE_OP_RC_READ_RESPONSE_LAST;
		else
			hdr.bth.opcode = SROCE_OP_RC_READ_RESPONSE_MIDDLE;
		hdr.bth.opcode = sroce_qp_opcode(qp, hdr.bth.opcode);
		hdr.info = sroce_opcode(hdr.bth.opcode);
		hdr.bth.pkey = 0xffff;
		hdr.bth.dqpn = qp->attr.dest_qp_num;
		hdr.bth.psn = rd->psn;
		hdr.bth.pad = sroce_pad_len(n);
		hdr.aeth.syndrome = sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);
		hdr.aeth.msn = resp->msn & SROCE_AETH_MSN_MASK;

		mode = sroce_pkt_frag_mode(qp, n, true);
		skb = sroce_pkt_alloc(qp, hdr.info->hdr_len + (mode == SROCE_PKT_LINEAR ? n : 0));
		if (!skb)
			break;
		sroce_pkt_build_hdrs(skb_put(skb, hdr.info->hdr_len), hdr.info->hdr_len, &hdr);
		err = n ? sroce_read_payload(qp, rd, skb, n, mode) : 0;
		if (err) {
			kfree_skb(skb);
			if (err == -ENOMEM)
				break;	/* sent later, like an skb not allocated */
			if (err == -EAGAIN) {
				/* an ODP page: go on once it is faulted in */
				sroce_odp_wait(qp);
				return;
			}
			/*
			 * The MR went (deregistered, invalidated) under a READ
			 * already answered in part. The NAK names the response
			 * that failed: resp->psn is past every request received,
			 * possibly the requester's next PSN, which it would take
			 * for a PSN never sent and retry until exhausted.
			 */
			sroce_send_ack(qp, sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS), rd->psn);
			sroce_qp_set_error(qp);
			return;
		}
		sroce_pkt_xmit(qp, skb, n);
		rd->sent += n;
		rd->psn = sroce_psn_inc(rd->psn);
		if (last) {
			sroce_read_release(rd);
			resp->rd_head++;
		}
	}
	if (sroce_reads_queued(resp))
		sroce_qp_yield(qp);
	else
		sroce_responder_flush_acks(qp);	/* what waited behind them */
}

/* ---- executing requests --------------------------------------------- */

/*
 * The PD rkeys and receive buffers are checked against: an XRC TGT QP has
 * none of its own and uses the one of the XRC SRQ the request names.
 */
static struct ib_pd *sroce_resp_pd(struct sroce_qp *qp)
{
	return qp->xsrq ? qp->xsrq->ibsrq.pd : qp->ibqp.pd;
}

/* Where receive completions go: an XRC SRQ's own CQ for an XRC TGT QP */
static struct sroce_cq *sroce_resp_cq(struct sroce_qp *qp)
{
	return sroce_to_cq(qp->xsrq ? qp->xsrq->ibsrq.ext.cq : qp->ibqp.recv_cq);
}

static int sroce_resp_get_rqe(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	int err = sroce_recv_take(qp, resp->rqe);

	if (err)
		return err;
	resp->rqe_valid = true;
	resp->recv_off = 0;
	return 0;
}

/* Place the payload of @skb at @off of the current receive buffer. */
static int sroce_resp_place(struct sroce_qp *qp, u32 off, const struct sk_buff *skb,
			    const struct sroce_pkt_hdr *hdr)
{
	struct sroce_recv_wqe *rqe = qp->resp.rqe;
	int err;

	err = sroce_sgl_copy_skb(qp->sdev, sroce_resp_pd(qp), rqe->sge, rqe->num_sge, off,
				 skb, sizeof(struct udphdr) + hdr->hdr_len, hdr->payload_len);
	return err == -EMSGSIZE || err == -EAGAIN || !err ? err : -EACCES;
}

/*
 * A page of an ODP MR of ours that the request needs is being faulted in
 * (odp.c): RNR NAK, as hardware does for a page fault; the requester sends
 * the request again after the RNR timer. Nothing of it was executed. UC
 * has no RNR: the packet waits at the head of the QP's receive queue until
 * the page is there (sroce_qp_drain_rx()).
 */
static int sroce_resp_odp_rnr(struct sroce_qp *qp)
{
	if (sroce_qp_is_uc(qp)) {
		WRITE_ONCE(qp->resp.odp_park, true);
		return -EAGAIN;
	}
	sroce_stat_inc(qp->sdev, SROCE_STAT_RNR_NAKS_SENT);
	sroce_resp_nak_resend(qp, sroce_aeth_syn_rnr(qp->attr.min_rnr_timer));
	return -EAGAIN;
}

/*
 * Make sure a receive buffer is at hand for a SEND or a WRITE with
 * immediate. None posted: RNR NAK, and the requester resends later.
 */
static int sroce_resp_need_rqe(struct sroce_qp *qp)
{
	int err;

	if (qp->resp.rqe_valid)
		return 0;
	err = sroce_resp_get_rqe(qp);
	if (err == -EAGAIN && sroce_qp_is_uc(qp)) {
		/* UC: no RNR; the message is lost */
		sroce_drop_count(SROCE_DROP_NO_RQE, qp->ibqp.qp_num);
		sroce_uc_drop_msg(qp);
	} else if (err == -EAGAIN) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RNR_NAKS_SENT);
		sroce_resp_nak_resend(qp, sroce_aeth_syn_rnr(qp->attr.min_rnr_timer));
	} else if (err) {
		sroce_resp_fatal(qp, SROCE_NAK_REM_OP);
	}
	return err;
}

/* Complete the current receive buffer. */
static int sroce_resp_complete_recv(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr,
				    enum ib_wc_status status, u32 byte_len)
{
	struct sroce_recv_wqe *rqe = qp->resp.rqe;
	struct sroce_cqe cqe = {};
	u32 flags = hdr->info->flags;

	cqe.wr_id = rqe->wr_id;
	cqe.status = status;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.src_qp = qp->attr.dest_qp_num;
	cqe.byte_len = byte_len;
	cqe.opcode = (flags & SROCE_OPF_WRITE) ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV;
	if (flags & SROCE_OPF_IMMDT) {
		cqe.ex = cpu_to_be32(hdr->immdt);
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
	} else if ((flags & SROCE_OPF_IETH) && status == IB_WC_SUCCESS) {
		cqe.ex = (__force __be32)hdr->ieth_rkey;
		cqe.wc_flags |= SROCE_WC_F_WITH_INV;
	}
	qp->resp.rqe_valid = false;
	sroce_recv_done(qp);
	sroce_qp_count(qp, SROCE_CNTR_RECV, status != IB_WC_SUCCESS);
	return sroce_cq_post(sroce_resp_cq(qp), &cqe, hdr->bth.se);
}

/* Opcode sequence check (IBTA 9.8.3): what may follow what. */
static bool sroce_resp_seq_ok(struct sroce_qp *qp, u32 flags)
{
	return sroce_opcode_follows(qp->resp.in_send, qp->resp.in_write, flags);
}

static int sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = hdr->info->flags;
	int err;

	err = sroce_resp_need_rqe(qp);
	if (err)
		return err;
	/* a message longer than max_msg_sz: a length violation (IBTA 9.7.5.2.4) */
	if (hdr->payload_len > SROCE_MAX_MSG_SZ - resp->recv_off) {
		sroce_resp_complete_recv(qp, hdr, IB_WC_LOC_LEN_ERR, resp->recv_off);
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EMSGSIZE;
	}
	err = sroce_resp_place(qp, resp->recv_off, skb, hdr);
	if (err == -EAGAIN)
		return sroce_resp_odp_rnr(qp);
	if (err) {
		/* too long for the buffer, or a bad local key of ours */
		sroce_resp_complete_recv(qp, hdr, err == -EMSGSIZE ?
					 IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR,
					 resp->recv_off);
		sroce_resp_fatal(qp, err == -EMSGSIZE ? SROCE_NAK_INVALID_REQ :
				 SROCE_NAK_REM_OP);
		return err;
	}
	resp->recv_off += hdr->payload_len;
	resp->in_send = !(flags & (SROCE_OPF_LAST | SROCE_OPF_ONLY));
	if (resp->in_send)
		return 0;
	/* SEND with Invalidate: a FR MR or type 2 MW of ours, valid */
	if ((flags & SROCE_OPF_IETH) &&
	    sroce_key_invalidate(qp->sdev, sroce_resp_pd(qp), qp->ibqp.qp_num,
				 hdr->ieth_rkey)) {
		sroce_resp_complete_recv(qp, hdr, IB_WC_LOC_ACCESS_ERR, resp->recv_off);
		sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
		return -EACCES;
	}
	resp->msn++;
	if (sroce_resp_complete_recv(qp, hdr, IB_WC_SUCCESS, resp->recv_off))
		sroce_qp_set_error(qp);
	return 0;
}

/*
 * The payload a FIRST may carry, that of every packet of its message but
 * the last: the path MTU, or the wide segment (sroce_wide_seg()) of a QP
 * whose peer asked for them, so was offered them (qp->opt.wide_ask, set by
 * sroce_qp_icrc_learn() from the mark every wide request carries, this
 * FIRST's included): a peer that never asked gets no wide packet placed.
 */
static bool sroce_resp_seg_ok(const struct sroce_qp *qp, u32 len)
{
	return len == qp->mtu || (qp->opt.wide_ask && len == sroce_wide_seg(qp->mtu));
}

/*
 * A WRITE packet's payload fits what is left of the message; the message
 * ends exactly at its DMA length, and every packet before the end carries
 * the segment its FIRST set (sroce_resp_seg_ok()).
 */
static bool sroce_resp_write_len_ok(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr,
				    bool end)
{
	struct sroce_resp *resp = &qp->resp;
	u32 len = hdr->payload_len;

	if (hdr->info->flags & SROCE_OPF_FIRST)
		resp->wseg = sroce_resp_seg_ok(qp, len) ? len : 0;
	if (len > resp->wleft)
		return false;
	if (end)
		return len == resp->wleft;
	return resp->wseg && len == resp->wseg;
}

static int sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = hdr->info->flags;
	bool end = flags & (SROCE_OPF_LAST | SROCE_OPF_ONLY);
	int err;

	/* WRITE with immediate consumes a receive buffer: check it first */
	if (end && (flags & SROCE_OPF_IMMDT)) {
		err = sroce_resp_need_rqe(qp);
		if (err)
			return err;
	}
	if (flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) {
		struct sroce_mr *mr = NULL;
		u32 gen = 0;

		if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
			goto access_err;
		/* longer than max_msg_sz: a length violation, nothing placed */
		if (hdr->reth.dma_len > SROCE_MAX_MSG_SZ) {
			sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
			return -EINVAL;
		}
		if (hdr->reth.dma_len) {
			mr = sroce_rkey_lookup(qp->sdev, hdr->reth.rkey, sroce_resp_pd(qp),
					       qp->ibqp.qp_num, IB_ACCESS_REMOTE_WRITE,
					       hdr->reth.va, hdr->reth.dma_len, &gen);
			if (IS_ERR(mr))
				goto access_err;
		}
		if (resp->wmr)
			sroce_mr_put(resp->wmr);
		resp->wmr = mr;
		resp->wgen = gen;
		resp->wkey = hdr->reth.rkey;
		resp->wva = hdr->reth.va;
		resp->wleft = hdr->reth.dma_len;
		resp->wlen = hdr->reth.dma_len;
	}
	if (!sroce_resp_write_len_ok(qp, hdr, end)) {
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	/*
	 * no skb: a packet selective repeat placed at arrival, in place
	 * already, executed by the drain
	 */
	if (hdr->payload_len && skb) {
		err = sroce_rkey_copy_skb(qp->sdev, resp->wkey, resp->wmr, resp->wgen, resp->wva,
					  skb, sizeof(struct udphdr) + hdr->hdr_len,
					  hdr->payload_len);
		if (err == -EAGAIN)
			return sroce_resp_odp_rnr(qp);
		if (err)
			goto access_err;
	}
	resp->wva += hdr->payload_len;
	resp->wleft -= hdr->payload_len;
	resp->in_write = !end;
	if (end) {
		if (resp->wmr)
			sroce_mr_put(resp->wmr);
		resp->wmr = NULL;
		resp->msn++;
		sroce_qp_count(qp, SROCE_CNTR_REMOTE_RDMA_WRITE, false);
		if ((flags & SROCE_OPF_IMMDT) &&
		    sroce_resp_complete_recv(qp, hdr, IB_WC_SUCCESS, resp->wlen))
			sroce_qp_set_error(qp);
	}
	return 0;

access_err:
	sroce_qp_count(qp, SROCE_CNTR_REMOTE_RDMA_WRITE, true);
	sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
	return -EACCES;
}

/* An answer queue slot for one more READ or atomic, or NULL (full). */
static struct sroce_resp_read *sroce_resp_slot(struct sroce_qp *qp, bool dup)
{
	struct sroce_resp *resp = &qp->resp;
	u32 queued = resp->rd_tail - resp->rd_head;

	/* a duplicate still finding the queue full: the requester's timer retries */
	if (dup)
		return queued >= SROCE_MAX_RD_ATOMIC ? NULL :
			&resp->reads[resp->rd_tail++ % SROCE_MAX_RD_ATOMIC];
	if (queued >= max_t(u32, qp->attr.max_dest_rd_atomic, 1))
		return NULL;
	return &resp->reads[resp->rd_tail++ % SROCE_MAX_RD_ATOMIC];
}

/*
 * A slot at the front of the answer queue for a READ repair (selective
 * READ): answered next, between two responses of a READ being answered if
 * need be, and the answers queued behind it are kept. NULL when full.
 */
static struct sroce_resp_read *sroce_resp_slot_front(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	if (resp->rd_tail - resp->rd_head >= SROCE_MAX_RD_ATOMIC)
		return NULL;
	return &resp->reads[--resp->rd_head % SROCE_MAX_RD_ATOMIC];
}

/*
 * A retransmitted READ request at @psn: the requester has gone back to it
 * and will ask again for everything after it, so queued answers at or
 * after @psn are dropped (they may be half sent; the new request says how
 * much is still wanted).
 */
static void sroce_resp_drop_reads_from(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	while (sroce_reads_queued(resp)) {
		struct sroce_resp_read *rd =
			&resp->reads[(resp->rd_tail - 1) % SROCE_MAX_RD_ATOMIC];

		if (sroce_psn_diff(rd->last_psn, psn) < 0)
			break;
		sroce_read_release(rd);
		resp->rd_tail--;
	}
}

/*
 * Queue the answer to a READ request; @dup: a retransmitted request;
 * @repair: a duplicate asking again only for responses that were lost
 * (SROCE_BTH_REPAIR from a selective READ requester), answered first, or
 * last if it is a probe (SROCE_BTH7_RD_PROBE: the requester reads the
 * responses missing when its answer comes as lost).
 */
static int sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr, bool dup,
			   bool repair)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_read *rd;
	struct sroce_mr *mr = NULL;
	u32 len = hdr->reth.dma_len, npkts, seg, gen = 0;

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_READ))
		goto access_err;
	if (len > SROCE_MAX_MSG_SZ) {
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	if (dup && !repair)
		sroce_resp_drop_reads_from(qp, hdr->bth.psn);
	if (len) {
		mr = sroce_rkey_lookup(qp->sdev, hdr->reth.rkey, sroce_resp_pd(qp), qp->ibqp.qp_num,
				       IB_ACCESS_REMOTE_READ, hdr->reth.va, len, &gen);
		if (IS_ERR(mr))
			goto access_err;
	}
	if (repair && !(hdr->bth.resv7 & SROCE_BTH7_RD_PROBE))
		rd = sroce_resp_slot_front(qp);
	else
		rd = sroce_resp_slot(qp, dup);
	if (!rd) {
		if (mr)
			sroce_mr_put(mr);
		if (dup)
			return 0;
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_RD_REQ);
		return -EINVAL;
	}
	/* the segment it asked for, if offered (SROCE_BTH7_WIDE_RD) */
	seg = qp->opt.wide_rd_ask && (hdr->bth.resv7 & SROCE_BTH7_WIDE_RD) ?
	      sroce_wide_seg(qp->mtu) : qp->mtu;
	npkts = len ? DIV_ROUND_UP(len, seg) : 1;
	rd->atomic = false;
	rd->seg = seg;
	rd->mr = mr;
	rd->gen = gen;
	rd->key = hdr->reth.rkey;
	rd->va = hdr->reth.va;
	rd->len = len;
	rd->sent = 0;
	rd->psn = hdr->bth.psn;
	rd->last_psn = sroce_psn_add(hdr->bth.psn, npkts - 1);
	if (!dup) {
		resp->psn = sroce_psn_add(hdr->bth.psn, npkts);
		resp->msn++;
		sroce_qp_count(qp, SROCE_CNTR_REMOTE_RDMA_READ, false);
	}
	return 0;

access_err:
	sroce_qp_count(qp, SROCE_CNTR_REMOTE_RDMA_READ, true);
	sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
	return -EACCES;
}

/*
 * A CMP_SWAP or FETCH_ADD request. Executed once: its result is kept
 * (resp->atomics) and a duplicate is answered from there, so a lost ATOMIC
 * ACK never makes the operation happen twice.
 */
static int sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr, bool dup)
{
	struct sroce_resp *resp = &qp->resp;
	const struct sroce_atmeth *atm = &hdr->atmeth;
	struct sroce_resp_read *rd;
	struct sroce_mr *mr;
	u64 orig;
	u32 i, gen;
	int err;

	if (dup) {
		for (i = 0; i < min_t(u32, resp->at_count, SROCE_MAX_RD_ATOMIC); i++) {
			u32 slot = (resp->at_count - 1 - i) % SROCE_MAX_RD_ATOMIC;

			if (resp->atomics[slot].psn != hdr->bth.psn)
				continue;
			sroce_resp_drop_reads_from(qp, hdr->bth.psn);
			rd = sroce_resp_slot(qp, true);
			if (rd) {
				memset(rd, 0, sizeof(*rd));
				rd->atomic = true;
				rd->orig = resp->atomics[slot].orig;
				rd->psn = hdr->bth.psn;
				rd->last_psn = hdr->bth.psn;
			}
			return 0;
		}
		return 0;	/* older than anything remembered: its ACK arrived */
	}
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		goto access_err;
	if (atm->va & 7) {
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	mr = sroce_rkey_lookup(qp->sdev, atm->rkey, sroce_resp_pd(qp), qp->ibqp.qp_num,
			       IB_ACCESS_REMOTE_ATOMIC, atm->va, 8, &gen);
	if (IS_ERR(mr))
		goto access_err;
	rd = sroce_resp_slot(qp, false);
	if (!rd) {
		sroce_mr_put(mr);
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_RD_REQ);
		return -EINVAL;
	}
	err = sroce_mr_atomic(mr, gen, atm->va,
			      (hdr->bth.opcode & SROCE_OP_OPERATION_MASK) ==
			      SROCE_OP_RC_FETCH_ADD ?
			      SROCE_ATOMIC_FETCH_ADD : SROCE_ATOMIC_CMP_SWAP,
			      atm->compare, atm->swap_add, &orig);
	sroce_mr_put(mr);
	if (err) {
		resp->rd_tail--;
		if (err == -EAGAIN)
			return sroce_resp_odp_rnr(qp);
		goto access_err;
	}
	memset(rd, 0, sizeof(*rd));
	rd->atomic = true;
	rd->orig = orig;
	rd->psn = hdr->bth.psn;
	rd->last_psn = hdr->bth.psn;
	i = resp->at_count++ % SROCE_MAX_RD_ATOMIC;
	resp->atomics[i].psn = hdr->bth.psn;
	resp->atomics[i].orig = orig;
	resp->psn = sroce_psn_inc(hdr->bth.psn);
	resp->msn++;
	return 0;

access_err:
	sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
	return -EACCES;
}

/*
 * Queue the zero-length READ Response Only that answers a FLUSH or an ATOMIC
 * WRITE (IBTA 1.5): it goes out in order with the READ responses queued
 * before it. The caller has reserved nothing; -EINVAL: too many requests
 * outstanding (the QP is failed).
 */
static int sroce_resp_empty_answer(struct sroce_qp *qp, u32 psn, bool dup)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_resp_read *rd;

	if (dup)
		sroce_resp_drop_reads_from(qp, psn);
	rd = sroce_resp_slot(qp, dup);
	if (!rd) {
		if (dup)
			return 0;
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_RD_REQ);
		return -EINVAL;
	}
	memset(rd, 0, sizeof(*rd));
	rd->psn = psn;
	rd->last_psn = psn;
	if (!dup) {
		resp->psn = sroce_psn_inc(psn);
		resp->msn++;
	}
	return 0;
}

/*
 * An ATOMIC WRITE: 8 bytes stored at an aligned address of an MR with
 * remote write access, in one store (atomic against the atomics of every
 * QP). A duplicate is answered again and never executed twice: a later
 * WRITE of the requester may have changed the word since.
 */
static int sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
				   const struct sroce_pkt_hdr *hdr, bool dup)
{
	struct sroce_mr *mr;
	u64 val, orig;
	u32 gen;
	int err;

	if (dup)
		return sroce_resp_empty_answer(qp, hdr->bth.psn, true);
	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		goto access_err;
	if (hdr->payload_len != 8 || hdr->reth.dma_len != 8 || (hdr->reth.va & 7)) {
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	mr = sroce_rkey_lookup(qp->sdev, hdr->reth.rkey, sroce_resp_pd(qp), qp->ibqp.qp_num,
			       IB_ACCESS_REMOTE_WRITE, hdr->reth.va, 8, &gen);
	if (IS_ERR(mr))
		goto access_err;
	/* the bytes as they come, stored as they are (not a number) */
	if (skb_copy_bits(skb, sizeof(struct udphdr) + hdr->hdr_len, &val, sizeof(val))) {
		sroce_mr_put(mr);
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	err = sroce_mr_atomic(mr, gen, hdr->reth.va, SROCE_ATOMIC_WRITE, 0, val, &orig);
	sroce_mr_put(mr);
	if (err == -EAGAIN)
		return sroce_resp_odp_rnr(qp);
	if (err)
		goto access_err;
	return sroce_resp_empty_answer(qp, hdr->bth.psn, false);

access_err:
	sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
	return -EACCES;
}

/*
 * A FLUSH: makes what earlier requests wrote globally visible. Requests
 * are executed in order by the CPU, so once the MR and its FLUSH right are
 * checked a full barrier is all that remains. Persistence needs an MR with
 * FLUSH_PERSISTENT, which sroce never registers (no persistent memory
 * behind user pages it could flush): REM_ACCESS. With selectivity "whole
 * MR" the RETH's address must still lie in the region.
 */
static int sroce_resp_flush(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr, bool dup)
{
	u32 plt = hdr->feth & SROCE_FETH_PLT_MASK;
	u32 sel = (hdr->feth & SROCE_FETH_SEL_MASK) >> SROCE_FETH_SEL_SHIFT;
	int need = 0;
	struct sroce_mr *mr;
	u32 gen;

	if (dup)
		return sroce_resp_empty_answer(qp, hdr->bth.psn, true);
	if (!SROCE_HAVE_FLUSH || !plt ||
	    (plt & ~(SROCE_FETH_PLT_GLOBAL | SROCE_FETH_PLT_PERSISTENT)) ||
	    sel > SROCE_FETH_SEL_MR) {
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
		return -EINVAL;
	}
	if (plt & SROCE_FETH_PLT_GLOBAL)
		need |= SROCE_ACCESS_FLUSH_GLOBAL;
	if (plt & SROCE_FETH_PLT_PERSISTENT)
		need |= SROCE_ACCESS_FLUSH_PERSISTENT;
	/* the QP grants the placement types it allows, as the MR does */
	if (need & ~qp->attr.qp_access_flags) {
		sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
		return -EACCES;
	}
	mr = sroce_rkey_lookup(qp->sdev, hdr->reth.rkey, sroce_resp_pd(qp), qp->ibqp.qp_num, need,
			       hdr->reth.va, sel == SROCE_FETH_SEL_MR ? 0 : hdr->reth.dma_len,
			       &gen);
	if (IS_ERR(mr)) {
		sroce_resp_fatal(qp, SROCE_NAK_REM_ACCESS);
		return -EACCES;
	}
	sroce_mr_put(mr);
	smp_mb();
	return sroce_resp_empty_answer(qp, hdr->bth.psn, false);
}

/*
 * XRC TGT: the request in order names XRC SRQ @xerr found (0) or not
 * (-errno). A message keeps the SRQ its first packet named.
 */
static bool sroce_resp_xrc_ok(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr,
			      int xerr)
{
	struct sroce_resp *resp = &qp->resp;

	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return true;
	if (xerr)
		return false;
	if (resp->in_send || resp->in_write)
		return hdr->xrc_srqn == resp->xrc_srqn;
	resp->xrc_srqn = hdr->xrc_srqn;
	return true;
}

/*
 * A READ repair of a selective READ requester, to a QP that offered to
 * answer one (only called for a duplicate READ request)
 */
static bool sroce_resp_is_repair(const struct sroce_qp *qp, const struct sk_buff *skb)
{
	return qp->opt.selrep &&
	       (skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV8A_OFF] & SROCE_BTH_REPAIR);
}

/*
 * A duplicate SEND or WRITE packet is acknowledged again, not executed. A
 * sroce peer reads an ACK of the newest PSN executed as the end of its
 * resend, and gets one of its own for its duplicates even when an ACK was
 * due anyway (the original and its resend in one round): a second ACK
 * through a PSN tells it that its resend was needless
 * (sroce_cwnd_rto_dup_ack(), a resend timer that fired in a stall). Any
 * other requester is told the duplicate's own PSN, as if it had
 * just executed: rdma_rxe, while it resends a message, takes an ACK naming
 * the message's last PSN before it has resent that packet as progress
 * without completing the message, and once the ACK of the resent last
 * packet is lost it neither completes nor times out (transport.rst, RC
 * reliability, Duplicates).
 */
static void sroce_resp_dup_ack(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&qp->lock);

	if (sroce_qp_peer_is_sroce(qp)) {
		resp->ack_twice |= resp->ack_pending;
		resp->ack_pending = true;
		return;
	}
	if (!resp->dup_ack_pending || sroce_psn_diff(psn, resp->dup_ack_psn) > 0)
		resp->dup_ack_psn = psn;
	resp->dup_ack_pending = true;
}

/*
 * A duplicate request (sroce_rc_resp_class()): READs and atomics are
 * answered again, the rest re-ACKed; a READ naming no usable XRC SRQ
 * (@xerr) has no PD to be read under and is ignored. Counted
 * (duplicate_request) but for a READ repair, which asks only for
 * responses that were lost.
 */
static void sroce_resp_dup(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_hdr *hdr, enum sroce_rc_req cls, int xerr)
{
	bool repair = cls == SROCE_RC_REQ_DUP_READ && sroce_resp_is_repair(qp, skb);

	if (!repair)
		sroce_stat_inc(qp->sdev, SROCE_STAT_DUP_REQUEST);
	switch (cls) {
	case SROCE_RC_REQ_DUP_READ:
		if (!xerr)
			sroce_resp_read(qp, hdr, true, repair);
		break;
	case SROCE_RC_REQ_DUP_ATOMIC:
		sroce_resp_atomic(qp, hdr, true);
		break;
	case SROCE_RC_REQ_DUP_ATOMIC_WRITE:
		sroce_resp_atomic_write(qp, skb, hdr, true);
		break;
	case SROCE_RC_REQ_DUP_FLUSH:
		sroce_resp_flush(qp, hdr, true);
		break;
	default:
		sroce_resp_dup_ack(qp, hdr->bth.psn);
		break;
	}
}

/*
 * Does the QP take requests in its state? The first one in RTR establishes
 * communication (IB_EVENT_COMM_EST).
 */
static bool sroce_resp_state_ok(struct sroce_qp *qp)
{
	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTR:
		if (!qp->comm_est_sent) {
			qp->comm_est_sent = true;
			sroce_qp_event(qp, IB_EVENT_COMM_EST);
		}
		return true;
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		return true;
	default:
		return false;
	}
}

/*
 * UC: a gap, a duplicate or an opcode out of sequence loses the message in
 * progress; a FIRST or ONLY starts the next one at its PSN, anything else
 * is dropped. Nothing is acknowledged.
 */
static void sroce_resp_rx_uc(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = hdr->info->flags;
	int err;

	lockdep_assert_held(&qp->lock);

	if (sroce_psn_diff(hdr->bth.psn, resp->psn) || resp->uc_skip ||
	    !sroce_resp_seq_ok(qp, flags)) {
		sroce_uc_drop_msg(qp);
		if (!(flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) ||
		    !(flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)))
			return;
		resp->uc_skip = false;
		resp->psn = hdr->bth.psn;
	}
	if (flags & SROCE_OPF_SEND)
		err = sroce_resp_send(qp, skb, hdr);
	else
		err = sroce_resp_write(qp, skb, hdr);
	if (!err)
		resp->psn = sroce_psn_inc(resp->psn);
}

/*
 * RC, a request ahead of the expected PSN (SROCE_RC_REQ_GAP_NAK or
 * SROCE_RC_REQ_GAP): selective repeat holds it and NAKs only after the
 * reordering window; else one NAK per gap, then wait for the resend.
 */
static void sroce_resp_gap(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_hdr *hdr, enum sroce_rc_req cls)
{
	if (qp->opt.selrep_peer && sroce_sr_hold(qp, skb, hdr))
		return;
	if (cls == SROCE_RC_REQ_GAP_NAK)
		sroce_resp_seq_nak(qp);
}

/*
 * RC, the request at the expected PSN in opcode sequence: execute it by
 * its opcode class. A SEND or WRITE packet moves the expected PSN here
 * (and may ask for an ACK); READs, atomics, ATOMIC WRITE and FLUSH move it
 * in their handlers, with their answer.
 */
static void sroce_resp_execute(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = hdr->info->flags;
	int err;

	lockdep_assert_held(&qp->lock);

	if (flags & SROCE_OPF_SEND)
		err = sroce_resp_send(qp, skb, hdr);
	else if (flags & SROCE_OPF_WRITE)
		err = sroce_resp_write(qp, skb, hdr);
	else if (flags & SROCE_OPF_ATOMIC)
		err = sroce_resp_atomic(qp, hdr, false);
	else if (flags & SROCE_OPF_ATOMIC_WRITE)
		err = sroce_resp_atomic_write(qp, skb, hdr, false);
	else if (flags & SROCE_OPF_FLUSH)
		err = sroce_resp_flush(qp, hdr, false);
	else
		err = sroce_resp_read(qp, hdr, false, false);
	if (err || (flags & SROCE_OPF_RD_ATOMIC))
		return;
	resp->ack_psn = resp->psn;
	resp->psn = sroce_psn_inc(resp->psn);
	if (hdr->bth.ack_req)
		resp->ack_pending = true;
}

/**
 * sroce_resp_rx_rc() - an RC (or XRC TGT) request packet
 * @qp: the QP
 * @skb: the packet, NULL when selective repeat placed it already
 * @hdr: its parsed transport header
 * @xerr: see sroce_responder_rx()
 *
 * Classifies it by PSN and opcode (sroce_rc_resp_class()): a gap is held
 * or NAK'd, a duplicate answered again, the expected PSN executed.
 *
 * Return: false when it is invalid (the caller NAKs, the QP fails): out of
 * opcode sequence; XRC TGT: a missing XRC SRQ, or one of another XRC
 * domain.
 */
static bool sroce_resp_rx_rc(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt_hdr *hdr, int xerr)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_rc_recv rr;
	enum sroce_rc_req cls;

	lockdep_assert_held(&qp->lock);

	rr.epsn = resp->psn;
	rr.nak_sent = resp->nak_sent;
	rr.in_send = resp->in_send;
	rr.in_write = resp->in_write;
	cls = sroce_rc_resp_class(&rr, hdr->bth.psn, hdr->info->flags);
	switch (cls) {
	case SROCE_RC_REQ_GAP_NAK:
	case SROCE_RC_REQ_GAP:
		sroce_resp_gap(qp, skb, hdr, cls);
		return true;
	case SROCE_RC_REQ_NEW:
	case SROCE_RC_REQ_BAD_SEQ:
		resp->nak_sent = false;
		resp->sr_full_told = false;
		resp->sack_update = false;	/* that gap's room, not the next's */
		resp->nak_deferred = false;	/* the resend it asked for has begun */
		if (cls == SROCE_RC_REQ_BAD_SEQ || !sroce_resp_xrc_ok(qp, hdr, xerr))
			return false;
		sroce_resp_execute(qp, skb, hdr);
		return true;
	default:
		sroce_resp_dup(qp, skb, hdr, cls, xerr);
		return true;
	}
}

/* A request packet; @xerr: see sroce_responder_rx() */
void sroce_resp_rx(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt_hdr *hdr, int xerr)
{
	lockdep_assert_held(&qp->lock);

	if (!sroce_resp_state_ok(qp))
		return;
	if (!(hdr->info->flags & SROCE_OPF_REQ))
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
	else if (sroce_qp_is_uc(qp))
		sroce_resp_rx_uc(qp, skb, hdr);
	else if (!sroce_resp_rx_rc(qp, skb, hdr, xerr))
		sroce_resp_fatal(qp, SROCE_NAK_INVALID_REQ);
}

/*
 * Selective repeat: the gap is filled, execute the held requests that
 * follow, in PSN order (sroce_sr_next()). One that is not executed (RNR,
 * ODP fault, an error) ends it: everything held is dropped, and the
 * requester, whose NAK or timer ends its SACK, resends it all.
 */
static void sroce_resp_sr_drain(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	struct sroce_pkt_hdr hdr;
	struct sk_buff *skb;
	bool done = false;
	u32 psn;
	int ret;

	lockdep_assert_held(&qp->lock);
	for (;;) {
		psn = resp->psn;
		ret = sroce_sr_next(qp, &skb, &hdr);
		if (ret <= 0)
			break;
		sroce_resp_rx(qp, skb, &hdr, 0);	/* no skb: placed */
		kfree_skb(skb);
		if (resp->psn == psn) {
			ret = -EAGAIN;	/* not executed */
			break;
		}
		done = true;
	}
	if (ret < 0) {
		sroce_sr_release(qp);
		return;
	}
	if (done && sroce_sr_drained(qp))
		sroce_resp_seq_nak(qp);
}

/**
 * sroce_responder_sr_gap() - the reordering window of a held gap ended
 * @qp: the QP whose sr_timer fired
 *
 * Packets are held after a gap and nothing arrived since to NAK it (the
 * packets after the missing one are all in, or lost too): NAK the gap now,
 * with the SACK of what is held, instead of leaving it to the requester's
 * retransmit timer. A timer that fired before the window's end (the gap
 * moved on meanwhile) is armed again; one that finds no gap does nothing.
 */
void sroce_responder_sr_gap(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	unsigned long end;

	lockdep_assert_held(&qp->lock);

	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
		break;
	default:
		return;
	}
	if (!qp->opt.selrep_peer || !resp->sr_held || resp->nak_sent)
		return;
	end = resp->sr_gap_since + sroce_sr_nak_delay();
	if (time_before(jiffies, end)) {
		mod_timer(&qp->sr_timer, end);
		return;
	}
	sroce_resp_seq_nak(qp);
}

/**
 * sroce_responder_rx() - a request packet for this QP
 * @qp: the QP
 * @skb: the packet (data at the UDP header)
 * @hdr: its parsed transport header
 *
 * For an XRC TGT QP the XRC SRQ the request's XRCETH names is found first
 * and held while the packet is executed (sroce_xrc_resp_begin()).
 */
void sroce_responder_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr)
{
	int xerr;

	lockdep_assert_held(&qp->lock);

	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT) {
		sroce_resp_rx(qp, skb, hdr, 0);
		if (unlikely(qp->resp.sr_held))
			sroce_resp_sr_drain(qp);
		return;
	}
	xerr = (hdr->info->flags & SROCE_OPF_XRCETH) ?
	       sroce_xrc_resp_begin(qp, hdr->xrc_srqn) : -EINVAL;
	sroce_resp_rx(qp, skb, hdr, xerr);
	sroce_xrc_resp_end(qp);
}

/**
 * sroce_responder_flush() - complete the RQ's buffers with WR_FLUSH_ERR
 * @qp: the QP, in ERR
 *
 * The receive side of the scheduler's flush (sroce_sched_flush(), after
 * sroce_req_flush()): the RQ, the buffer taken out of an SRQ, and the MRs
 * of half-received WRITEs and unanswered READs.
 */
void sroce_responder_flush(struct sroce_qp *qp)
{
	struct sroce_cqe cqe = {};
	struct sroce_recv_wqe rqe;
	int n;

	lockdep_assert_held(&qp->lock);

	/* in ERR every post must reach us: the RQ never asks otherwise */
	WRITE_ONCE(qp->rq->hdr->flags, SROCE_RING_F_NEED_WAKEUP);

	/* XRC QPs have no receive CQ and nothing can post to their RQ */
	n = qp->ibqp.recv_cq ? sroce_queue_avail(qp->rq) : 0;
	while (n-- > 0) {
		memcpy(&rqe, sroce_queue_at(qp->rq, qp->rq->cons), sizeof(rqe));
		cqe.wr_id = rqe.wr_id;
		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = IB_WC_RECV;
		cqe.qp_num = qp->ibqp.qp_num;
		sroce_queue_consumed(qp->rq, 1);
		sroce_qp_count(qp, SROCE_CNTR_RECV, true);
		if (sroce_cq_post(sroce_to_cq(qp->ibqp.recv_cq), &cqe, false))
			break;
	}
	/* a buffer taken out of the (XRC) SRQ is the QP's to complete */
	if ((qp->srq || qp->ibqp.qp_type == IB_QPT_XRC_TGT) && qp->resp.rqe_valid) {
		struct sroce_recv_wqe *w = qp->resp.rqe;

		cqe.wr_id = w->wr_id;
		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = IB_WC_RECV;
		cqe.qp_num = qp->ibqp.qp_num;
		sroce_qp_count(qp, SROCE_CNTR_RECV, true);
		if (qp->srq)
			sroce_cq_post(sroce_to_cq(qp->ibqp.recv_cq), &cqe, false);
		else
			sroce_xrc_flush_rqe(qp, &cqe);
	}
	qp->resp.rqe_valid = false;
	/* IBTA: an SRQ's QP in ERR takes nothing more from it */
	if (qp->srq && !qp->flushed)
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	/* the MRs of half-received WRITEs and unanswered READs go too */
	sroce_responder_release(qp);
	qp->flushed = true;
}

/* Forget responder state (RESET/INIT). */
void sroce_responder_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);

	sroce_responder_release(qp);
	memset(&qp->resp, 0, offsetof(struct sroce_resp, rqe));
	memset(qp->resp.reads, 0, SROCE_MAX_RD_ATOMIC * sizeof(*qp->resp.reads));
	memset(qp->resp.atomics, 0, SROCE_MAX_RD_ATOMIC * sizeof(*qp->resp.atomics));
}

/* Drop the MR references the responder holds. */
void sroce_responder_release(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	while (sroce_reads_queued(resp))
		sroce_read_release(&resp->reads[resp->rd_head++ % SROCE_MAX_RD_ATOMIC]);
	sroce_sr_release(qp);
	if (resp->wmr)
		sroce_mr_put(resp->wmr);
	resp->wmr = NULL;
}
