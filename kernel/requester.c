// SPDX-License-Identifier: GPL-2.0
/*
 * sroce requester: turns SQ entries into RC request packets.
 *
 * SQ entries are copied out of the (user-writable) ring into a kernel shadow
 * slot before they are validated, and only the shadow is used afterwards.
 * Indices: comp_idx <= send_idx <= fetched <= ring producer. Entries in
 * [comp_idx, send_idx) have been (at least partly) sent and wait for their
 * ACK or READ response; the completer retires them in order.
 */
#include <linux/module.h>

#include "sroce.h"
#include "mw.h"
#include "qp.h"
#include "queue.h"
#include "trace.h"
#include "completer.h"
#include "dcqcn.h"
#include "xmit.h"
#include "requester.h"
#include "sr.h"
#include "mr.h"
#include "mr_copy.h"

/*
 * The doorbell policies (Documentation/datapath.rst): the requester's
 * idle poll reads them, the scheduler's doorbell deferral too.
 */
unsigned int sroce_sq_poll_us;	/* off: see Documentation/datapath.rst */
module_param_named(sq_poll_us, sroce_sq_poll_us, uint, 0644);
MODULE_PARM_DESC(sq_poll_us,
		 "microseconds a streaming QP waits for the next post before asking for a doorbell (0: always ask)");

/* doorbell_defer: 0 never, 1 when it pays (sroce_db_defer()), 2 always */
unsigned int sroce_db_defer_mode = 1;

/* anything but 0, 1 or 2 is refused (-EINVAL), the mode unchanged */
static int sroce_db_defer_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 2);
}

static const struct kernel_param_ops sroce_db_defer_ops = {
	.set = sroce_db_defer_set,
	.get = param_get_uint,
};
module_param_cb(doorbell_defer, &sroce_db_defer_ops, &sroce_db_defer_mode, 0644);
MODULE_PARM_DESC(doorbell_defer,
		 "hand a streaming QP's doorbell rounds to a worker so that its next posts need no system call: 0 never, 1 when the QP streams (default), 2 always");

/* packets a message of @len bytes takes at @mtu (a 0-byte message: one) */
static u32 sroce_npkts(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/**
 * sroce_wqe_len() - check a (shadow) SQ entry's flags and gather list
 * @qp: the QP
 * @wqe: the entry, already copied out of the ring
 * @len: its payload length (sum of the SGEs, or the inline length)
 *
 * Shared by the RC and UD requesters; a malformed entry is reported
 * (rate limited debug message). Return: IB_WC_SUCCESS or the completion
 * status of a malformed entry.
 */
enum ib_wc_status sroce_wqe_len(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
				u64 *len)
{
	u32 i;

	if (wqe->send_flags & ~(SROCE_SEND_FENCE | SROCE_SEND_SIGNALED |
				SROCE_SEND_SOLICITED | SROCE_SEND_INLINE)) {
		sroce_dbg_qp_rl(qp, "SQ entry: send_flags 0x%x: unsupported bits", wqe->send_flags);
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (wqe->send_flags & SROCE_SEND_INLINE) {
		if (wqe->inline_len > qp->max_inline) {
			sroce_dbg_qp_rl(qp, "SQ entry: inline_len %u > max_inline_data %u",
					wqe->inline_len, qp->max_inline);
			return IB_WC_LOC_LEN_ERR;
		}
		*len = wqe->inline_len;
		return IB_WC_SUCCESS;
	}
	if (wqe->num_sge > qp->max_send_sge) {
		sroce_dbg_qp_rl(qp, "SQ entry: num_sge %u > max_send_sge %u", wqe->num_sge,
				qp->max_send_sge);
		return IB_WC_LOC_QP_OP_ERR;
	}
	*len = 0;
	for (i = 0; i < wqe->num_sge; i++)
		*len += wqe->sge[i].length;
	return IB_WC_SUCCESS;
}

/*
 * Can @qp carry @wqe's opcode with these flags and SGEs? NULL if so, else
 * what is wrong.
 */
static const char *sroce_fetch_opcode_bad(struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI) {
		/* the XRCETH names the remote XRC SRQ in 24 bits */
		if (wqe->xrc_srqn > SROCE_QPN_MASK)
			return "remote XRC SRQ number above 24 bits";
		/*
		 * XRC sends data: no local operations, no SEND with Invalidate,
		 * no IBTA 1.5 ATOMIC WRITE or FLUSH (RC only)
		 */
		switch (wqe->opcode) {
		case SROCE_WR_ATOMIC_WRITE:
		case SROCE_WR_FLUSH:
		case IB_UVERBS_WR_SEND_WITH_INV:
		case IB_UVERBS_WR_LOCAL_INV:
		case IB_UVERBS_WR_BIND_MW:
		case SROCE_WR_REG_MR:
			return "not an XRC opcode";
		default:
			break;
		}
	}

	switch (wqe->opcode) {
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
	case IB_UVERBS_WR_LOCAL_INV:
	case IB_UVERBS_WR_BIND_MW:
		return NULL;
	case IB_UVERBS_WR_SEND_WITH_INV:
		return sroce_qp_is_uc(qp) ? "SEND_WITH_INV on a UC QP" : NULL;
	case SROCE_WR_REG_MR:
		/* kernel consumers only: user space has no FR MRs */
		return qp->sq->mmap ? "REG_MR from user space" : NULL;
	case IB_UVERBS_WR_RDMA_READ:
		if (wqe->send_flags & SROCE_SEND_INLINE)
			return "RDMA_READ inline";
		return sroce_qp_is_uc(qp) ? "RDMA_READ on a UC QP" : NULL;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		/* one 8-byte local buffer for the original value; RC only */
		if (sroce_qp_is_uc(qp))
			return "atomic on a UC QP";
		if ((wqe->send_flags & SROCE_SEND_INLINE) || wqe->num_sge != 1 ||
		    wqe->sge[0].length != 8)
			return "atomic without one 8-byte SGE (or inline)";
		return NULL;
	case SROCE_WR_ATOMIC_WRITE:
		/* RC only; the 8 bytes travel inline in the entry */
		if (sroce_qp_is_uc(qp))
			return "ATOMIC_WRITE on a UC QP";
		if (!(wqe->send_flags & SROCE_SEND_INLINE) || wqe->inline_len != 8)
			return "ATOMIC_WRITE without 8 bytes inline";
		return NULL;
	case SROCE_WR_FLUSH:
		/* RC only, no data; the length fits the RETH by the entry's layout */
		if (sroce_qp_is_uc(qp))
			return "FLUSH on a UC QP";
		if ((wqe->send_flags & SROCE_SEND_INLINE) || wqe->num_sge)
			return "FLUSH with data";
		if (!wqe->wr.flush.type ||
		    (wqe->wr.flush.type & ~(SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)) ||
		    wqe->wr.flush.level > SROCE_FLUSH_MR)
			return "FLUSH type or level unknown";
		return NULL;
	default:
		return "unknown opcode";
	}
}

/*
 * The payload of each packet of an SQ entry but its last: the path MTU, or
 * a wide segment (sroce_wide_seg()) for a SEND or WRITE to a responder that
 * offered them, and for the responses of a READ from one that offered
 * those (SROCE_BTH7_WIDE_RD). Fixed at fetch for the entry's life, resends
 * and repairs included: a peer learnt in between changes later entries only.
 */
static u32 sroce_req_seg(const struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	lockdep_assert_held(&qp->lock);

	if (wqe->opcode == IB_UVERBS_WR_RDMA_READ)
		return qp->opt.wide_rd_peer ? sroce_wide_seg(qp->mtu) : qp->mtu;
	if (!qp->opt.wide_peer || sroce_wqe_has_response(wqe))
		return qp->mtu;
	return sroce_wide_seg(qp->mtu);
}

/* Copy and check one SQ entry; returns a completion status on error. */
static enum ib_wc_status sroce_fetch_wqe(struct sroce_qp *qp, u32 idx)
{
	struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);
	struct sroce_swqe *sw = sroce_swqe(qp, idx);
	enum ib_wc_status status;
	const char *bad;
	u64 len;

	memcpy(wqe, sroce_queue_at(qp->sq, idx), qp->sq_stride);
	memset(sw, 0, sizeof(*sw));

	bad = sroce_fetch_opcode_bad(qp, wqe);
	if (bad) {
		sroce_dbg_qp_rl(qp, "SQ entry %u: opcode %u: %s", idx, wqe->opcode, bad);
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (sroce_wqe_is_local(wqe)) {
		sw->length = 0;
		sw->npkts = 0;
		return IB_WC_SUCCESS;
	}
	status = sroce_wqe_len(qp, wqe, &len);
	if (status != IB_WC_SUCCESS)
		return status;
	if (len > SROCE_MAX_MSG_SZ) {
		sroce_dbg_qp_rl(qp, "SQ entry %u: length %llu > max_msg_sz %u", idx, len,
				SROCE_MAX_MSG_SZ);
		return IB_WC_LOC_LEN_ERR;
	}
	sw->length = len;
	sw->seg = sroce_req_seg(qp, wqe);
	sw->npkts = sroce_npkts(len, sw->seg);
	return IB_WC_SUCCESS;
}

/*
 * Take entries the provider published into the shadow ring. A bad entry
 * is remembered and completed in order when it reaches the head.
 */
static int sroce_req_fetch(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 prod = smp_load_acquire(&qp->sq->hdr->producer);
	u32 posted = prod - req->comp_idx;

	/*
	 * User space's index, read once: it only ever moves forward, at most
	 * a ring's worth past what completed. One moved back below what was
	 * fetched (or wrapped) would have the loop below run round the u32
	 * space and resend stale entries: a corrupt ring, the QP fails.
	 */
	if (posted > qp->sq_entries || posted < req->fetched - req->comp_idx) {
		sroce_dbg_qp_rl(qp,
				"SQ producer index %u corrupt (completed up to %u, fetched %u, %u entries)",
				prod, req->comp_idx, req->fetched, qp->sq_entries);
		return -EOVERFLOW;
	}
	if (req->fetched != prod)
		req->poll_until = 0;	/* a post: the next idle starts a new grace */
	for (; req->fetched != prod; req->fetched++) {
		sroce_swqe(qp, req->fetched)->bad = sroce_fetch_wqe(qp, req->fetched);
		trace_sroce_wqe_fetch(qp, req->fetched, sroce_swqe(qp, req->fetched)->bad);
		sroce_stat_inc(qp->sdev, SROCE_STAT_SQ_WQES);
	}
	return 0;
}

/* Copy @len bytes at message offset @off of an SQ entry (shadow copy). */
static int sroce_gather(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			u32 off, u8 *dst, u32 len)
{
	if (wqe->send_flags & SROCE_SEND_INLINE) {
		memcpy(dst, (const u8 *)(wqe + 1) + off, len);
		return 0;
	}
	return sroce_sgl_copy(qp->sdev, qp->ibqp.pd, wqe->sge, wqe->num_sge, off,
			      dst, len, SROCE_COPY_FROM_MR);
}

/*
 * Copy @payload bytes of @wqe from message offset @off into page fragments
 * of @skb, a page at most each: a wide segment is larger than one.
 */
static int sroce_req_copy(struct sroce_qp *qp, const struct sroce_send_wqe *wqe, u32 off,
			  struct sk_buff *skb, u32 payload)
{
	u32 done = 0, len;
	int err;
	u8 *buf;

	do {
		len = min_t(u32, payload - done, PAGE_SIZE);
		buf = sroce_pkt_frag_piece(skb, len, payload, done + len == payload);
		if (!buf)
			return -ENOMEM;
		err = sroce_gather(qp, wqe, off + done, buf, len);
		if (err)
			return err;
		done += len;
	} while (done < payload);
	return 0;
}

/**
 * sroce_req_payload() - the payload of a request packet, after its headers
 * @qp: the QP
 * @wqe: the SQ entry (shadow copy)
 * @off: message offset of the payload
 * @skb: the packet, headers built
 * @payload: bytes
 * @mode: how they travel (sroce_pkt_frag_mode())
 *
 * Return: 0, -ENOMEM (no fragment: drop the packet like a lost one), or
 * sroce_gather()'s error.
 */
static int sroce_req_payload(struct sroce_qp *qp, const struct sroce_send_wqe *wqe, u32 off,
			     struct sk_buff *skb, u32 payload, enum sroce_pkt_mode mode)
{
	int err;

	if (mode == SROCE_PKT_LINEAR)
		return sroce_gather(qp, wqe, off, skb_put(skb, payload), payload);
	if (mode == SROCE_PKT_ZCOPY) {
		err = sroce_pkt_zc_end(qp, skb, payload,
				       sroce_sgl_frags(qp->sdev, qp->ibqp.pd, wqe->sge,
						       wqe->num_sge, off, skb, payload));
		if (err != -EOPNOTSUPP)
			return err;
	}
	return sroce_req_copy(qp, wqe, off, skb, payload);
}

static u8 sroce_req_opcode(const struct sroce_send_wqe *wqe, bool first, bool last)
{
	enum sroce_msg_op op;

	switch (wqe->opcode) {
	case IB_UVERBS_WR_SEND:
		op = SROCE_MSG_SEND;
		break;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		op = SROCE_MSG_SEND_IMM;
		break;
	case IB_UVERBS_WR_SEND_WITH_INV:
		op = SROCE_MSG_SEND_INV;
		break;
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		op = SROCE_MSG_WRITE_IMM;
		break;
	default:
		op = SROCE_MSG_WRITE;
		break;
	}
	return sroce_msg_opcode(op, first, last);
}

/*
 * Does the window let the packet of @wqe at req->psn go? Not a SEND or
 * WRITE packet further ahead than a selective repeat peer holds
 * (sroce_rc_sr_reach()); past the loss window only while a SACK's hole is
 * being filled: what went behind the hole is held by the responder
 * (sroce_rc_sack_window()).
 */
static bool sroce_req_window_open(struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	struct sroce_req *req = &qp->req;

	if (qp->opt.selrep_peer && !sroce_wqe_has_response(wqe) &&
	    !sroce_rc_sr_reach(req->psn, req->una_psn))
		return false;
	if (sroce_cwnd_open(&req->cwnd, req->psn, req->una_psn))
		return true;
	if (!req->sack_valid ||
	    !sroce_rc_sack_window(&req->sack, req->psn, req->una_psn, req->cwnd.cwnd,
				  req->sr_room))
		return false;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_WINDOW);
	return true;
}

/*
 * Selective repeat: may the resend after a SACK NAK skip the packet at
 * req->psn (sroce_rc_sack_skip())? Only SEND and WRITE packets are held.
 * A stale SACK is harmless, as the responder keeps what it holds until it
 * executes it, and a responder that drops what it held NAKs or lets the
 * timer expire, which ends the SACK (completer.c).
 */
static bool sroce_req_sacked(struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	struct sroce_req *req = &qp->req;

	if (!req->sack_valid || sroce_wqe_has_response(wqe) ||
	    !sroce_rc_sack_skip(&req->sack, req->psn))
		return false;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_SKIPPED);
	return true;
}

/*
 * A request packet of @payload bytes (@hdr its headers; @read: a READ
 * request, whose PSNs are its responses') left: count a resend, or size
 * the window's unit by a new packet and time it if it asks for an ACK
 * (proto/sroce_cwnd.h)
 */
static void sroce_req_sent(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr, u32 payload,
			   bool read)
{
	struct sroce_req *req = &qp->req;
	u32 dma_len = hdr->reth.dma_len, seg = 0;

	/* a READ's responses: the segment its request asked for */
	if (read)
		seg = hdr->bth.resv7 & SROCE_BTH7_WIDE_RD ? sroce_wide_seg(qp->mtu) : qp->mtu;
	if (sroce_psn_diff(req->psn, req->hi_psn) < 0) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RETX_PKTS);
		sroce_stat_add(qp->sdev, SROCE_STAT_RETX_BYTES, payload);
		sroce_cwnd_resent(&req->cwnd, read ? sroce_npkts(dma_len, seg) : 1);
		return;
	}
	sroce_cwnd_pkt(&req->cwnd, read ? min(dma_len, seg) : payload);
	if (hdr->bth.ack_req && !req->cwnd.timing)
		sroce_cwnd_sent(&req->cwnd, req->psn, ktime_get_ns());
}

/**
 * sroce_req_end_asks() - does the last packet of entry send_idx ask for an ACK?
 * @qp: the QP
 * @wqe: the entry (a SEND or RDMA WRITE, shadow copy)
 *
 * When its completion is wanted (signaled, or every entry is), while the
 * QP is not plainly sending (SQD: no entry after it starts), and when no
 * request packet is sure to follow it: the next entry not posted yet (the
 * ring is read once more first), failed, or a local operation. Else
 * the next packets ask as sroce_cwnd_ack_req() says: an ACK is a frame
 * for both hosts, and a stream of unsignaled 64-byte WRITEs drew one per
 * message (Documentation/transport.rst, *Loss window*).
 *
 * Return: true if it asks whatever the window says.
 */
static bool sroce_req_end_asks(struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	struct sroce_req *req = &qp->req;
	u32 next = req->send_idx + 1;

	if (qp->sig_all || (wqe->send_flags & SROCE_SEND_SIGNALED) ||
	    READ_ONCE(qp->state) != IB_QPS_RTS)
		return true;
	if (next == req->fetched && sroce_req_fetch(qp))
		return true;	/* a corrupt producer: the send loop fails the QP */
	return next == req->fetched || sroce_swqe(qp, next)->bad ||
	       sroce_wqe_is_local(sroce_shadow(qp, next));
}

/**
 * sroce_req_data_hdr() - the header of the next SEND or WRITE packet
 * @qp: the QP
 * @wqe: its SQ entry (a SEND or RDMA WRITE, with or without extras)
 * @sw: the entry's transport state
 * @off: the packet's offset into the message
 * @hdr: filled in
 *
 * A packet of at most one path MTU; FIRST/MIDDLE/LAST, and the RETH in the
 * FIRST of a WRITE. An RC QP in adaptive routing mode (qp->opt.ar) sends
 * each packet of a plain RDMA WRITE as a WRITE ONLY of its own, whose RETH
 * names that packet's bytes (the address advanced by @off, the same rkey,
 * the DMA length its payload): valid IBTA packets any responder executes
 * in order, and one that takes them out of order places each at once
 * (sr.c). A WRITE with immediate stays one message (FIRST/MIDDLE/LAST
 * WITH IMMEDIATE): split, its receive completion would report the last
 * packet's length instead of the message's. SENDs stay FIRST/MIDDLE/LAST.
 *
 * Return: the payload length.
 */
static u32 sroce_req_data_hdr(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			      struct sroce_swqe *sw, u32 off, struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;
	u32 payload = min(sw->seg, sw->length - off);
	bool last = off + payload == sw->length;
	bool write = wqe->opcode == IB_UVERBS_WR_RDMA_WRITE ||
		     wqe->opcode == IB_UVERBS_WR_RDMA_WRITE_WITH_IMM;
	bool ar = wqe->opcode == IB_UVERBS_WR_RDMA_WRITE && qp->opt.ar;

	if (ar)
		hdr->bth.opcode = SROCE_OP_RC_WRITE_ONLY;
	else
		hdr->bth.opcode = sroce_req_opcode(wqe, off == 0, last);
	hdr->bth.se = last && (wqe->send_flags & SROCE_SEND_SOLICITED);
	/* UC asks for nothing (cleared below): no need to look past the end */
	hdr->bth.ack_req = sroce_cwnd_ack_req(&req->cwnd, req->psn, req->una_psn,
					      last && (sroce_qp_is_uc(qp) ||
						       sroce_req_end_asks(qp, wqe)));
	if (sroce_qp_is_uc(qp)) {
		/* IBTA: the UC opcodes are the RC ones plus 0x20 */
		hdr->bth.opcode += SROCE_OP_UC_SEND_FIRST - SROCE_OP_RC_SEND_FIRST;
		hdr->bth.ack_req = false;
	}
	if (write && (off == 0 || ar)) {
		hdr->reth.va = wqe->wr.rdma.remote_addr + off;
		hdr->reth.rkey = wqe->wr.rdma.rkey;
		hdr->reth.dma_len = ar ? payload : sw->length;
	}
	hdr->immdt = be32_to_cpu(wqe->ex);
	hdr->ieth_rkey = (__force u32)wqe->ex;
	if (last)
		sw->last_psn = req->psn;
	return payload;
}

/**
 * sroce_read_rkey() - the R_Key a READ request of @len bytes carries
 * @qp: the QP
 * @wqe: the READ
 * @len: bytes it asks for (what is left of it after a go-back)
 *
 * The WR's, but every other resend of a zero-length READ that is the
 * newest request carries 0. A responder checks no R_Key for zero bytes
 * (IBTA C9-88), yet rxe since 6.12 keeps 0 as the one of a zero-length
 * READ and drops a duplicate whose R_Key differs, silently: a lost
 * response would end in RETRY_EXC. rxe 6.1 keeps the WR's and answers
 * that one (so it stays the first and every other). Only the newest:
 * 6.12's rxe answers a duplicate with R_Key 0 only while the last READ or
 * WRITE it began was of zero length (else it NAKs a remote access error);
 * an older one is completed by the ACK of a later one instead
 * (completer.c, sroce_read_awaits_data()).
 *
 * Return: the R_Key for the RETH.
 */
static u32 sroce_read_rkey(struct sroce_qp *qp, const struct sroce_send_wqe *wqe, u32 len)
{
	struct sroce_req *req = &qp->req;

	if (req->psn == req->hi_psn)	/* the first transmission */
		req->zread_resends = 0;
	else if (!len && sroce_psn_inc(req->psn) == req->hi_psn &&
		 ++req->zread_resends % 2 == 0)
		return 0;
	return wqe->wr.rdma.rkey;
}

/**
 * sroce_req_resp_hdr() - the header of a request answered by a response
 * @qp: the QP
 * @wqe: its SQ entry (sroce_wqe_has_response(): READ, atomic, ATOMIC
 *	WRITE or FLUSH)
 * @sw: the entry's transport state
 * @off: for a READ, the bytes of its responses already received
 * @hdr: filled in
 *
 * One packet that asks for an ACK. Its last PSN is that of its last
 * response: a READ (or what is left of it after a go-back) takes one PSN
 * per segment (sw->seg) of what it reads, the others one.
 *
 * Return: the payload length (8 for ATOMIC WRITE, else 0).
 */
static u32 sroce_req_resp_hdr(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			      struct sroce_swqe *sw, u32 off, struct sroce_pkt_hdr *hdr)
{
	struct sroce_req *req = &qp->req;

	hdr->bth.ack_req = true;
	sw->last_psn = req->psn;
	switch (wqe->opcode) {
	case IB_UVERBS_WR_RDMA_READ:
		hdr->bth.opcode = SROCE_OP_RC_READ_REQUEST;
		hdr->reth.va = wqe->wr.rdma.remote_addr + off;
		hdr->reth.rkey = sroce_read_rkey(qp, wqe, sw->length - off);
		hdr->reth.dma_len = sw->length - off;
		sw->last_psn = sroce_psn_add(req->psn, sroce_npkts(sw->length - off, sw->seg) - 1);
		if (sw->seg != qp->mtu)
			hdr->bth.resv7 = SROCE_BTH7_WIDE_RD;
		return 0;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		hdr->bth.opcode = wqe->opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ?
				  SROCE_OP_RC_COMPARE_SWAP : SROCE_OP_RC_FETCH_ADD;
		hdr->atmeth.va = wqe->wr.atomic.remote_addr;
		hdr->atmeth.rkey = wqe->wr.atomic.rkey;
		hdr->atmeth.swap_add = wqe->opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ?
				       wqe->wr.atomic.swap : wqe->wr.atomic.compare_add;
		hdr->atmeth.compare = wqe->wr.atomic.compare_add;
		return 0;
	case SROCE_WR_ATOMIC_WRITE:
		hdr->bth.opcode = SROCE_OP_RC_ATOMIC_WRITE;
		hdr->reth.va = wqe->wr.rdma.remote_addr;
		hdr->reth.rkey = wqe->wr.rdma.rkey;
		hdr->reth.dma_len = 8;
		return 8;
	default:	/* SROCE_WR_FLUSH */
		hdr->bth.opcode = SROCE_OP_RC_FLUSH;
		hdr->feth = (wqe->wr.flush.level << SROCE_FETH_SEL_SHIFT) | wqe->wr.flush.type;
		hdr->reth.va = wqe->wr.flush.remote_addr;
		hdr->reth.rkey = wqe->wr.flush.rkey;
		hdr->reth.dma_len = wqe->wr.flush.length;
		return 0;
	}
}

/*
 * The headers of the packet at req->psn, at offset @off of entry @wqe, by
 * its opcode class (a request answered by a response, or a SEND or WRITE
 * packet); sets @sw->last_psn once the last packet is known. Return: the
 * payload length.
 */
static u32 sroce_req_hdr(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			 struct sroce_swqe *sw, u32 off, struct sroce_pkt_hdr *hdr)
{
	u32 payload;

	hdr->bth.pkey = 0xffff;
	hdr->bth.dqpn = qp->attr.dest_qp_num;
	hdr->bth.psn = qp->req.psn;
	if (sroce_wqe_has_response(wqe))
		payload = sroce_req_resp_hdr(qp, wqe, sw, off, hdr);
	else
		payload = sroce_req_data_hdr(qp, wqe, sw, off, hdr);
	if (sroce_qp_is_xrc(qp)) {
		/* IBTA: the XRC opcodes are the RC ones with prefix 101b */
		hdr->bth.opcode = sroce_qp_opcode(qp, hdr->bth.opcode);
		hdr->xrc_srqn = wqe->xrc_srqn;
	}
	hdr->bth.pad = sroce_pad_len(payload);
	hdr->info = sroce_opcode(hdr->bth.opcode);
	return payload;
}

/**
 * sroce_req_xmit() - build and send one request packet
 * @qp: the QP
 * @wqe: its SQ entry (shadow copy)
 * @hdr: its headers (sroce_req_hdr())
 * @off: the message offset of its payload
 * @payload: its payload length
 *
 * Adaptive routing (qp->opt.ar) marks SEND and WRITE packets and sprays
 * them over the QP's source ports.
 *
 * Return: 0 when it left; -ENOMEM when there was no memory for it (nothing
 * moved: the caller treats it like a lost packet); -EAGAIN when an ODP page
 * of the payload is being faulted in (the QP waits for it); another
 * negative errno when the entry's local memory refused.
 */
static int sroce_req_xmit(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			  const struct sroce_pkt_hdr *hdr, u32 off, u32 payload)
{
	u32 hdr_len = hdr->info->hdr_len;
	enum sroce_pkt_mode mode;
	struct sk_buff *skb;
	bool ar;
	int err;
	u8 *bth;

	mode = sroce_pkt_frag_mode(qp, payload, !(wqe->send_flags & SROCE_SEND_INLINE));
	skb = sroce_pkt_alloc(qp, hdr_len + (mode == SROCE_PKT_LINEAR ? payload : 0));
	if (!skb)
		return -ENOMEM;
	bth = skb_put(skb, hdr_len);
	if (sroce_pkt_build_hdrs(bth, hdr_len, hdr) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	ar = qp->opt.ar && (hdr->info->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE));
	if (ar)
		bth[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_AR;
	err = payload ? sroce_req_payload(qp, wqe, off, skb, payload, mode) : 0;
	if (err) {
		kfree_skb(skb);
		if (err == -EAGAIN)
			sroce_odp_wait(qp);	/* an ODP page is faulted in */
		return err;
	}
	sroce_pkt_xmit_port(qp, skb, payload, ar ? sroce_qp_ar_sport(qp) : qp->path.sport);
	if (unlikely(sroce_pacer_on(qp)))
		sroce_dcqcn_sent(qp, hdr_len + payload);
	sroce_req_sent(qp, hdr, payload, wqe->opcode == IB_UVERBS_WR_RDMA_READ);
	return 0;
}

/*
 * The packet at req->psn of entry send_idx (@payload bytes, the entry's
 * @last) left or is held by the peer: on to the next PSN (past the
 * responses of a request answered by them) and, after the last packet, to
 * the next entry. UC completes the entry then, as nothing comes back; RC
 * (re)arms the local ACK timer.
 */
static void sroce_req_advance(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			      struct sroce_swqe *sw, u32 payload, bool last)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	if (sroce_wqe_has_response(wqe)) {
		req->psn = sroce_psn_add(sw->last_psn, 1);
		req->rd_outstanding++;
	} else {
		req->psn = sroce_psn_inc(req->psn);
	}
	if (sroce_psn_diff(req->psn, req->hi_psn) > 0)
		req->hi_psn = req->psn;
	if (last) {
		sw->sent = true;
		sw->tail_sent = true;
		req->send_idx++;
		req->send_off = 0;
	} else {
		req->send_off += payload;
	}
	if (sroce_qp_is_uc(qp)) {
		req->una_psn = req->psn;
		if (last)
			sroce_comp_retire(qp, IB_WC_SUCCESS);
		return;
	}
	sroce_req_arm_timer(qp);
}

/**
 * sroce_req_send_one() - send the next request packet of entry send_idx
 * @qp: the QP
 *
 * Builds its headers, sends it (or skips it when the peer holds it after a
 * SACK, sroce_req_sacked()) and advances the send state past it.
 *
 * Return: 0 when a packet went out (or was lost in the network), -EAGAIN
 * when an ODP page of the data is being faulted in (the QP waits for it),
 * another negative errno when the entry failed locally.
 */
static int sroce_req_send_one(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_send_wqe *wqe = sroce_shadow(qp, req->send_idx);
	struct sroce_swqe *sw = sroce_swqe(qp, req->send_idx);
	struct sroce_pkt_hdr hdr = {};
	u32 payload, off = req->send_off;
	int err;

	if (off == 0)
		sw->first_psn = req->psn;
	if (req->send_idx == req->started)
		req->started++;
	payload = sroce_req_hdr(qp, wqe, sw, off, &hdr);
	/* a packet the peer has already: move on as if sent */
	if (likely(!req->sack_valid) || !sroce_req_sacked(qp, wqe)) {
		err = sroce_req_xmit(qp, wqe, &hdr, off, payload);
		if (err == -ENOMEM)
			return 0;	/* like a lost packet: the retry timer recovers */
		if (err)
			return err;
	}
	sroce_req_advance(qp, wqe, sw, payload,
			  sroce_wqe_has_response(wqe) || off + payload == sw->length);
	return 0;
}

/*
 * The started entry that holds @psn: the oldest not acknowledged through
 * it, or req->started when every started entry is.
 */
static u32 sroce_req_entry_of(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 idx;

	for (idx = req->comp_idx; idx != req->started; idx++) {
		const struct sroce_swqe *sw = sroce_swqe(qp, idx);

		if (!sw->tail_sent || sroce_psn_diff(psn, sw->last_psn) <= 0)
			break;
	}
	return idx;
}

/*
 * Where a resend from @psn starts in entry @idx (sroce_rc_restart()):
 * return its PSN, and its offset in the message in @off.
 */
static u32 sroce_req_restart_at(struct sroce_qp *qp, u32 idx, u32 psn, u32 *off)
{
	const struct sroce_swqe *sw = sroce_swqe(qp, idx);
	struct sroce_rc_entry at = {
		.first_psn = sw->first_psn,
		.response = sroce_wqe_has_response(sroce_shadow(qp, idx)),
		.resp_done = sw->read_done,
	};

	return sroce_rc_restart(&at, psn, sw->seg, off);
}

/**
 * sroce_req_go_back() - resend from @psn (go-back-N)
 * @qp: the QP
 * @psn: first PSN to send again (never before the oldest unacknowledged)
 *
 * Finds the entry holding @psn among those started, restarts there and
 * forgets that it and later entries were sent. A READ restarts with a
 * request for the bytes not received yet. @psn may also lie past the next
 * PSN, when an ACK acknowledged more than a go-back had resent: sending
 * goes on from there.
 */
void sroce_req_go_back(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *req = &qp->req;
	struct sroce_swqe *sw;
	u32 idx;

	lockdep_assert_held(&qp->lock);

	sroce_selrd_reset(&req->selrd);
	req->probing = false;	/* whatever the probe's answer, all goes again */
	req->probe_alone = false;
	if (sroce_psn_diff(psn, req->una_psn) < 0)
		psn = req->una_psn;
	idx = sroce_req_entry_of(qp, psn);
	if (idx == req->started)
		return;		/* everything started is acknowledged */

	/* forward (past what the responder acknowledged) is not a resend */
	if (sroce_psn_diff(psn, req->psn) < 0) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_RETRANSMITS);
		sroce_cwnd_resend(&req->cwnd);
	}
	req->psn = sroce_req_restart_at(qp, idx, psn, &req->send_off);
	req->send_idx = idx;
	for (; idx != req->started; idx++) {
		sw = sroce_swqe(qp, idx);
		if (sw->sent && sroce_wqe_has_response(sroce_shadow(qp, idx)))
			req->rd_outstanding--;
		sw->sent = false;
	}
}

/**
 * sroce_req_idle_poll() - stay awake for the next post instead of asking
 * for a doorbell?
 * @qp: the QP, its SQ empty and nothing in flight
 *
 * A streaming consumer posts again within microseconds of a completion;
 * a doorbell system call per post costs more than looking at the ring
 * again after a short grace (module parameter sq_poll_us). The grace is only spent
 * in poll mode, which a doorbell arriving within the grace of the last
 * NEED_WAKEUP turns on and a grace that saw no post turns off, so a
 * ping-pong consumer (one post per round trip) keeps using the doorbell
 * and no CPU is burnt for it.
 *
 * Return: true to leave NEED_WAKEUP clear; a timer runs the transport
 * again when the grace ends and finds what was posted meanwhile in one
 * batch (sroce_qp_arm_poll()).
 */
static bool sroce_req_idle_poll(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u64 now;

	if (!req->poll || !READ_ONCE(sroce_sq_poll_us))
		return false;
	now = ktime_get_ns();
	if (!req->poll_until)
		req->poll_until = now + READ_ONCE(sroce_sq_poll_us) * NSEC_PER_USEC;
	if (now >= req->poll_until) {
		req->poll_until = 0;
		req->poll = false;
		return false;
	}
	req->want_poll = true;
	return true;
}

/**
 * sroce_req_doorbell() - the provider rang the SQ doorbell
 * @qp: the QP
 *
 * Turns poll mode on when the post came within the polling grace of the
 * moment NEED_WAKEUP went up: polling would have caught it.
 */
void sroce_req_doorbell(struct sroce_qp *qp)
{
	u64 since = READ_ONCE(qp->req.idle_since);
	unsigned int us = READ_ONCE(sroce_sq_poll_us);

	if (us && since && ktime_get_ns() - since < (u64)us * NSEC_PER_USEC)
		WRITE_ONCE(qp->req.poll, true);
}

/* Carry out a local operation. Return: IB_WC_SUCCESS or its error status. */
static enum ib_wc_status sroce_req_local_exec(struct sroce_qp *qp,
					      const struct sroce_send_wqe *wqe)
{
	struct sroce_fr_reg r;
	struct sroce_bind b;

	switch (wqe->opcode) {
	case SROCE_WR_REG_MR:
		r.key = wqe->wr.reg.key;
		r.access = wqe->wr.reg.access;
		r.iova = wqe->wr.reg.iova;
		r.length = wqe->wr.reg.length;
		return sroce_mr_fast_reg(qp->sdev, qp->ibqp.pd, &r) ?
		       IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	case IB_UVERBS_WR_BIND_MW:
		b.mw_key = wqe->wr.bind.mw_rkey;
		b.new_key = wqe->wr.bind.new_rkey;
		b.mr_key = wqe->wr.bind.mr_lkey;
		b.va = wqe->wr.bind.addr;
		b.len = wqe->wr.bind.length;
		b.access = wqe->wr.bind.access;
		return sroce_mw_bind(qp->sdev, &qp->ibqp, &b) ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
	default:	/* LOCAL_INV */
		return sroce_key_invalidate(qp->sdev, qp->ibqp.pd, qp->ibqp.qp_num,
					    (__force u32)wqe->ex) ?
		       IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
	}
}

/*
 * Execute the local operation at send_idx (once: a go-back over it only
 * passes it again). It occupies no PSN: its "last PSN" is the one before,
 * so whatever acknowledges the request before it covers it too. A failure
 * marks it bad: it completes in error, in order, and the QP goes to ERR.
 */
static void sroce_req_local_op(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_send_wqe *wqe = sroce_shadow(qp, req->send_idx);
	struct sroce_swqe *sw = sroce_swqe(qp, req->send_idx);

	if (!sw->local_done) {
		sw->bad = sroce_req_local_exec(qp, wqe);
		if (sw->bad)
			return;
		sw->local_done = true;
	}
	if (req->send_idx == req->started)
		req->started++;
	sw->first_psn = sroce_psn_add(req->psn, SROCE_PSN_MASK);
	sw->last_psn = sw->first_psn;
	sw->sent = true;
	sw->tail_sent = true;
	req->send_idx++;
	req->send_off = 0;
	sroce_req_retire_local(qp);
}

/* The entry at send_idx failed locally: complete it in order, QP to ERR. */
static void sroce_req_fail_head(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_req *req = &qp->req;

	if (req->comp_idx != req->send_idx)
		return;		/* earlier entries first: the completer re-runs us */
	sroce_comp_retire(qp, status);
	sroce_qp_set_error(qp);
}

/**
 * sroce_req_probe() - the RTO's probe: the oldest unacknowledged packet alone
 * @qp: the QP
 *
 * Resent asking for an ACK, the send walk left where it is: its answer
 * tells a loss from a late ACK (completer.c, sroce_probe_answered()). A
 * request answered by responses (READ, atomic) is not resent alone, as
 * its resend asks for all of them again.
 *
 * Return: false when the caller goes back instead.
 */
static bool sroce_req_probe(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 psn = req->una_psn, next = req->psn, idx, off, payload;
	struct sroce_pkt_hdr hdr = {};
	struct sroce_send_wqe *wqe;
	int err;

	if (sroce_psn_diff(next, psn) <= 0)
		return true;	/* nothing sent to probe: the walk goes on */
	idx = sroce_req_entry_of(qp, psn);
	if (idx == req->started)
		return true;
	wqe = sroce_shadow(qp, idx);
	if (sroce_wqe_has_response(wqe))
		return false;
	/* the headers of the packet at req->psn, put there for the build */
	req->psn = sroce_req_restart_at(qp, idx, psn, &off);
	payload = sroce_req_hdr(qp, wqe, sroce_swqe(qp, idx), off, &hdr);
	hdr.bth.ack_req = true;
	err = sroce_req_xmit(qp, wqe, &hdr, off, payload);
	req->psn = next;
	if (err && err != -ENOMEM)
		return false;	/* an ODP page, or memory that refused: the walk's */
	req->probing = true;
	req->probe_psn = psn;
	trace_sroce_retransmit(qp->ibqp.qp_num, psn, req->retry_left, SROCE_RETX_RTO);
	return true;
}

/*
 * A go-back the completer asked for, or the one an ODP fault put off; or
 * the RTO's probe, or the go-back it could not be
 */
static void sroce_req_retry(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	if (req->probe_due) {
		req->probe_due = false;
		if (!sroce_req_probe(qp)) {
			req->need_retry = true;
			req->retry_psn = req->una_psn;
		}
	}

	if (req->odp_retry && !READ_ONCE(qp->odp_waiting)) {
		/* the page a response needed is there now (odp.c) */
		req->odp_retry = false;
		req->need_retry = true;
		req->retry_psn = req->odp_retry_psn;
	}
	if (req->need_retry) {
		req->need_retry = false;
		sroce_req_go_back(qp, req->retry_psn);
	}
}

/*
 * A READ repair: one READ request, marked SROCE_BTH_REPAIR, for the
 * responses [@from, @to) of READ entry @idx (selective READ). It moves no
 * send state; lost, the resend timer asks again (sroce_req_repair()).
 */
static bool sroce_req_repair_xmit(struct sroce_qp *qp, u32 idx, u32 from, u32 to, bool probe)
{
	const struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);
	const struct sroce_swqe *sw = sroce_swqe(qp, idx);
	u32 off = (u32)sroce_psn_diff(from, sw->first_psn) * sw->seg;
	struct sroce_pkt_hdr hdr = {};
	struct sk_buff *skb;
	u8 *bth;

	hdr.bth.opcode = sroce_qp_opcode(qp, SROCE_OP_RC_READ_REQUEST);
	hdr.info = sroce_opcode(hdr.bth.opcode);
	hdr.bth.pkey = 0xffff;
	hdr.bth.dqpn = qp->attr.dest_qp_num;
	hdr.bth.psn = from;
	hdr.bth.ack_req = true;
	hdr.reth.va = wqe->wr.rdma.remote_addr + off;
	hdr.reth.rkey = wqe->wr.rdma.rkey;
	hdr.reth.dma_len = min_t(u32, (u32)sroce_psn_diff(to, from) * sw->seg, sw->length - off);
	if (sw->seg != qp->mtu)
		hdr.bth.resv7 = SROCE_BTH7_WIDE_RD;
	if (probe)
		hdr.bth.resv7 |= SROCE_BTH7_RD_PROBE;
	hdr.xrc_srqn = wqe->xrc_srqn;
	skb = sroce_pkt_alloc(qp, hdr.info->hdr_len);
	if (!skb)
		return false;
	bth = skb_put(skb, hdr.info->hdr_len);
	if (sroce_pkt_build_hdrs(bth, hdr.info->hdr_len, &hdr) < 0) {
		kfree_skb(skb);
		return false;
	}
	bth[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_REPAIR;
	sroce_pkt_xmit_port(qp, skb, 0, qp->path.sport);
	sroce_stat_inc(qp->sdev, SROCE_STAT_SELRD_REPAIRS);
	sroce_stat_inc(qp->sdev, SROCE_STAT_RETX_PKTS);
	sroce_cwnd_resent(&qp->req.cwnd, (u32)sroce_psn_diff(to, from));
	trace_sroce_retransmit(qp->ibqp.qp_num, from, qp->req.retry_left, SROCE_RETX_READ_GAP);
	return true;
}

/*
 * Ask for the runs of responses of READ entry @idx missing in [asked, hi);
 * returns how many repairs went out.
 */
static int sroce_req_repair_read(struct sroce_qp *qp, u32 idx)
{
	const struct sroce_selrd *s = &qp->req.selrd;
	const struct sroce_swqe *sw = sroce_swqe(qp, idx);
	u32 psn = sroce_read_expect(sw);
	u32 to = sroce_psn_inc(sw->last_psn), end, from;
	int sent = 0;

	if (sroce_psn_diff(s->asked, psn) > 0)
		psn = s->asked;
	if (sroce_psn_diff(to, s->hi) > 0)
		to = s->hi;
	/* the map covers this much (a longer READ goes alone: the timer's) */
	end = sroce_psn_add(qp->req.una_psn, SROCE_SELRD_BITS);
	if (sroce_psn_diff(to, end) > 0)
		to = end;
	while (sroce_psn_diff(psn, to) < 0) {
		if (test_bit(psn % SROCE_SELRD_BITS, s->got)) {
			psn = sroce_psn_inc(psn);
			continue;
		}
		from = psn;
		while (sroce_psn_diff(psn, to) < 0 && !test_bit(psn % SROCE_SELRD_BITS, s->got))
			psn = sroce_psn_inc(psn);
		sent += sroce_req_repair_xmit(qp, idx, from, psn, false);
	}
	return sent;
}

/**
 * sroce_req_repair() - ask again for the READ responses lost in a
 *	selective READ episode
 * @qp: the QP
 *
 * The holes the completer found between the PSNs asked for last time and
 * the newest response placed (req->selrd, completer.c): one repair request
 * per run of missing responses of each READ. The resend timer restarts
 * with the repairs (their answers come after what the responder had queued
 * before them); a repair that is lost too is the timer's: every hole asked
 * for again once (sroce_selrd_reask()), then a go-back from the oldest.
 */
static void sroce_req_repair(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_selrd *s = &req->selrd;
	int sent = 0;
	u32 idx;

	if (likely(!s->repair_due))
		return;
	s->repair_due = false;
	if (s->probe_due) {
		/* the resend timer's probe (sroce_selrd_probe()): the last alone */
		s->probe_due = false;
		idx = s->probe_idx;
		if (s->on && idx - req->comp_idx < req->started - req->comp_idx) {
			u32 last = sroce_swqe(qp, idx)->last_psn;

			sent += sroce_req_repair_xmit(qp, idx, last, sroce_psn_inc(last), true);
		}
	}
	for (idx = req->comp_idx; idx != req->started; idx++) {
		const struct sroce_swqe *sw = sroce_swqe(qp, idx);

		if (!sw->tail_sent || sroce_psn_diff(sw->first_psn, s->hi) >= 0)
			break;
		if (sroce_selrd_entry(qp, idx) && sroce_psn_diff(sw->last_psn, s->asked) >= 0)
			sent += sroce_req_repair_read(qp, idx);
	}
	s->asked = s->hi;
	if (sent)
		sroce_req_arm_timer(qp);
}

/**
 * sroce_req_ring_idle() - everything fetched is sent: stop, or go on?
 * @qp: the QP
 *
 * With requests in flight an ACK, a READ response or the retransmit timer
 * runs the requester again and it looks at the ring then: no doorbell
 * needed. Else, unless the polling grace keeps it awake
 * (sroce_req_idle_poll()), it publishes SROCE_RING_F_NEED_WAKEUP and
 * checks the ring once more.
 *
 * Return: true to stop; false when a post came in meanwhile (the flag is
 * cleared again).
 */
static bool sroce_req_ring_idle(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	struct sroce_ring_hdr *h = qp->sq->hdr;

	lockdep_assert_held(&qp->lock);

	if (sroce_req_busy(req))
		return true;
	if (sroce_req_idle_poll(qp))
		return true;
	WRITE_ONCE(h->flags, SROCE_RING_F_NEED_WAKEUP);
	smp_mb();	/* flag store before producer load */
	if (smp_load_acquire(&h->producer) == req->fetched) {
		/* for the doorbell policies: a kernel QP rings none */
		if (!qp->kernel &&
		    (READ_ONCE(sroce_sq_poll_us) || READ_ONCE(sroce_db_defer_mode)))
			WRITE_ONCE(req->idle_since, ktime_get_ns());
		return true;
	}
	WRITE_ONCE(h->flags, 0);
	return false;
}

/**
 * sroce_req_may_send() - may entry send_idx send its next packet now?
 * @qp: the QP
 * @wqe: the entry (shadow copy)
 *
 * Not when the QP drains (SQD: no new message starts, the started ones are
 * resent), the window is full (sroce_req_window_open()), a request
 * answered by a response finds
 * max_rd_atomic of them outstanding, would take its responses past the
 * loss window (unless nothing else is in flight: a READ longer than the
 * window goes alone) or the PSNs in flight past a quarter of the PSN
 * space, or a FENCE waits for them.
 *
 * Return: true to go on; false to stop until an ACK, a response or the
 * timer runs the requester again.
 */
static bool sroce_req_may_send(struct sroce_qp *qp, const struct sroce_send_wqe *wqe)
{
	struct sroce_req *req = &qp->req;

	lockdep_assert_held(&qp->lock);

	/* drain: no new message starts, the started ones are resent */
	if (READ_ONCE(qp->state) == IB_QPS_SQD && req->send_idx == req->started)
		return false;
	if (!sroce_req_window_open(qp, wqe))
		return false;
	if (sroce_wqe_has_response(wqe)) {
		struct sroce_swqe *sw = sroce_swqe(qp, req->send_idx);
		u32 span = sroce_npkts(sw->length - req->send_off, sw->seg);

		if (req->rd_outstanding >= max_t(u32, qp->attr.max_rd_atomic, 1))
			return false;
		/*
		 * The responder sends a READ's responses in one burst: they
		 * are the window's too (a first PSN inside let a 64 KiB READ
		 * take 15 more, and the bursts of a few such overflowed the
		 * receiving host's socket buffer)
		 */
		if (req->psn != req->una_psn &&
		    !sroce_cwnd_open(&req->cwnd, sroce_psn_add(req->psn, span - 1), req->una_psn))
			return false;
		if (sroce_req_busy(req) &&
		    sroce_psn_diff(req->psn, req->una_psn) + span > SROCE_MAX_PSN_INFLIGHT)
			return false;
	}
	return !(req->send_off == 0 && (wqe->send_flags & SROCE_SEND_FENCE) &&
		 req->rd_outstanding);
}

/* Entry send_idx's local memory (lkey, range, rights) refused: it fails */
static void sroce_req_send_failed(struct sroce_qp *qp, int err)
{
	sroce_dbg_qp_rl(qp,
			"SQ entry %u: its local memory (lkey, range, rights) refused: error %d",
			qp->req.send_idx, err);
	sroce_req_fail_head(qp, IB_WC_LOC_PROT_ERR);
	sroce_qp_set_error(qp);
}

/**
 * sroce_requester() - send what the SQ holds, within the windows
 * @qp: the QP (state RTS or SQD)
 * @budget: packets to send before yielding to the work item
 *
 * When the ring is empty and nothing is in flight, publishes
 * SROCE_RING_F_NEED_WAKEUP and checks the ring once more (the provider
 * checks the flag after publishing its producer: one of the two sees the
 * other's store). While requests are in flight the completer re-runs the
 * requester on every ACK, so the flag stays clear and posts make no
 * syscall.
 */
void sroce_requester(struct sroce_qp *qp, int budget)
{
	struct sroce_req *req = &qp->req;
	struct sroce_send_wqe *wqe;
	u8 bad;
	int err;

	lockdep_assert_held(&qp->lock);

	if (req->rnr_wait)
		return;
	sroce_req_retry(qp);
	sroce_req_repair(qp);
	WRITE_ONCE(qp->sq->hdr->flags, 0);
	while (budget--) {
		if (req->send_idx == req->fetched && sroce_req_fetch(qp)) {
			sroce_qp_set_error(qp);
			return;
		}
		if (req->send_idx == req->fetched) {
			if (sroce_req_ring_idle(qp))
				return;
			continue;
		}
		bad = sroce_swqe(qp, req->send_idx)->bad;
		if (bad) {
			sroce_req_fail_head(qp, bad);
			return;
		}
		wqe = sroce_shadow(qp, req->send_idx);
		if (!sroce_req_may_send(qp, wqe))
			return;
		if (sroce_wqe_is_local(wqe)) {
			sroce_req_local_op(qp);
			continue;
		}
		/* DCQCN or rate limit pacing: the pace timer runs us again */
		if (unlikely(sroce_pacer_on(qp)) && !sroce_dcqcn_may_send(qp))
			return;
		err = sroce_req_send_one(qp);
		if (err == -EAGAIN)
			return;		/* kicked again once the page is there */
		if (err) {
			sroce_req_send_failed(qp, err);
			return;
		}
	}
	sroce_qp_yield(qp);	/* more to send: come back in another round */
}

/**
 * sroce_req_flush() - complete the SQ's entries with WR_FLUSH_ERR
 * @qp: the QP, in ERR
 *
 * The send side of the scheduler's flush (sroce_sched_flush(); the receive
 * side is sroce_responder_flush()). Also flushes entries posted after the
 * QP entered ERR whenever the worker runs (doorbell, or a post_recv
 * doorbell for the RQ).
 */
void sroce_req_flush(struct sroce_qp *qp)
{
	struct sroce_req *req = &qp->req;
	u32 prod;

	lockdep_assert_held(&qp->lock);

	timer_delete(&qp->retrans_timer);
	prod = smp_load_acquire(&qp->sq->hdr->producer);
	if (prod - req->comp_idx <= qp->sq_entries) {
		while (req->comp_idx != prod) {
			u32 idx = req->comp_idx;

			if (idx == req->fetched) {
				sroce_fetch_wqe(qp, idx);
				req->fetched++;
			}
			sroce_queue_consumed(qp->sq, 1);
			sroce_req_complete(qp, idx, IB_WC_WR_FLUSH_ERR);
			req->comp_idx++;
		}
		req->send_idx = req->comp_idx;
		req->started = req->comp_idx;
		req->send_off = 0;
	}
	/* in ERR every post must reach us to be flushed: doorbell wanted */
	WRITE_ONCE(qp->sq->hdr->flags, SROCE_RING_F_NEED_WAKEUP);
}
