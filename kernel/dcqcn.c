// SPDX-License-Identifier: GPL-2.0
/*
 * sroce DCQCN: ECN-based congestion control for RoCEv2 (Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015).
 *
 * Opt-in per device (sysfs dcqcn_enable, off by default); each connected
 * QP copies the device's switch and parameters when it moves to RTR and
 * keeps them for the connection's lifetime. A QP doing DCQCN
 *  - sends its packets ECN-capable, ECT(0) (xmit.c),
 *  - as notification point (NP): answers packets that arrive CE-marked
 *    with a CNP to the peer QP, at most one per cnp_interval_us,
 *  - as reaction point (RP): cuts its rate on each CNP and recovers it by
 *    a timer and a byte counter (fast recovery, additive and hyper
 *    increase); the requester paces its request packets with a token
 *    bucket at that rate and an hrtimer that runs the QP again when the
 *    bucket has credit.
 * Peers that do not do DCQCN (rdma_rxe) ignore ECN marks and CNPs never
 * reach them unless their own packets are ECN-capable; a CNP that reaches
 * a sroce QP not doing DCQCN is counted and dropped (recv.c).
 *
 * Timers K and T run lazily: elapsed periods are applied when the QP
 * next sends or gets a CNP, so an idle or full-rate QP costs nothing.
 * Everything here runs under qp->lock.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <net/inet_ecn.h>

#include "sroce.h"
#include "qp.h"
#include "trace.h"
#include "xmit.h"
#include "dcqcn.h"

/* pacer credit units per byte: kbit/s x ns per byte */
#define SROCE_DCQCN_TOK_BYTE	8000000LL
/* the pacer lets at most this much go back to back */
#define SROCE_DCQCN_BURST	16384LL

/* Defaults from the paper where it gives them (Documentation/datapath.rst) */
void sroce_dcqcn_dev_init(struct sroce_dev *sdev)
{
	sdev->dcqcn_cfg = (struct sroce_dcqcn_cfg) {
		.cnp_interval_us = 50,
		.g = 4,			/* 1/256 */
		.alpha_timer_us = 55,
		.rate_timer_us = 55,
		.byte_counter_kb = 10240,	/* 10 MB */
		.fast_recovery = 5,
		.rate_ai_mbps = 40,
		.rate_hai_mbps = 400,
		.rate_max_mbps = 10000,
		.rate_min_mbps = 10,
	};
}

static enum hrtimer_restart sroce_dcqcn_pace_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, dcqcn.pace);

	sroce_qp_kick(qp);
	return HRTIMER_NORESTART;
}

void sroce_dcqcn_init_qp(struct sroce_qp *qp)
{
	sroce_hrtimer_setup(&qp->dcqcn.pace, sroce_dcqcn_pace_timer, CLOCK_MONOTONIC,
			    HRTIMER_MODE_REL_SOFT);
}

/**
 * sroce_dcqcn_start() - sample the device's DCQCN setting for a connection
 * @qp: the QP, moving to RTR
 */
void sroce_dcqcn_start(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_dcqcn *d = &qp->dcqcn;
	struct sroce_dcqcn_cfg *c = &d->cfg;
	u64 now = ktime_get_ns();

	lockdep_assert_held(&qp->lock);

	if (!sroce_qpt_connected(qp->ibqp.qp_type) || !READ_ONCE(sdev->dcqcn)) {
		WRITE_ONCE(d->on, false);
		return;
	}
	c->cnp_interval_us = READ_ONCE(sdev->dcqcn_cfg.cnp_interval_us);
	c->g = READ_ONCE(sdev->dcqcn_cfg.g);
	c->alpha_timer_us = READ_ONCE(sdev->dcqcn_cfg.alpha_timer_us);
	c->rate_timer_us = READ_ONCE(sdev->dcqcn_cfg.rate_timer_us);
	c->byte_counter_kb = READ_ONCE(sdev->dcqcn_cfg.byte_counter_kb);
	c->fast_recovery = READ_ONCE(sdev->dcqcn_cfg.fast_recovery);
	c->rate_ai_mbps = READ_ONCE(sdev->dcqcn_cfg.rate_ai_mbps);
	c->rate_hai_mbps = READ_ONCE(sdev->dcqcn_cfg.rate_hai_mbps);
	c->rate_max_mbps = READ_ONCE(sdev->dcqcn_cfg.rate_max_mbps);
	c->rate_min_mbps = min(READ_ONCE(sdev->dcqcn_cfg.rate_min_mbps), c->rate_max_mbps);
	sroce_dcqcn_rp_init(&d->rp, c, now);
	d->tokens = 0;
	d->t_tokens = now;
	d->np_last = 0;
	WRITE_ONCE(d->on, true);
}

/* Forget the connection's DCQCN state and rate limit (RESET). */
void sroce_dcqcn_stop(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);

	WRITE_ONCE(qp->dcqcn.on, false);
	qp->dcqcn.rp.limited = false;
	WRITE_ONCE(qp->dcqcn.rl, 0);
	/* a callback already running only kicks the QP, which then idles */
	hrtimer_try_to_cancel(&qp->dcqcn.pace);
}

/* No timer left (destroy: nothing runs the QP any more). */
void sroce_dcqcn_cancel(struct sroce_qp *qp)
{
	hrtimer_cancel(&qp->dcqcn.pace);
}

/* Is the pace timer queued or its callback running? */
bool sroce_dcqcn_armed(struct sroce_qp *qp)
{
	return hrtimer_active(&qp->dcqcn.pace);
}

/**
 * sroce_dcqcn_set_rate_limit() - set or lift a QP's rate limit
 * @qp: a connected QP
 * @kbps: kbit/s within SROCE_RATE_LIMIT_MIN/MAX_KBPS, or 0 for none
 *
 * The pacer starts with a full burst of credit (a limit set on a busy QP
 * takes effect after at most SROCE_DCQCN_BURST bytes).
 */
void sroce_dcqcn_set_rate_limit(struct sroce_qp *qp, u32 kbps)
{
	struct sroce_dcqcn *d = &qp->dcqcn;

	lockdep_assert_held(&qp->lock);

	if (kbps && !d->rl && !d->rp.limited) {
		d->tokens = SROCE_DCQCN_BURST * SROCE_DCQCN_TOK_BYTE;
		d->t_tokens = ktime_get_ns();
	}
	WRITE_ONCE(d->rl, kbps);
}

/* The pacer's rate, kbit/s: the lower of DCQCN's and the limit; 0 none */
static u32 sroce_pace_rate(const struct sroce_dcqcn *d)
{
	u32 rate = d->rp.limited ? d->rp.rc : 0;

	if (d->rl && (!rate || d->rl < rate))
		rate = d->rl;
	return rate;
}

/**
 * sroce_dcqcn_may_send() - may the requester send its next packet now?
 * @qp: a QP doing DCQCN or with a rate limit
 *
 * Below the line rate (DCQCN's, or the QP's rate limit) the requester
 * spends pacer credit: when it has none, the pace timer runs the QP again
 * once a packet's worth has accrued (a wait bounded by one packet at the
 * minimum rate).
 *
 * Return: true to send.
 */
bool sroce_dcqcn_may_send(struct sroce_qp *qp)
{
	struct sroce_dcqcn *d = &qp->dcqcn;
	u32 from = d->rp.rc, rate;
	u64 now, dt;
	s64 burst;

	lockdep_assert_held(&qp->lock);

	if (!d->rp.limited && !d->rl)
		return true;
	now = ktime_get_ns();
	if (d->rp.limited) {
		sroce_dcqcn_catch_up(&d->rp, &d->cfg, now);
		if (trace_sroce_dcqcn_rate_enabled() && d->rp.rc != from)
			trace_sroce_dcqcn_rate(qp->ibqp.qp_num, from, d, false);
	}
	rate = sroce_pace_rate(d);
	if (!rate)
		return true;
	dt = min_t(u64, now - d->t_tokens, NSEC_PER_SEC);
	d->t_tokens = now;
	burst = SROCE_DCQCN_BURST * SROCE_DCQCN_TOK_BYTE;
	d->tokens = min_t(s64, d->tokens + (s64)(dt * rate), burst);
	if (d->tokens >= 0)
		return true;
	if (!hrtimer_is_queued(&d->pace))
		hrtimer_start(&d->pace, ns_to_ktime(div64_u64(-d->tokens, rate) + 1),
			      HRTIMER_MODE_REL_SOFT);
	return false;
}

/**
 * sroce_dcqcn_sent() - account a request packet the requester sent
 * @qp: a QP doing DCQCN or with a rate limit
 * @bytes: its transport headers and payload
 */
void sroce_dcqcn_sent(struct sroce_qp *qp, u32 bytes)
{
	struct sroce_dcqcn *d = &qp->dcqcn;
	u32 from;

	lockdep_assert_held(&qp->lock);

	if (!d->rp.limited && !d->rl)
		return;
	d->tokens -= bytes * SROCE_DCQCN_TOK_BYTE;
	if (!d->rp.limited)
		return;
	from = d->rp.rc;
	if (sroce_dcqcn_sent_bytes(&d->rp, &d->cfg, bytes))
		trace_sroce_dcqcn_rate(qp->ibqp.qp_num, from, d, false);
}

/**
 * sroce_dcqcn_cnp_rx() - reaction point: the peer saw our packets marked
 * @qp: the QP, doing DCQCN
 * @skb: the CNP (checked: length, QP, peer address)
 *
 * Rt = Rc, Rc = Rc (1 - alpha / 2), alpha = (1 - g) alpha + g; the
 * increase counters and timers start over (sroce_dcqcn_cut()).
 */
void sroce_dcqcn_cnp_rx(struct sroce_qp *qp, const struct sk_buff *skb)
{
	struct sroce_dcqcn *d = &qp->dcqcn;
	u64 now = ktime_get_ns();
	u32 from = d->rp.rc;

	lockdep_assert_held(&qp->lock);

	sroce_stat_inc(qp->sdev, SROCE_STAT_CNP_RX);
	if (sroce_dcqcn_cut(&d->rp, &d->cfg, now)) {
		/* the pacer starts from an empty bucket */
		d->tokens = 0;
		d->t_tokens = now;
	}
	sroce_stat_inc(qp->sdev, SROCE_STAT_DCQCN_RATE_CUTS);
	trace_sroce_dcqcn_rate(qp->ibqp.qp_num, from, d, true);
}

/* Did the network mark @skb Congestion Experienced? */
static bool sroce_dcqcn_ce(const struct sk_buff *skb)
{
	const u8 *iph = skb_network_header(skb);
	u8 ecn = (iph[0] >> 4) == 6 ? (iph[1] >> 4) & INET_ECN_MASK : iph[1] & INET_ECN_MASK;

	return ecn == INET_ECN_CE;
}

/**
 * sroce_dcqcn_np_rx() - notification point: a packet from the peer
 * @qp: the QP, doing DCQCN
 * @skb: the packet (address checked), data at the UDP header
 *
 * A CE-marked packet makes the QP send a CNP to its peer QP, unless it
 * sent one less than cnp_interval_us ago.
 */
void sroce_dcqcn_np_rx(struct sroce_qp *qp, const struct sk_buff *skb)
{
	struct sroce_dcqcn *d = &qp->dcqcn;
	struct sk_buff *cnp;
	u64 now;

	lockdep_assert_held(&qp->lock);

	if (!sroce_dcqcn_ce(skb))
		return;
	sroce_stat_inc(qp->sdev, SROCE_STAT_ECN_MARKED_RX);
	now = ktime_get_ns();
	if (d->np_last && now - d->np_last < (u64)d->cfg.cnp_interval_us * NSEC_PER_USEC)
		return;
	cnp = sroce_pkt_alloc(qp, SROCE_CNP_HDR_LEN);
	if (!cnp)
		return;		/* like a CNP lost on the way */
	sroce_cnp_build(skb_put(cnp, SROCE_CNP_HDR_LEN), SROCE_CNP_HDR_LEN,
			qp->attr.dest_qp_num);
	d->np_last = now;
	sroce_stat_inc(qp->sdev, SROCE_STAT_CNP_TX);
	sroce_pkt_xmit(qp, cnp, 0);
}
