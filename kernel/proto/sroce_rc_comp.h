/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the RC completer's decisions (IBTA 9.7, "Reliable
 * service", requester side; 9.9, error handling), without skbs, SQ entries
 * or timers, so the host unit tests check the same code the module runs
 * (completer.c; Documentation/transport.rst, "Decision tables").
 *
 * An arriving Acknowledge packet is handled in two steps:
 *   1. sroce_rc_ack_kind(): what it is and up to which PSN it
 *      acknowledges (an ACK through its PSN, every NAK through the PSN
 *      before it); an ACK for a PSN never sent is dropped whole;
 *   2. completer.c retires the SQ entries that PSN covers (a READ still
 *      missing responses stops the walk), and progress resets the retry
 *      budgets; then sroce_rc_nak() decides what a NAK does to the QP,
 *      from its state after that walk: nothing (stale, or during an RNR
 *      wait), go back and spend a retry, wait out an RNR and spend an RNR
 *      retry, or fail the oldest entry with a completion status.
 * The local ACK timeout is sroce_rc_timeout(), a READ response's place in
 * its READ sroce_rc_read_resp().
 */
#ifndef SROCE_RC_COMP_H
#define SROCE_RC_COMP_H

#include "sroce_types.h"
#include "sroce_psn.h"
#include "sroce_wire.h"
#include "sroce_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rnr_retry 7: an RNR NAK is retried for ever (IBTA, QP attributes) */
#define SROCE_RC_RNR_INFINITE	7u

/**
 * enum sroce_rc_ack - what an arriving Acknowledge packet is
 * @SROCE_RC_ACK_DROP: bogus (a PSN never sent) or a reserved syndrome:
 *	changes nothing
 * @SROCE_RC_ACK_ACK: acknowledges every request through its PSN
 * @SROCE_RC_ACK_RNR: RNR NAK; acknowledges every request before its PSN
 * @SROCE_RC_ACK_SEQ: PSN sequence error NAK; likewise
 * @SROCE_RC_ACK_FATAL: any other NAK; likewise, and the request failed
 */
enum sroce_rc_ack {
	SROCE_RC_ACK_DROP,
	SROCE_RC_ACK_ACK,
	SROCE_RC_ACK_RNR,
	SROCE_RC_ACK_SEQ,
	SROCE_RC_ACK_FATAL,
};

/**
 * enum sroce_rc_act - what the QP does after the implicit acknowledgment
 * @SROCE_RC_ACT_NONE: nothing more
 * @SROCE_RC_ACT_GO_BACK: resend from the oldest unacknowledged PSN, one
 *	retry spent
 * @SROCE_RC_ACT_RNR_WAIT: wait the RNR timer, then resend from the oldest
 *	unacknowledged PSN
 * @SROCE_RC_ACT_FAIL: the oldest entry completes with an error status and
 *	the QP goes to the error state
 */
enum sroce_rc_act {
	SROCE_RC_ACT_NONE,
	SROCE_RC_ACT_GO_BACK,
	SROCE_RC_ACT_RNR_WAIT,
	SROCE_RC_ACT_FAIL,
};

/**
 * enum sroce_rc_status - the error completion of a failed request (the
 *	module maps it to its ib_wc_status of the same name)
 * @SROCE_RC_ST_NONE: no error
 * @SROCE_RC_ST_RETRY_EXC: transport retry counter exceeded
 * @SROCE_RC_ST_RNR_RETRY_EXC: RNR retry counter exceeded
 * @SROCE_RC_ST_REM_INV_REQ: remote invalid request (NAK code 1)
 * @SROCE_RC_ST_REM_ACCESS: remote access error (NAK code 2)
 * @SROCE_RC_ST_REM_OP: remote operational error (NAK code 3)
 * @SROCE_RC_ST_REM_INV_RD_REQ: remote invalid RD request (NAK code 4)
 * @SROCE_RC_ST_BAD_RESP: a response of the wrong kind or length
 */
enum sroce_rc_status {
	SROCE_RC_ST_NONE,
	SROCE_RC_ST_RETRY_EXC,
	SROCE_RC_ST_RNR_RETRY_EXC,
	SROCE_RC_ST_REM_INV_REQ,
	SROCE_RC_ST_REM_ACCESS,
	SROCE_RC_ST_REM_OP,
	SROCE_RC_ST_REM_INV_RD_REQ,
	SROCE_RC_ST_BAD_RESP,
};

/**
 * struct sroce_rc_send - the requester's state the decisions read
 * @heard_psn: past the newest PSN the responder answered (an ACK, a NAK's
 *	implied ACK, a READ response): the oldest unacknowledged PSN, or
 *	later where a READ missing responses holds that back
 * @una_psn: the oldest unacknowledged PSN
 * @hi_psn: one past the highest PSN ever sent
 * @rnr_wait: waiting out an RNR NAK
 * @retry_left: transport retries left (retry_cnt after progress)
 * @rnr_left: RNR retries left (rnr_retry after progress; 7: for ever)
 */
struct sroce_rc_send {
	u32 heard_psn;
	u32 una_psn;
	u32 hi_psn;
	bool rnr_wait;
	u32 retry_left;
	u32 rnr_left;
};

/**
 * struct sroce_rc_step - the outcome of a decision
 * @status: for SROCE_RC_ACT_FAIL, the completion status
 * @retry_left: the transport retries left afterwards
 * @rnr_left: the RNR retries left afterwards
 * @rnr_usecs: for SROCE_RC_ACT_RNR_WAIT, the wait the NAK asks for
 */
struct sroce_rc_step {
	enum sroce_rc_status status;
	u32 retry_left;
	u32 rnr_left;
	u32 rnr_usecs;
};

/**
 * sroce_rc_ack_kind() - classify an Acknowledge packet
 * @syn: its AETH syndrome
 * @psn: its PSN
 * @hi_psn: one past the highest PSN the requester ever sent
 * @upto: set to the last PSN it acknowledges (unless dropped)
 *
 * An ACK for a PSN never sent is bogus. One past the next PSN to send is
 * not: after a go-back the responder may hold more than was resent yet
 * (and with a small loss window the resend waits for this ACK).
 * A NAK acknowledges every request before its PSN (IBTA 9.7.5.2.1, the
 * AETH; NAKs imply the acknowledgment of the requests before them).
 *
 * Return: what the packet is.
 */
static inline enum sroce_rc_ack sroce_rc_ack_kind(u8 syn, u32 psn, u32 hi_psn, u32 *upto)
{
	if (sroce_psn_diff(psn, hi_psn) >= 0)
		return SROCE_RC_ACK_DROP;
	*upto = sroce_psn_add(psn, SROCE_PSN_MASK);	/* psn - 1 */
	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
		*upto = psn;
		return SROCE_RC_ACK_ACK;
	case SROCE_AETH_RNR_NAK:
		return SROCE_RC_ACK_RNR;
	case SROCE_AETH_NAK:
		if (sroce_aeth_syn_value(syn) == SROCE_NAK_PSN_SEQ_ERR)
			return SROCE_RC_ACK_SEQ;
		return SROCE_RC_ACK_FATAL;
	default:
		return SROCE_RC_ACK_DROP;
	}
}

/**
 * sroce_rc_nak_status() - the completion status of a fatal NAK code
 * @code: the NAK code of the syndrome (1..4; the wire parser refuses the
 *	reserved codes, which would count as an invalid RD request)
 *
 * Return: the status the failed request completes with.
 */
static inline enum sroce_rc_status sroce_rc_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		return SROCE_RC_ST_REM_INV_REQ;
	case SROCE_NAK_REM_ACCESS:
		return SROCE_RC_ST_REM_ACCESS;
	case SROCE_NAK_REM_OP:
		return SROCE_RC_ST_REM_OP;
	default:
		return SROCE_RC_ST_REM_INV_RD_REQ;
	}
}

/*
 * Spend one of @left retries: false when none is left (the caller fails
 * with the exceeded status). @infinite: a budget that is never spent.
 */
static inline bool sroce_rc_spend(u32 *left, bool infinite)
{
	if (!*left)
		return false;
	if (!infinite)
		(*left)--;
	return true;
}

/**
 * sroce_rc_nak() - what a NAK does once its implicit ACK is applied
 * @s: the requester's state after that acknowledgment
 * @kind: sroce_rc_ack_kind() of the NAK (an ACK does nothing more)
 * @syn: its AETH syndrome
 * @psn: its PSN
 * @out: the outcome: budgets left, status, RNR wait
 *
 * A sequence or RNR NAK for a PSN before the newest answer had is stale (a
 * duplicate, one the resend already answered, or one overtaken on the wire
 * by a later answer while a READ holds the oldest unacknowledged PSN back)
 * and does nothing; so does one during an RNR wait (the resend after it is
 * due anyway). A fatal NAK is stale only before the oldest unacknowledged
 * PSN: one at or past it refuses a request still waiting for its answer,
 * such as a READ's repair that a later READ's responses overtook. A sequence
 * NAK goes back, spending a transport retry, so a peer that NAKs for ever
 * ends in RETRY_EXC; an RNR NAK waits the time its syndrome encodes,
 * spending an RNR retry unless rnr_retry is 7, and ends in RNR_RETRY_EXC
 * with none left; the other NAK codes fail the request (IBTA 9.9,
 * requester side error behaviour).
 *
 * Return: the action.
 */
static inline enum sroce_rc_act sroce_rc_nak(const struct sroce_rc_send *s,
					     enum sroce_rc_ack kind, u8 syn, u32 psn,
					     struct sroce_rc_step *out)
{
	bool stale = sroce_psn_diff(psn, s->heard_psn) < 0;
	bool settled = sroce_psn_diff(psn, s->una_psn) < 0;

	out->status = SROCE_RC_ST_NONE;
	out->retry_left = s->retry_left;
	out->rnr_left = s->rnr_left;
	out->rnr_usecs = 0;
	switch (kind) {
	case SROCE_RC_ACK_SEQ:
		if (s->rnr_wait || stale)
			return SROCE_RC_ACT_NONE;
		if (!sroce_rc_spend(&out->retry_left, false))
			break;
		return SROCE_RC_ACT_GO_BACK;
	case SROCE_RC_ACK_RNR:
		if (s->rnr_wait || stale)
			return SROCE_RC_ACT_NONE;
		if (!sroce_rc_spend(&out->rnr_left, s->rnr_left == SROCE_RC_RNR_INFINITE)) {
			out->status = SROCE_RC_ST_RNR_RETRY_EXC;
			return SROCE_RC_ACT_FAIL;
		}
		out->rnr_usecs = sroce_rnr_timer_usecs(sroce_aeth_syn_value(syn));
		return SROCE_RC_ACT_RNR_WAIT;
	case SROCE_RC_ACK_FATAL:
		if (settled)
			return SROCE_RC_ACT_NONE;
		out->status = sroce_rc_nak_status(sroce_aeth_syn_value(syn));
		return SROCE_RC_ACT_FAIL;
	default:
		return SROCE_RC_ACT_NONE;
	}
	out->status = SROCE_RC_ST_RETRY_EXC;
	return SROCE_RC_ACT_FAIL;
}

/**
 * sroce_rc_timeout() - the local ACK timer expired past its deadline
 * @s: the requester's state (something is unacknowledged)
 * @out: the outcome: retries left, status
 *
 * Nothing happens during an RNR wait (the RNR timer resends). Otherwise
 * everything unacknowledged goes again, spending a transport retry, and
 * the request fails with RETRY_EXC when none is left (IBTA 9.7, "Local
 * ACK timeout").
 *
 * Return: SROCE_RC_ACT_NONE, SROCE_RC_ACT_GO_BACK or SROCE_RC_ACT_FAIL.
 */
static inline enum sroce_rc_act sroce_rc_timeout(const struct sroce_rc_send *s,
						 struct sroce_rc_step *out)
{
	out->status = SROCE_RC_ST_NONE;
	out->retry_left = s->retry_left;
	out->rnr_left = s->rnr_left;
	out->rnr_usecs = 0;
	if (s->rnr_wait)
		return SROCE_RC_ACT_NONE;
	if (sroce_rc_spend(&out->retry_left, false))
		return SROCE_RC_ACT_GO_BACK;
	out->status = SROCE_RC_ST_RETRY_EXC;
	return SROCE_RC_ACT_FAIL;
}

/**
 * enum sroce_rc_rresp - what a READ response is to the READ it belongs to
 * @SROCE_RC_RRESP_DUP: before the next response expected: a duplicate
 *	(the answer to a resend already had), dropped
 * @SROCE_RC_RRESP_GAP: after it: responses were lost, ask for them again
 * @SROCE_RC_RRESP_BAD: the expected PSN with the wrong opcode or length:
 *	the READ fails with BAD_RESP
 * @SROCE_RC_RRESP_PLACE: place its payload; the READ goes on
 * @SROCE_RC_RRESP_LAST: place its payload; the READ is complete
 */
enum sroce_rc_rresp {
	SROCE_RC_RRESP_DUP,
	SROCE_RC_RRESP_GAP,
	SROCE_RC_RRESP_BAD,
	SROCE_RC_RRESP_PLACE,
	SROCE_RC_RRESP_LAST,
};

/**
 * struct sroce_rc_read - a READ (or a FLUSH, ATOMIC WRITE) being answered
 * @first_psn: the PSN of its request, that of its first response
 * @length: bytes asked for
 * @done: bytes received so far, in order
 * @mtu: the payload of every response but the last: the path MTU, or the
 *	wide segment the READ asked for (SROCE_BTH7_WIDE_RD)
 * @empty: answered by one READ Response Only without data
 * @repairs: the requester may have sent READ repairs (selective READ),
 *	whose responses end (LAST, ONLY) where the lost ones did
 */
struct sroce_rc_read {
	u32 first_psn;
	u32 length;
	u32 done;
	u32 mtu;
	bool empty;
	bool repairs;
};

/**
 * sroce_rc_read_resp() - check a READ response against its READ
 * @r: the READ
 * @psn: the response's PSN
 * @op: its opcode's flags (SROCE_OPF_*)
 * @len: its payload length
 *
 * Responses come in PSN order, one per MTU of data: every one but the
 * last carries exactly an MTU, and the last ends the data exactly (IBTA
 * 9.7, requester: validating READ responses). With @r->repairs, a LAST or
 * ONLY of a full MTU before the end is a repair's (a selective READ
 * episode ended by a go-back meanwhile): placed, not the end.
 *
 * Return: the verdict.
 */
static inline enum sroce_rc_rresp sroce_rc_read_resp(const struct sroce_rc_read *r, u32 psn,
						     u32 op, u32 len)
{
	u32 expect = sroce_psn_add(r->first_psn, r->done / r->mtu);
	bool end = op & (SROCE_OPF_LAST | SROCE_OPF_ONLY);

	if (psn != expect)
		return sroce_psn_diff(psn, expect) > 0 ? SROCE_RC_RRESP_GAP : SROCE_RC_RRESP_DUP;
	if (r->empty)
		return (op & SROCE_OPF_ONLY) && !len ? SROCE_RC_RRESP_LAST : SROCE_RC_RRESP_BAD;
	if ((op & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) && len != r->mtu)
		return SROCE_RC_RRESP_BAD;
	if (len > r->length - r->done)
		return SROCE_RC_RRESP_BAD;
	if (end && r->done + len != r->length)
		return r->repairs && len == r->mtu ? SROCE_RC_RRESP_PLACE : SROCE_RC_RRESP_BAD;
	return end ? SROCE_RC_RRESP_LAST : SROCE_RC_RRESP_PLACE;
}

/**
 * sroce_rc_read_resp_at() - check a READ response placed by its PSN
 * @r: the READ (@r->done is not used)
 * @psn: the response's PSN
 * @len: its payload length
 * @off: set to the byte offset of its payload in the READ's data
 *
 * Selective READ takes responses in any order, and a repair's responses
 * begin and end where the lost ones did (FIRST and LAST anywhere in the
 * READ), so a response is checked by where its PSN puts it: every one but
 * the READ's last carries exactly a path MTU, the last what remains.
 *
 * Return: SROCE_RC_RRESP_PLACE, or SROCE_RC_RRESP_BAD (an empty answer,
 * a PSN outside the READ, a length its place does not allow).
 */
static inline enum sroce_rc_rresp sroce_rc_read_resp_at(const struct sroce_rc_read *r,
							u32 psn, u32 len, u32 *off)
{
	int at = sroce_psn_diff(psn, r->first_psn);
	u32 npkts, want;

	if (r->empty || !r->length || !r->mtu || at < 0)
		return SROCE_RC_RRESP_BAD;
	npkts = (r->length + r->mtu - 1) / r->mtu;
	if ((u32)at >= npkts)
		return SROCE_RC_RRESP_BAD;
	*off = (u32)at * r->mtu;
	want = (u32)at + 1 < npkts ? r->mtu : r->length - *off;
	return len == want ? SROCE_RC_RRESP_PLACE : SROCE_RC_RRESP_BAD;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_RC_COMP_H */
