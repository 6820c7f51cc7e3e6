/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the requester's loss window (Documentation/
 * transport.rst, "Loss window").
 *
 * An RC requester may have at most cwnd PSNs unacknowledged. Without
 * loss the window stays at SROCE_CWND_MAX. A receiver that cannot keep up
 * (a full netdev backlog, a slow host) drops the tail of every burst, and
 * a go-back that resends the whole window into it loses again and again.
 * So:
 *   - a loss (a PSN sequence NAK, READ responses missing) halves the
 *     window. Each NAK is a new loss: after a go-back the responder drops
 *     everything past the gap and NAKs again only when a packet sent
 *     after the go-back is missing;
 *   - a timeout (nothing came back) restarts it at SROCE_CWND_MIN;
 *   - every PSN acknowledged opens it by one (so it doubles per window
 *     acknowledged), up to SROCE_CWND_MAX.
 * Regrowth is quick on purpose: random loss (a lossy link, the selftests'
 * fault matrix) is not a slow receiver, and must not hold the window
 * small. A smaller window asks for ACKs more often (every cwnd / 16 PSNs,
 * a power of two, and on the packet that fills it): when the last packets
 * of a full window are lost, the ACK of those before them lets the next
 * ones go, and those draw the NAK, where a sparse AckReq would leave the
 * requester waiting for its timeout.
 */
#ifndef SROCE_CWND_H
#define SROCE_CWND_H

#include "sroce_types.h"
#include "sroce_psn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SROCE_CWND_MAX		1024u	/* PSNs unacknowledged, without loss */
#define SROCE_CWND_MIN		16u
#define SROCE_CWND_ACK_MAX	64u	/* AckReq at least every this many PSNs */
#define SROCE_CWND_ACK_DIV	16u	/* and every cwnd / this */

/**
 * struct sroce_cwnd - a requester's loss window
 * @cwnd: PSNs that may be unacknowledged, SROCE_CWND_MIN..SROCE_CWND_MAX
 * @ack_mask: AckReq when (PSN - oldest unacknowledged) & @ack_mask is 0
 */
struct sroce_cwnd {
	u32 cwnd;
	u32 ack_mask;
};

static inline void sroce_cwnd_set_mask(struct sroce_cwnd *c)
{
	u32 every = c->cwnd / SROCE_CWND_ACK_DIV, i = 1;

	while (i * 2 <= every && i * 2 <= SROCE_CWND_ACK_MAX)
		i *= 2;
	c->ack_mask = i - 1;
}

/** sroce_cwnd_init() - wide open */
static inline void sroce_cwnd_init(struct sroce_cwnd *c)
{
	c->cwnd = SROCE_CWND_MAX;
	sroce_cwnd_set_mask(c);
}

/**
 * sroce_cwnd_loss() - packets were lost
 * @c: the window
 * @timeout: the local ACK timer expired
 *
 * Return: true if the window shrank.
 */
static inline bool sroce_cwnd_loss(struct sroce_cwnd *c, bool timeout)
{
	u32 old = c->cwnd;

	if (timeout)
		c->cwnd = SROCE_CWND_MIN;
	else
		c->cwnd = c->cwnd / 2 > SROCE_CWND_MIN ? c->cwnd / 2 : SROCE_CWND_MIN;
	if (c->cwnd == old)
		return false;
	sroce_cwnd_set_mask(c);
	return true;
}

/** sroce_cwnd_acked() - @n more PSNs were acknowledged */
static inline void sroce_cwnd_acked(struct sroce_cwnd *c, u32 n)
{
	if (c->cwnd >= SROCE_CWND_MAX)
		return;
	c->cwnd = c->cwnd + n < SROCE_CWND_MAX ? c->cwnd + n : SROCE_CWND_MAX;
	sroce_cwnd_set_mask(c);
}

/** sroce_cwnd_open() - may @psn be sent while @una is unacknowledged? */
static inline bool sroce_cwnd_open(const struct sroce_cwnd *c, u32 psn, u32 una)
{
	return sroce_psn_diff(psn, una) < (int)c->cwnd;
}

/**
 * sroce_cwnd_ack_req() - does the request packet @psn ask for an ACK?
 *
 * Every @ack_mask + 1 PSNs from the oldest unacknowledged one, and the
 * packet that fills the window: the requester waits for that ACK.
 */
static inline bool sroce_cwnd_ack_req(const struct sroce_cwnd *c, u32 psn, u32 una)
{
	u32 d = (u32)sroce_psn_diff(psn, una);

	return !(d & c->ack_mask) || d + 1 >= c->cwnd;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_CWND_H */
