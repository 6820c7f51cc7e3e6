/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the requester's window and round-trip estimate
 * (Documentation/transport.rst, "Loss window").
 *
 * An RC requester may have at most cwnd PSNs unacknowledged. A new QP
 * starts at SROCE_CWND_INIT_BYTES and, without loss, doubles per window up
 * to SROCE_CWND_MAX_BYTES. The window counts PSNs but its bounds are bytes,
 * divided by the size of the packets the requester sends (its unit,
 * sroce_cwnd_pkt()): what a path's buffers hold is bytes, and at a
 * 4096-byte MTU a 1024-PSN window is 4 MiB in flight, 64 packets of queue
 * 256 KiB, more than a host's UDP socket buffer (212 992 bytes by default)
 * behind a hypervisor's backend holds before the queue could be seen; yet
 * 64-byte messages must not be held to 256 PSNs because the MTU is large.
 * What shrinks it depends on whether the loss came with a queue on the
 * path:
 *   - the round trip is measured on one AckReq packet at a time (never on
 *     a resend: Karn); from the smoothed and the smallest RTT, the window
 *     tells how many of its packets wait in a queue (a NIC ring, a switch
 *     port, a hypervisor's socket) that is about to overflow;
 *   - a loss with such a queue is congestion: the window and its
 *     threshold drop to what the path holds without the queue (never
 *     below half); above the threshold the window grows by one PSN per
 *     window acknowledged (additive increase), and not at all while the
 *     queue persists;
 *   - so is a loss less than a window after an episode that resent more
 *     than a sixteenth of its window: a buffer too shallow for the RTT to
 *     show a queue (a receive backlog of 16) overflows on every burst and
 *     loses much of it, again and again; random loss of 1 % comes about
 *     once per window too, but costs one PSN here and there;
 *   - a rare loss without a queue is random (a lossy link, a fault
 *     matrix): the window loses an eighth, the threshold keeps the window
 *     it had, and slow start (one PSN per PSN acknowledged) brings it back;
 *   - slow start ends early when the queue appears (the window stops
 *     where the path's buffers start to fill, before they overflow);
 *   - one cut per window: losses of PSNs sent before the last cut are
 *     the same episode;
 *   - a timeout (nothing came back) restarts the window at SROCE_CWND_MIN,
 *     the threshold set as for a loss;
 *   - a resend of a timer (the timeout, the RTO) that turns out spurious
 *     is undone: an ACK that comes back sooner after it than the smallest
 *     RTT answers a packet sent before it (RACK's rule), so nothing was
 *     lost, only late (a host that stalled), and the window and threshold
 *     return to what they were before that resend cut them.
 * Between loss episodes the measured RTT gives the requester a resend
 * timer much shorter than the QP's timeout attribute
 * (sroce_cwnd_rto_us()): a lost tail costs a few RTTs, not the IBTA
 * timeout, which stays the bound for declaring the peer gone. Its floor
 * follows the host: a resend of the RTO that the next response shows
 * needless (it came sooner than the smallest RTT after the resend, or it
 * continues a READ response stream the resend would have restarted), or
 * that a second answer at the PSN it resent from shows needless, doubles
 * the floor, up to SROCE_CWND_RTO_FLOOR_MAX_US, and one that was
 * needed lowers it by an eighth, down to SROCE_CWND_RTO_MIN_US
 * (sroce_cwnd_rto_judge()). A guest whose vCPUs stall for tens of
 * milliseconds (a debug kernel on a busy host) stops resending whole
 * windows of READs the responder is still answering; a fast one keeps
 * the short timer its lost tails need.
 *
 * A smaller window asks for ACKs more often (every cwnd / 2 PSNs, a
 * power of two, and whenever no asked-for ACK is on its way): when the
 * last packets of a full window are lost, the ACKs of those before them
 * let the next ones go, and those draw the NAK. Not more often than
 * that: each ACK is a packet for both hosts and a doorbell for one
 * (across two loaded VMs, cwnd / 16 made 0.3-0.6 ACKs per request
 * packet; cwnd / 4 0.065, and halving that moved 64 KiB WRITE and SEND
 * 7-9 % at MTU 1500).
 */
#ifndef SROCE_CWND_H
#define SROCE_CWND_H

#include "sroce_types.h"
#include "sroce_psn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SROCE_CWND_MAX		1024u	/* PSNs unacknowledged, at most */
#define SROCE_CWND_MIN		16u
/* bytes unacknowledged without loss: 1024 PSNs at the 1024-byte path MTU of a 1500-byte wire */
#define SROCE_CWND_MAX_BYTES	(1024u * 1024u)
#define SROCE_CWND_ACK_MAX	64u	/* AckReq at least every this many PSNs */
#define SROCE_CWND_ACK_DIV	2u	/* and every cwnd / this */
/*
 * A queue: this many bytes of the window's packets wait somewhere on the path
 * (Vegas' estimate, cwnd x (srtt - min RTT) / srtt). A round trip that
 * is long while the window is small is the peer's scheduling, not a
 * queue of ours, and holds nothing back.
 */
#define SROCE_CWND_QUEUE_BYTES	(64u * 1024u)
#define SROCE_CWND_QUEUE_MIN	4u	/* packets, whatever the MTU */
#define SROCE_CWND_INIT_BYTES	(128u * 1024u)	/* a new QP's window, in slow start */
/* the smallest unit of the byte bounds (smaller packets: the PSN bounds of a 1024-byte MTU) */
#define SROCE_CWND_UNIT_MIN	1024u
#define SROCE_CWND_MIN_WIN	256u	/* RTT samples per window of the minimum */
#define SROCE_CWND_RTO_MIN_US	2000u	/* the shortest resend timer */
#define SROCE_CWND_RTO_FLOOR_MAX_US	32000u	/* the floor learnt, at most */
#define SROCE_CWND_RTO_BACKOFF	6u	/* it doubles per resend, this many times */
/* an episode that resent more than 1/this of the PSNs it acknowledged is heavy */
#define SROCE_CWND_HEAVY_DIV	16u

/**
 * struct sroce_cwnd - a requester's window and round-trip estimate
 * @cwnd: PSNs that may be unacknowledged, SROCE_CWND_MIN..@max
 * @max: the largest window: SROCE_CWND_MAX_BYTES in packets of @unit,
 *	SROCE_CWND_MIN..SROCE_CWND_MAX
 * @queue_pkts: packets of ours waiting on the path that make a queue:
 *	SROCE_CWND_QUEUE_BYTES in packets of @unit
 * @mtu: the largest payload per PSN: the path MTU, or the wide segment
 *	when the QP may send them (0: none known, the largest PSN bounds)
 * @unit: bytes per PSN the bounds count: @avg_bytes rounded to a power
 *	of two from SROCE_CWND_UNIT_MIN (7168 counts 8192); the path MTU
 *	when that is smaller
 * @avg_bytes: the new packets' bytes per PSN, smoothed (1/8 gain; only
 *	kept when @mtu is above SROCE_CWND_UNIT_MIN)
 * @ssthresh: slow start below it, additive increase above
 * @ca_acked: PSNs acknowledged towards the next additive step
 * @ack_mask: AckReq when (PSN - oldest unacknowledged) & @ack_mask is 0
 * @recover: the first PSN never sent when the window was last cut
 * @recovering: losses before @recover are the last cut's episode
 * @clean: PSNs acknowledged since the last loss episode ended
 * @ep_acked: PSNs acknowledged during the current loss episode
 * @ep_resent: PSNs resent during it (sroce_cwnd_resent())
 * @light: the last episode resent at most 1/SROCE_CWND_HEAVY_DIV of what
 *	it acknowledged (its losses were few: random, not an overflow)
 * @timing: @t_psn is being timed
 * @t_psn: the AckReq packet being timed
 * @t_sent: when it was sent, ns
 * @srtt_us: smoothed RTT (1/8 gain), 0 before the first sample
 * @rttvar_us: its mean deviation (1/4 gain)
 * @min_rtt_us: the smallest RTT of this and the previous sample window
 * @min_next_us: the smallest RTT of the current sample window
 * @samples: samples in the current window (SROCE_CWND_MIN_WIN)
 * @rto_backoff: resends of the RTO in a row without progress
 * @rto_floor_us: the shortest RTO on this path, learnt (sroce_cwnd_rto_judge())
 * @rto_at: when the last RTO resend went, ns; 0: none waits to be judged
 * @rto_psn: the PSN it resent from
 * @rto_watch: a second answer at @rto_psn would show it needless
 *	(sroce_cwnd_rto_dup(), sroce_cwnd_rto_dup_ack())
 * @rto_floor_was: the floor before the last judgment
 * @ackreq_out: @ackreq_psn asked for an ACK that may still come
 * @ackreq_psn: the last PSN sent with AckReq
 * @undo_cwnd: the window before the last timer resend cut it; 0: no
 *	resend to undo (sroce_cwnd_timer_loss())
 * @undo_ssthresh: the threshold then
 * @undo_at: when that resend went, ns
 */
struct sroce_cwnd {
	u32 cwnd;
	u32 max;
	u32 queue_pkts;
	u32 mtu;
	u32 unit;
	u32 avg_bytes;
	u32 ssthresh;
	u32 ca_acked;
	u32 ack_mask;
	u32 recover;
	bool recovering;
	u32 clean;
	u32 ep_acked;
	u32 ep_resent;
	bool light;
	bool timing;
	u32 t_psn;
	u64 t_sent;
	u32 srtt_us;
	u32 rttvar_us;
	u32 min_rtt_us;
	u32 min_next_us;
	u32 samples;
	u32 rto_backoff;
	u32 rto_floor_us;
	u64 rto_at;
	u32 rto_psn;
	bool rto_watch;
	u32 rto_floor_was;
	bool ackreq_out;
	u32 ackreq_psn;
	u32 undo_cwnd;
	u32 undo_ssthresh;
	u64 undo_at;
};

static inline void sroce_cwnd_set_mask(struct sroce_cwnd *c)
{
	u32 every = c->cwnd / SROCE_CWND_ACK_DIV, i = 1;

	while (i * 2 <= every && i * 2 <= SROCE_CWND_ACK_MAX)
		i *= 2;
	c->ack_mask = i - 1;
}

static inline void sroce_cwnd_set(struct sroce_cwnd *c, u32 cwnd)
{
	if (cwnd < SROCE_CWND_MIN)
		cwnd = SROCE_CWND_MIN;
	if (cwnd > c->max)
		cwnd = c->max;
	c->cwnd = cwnd;
	sroce_cwnd_set_mask(c);
}

/* @bytes in packets of @mtu bytes, within @lo..@hi */
static inline u32 sroce_cwnd_pkts(u32 bytes, u32 mtu, u32 lo, u32 hi)
{
	u32 n = mtu ? bytes / mtu : hi;

	return n < lo ? lo : n > hi ? hi : n;
}

/* @avg bytes per PSN as a unit: the nearer power of two, SROCE_CWND_UNIT_MIN at least */
static inline u32 sroce_cwnd_unit(u32 avg)
{
	u32 unit = SROCE_CWND_UNIT_MIN;

	while (unit * 3 <= avg * 2)
		unit *= 2;
	return unit;
}

/*
 * The bounds for packets of @unit bytes (0: the PSN bounds alone). A
 * threshold at the old largest window (no loss yet) follows the new one.
 */
static inline void sroce_cwnd_bounds(struct sroce_cwnd *c, u32 unit)
{
	u32 max = sroce_cwnd_pkts(SROCE_CWND_MAX_BYTES, unit, SROCE_CWND_MIN, SROCE_CWND_MAX);

	if (c->ssthresh >= c->max || c->ssthresh > max)
		c->ssthresh = max;
	c->unit = unit;
	c->max = max;
	c->queue_pkts = sroce_cwnd_pkts(SROCE_CWND_QUEUE_BYTES, unit, SROCE_CWND_QUEUE_MIN,
					SROCE_CWND_MAX);
	if (c->cwnd > max)
		sroce_cwnd_set(c, max);
}

/**
 * sroce_cwnd_init() - a new QP: slow start towards the maximum, nothing measured
 * @c: the window
 * @mtu: the path MTU in bytes (the payload of a full packet)
 * @cap: the largest payload the QP may send: @mtu, or its wide segment
 *	(sroce_wide_seg()), which sroce_cwnd_pkt() counts once such packets
 *	go (7168 as 8192: the same bytes in flight in fewer packets)
 *
 * The bounds start in packets of @mtu (sroce_cwnd_pkt() moves them with
 * the packets' size): at 1024 bytes (a 1500-byte wire) 128 PSNs to start,
 * 1024 at most, a queue of 64; at 4096 bytes 32, 256 and 16; at 8192
 * (7168-byte wide segments) 16, 128 and 8; never more than SROCE_CWND_MAX
 * PSNs. @mtu 0: SROCE_CWND_MAX from the start and no queue ever.
 */
static inline void sroce_cwnd_init(struct sroce_cwnd *c, u32 mtu, u32 cap)
{
	memset(c, 0, sizeof(*c));
	c->mtu = cap > mtu ? cap : mtu;
	c->avg_bytes = mtu;
	c->rto_floor_us = SROCE_CWND_RTO_MIN_US;
	sroce_cwnd_bounds(c, mtu);
	sroce_cwnd_set(c, sroce_cwnd_pkts(SROCE_CWND_INIT_BYTES, mtu, SROCE_CWND_MIN, c->max));
}

/**
 * sroce_cwnd_pkt() - a new request packet leaves
 * @c: the window
 * @bytes: its payload, or for a READ request the bytes each of its
 *	response PSNs carries (at most the MTU)
 *
 * The unit of the bounds follows the packets' size, rounded to a power of
 * two (up from 1.5 times one): 64 KiB messages at a 4096-byte MTU count
 * 4096 bytes per PSN, 64-byte ones SROCE_CWND_UNIT_MIN. When no packet
 * may exceed SROCE_CWND_UNIT_MIN (a 1500-byte wire without wide
 * segments) the unit is the MTU whatever the packets, and so it is with
 * no MTU: nothing to do per packet.
 */
static inline void sroce_cwnd_pkt(struct sroce_cwnd *c, u32 bytes)
{
	u32 unit;

	if (c->mtu <= SROCE_CWND_UNIT_MIN)
		return;
	c->avg_bytes = c->avg_bytes - c->avg_bytes / 8 + bytes / 8;
	unit = sroce_cwnd_unit(c->avg_bytes < c->mtu ? c->avg_bytes : c->mtu);
	if (unit != c->unit)
		sroce_cwnd_bounds(c, unit);
}

/** sroce_cwnd_queueing() - do more than @queue_pkts of ours wait on the path? */
static inline bool sroce_cwnd_queueing(const struct sroce_cwnd *c)
{
	return c->srtt_us > c->min_rtt_us &&
	       (u64)c->cwnd * (c->srtt_us - c->min_rtt_us) >
	       (u64)c->queue_pkts * c->srtt_us;
}

/**
 * sroce_cwnd_sent() - a new packet asking for an ACK leaves
 * @c: the window
 * @psn: its PSN
 * @now: ns
 *
 * Times it unless another one is being timed.
 */
static inline void sroce_cwnd_sent(struct sroce_cwnd *c, u32 psn, u64 now)
{
	if (c->timing)
		return;
	c->timing = true;
	c->t_psn = psn;
	c->t_sent = now;
}

/**
 * sroce_cwnd_resend() - a go-back: the timed packet may go twice (Karn),
 *	and the resent packets ask for ACKs afresh
 * @c: the window
 */
static inline void sroce_cwnd_resend(struct sroce_cwnd *c)
{
	c->timing = false;
	c->ackreq_out = false;
}

/**
 * sroce_cwnd_resent() - @psns PSNs went again (a resend, a READ repair)
 * @c: the window
 * @psns: the PSNs the packet covers (a READ request: its responses')
 */
static inline void sroce_cwnd_resent(struct sroce_cwnd *c, u32 psns)
{
	u64 sum = (u64)c->ep_resent + psns;

	c->ep_resent = sum > 0xffffffffull ? 0xffffffffu : (u32)sum;
}

/** sroce_cwnd_covers() - does moving the oldest unacknowledged PSN to @una end the timing? */
static inline bool sroce_cwnd_covers(const struct sroce_cwnd *c, u32 una)
{
	return c->timing && sroce_psn_diff(una, c->t_psn) > 0;
}

/** sroce_cwnd_wants_now() - does sroce_cwnd_acked() of @una need the time? */
static inline bool sroce_cwnd_wants_now(const struct sroce_cwnd *c, u32 una)
{
	return sroce_cwnd_covers(c, una) || c->undo_cwnd || c->rto_at;
}

/**
 * sroce_cwnd_answers_before() - did progress at @now come sooner after a
 *	resend at @at (ns; 0: none) than the smallest RTT?
 * @c: the window
 * @at: when the resend went
 * @now: ns
 *
 * Return: true if so: it answers a packet sent before the resend, which
 * was needless (RACK's rule, RFC 8985).
 */
static inline bool sroce_cwnd_answers_before(const struct sroce_cwnd *c, u64 at, u64 now)
{
	return at && now > at && now - at < (u64)c->min_rtt_us * 1000;
}

/** sroce_cwnd_rto_early() - sroce_cwnd_answers_before() the last RTO resend */
static inline bool sroce_cwnd_rto_early(const struct sroce_cwnd *c, u64 now)
{
	return sroce_cwnd_answers_before(c, c->rto_at, now);
}

/**
 * sroce_cwnd_rto_judge() - the first progress after an RTO resend tells
 *	whether it was needed
 * @c: the window
 * @spurious: the progress answers a packet sent before the resend
 *
 * A needless resend doubles the RTO's floor (at most
 * SROCE_CWND_RTO_FLOOR_MAX_US): the host stalled for longer than it. A
 * needed one lowers it by an eighth (at least SROCE_CWND_RTO_MIN_US), so
 * a path that stopped stalling gets its short timer back within a few
 * real losses. Nothing to judge (no RTO resend since the last progress):
 * no change.
 *
 * A needed one stays open to a second answer at the PSN it resent from
 * (sroce_cwnd_rto_dup()).
 *
 * Return: true if a resend was judged needless.
 */
static inline bool sroce_cwnd_rto_judge(struct sroce_cwnd *c, bool spurious)
{
	u32 floor = c->rto_floor_us;

	if (!c->rto_at)
		return false;
	c->rto_at = 0;
	c->rto_watch = !spurious;
	c->rto_floor_was = floor;
	if (spurious)
		floor = floor < SROCE_CWND_RTO_FLOOR_MAX_US / 2 ? floor * 2 :
			SROCE_CWND_RTO_FLOOR_MAX_US;
	else
		floor -= floor / 8;
	c->rto_floor_us = floor > SROCE_CWND_RTO_MIN_US ? floor : SROCE_CWND_RTO_MIN_US;
	return spurious;
}

/* A second answer showed the last RTO resend needless (below). */
static inline bool sroce_cwnd_rto_needless(struct sroce_cwnd *c)
{
	if (c->rto_at)
		return sroce_cwnd_rto_judge(c, true);
	c->rto_watch = false;
	c->rto_floor_us = c->rto_floor_was < SROCE_CWND_RTO_FLOOR_MAX_US / 2 ?
			  c->rto_floor_was * 2 : SROCE_CWND_RTO_FLOOR_MAX_US;
	return true;
}

/**
 * sroce_cwnd_rto_forget() - a go-back not of the RTO's resent what the
 *	responder may have had
 * @c: the window
 *
 * The QP's timeout, a PSN sequence NAK, an RNR NAK, a READ's lost
 * responses and an ODP retry each resend from a PSN on. The responder
 * answers again what it had of that go-back: those second answers are the
 * go-back's, not evidence about the last RTO resend, which is neither
 * judged nor watched any more.
 */
static inline void sroce_cwnd_rto_forget(struct sroce_cwnd *c)
{
	c->rto_at = 0;
	c->rto_watch = false;
}

/**
 * sroce_cwnd_rto_dup() - an answer at @psn came that the requester had
 *	already: a duplicate READ response (DSACK's evidence, RFC 3708)
 * @c: the window
 * @psn: its PSN
 *
 * The last RTO resent from @rto_psn; a second answer there means the
 * first request was answered too: that resend was needless, whatever the
 * first progress after it looked like (a READ whose first response was
 * held with all the others looks the same from either request). The
 * floor doubles from where it was before that resend was judged.
 *
 * Return: true if this showed a resend needless.
 */
static inline bool sroce_cwnd_rto_dup(struct sroce_cwnd *c, u32 psn)
{
	if (!(c->rto_watch || c->rto_at) || psn != c->rto_psn)
		return false;
	return sroce_cwnd_rto_needless(c);
}

/**
 * sroce_cwnd_rto_dup_ack() - a sroce responder acknowledged through @psn
 *	again, which the requester had acknowledged already
 * @c: the window
 * @psn: the ACK's PSN, the newest acknowledged one
 *
 * A sroce responder acknowledges every duplicate request with an ACK of
 * its own (responder.c, sroce_resp_dup_ack()). A second ACK through a PSN
 * at or past the one the last RTO resent from therefore means the
 * responder had the request before the resend came: the resend was
 * needless, as with a duplicate READ response (sroce_cwnd_rto_dup()).
 *
 * Return: true if this showed a resend needless.
 */
static inline bool sroce_cwnd_rto_dup_ack(struct sroce_cwnd *c, u32 psn)
{
	if (!(c->rto_watch || c->rto_at) || sroce_psn_diff(psn, c->rto_psn) < 0)
		return false;
	return sroce_cwnd_rto_needless(c);
}

/*
 * Progress after a timer resend: sooner than the smallest RTT after it,
 * the ACK answers a packet sent before it (spurious: restore the window),
 * else the cut stands. Return: true if that restored a window.
 */
static inline bool sroce_cwnd_undo(struct sroce_cwnd *c, u64 now)
{
	bool restored = false;

	if (sroce_cwnd_answers_before(c, c->undo_at, now)) {
		if (c->undo_ssthresh > c->ssthresh)
			c->ssthresh = c->undo_ssthresh;
		if (c->undo_cwnd > c->cwnd) {
			sroce_cwnd_set(c, c->undo_cwnd);
			restored = true;
		}
		/*
		 * No loss: the episode the resend opened is none, so a NAK
		 * that follows is a loss of its own and cuts the window.
		 */
		c->recovering = false;
	}
	c->undo_cwnd = 0;
	return restored;
}

static inline void sroce_cwnd_rtt(struct sroce_cwnd *c, u32 us)
{
	u32 dev;

	if (!us)
		us = 1;
	if (!c->srtt_us) {
		c->srtt_us = us;
		c->rttvar_us = us / 2;
		c->min_rtt_us = us;
		c->min_next_us = us;
		return;
	}
	dev = us > c->srtt_us ? us - c->srtt_us : c->srtt_us - us;
	c->rttvar_us = c->rttvar_us - c->rttvar_us / 4 + dev / 4;
	c->srtt_us = c->srtt_us - c->srtt_us / 8 + us / 8;
	if (us < c->min_rtt_us)
		c->min_rtt_us = us;
	if (us < c->min_next_us)
		c->min_next_us = us;
	/* the minimum forgets a path that changed, one sample window late */
	if (++c->samples >= SROCE_CWND_MIN_WIN) {
		c->min_rtt_us = c->min_next_us;
		c->min_next_us = us;
		c->samples = 0;
	}
}

/**
 * sroce_cwnd_acked() - the oldest unacknowledged PSN moved by @n to @una
 * @c: the window
 * @n: PSNs newly acknowledged
 * @una: the new oldest unacknowledged PSN
 * @now: ns, read by the caller when sroce_cwnd_wants_now() said so (else 0)
 *
 * Return: true if this undid a spurious timer resend's cut.
 */
static inline bool sroce_cwnd_acked(struct sroce_cwnd *c, u32 n, u32 una, u64 now)
{
	bool undone = n && c->undo_cwnd && sroce_cwnd_undo(c, now);

	if (sroce_cwnd_covers(c, una)) {
		c->timing = false;
		if (now > c->t_sent)
			sroce_cwnd_rtt(c, (u32)sroce_div64(now - c->t_sent, 1000));
	}
	if (c->recovering) {
		c->ep_acked += n;
		if (sroce_psn_diff(una, c->recover) >= 0) {
			c->recovering = false;
			c->light = (u64)c->ep_resent * SROCE_CWND_HEAVY_DIV <= c->ep_acked;
		}
	} else if (c->clean < c->max) {
		c->clean += n;
	}
	if (c->cwnd < c->ssthresh) {
		/* slow start, until the threshold or a queue */
		if (sroce_cwnd_queueing(c)) {
			c->ssthresh = c->cwnd;
			return undone;
		}
		sroce_cwnd_set(c, c->cwnd + n < c->ssthresh ? c->cwnd + n : c->ssthresh);
		return undone;
	}
	if (c->cwnd >= c->max || sroce_cwnd_queueing(c))
		return undone;
	c->ca_acked += n;
	if (c->ca_acked >= c->cwnd) {
		c->ca_acked -= c->cwnd;
		sroce_cwnd_set(c, c->cwnd + 1);
	}
	return undone;
}

/*
 * The window after a loss with a queue: what the path holds without the
 * queue (cwnd x min RTT / srtt), never less than half
 */
static inline u32 sroce_cwnd_drained(const struct sroce_cwnd *c)
{
	u32 bdp = c->srtt_us ? (u32)sroce_div64((u64)c->cwnd * c->min_rtt_us, c->srtt_us) : 0;

	return bdp > c->cwnd / 2 ? bdp : c->cwnd / 2;
}

/**
 * sroce_cwnd_loss() - packets were lost
 * @c: the window
 * @timeout: the local ACK timer expired (nothing came back)
 * @hi: the first PSN never sent
 *
 * With a queue, with nothing measured yet, or less than a window after
 * an episode that was not light (a buffer shallower than the queue the
 * RTT can see overflows again and again) the window and its threshold drop to what
 * the path holds without the queue, at least by half; otherwise (a rare
 * loss: random) the window loses an eighth and the threshold remembers
 * the window, so slow start returns to it. A timeout restarts from
 * SROCE_CWND_MIN.
 *
 * Return: true if the window shrank.
 */
static inline bool sroce_cwnd_loss(struct sroce_cwnd *c, bool timeout, u32 hi)
{
	u32 old = c->cwnd, to;
	bool seen = sroce_cwnd_queueing(c) || !c->srtt_us;
	bool queue = seen || (c->clean < c->cwnd && !c->light);

	c->undo_cwnd = 0;	/* a later loss: the last resend's cut stands */
	if (c->recovering && !timeout)
		return false;
	c->recovering = true;
	c->recover = hi;
	c->ca_acked = 0;
	c->clean = 0;
	c->ep_acked = 0;
	c->ep_resent = 0;
	to = seen ? sroce_cwnd_drained(c) : c->cwnd / 2;
	if (queue)
		c->ssthresh = to > SROCE_CWND_MIN ? to : SROCE_CWND_MIN;
	else if (c->cwnd > c->ssthresh)
		c->ssthresh = c->cwnd;
	if (timeout)
		sroce_cwnd_set(c, SROCE_CWND_MIN);
	else if (queue)
		sroce_cwnd_set(c, c->ssthresh);
	else
		sroce_cwnd_set(c, c->cwnd - c->cwnd / 8);
	return c->cwnd != old;
}

/**
 * sroce_cwnd_timer_loss() - a timer resends: sroce_cwnd_loss(), undoably
 * @c: the window
 * @timeout: the local ACK timer expired (else the RTO)
 * @hi: the first PSN never sent
 * @now: ns
 *
 * A host that stalls (a descheduled vCPU, TCG) fires the timers while the
 * ACKs are only late: the next ACK's time tells (sroce_cwnd_acked()). Only
 * the last resend's cut is remembered: an earlier one may have answered a
 * real loss, and any loss after it ends the undo.
 *
 * Return: true if the window shrank.
 */
static inline bool sroce_cwnd_timer_loss(struct sroce_cwnd *c, bool timeout, u32 hi, u64 now)
{
	u32 cwnd = c->cwnd, ssthresh = c->ssthresh;
	bool cut = sroce_cwnd_loss(c, timeout, hi);

	if (c->min_rtt_us && now) {	/* else nothing measured: no way to tell */
		c->undo_cwnd = cwnd;
		c->undo_ssthresh = ssthresh;
		c->undo_at = now;
	}
	return cut;
}

/**
 * sroce_cwnd_rto_us() - the resend timer the measured RTT gives
 * @c: the window
 *
 * Return: the smoothed RTT plus four deviations, at least the floor this
 * path has shown (@rto_floor_us), doubled per resend without progress; 0
 * before the first sample.
 */
static inline u64 sroce_cwnd_rto_us(const struct sroce_cwnd *c)
{
	u64 rto = c->srtt_us + 4ull * c->rttvar_us;

	if (!c->srtt_us)
		return 0;
	if (rto < c->rto_floor_us)
		rto = c->rto_floor_us;
	return rto << c->rto_backoff;
}

/**
 * sroce_cwnd_rto_fired() - the RTO resent: the next one waits twice as
 *	long, and the next progress judges it (sroce_cwnd_rto_judge())
 * @c: the window
 * @now: ns
 * @psn: the PSN it resends from
 */
static inline void sroce_cwnd_rto_fired(struct sroce_cwnd *c, u64 now, u32 psn)
{
	if (c->rto_backoff < SROCE_CWND_RTO_BACKOFF)
		c->rto_backoff++;
	c->rto_at = now ? now : 1;
	c->rto_psn = psn;
	c->rto_watch = false;
}

/** sroce_cwnd_open() - may @psn be sent while @una is unacknowledged? */
static inline bool sroce_cwnd_open(const struct sroce_cwnd *c, u32 psn, u32 una)
{
	return sroce_psn_diff(psn, una) < (int)c->cwnd;
}

/**
 * sroce_cwnd_ack_req() - does the request packet @psn ask for an ACK?
 * @c: the window
 * @psn: the packet's PSN
 * @una: the oldest unacknowledged PSN
 * @last: it must ask (the end of a message whose ACK is wanted soon)
 *
 * Every @ack_mask + 1 PSNs since the last packet that asked, and any
 * packet when no ACK asked for is on its way (the first after an idle
 * time, the one that fills a window whose ACKs all came). (Asking on
 * every packet at the window's
 * edge made a full window a one-ACK-per-packet loop: each ACK let one
 * packet go, which asked again; across two VMs the responder sent 62 k
 * ACKs for 66 k packets.)
 *
 * Return: true if it asks; it is then the last one that asked.
 */
static inline bool sroce_cwnd_ack_req(struct sroce_cwnd *c, u32 psn, u32 una, bool last)
{
	bool out = c->ackreq_out && sroce_psn_diff(c->ackreq_psn, una) >= 0;

	/* nothing asked is outstanding: a full window would wait for ever */
	if (last || !out || sroce_psn_diff(psn, c->ackreq_psn) > (int)c->ack_mask) {
		c->ackreq_out = true;
		c->ackreq_psn = psn;
		return true;
	}
	return false;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_CWND_H */
