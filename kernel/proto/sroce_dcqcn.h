/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: DCQCN's reaction point arithmetic (Zhu et al.,
 * "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015;
 * Documentation/datapath.rst, "DCQCN"), without timers or packets, so the
 * host unit tests check the same code the module runs (dcqcn.c).
 *
 * Rates are in kbit/s, alpha in 1/2^20 (SROCE_DCQCN_ONE is 1.0), times in
 * ns. Timers K (alpha) and T (rate) run lazily: the periods that passed
 * are applied when the QP next sends or gets a CNP
 * (sroce_dcqcn_catch_up()).
 */
#ifndef SROCE_PROTO_DCQCN_H
#define SROCE_PROTO_DCQCN_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SROCE_DCQCN_ONE		(1u << 20)	/* alpha 1.0 */
/* rate events applied at once after a long pause; past it: line rate */
#define SROCE_DCQCN_MAX_EVENTS	256

/**
 * struct sroce_dcqcn_cfg - DCQCN parameters of a device (sysfs dcqcn_*)
 * @cnp_interval_us: notification point: at most one CNP per QP per this
 * @g: alpha gain, in 1/1024 (4: the paper's 1/256)
 * @alpha_timer_us: K, alpha decays once per K without a CNP
 * @rate_timer_us: T, the rate increase timer
 * @byte_counter_kb: B, a rate increase event per B KiB sent
 * @fast_recovery: F, rate increase events of fast recovery
 * @rate_ai_mbps: R_AI, the additive increase step
 * @rate_hai_mbps: R_HAI, the hyper increase step
 * @rate_max_mbps: the line rate: start and ceiling
 * @rate_min_mbps: the floor a cut never goes below
 *
 * Each field is read and written whole (READ_ONCE/WRITE_ONCE); a QP
 * copies them when it moves to RTR (sroce_dcqcn_start()).
 */
struct sroce_dcqcn_cfg {
	u32 cnp_interval_us;
	u32 g;
	u32 alpha_timer_us;
	u32 rate_timer_us;
	u32 byte_counter_kb;
	u32 fast_recovery;
	u32 rate_ai_mbps;
	u32 rate_hai_mbps;
	u32 rate_max_mbps;
	u32 rate_min_mbps;
};

/**
 * struct sroce_dcqcn_rp - a QP's reaction point state
 * @limited: below the line rate (a CNP cut it, it has not recovered)
 * @rc: the current rate, kbit/s
 * @rt: the target rate, kbit/s
 * @alpha: the congestion estimate, in 1/2^20
 * @t_count: rate timer events since the last cut
 * @b_count: byte counter events since the last cut
 * @bytes: bytes sent since the last byte counter event
 * @t_alpha: when the alpha timer (K) last ran, ns
 * @t_rate: when the rate timer (T) last ran, ns
 */
struct sroce_dcqcn_rp {
	bool limited;
	u32 rc, rt;
	u32 alpha;
	u32 t_count, b_count;
	u64 bytes;
	u64 t_alpha, t_rate;
};

/* A connection's start: line rate, alpha 1, the timers from @now. */
static inline void sroce_dcqcn_rp_init(struct sroce_dcqcn_rp *rp,
				       const struct sroce_dcqcn_cfg *c, u64 now)
{
	rp->rc = c->rate_max_mbps * 1000;
	rp->rt = rp->rc;
	rp->alpha = SROCE_DCQCN_ONE;
	rp->t_count = 0;
	rp->b_count = 0;
	rp->bytes = 0;
	rp->t_alpha = now;
	rp->t_rate = now;
	rp->limited = false;
}

/* alpha * (1 - g)^n, by squaring: n may be large after a pause */
static inline u32 sroce_dcqcn_decay(u32 alpha, u32 g, u64 n)
{
	u64 f = SROCE_DCQCN_ONE - ((u64)g << 10);	/* g is in 1/1024 */
	u64 a = alpha;

	while (n && a) {
		if (n & 1)
			a = (a * f) >> 20;
		f = (f * f) >> 20;
		n >>= 1;
	}
	return (u32)a;
}

/*
 * One rate increase event (timer or byte counter): fast recovery while
 * both counts are below F, hyper increase when both are past it, additive
 * increase in between; the current rate moves half way to the target,
 * and reaching the line rate ends the limit.
 */
static inline void sroce_dcqcn_increase(struct sroce_dcqcn_rp *rp,
					const struct sroce_dcqcn_cfg *c)
{
	u32 lo = rp->t_count < rp->b_count ? rp->t_count : rp->b_count;
	u32 hi = rp->t_count < rp->b_count ? rp->b_count : rp->t_count;
	u64 max_rate = (u64)c->rate_max_mbps * 1000;
	u64 rt = rp->rt;

	if (lo > c->fast_recovery)
		rt += (u64)(lo - c->fast_recovery) * c->rate_hai_mbps * 1000;
	else if (hi >= c->fast_recovery)
		rt += (u64)c->rate_ai_mbps * 1000;
	rp->rt = (u32)(rt < max_rate ? rt : max_rate);
	rp->rc = (u32)(((u64)rp->rt + rp->rc + 1) / 2);
	if (rp->rc >= max_rate) {
		rp->rc = (u32)max_rate;
		rp->rt = (u32)max_rate;
		rp->limited = false;
	}
}

/* Apply the K and T periods that passed since they last ran, up to @now. */
static inline void sroce_dcqcn_catch_up(struct sroce_dcqcn_rp *rp,
					const struct sroce_dcqcn_cfg *c, u64 now)
{
	u64 k = (u64)(c->alpha_timer_us ? c->alpha_timer_us : 1) * 1000;
	u64 t = (u64)(c->rate_timer_us ? c->rate_timer_us : 1) * 1000;
	u64 n;

	if (now - rp->t_alpha >= k) {
		n = sroce_div64(now - rp->t_alpha, k);
		rp->alpha = sroce_dcqcn_decay(rp->alpha, c->g, n);
		rp->t_alpha += n * k;
	}
	if (!rp->limited || now - rp->t_rate < t)
		return;
	n = sroce_div64(now - rp->t_rate, t);
	rp->t_rate += n * t;
	if (n > SROCE_DCQCN_MAX_EVENTS) {
		rp->rc = c->rate_max_mbps * 1000;
		rp->rt = rp->rc;
		rp->limited = false;
		return;
	}
	while (n-- && rp->limited) {
		rp->t_count++;
		sroce_dcqcn_increase(rp, c);
	}
}

/*
 * A byte counter step: @bytes more were sent below the line rate.
 * Return: true if that made a rate increase event.
 */
static inline bool sroce_dcqcn_sent_bytes(struct sroce_dcqcn_rp *rp,
					  const struct sroce_dcqcn_cfg *c, u32 bytes)
{
	rp->bytes += bytes;
	if (rp->bytes < (u64)c->byte_counter_kb * 1024)
		return false;
	rp->bytes = 0;
	rp->b_count++;
	sroce_dcqcn_increase(rp, c);
	return true;
}

/*
 * A CNP at @now: Rt = Rc, Rc = Rc (1 - alpha / 2) (not below the floor),
 * alpha = (1 - g) alpha + g; the increase counters and timers start over.
 * Return: true if the QP was at the line rate until now.
 */
static inline bool sroce_dcqcn_cut(struct sroce_dcqcn_rp *rp,
				   const struct sroce_dcqcn_cfg *c, u64 now)
{
	u32 g = c->g << 10;
	u64 rc, floor = (u64)c->rate_min_mbps * 1000;
	bool was_free = !rp->limited;

	sroce_dcqcn_catch_up(rp, c, now);
	rp->rt = rp->rc;
	rc = rp->rc - (((u64)rp->rc * rp->alpha) >> 21);
	rp->rc = (u32)(rc > floor ? rc : floor);
	rp->alpha = rp->alpha - (u32)(((u64)rp->alpha * g) >> 20) + g;
	if (rp->alpha > SROCE_DCQCN_ONE)
		rp->alpha = SROCE_DCQCN_ONE;
	rp->t_alpha = now;
	rp->t_rate = now;
	rp->t_count = 0;
	rp->b_count = 0;
	rp->bytes = 0;
	rp->limited = true;
	return was_free;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_PROTO_DCQCN_H */
