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
 * @seg: the entry's payload per packet but its last: the path MTU (a READ's
 *	responses always), or a SEND's or WRITE's wide segment
 * @off: set to the byte offset in the message the resend starts at
 *
 * A SEND or WRITE resends from @psn (from its first packet if @psn lies
 * before it); a READ asks again only for the bytes not received yet: one
 * READ request from the first response missing (IBTA 9.7, "RDMA READ
 * retry": a resent READ may start at any response's PSN).
 *
 * Return: the PSN the resend starts with.
 */
static inline u32 sroce_rc_restart(const struct sroce_rc_entry *e, u32 psn, u32 seg, u32 *off)
{
	if (sroce_psn_diff(psn, e->first_psn) < 0)
		psn = e->first_psn;
	if (e->response) {
		*off = e->resp_done;
		return sroce_psn_add(e->first_psn, e->resp_done / seg);
	}
	*off = (u32)sroce_psn_diff(psn, e->first_psn) * seg;
	return psn;
}

/**
 * struct sroce_rc_sacked - the SACK a resend may skip by
 * @psn: the PSN the NAK carrying it named (the gap)
 * @span: sroce_sack_span() of @map
 * @end: one past the highest PSN sent when the NAK came
 * @held: how many PSNs @map names (sroce_sack_count())
 * @map: the PSNs after @psn the responder holds (the NAK's, or a later
 *	update's: SROCE_SACK_KIND_UPDATE)
 */
struct sroce_rc_sacked {
	u32 psn;
	u32 span;
	u32 end;
	u32 held;
	struct sroce_sack map;
};

/**
 * sroce_rc_sacked_set() - take @map as what the responder holds after s->psn
 * @s: the SACK kept
 * @map: a checked block (sroce_sack_get())
 *
 * Sets the map and what is derived from it, together.
 */
static inline void sroce_rc_sacked_set(struct sroce_rc_sacked *s, const struct sroce_sack *map)
{
	s->map = *map;
	s->span = sroce_sack_span(map);
	s->held = sroce_sack_count(map);
}

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

/**
 * sroce_rc_sack_window() - may request PSN @psn go, a SACK's hole open?
 * @s: the last SACK
 * @psn: the next request PSN
 * @una: the oldest unacknowledged PSN
 * @cwnd: the loss window (PSNs)
 * @room: the PSNs the responder has room to hold: what it held when it
 *	last said it had no room for more (SROCE_SACK_KIND_UPDATE), grown by
 *	an eighth for each gap since that it had room enough for; 0 if it
 *	never said so
 *
 * The window counts PSNs from @una: after a loss, what was sent behind the
 * hole fills it until the hole's resend is acknowledged, and the requester
 * stood still for that round trip (a loss every 100 packets cost 0.4 of
 * the goodput). What the responder holds past the hole has left the path
 * as surely as an acknowledged packet, so while @una is still the hole @s
 * names, it leaves the count (RFC 6675's "pipe"), as far as the responder
 * can hold past the hole (126 PSNs, one short of its last slot, or
 * @room): the packets sent behind the hole before the NAK came, which are
 * held or about to be (or the PSNs its SACK names, if more). Without the
 * bound of its room a responder short of it was flooded
 * (93-selective-repeat's 64 KiB backlog: 65 % of the packets resent
 * instead of 28 %); waiting for the responder to report each held packet
 * instead (a SACK update per AckReq) came a round trip late and gained
 * nothing (performance-log.rst, *Across machines: the window while a hole
 * is filled*).
 *
 * Return: true if @psn may be sent beyond what sroce_cwnd_open() allows.
 */
static inline bool sroce_rc_sack_window(const struct sroce_rc_sacked *s, u32 psn, u32 una,
					u32 cwnd, u32 room)
{
	int span = sroce_psn_diff(psn, una);
	int sent = sroce_psn_diff(s->end, s->psn) - 1;
	int held = (int)s->held;

	if (s->psn != una || span < 0 || span >= (int)SROCE_SR_WINDOW - 1 ||
	    (room && span >= (int)room))
		return false;
	if (sent > held)
		held = sent;
	return span - held < (int)cwnd;
}

/**
 * sroce_rc_sr_reach() - may a SEND or WRITE packet @psn go to a selective
 *	repeat peer now?
 * @psn: its PSN
 * @una: the oldest unacknowledged PSN
 *
 * The responder holds a packet that comes early by at most
 * SROCE_SR_WINDOW - 1 PSNs (sroce_sr_offset()). Sent further ahead of the
 * oldest unacknowledged PSN, it is dropped whenever that one was lost,
 * and goes again after the hole is filled: on a clean wire between two
 * VMs, where the receiving host's buffers drop a packet now and then,
 * that was most of what was resent (performance-log.rst, *Across
 * machines: as far as the responder holds*). One short of the last slot,
 * as sroce_rc_sack_window() counts. READ and atomic requests are not held
 * and not bounded here.
 *
 * Return: true if @psn is near enough to @una.
 */
static inline bool sroce_rc_sr_reach(u32 psn, u32 una)
{
	return sroce_psn_diff(psn, una) < (int)SROCE_SR_WINDOW - 1;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_RC_REQ_H */
