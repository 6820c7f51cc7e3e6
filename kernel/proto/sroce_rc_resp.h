/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the RC responder's classification of a request
 * packet by its PSN and opcode (IBTA 9.7, "Reliable service", responder
 * side; 9.8.3, opcode sequence), without skbs or queues, so the host unit
 * tests check the same code the module runs (responder.c;
 * Documentation/transport.rst, "Decision tables").
 */
#ifndef SROCE_RC_RESP_H
#define SROCE_RC_RESP_H

#include "sroce_types.h"
#include "sroce_psn.h"
#include "sroce_opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum sroce_rc_req - what a request packet is to the responder
 * @SROCE_RC_REQ_NEW: the expected PSN, in opcode sequence: execute it
 * @SROCE_RC_REQ_BAD_SEQ: the expected PSN out of opcode sequence (a MIDDLE
 *	outside a message, a FIRST inside one): NAK invalid request
 * @SROCE_RC_REQ_GAP_NAK: ahead of the expected PSN, the first packet of
 *	this gap: NAK PSN sequence error
 * @SROCE_RC_REQ_GAP: ahead, the gap already NAK'd: drop, wait for the
 *	resend
 * @SROCE_RC_REQ_DUP_READ: a duplicate RDMA READ: answer it again
 * @SROCE_RC_REQ_DUP_ATOMIC: a duplicate atomic: replay its saved result
 * @SROCE_RC_REQ_DUP_ATOMIC_WRITE: a duplicate ATOMIC WRITE: replay
 * @SROCE_RC_REQ_DUP_FLUSH: a duplicate FLUSH: replay
 * @SROCE_RC_REQ_DUP_ACK: a duplicate SEND or WRITE: ACK again
 */
enum sroce_rc_req {
	SROCE_RC_REQ_NEW,
	SROCE_RC_REQ_BAD_SEQ,
	SROCE_RC_REQ_GAP_NAK,
	SROCE_RC_REQ_GAP,
	SROCE_RC_REQ_DUP_READ,
	SROCE_RC_REQ_DUP_ATOMIC,
	SROCE_RC_REQ_DUP_ATOMIC_WRITE,
	SROCE_RC_REQ_DUP_FLUSH,
	SROCE_RC_REQ_DUP_ACK,
};

/**
 * struct sroce_rc_recv - the responder's state the classification reads
 * @epsn: the expected PSN
 * @nak_sent: a PSN sequence NAK was sent for the current gap
 * @in_send: inside a multi-packet SEND
 * @in_write: inside a multi-packet RDMA WRITE
 */
struct sroce_rc_recv {
	u32 epsn;
	bool nak_sent;
	bool in_send;
	bool in_write;
};

/**
 * sroce_rc_resp_class() - classify a request packet
 * @r: the responder's state
 * @psn: the packet's PSN
 * @flags: its opcode's flags (SROCE_OPF_*)
 *
 * The expected PSN executes, if its opcode may follow what came before
 * (sroce_opcode_follows()). A PSN ahead is out of sequence: the first
 * packet of a gap draws a PSN sequence error NAK, the others are dropped
 * until the resend arrives. A PSN behind is a duplicate: READs and atomics
 * are answered again (their responses may be what was lost), SENDs and
 * WRITEs only acknowledged again, never executed twice. PSNs compare in
 * 24-bit arithmetic (sroce_psn_diff()).
 *
 * Return: the class.
 */
static inline enum sroce_rc_req sroce_rc_resp_class(const struct sroce_rc_recv *r, u32 psn,
						    u32 flags)
{
	int d = sroce_psn_diff(psn, r->epsn);

	if (d > 0)
		return r->nak_sent ? SROCE_RC_REQ_GAP : SROCE_RC_REQ_GAP_NAK;
	if (d < 0) {
		if (flags & SROCE_OPF_READ)
			return SROCE_RC_REQ_DUP_READ;
		if (flags & SROCE_OPF_ATOMIC)
			return SROCE_RC_REQ_DUP_ATOMIC;
		if (flags & SROCE_OPF_ATOMIC_WRITE)
			return SROCE_RC_REQ_DUP_ATOMIC_WRITE;
		if (flags & SROCE_OPF_FLUSH)
			return SROCE_RC_REQ_DUP_FLUSH;
		return SROCE_RC_REQ_DUP_ACK;
	}
	if (!sroce_opcode_follows(r->in_send, r->in_write, flags))
		return SROCE_RC_REQ_BAD_SEQ;
	return SROCE_RC_REQ_NEW;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_RC_RESP_H */
