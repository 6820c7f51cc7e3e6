/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the RC requester's resend decisions (IBTA 9.7,
 * "Reliable service", requester side), without SQ entries or skbs, so the
 * host unit tests check the same code the module runs (requester.c;
 * Documentation/transport.rst, "Decision tables"):
 *   - sroce_rc_restart(): where a go-back restarts inside the entry that
 *     holds the PSN to resend from;
 *   - sroce_rc_sack_skip(): whether a resend after a NAK with a SACK block
 *     skips a PSN the responder holds (selective repeat, sroce_sr.h).
 */
#ifndef SROCE_RC_REQ_H
#define SROCE_RC_REQ_H

#include "sroce_types.h"
#include "sroce_psn.h"
#include "sroce_sr.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct sroce_rc_entry - the SQ entry a go-back restarts in
 * @first_psn: the PSN of its first request packet
 * @response: a READ or an atomic (its responses carry the data back)
 * @resp_done: for @response, the bytes of its responses received in order
 */
struct sroce_rc_entry {
	u32 first_psn;
	bool response;
	u32 resp_done;
};

/**
 * sroce_rc_restart() - where a go-back restarts in entry @e
 * @e: the entry holding the PSN to resend from (or the next one started)
 * @psn: the PSN to resend from (never before the oldest unacknowledged)
 * @mtu: the path MTU
 * @off: set to the byte offset in the message the resend starts at
 *
 * A SEND or WRITE resends from @psn (from its first packet if @psn lies
 * before it); a READ asks again only for the bytes not received yet: one
 * READ request from the first response missing (IBTA 9.7, "RDMA READ
 * retry": a resent READ may start at any response's PSN).
 *
 * Return: the PSN the resend starts with.
 */
static inline u32 sroce_rc_restart(const struct sroce_rc_entry *e, u32 psn, u32 mtu, u32 *off)
{
	if (sroce_psn_diff(psn, e->first_psn) < 0)
		psn = e->first_psn;
	if (e->response) {
		*off = e->resp_done;
		return sroce_psn_add(e->first_psn, e->resp_done / mtu);
	}
	*off = (u32)sroce_psn_diff(psn, e->first_psn) * mtu;
	return psn;
}

/**
 * struct sroce_rc_sacked - the SACK a resend may skip by
 * @psn: the PSN the NAK carrying it named (the gap)
 * @span: sroce_sack_span() of @map
 * @end: one past the highest PSN sent when the NAK came
 * @map: the PSNs after @psn the responder holds
 */
struct sroce_rc_sacked {
	u32 psn;
	u32 span;
	u32 end;
	struct sroce_sack map;
};

/**
 * sroce_rc_sack_skip() - may the resend skip the SEND/WRITE packet @psn?
 * @s: the last SACK
 * @psn: the packet's PSN
 *
 * The holes up to the last PSN the SACK names are resent; a held PSN is
 * not, and neither is one past the last held that was sent before the
 * NAK: it is still on its way, or lost, and then the responder NAKs it in
 * its turn (or the timer expires). The gap PSN itself always goes again.
 *
 * Return: true to skip it.
 */
static inline bool sroce_rc_sack_skip(const struct sroce_rc_sacked *s, u32 psn)
{
	int d = sroce_psn_diff(psn, s->psn);

	if (d <= 0)
		return false;
	if ((u32)d > s->span)
		return sroce_psn_diff(psn, s->end) < 0;
	return sroce_sack_test(&s->map, (u32)d);
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_RC_REQ_H */
