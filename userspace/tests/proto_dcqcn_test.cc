// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// DCQCN's reaction point arithmetic (kernel/proto/sroce_dcqcn.h, compiled
// as C into sroce.ko): alpha's decay, the rate cut on a CNP, the three
// increase phases (fast recovery, additive, hyper), the lazy timers and
// the byte counter, against the formulas of Zhu et al. (SIGCOMM 2015).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "sroce_dcqcn.h"

namespace {

constexpr double kOne = SROCE_DCQCN_ONE;

// the device defaults (kernel/dcqcn.c, sroce_dcqcn_dev_init())
sroce_dcqcn_cfg defaults()
{
	sroce_dcqcn_cfg c{};
	c.cnp_interval_us = 50;
	c.g = 4;
	c.alpha_timer_us = 55;
	c.rate_timer_us = 55;
	c.byte_counter_kb = 10240;
	c.fast_recovery = 5;
	c.rate_ai_mbps = 40;
	c.rate_hai_mbps = 400;
	c.rate_max_mbps = 10000;
	c.rate_min_mbps = 10;
	return c;
}

sroce_dcqcn_rp fresh(const sroce_dcqcn_cfg &c, std::uint64_t now = 1000)
{
	sroce_dcqcn_rp rp{};
	sroce_dcqcn_rp_init(&rp, &c, now);
	return rp;
}

TEST(Dcqcn, StartsAtLineRateUnlimited)
{
	const auto c = defaults();
	const auto rp = fresh(c);
	EXPECT_EQ(rp.rc, 10000u * 1000);
	EXPECT_EQ(rp.rt, rp.rc);
	EXPECT_EQ(rp.alpha, SROCE_DCQCN_ONE);
	EXPECT_FALSE(rp.limited);
}

TEST(Dcqcn, DecayIsAlphaTimesOneMinusGToTheN)
{
	for (std::uint32_t g : {1u, 4u, 64u, 1024u}) {
		for (std::uint64_t n : {0ull, 1ull, 2ull, 7ull, 100ull, 5000ull}) {
			const double want =
				kOne * std::pow(1.0 - g / 1024.0, static_cast<double>(n));
			const double got = sroce_dcqcn_decay(SROCE_DCQCN_ONE, g, n);
			// fixed point, truncating at each squaring: within 0.1 % + 64
			EXPECT_NEAR(got, want, want * 1e-3 + 64) << "g " << g << " n " << n;
			EXPECT_LE(got, kOne);
		}
	}
	EXPECT_EQ(sroce_dcqcn_decay(12345, 4, 0), 12345u);
	EXPECT_EQ(sroce_dcqcn_decay(0, 4, 1000), 0u);
}

TEST(Dcqcn, CutHalvesAtAlphaOneAndRaisesAlpha)
{
	const auto c = defaults();
	auto rp = fresh(c);
	EXPECT_TRUE(sroce_dcqcn_cut(&rp, &c, 1000));  // was at line rate
	EXPECT_TRUE(rp.limited);
	EXPECT_EQ(rp.rt, 10000u * 1000);  // the target keeps the old rate
	EXPECT_EQ(rp.rc, 5000u * 1000);	  // Rc (1 - 1/2)
	// alpha = (1 - g) alpha + g, capped at 1
	EXPECT_EQ(rp.alpha, SROCE_DCQCN_ONE);
	EXPECT_EQ(rp.t_count, 0u);
	EXPECT_EQ(rp.b_count, 0u);
	EXPECT_FALSE(sroce_dcqcn_cut(&rp, &c, 1000));  // already limited
	EXPECT_EQ(rp.rc, 2500u * 1000);
}

TEST(Dcqcn, CutFollowsAlphaAndStopsAtTheFloor)
{
	const auto c = defaults();
	auto rp = fresh(c);
	rp.alpha = SROCE_DCQCN_ONE / 4;	 // a quarter: Rc (1 - 1/8)
	sroce_dcqcn_cut(&rp, &c, 1000);
	EXPECT_EQ(rp.rc, 8750u * 1000);
	const double g = c.g / 1024.0;
	EXPECT_NEAR(rp.alpha, (1 - g) * kOne / 4 + g * kOne, 2);
	for (int i = 0; i < 400; i++)
		sroce_dcqcn_cut(&rp, &c, 1000);
	EXPECT_EQ(rp.rc, c.rate_min_mbps * 1000);
}

// increase events by the byte counter only (t_count stays 0): the rate
// moves half way to the target each time; the target stays (fast
// recovery) while b_count < F, then grows by R_AI (additive: one count
// past F, the other not)
TEST(Dcqcn, FastRecoveryThenAdditiveIncrease)
{
	const auto c = defaults();
	auto rp = fresh(c);
	sroce_dcqcn_cut(&rp, &c, 1000);
	const std::uint32_t target = rp.rt;
	std::uint32_t rc = rp.rc;
	const std::uint32_t bytes = c.byte_counter_kb * 1024;
	for (std::uint32_t i = 1; i < c.fast_recovery; i++) {
		ASSERT_TRUE(sroce_dcqcn_sent_bytes(&rp, &c, bytes));
		EXPECT_EQ(rp.rt, target) << "event " << i;
		rc = (target + rc + 1) / 2;
		EXPECT_EQ(rp.rc, rc) << "event " << i;
	}
	ASSERT_TRUE(sroce_dcqcn_sent_bytes(&rp, &c, bytes));  // b_count == F
	EXPECT_EQ(rp.rt, std::min(target + c.rate_ai_mbps * 1000, c.rate_max_mbps * 1000));
}

TEST(Dcqcn, ByteCounterCountsBytes)
{
	const auto c = defaults();
	auto rp = fresh(c);
	sroce_dcqcn_cut(&rp, &c, 1000);
	const std::uint32_t rc = rp.rc;
	EXPECT_FALSE(sroce_dcqcn_sent_bytes(&rp, &c, c.byte_counter_kb * 1024 - 1));
	EXPECT_EQ(rp.rc, rc);
	EXPECT_TRUE(sroce_dcqcn_sent_bytes(&rp, &c, 1));
	EXPECT_EQ(rp.b_count, 1u);
	EXPECT_EQ(rp.bytes, 0u);
}

TEST(Dcqcn, HyperIncreaseWhenBothCountsPassF)
{
	auto c = defaults();
	c.rate_max_mbps = 100000;
	auto rp = fresh(c);
	sroce_dcqcn_cut(&rp, &c, 1000);
	rp.t_count = c.fast_recovery + 2;
	rp.b_count = c.fast_recovery + 3;
	rp.rt = 50000u * 1000;	// below the line: room to grow
	const std::uint32_t rt = rp.rt;
	sroce_dcqcn_increase(&rp, &c);
	// min(t, b) - F = 2 steps of R_HAI
	EXPECT_EQ(rp.rt, rt + 2 * c.rate_hai_mbps * 1000);
}

TEST(Dcqcn, ReachingLineRateEndsTheLimit)
{
	const auto c = defaults();
	auto rp = fresh(c);
	sroce_dcqcn_cut(&rp, &c, 1000);
	rp.t_count = rp.b_count = 1000;	 // hyper increase, far past the line
	for (int i = 0; i < 64 && rp.limited; i++)
		sroce_dcqcn_increase(&rp, &c);
	EXPECT_FALSE(rp.limited);
	EXPECT_EQ(rp.rc, c.rate_max_mbps * 1000);
	EXPECT_EQ(rp.rt, rp.rc);
}

// the timers run lazily: n periods of T make n rate events, n of K decay
// alpha n times, and the reference times advance by whole periods
TEST(Dcqcn, CatchUpAppliesWholePeriods)
{
	const auto c = defaults();
	auto rp = fresh(c, 0);
	sroce_dcqcn_cut(&rp, &c, 0);
	const std::uint64_t t = c.rate_timer_us * 1000ull, k = c.alpha_timer_us * 1000ull;
	sroce_dcqcn_catch_up(&rp, &c, 3 * t + t / 2);
	EXPECT_EQ(rp.t_count, 3u);
	EXPECT_EQ(rp.t_rate, 3 * t);
	EXPECT_EQ(rp.t_alpha, 3 * k);
	EXPECT_EQ(rp.alpha, sroce_dcqcn_decay(SROCE_DCQCN_ONE, c.g, 3));
	// nothing more within the same period
	sroce_dcqcn_catch_up(&rp, &c, 3 * t + t / 2 + 1);
	EXPECT_EQ(rp.t_count, 3u);
}

TEST(Dcqcn, LongPauseReturnsToLineRate)
{
	const auto c = defaults();
	auto rp = fresh(c, 0);
	sroce_dcqcn_cut(&rp, &c, 0);
	const std::uint64_t t = c.rate_timer_us * 1000ull;
	sroce_dcqcn_catch_up(&rp, &c, (SROCE_DCQCN_MAX_EVENTS + 1) * t);
	EXPECT_FALSE(rp.limited);
	EXPECT_EQ(rp.rc, c.rate_max_mbps * 1000);
}

TEST(Dcqcn, UnlimitedQpOnlyDecaysAlpha)
{
	const auto c = defaults();
	auto rp = fresh(c, 0);
	const std::uint64_t k = c.alpha_timer_us * 1000ull;
	sroce_dcqcn_catch_up(&rp, &c, 10 * k);
	EXPECT_EQ(rp.rc, c.rate_max_mbps * 1000);
	EXPECT_EQ(rp.t_count, 0u);
	EXPECT_EQ(rp.alpha, sroce_dcqcn_decay(SROCE_DCQCN_ONE, c.g, 10));
}

}  // namespace
