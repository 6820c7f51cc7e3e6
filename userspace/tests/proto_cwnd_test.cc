// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The requester's window and round-trip estimate (kernel/proto/sroce_cwnd.h,
// compiled as C into sroce.ko): RTT samples (Karn), how a loss with and
// without a queue on the path shrinks the window (and a loss close to a
// heavy episode, a shallow buffer's), slow start and additive
// increase, one cut per episode, the undo of a spurious timer resend, the
// resend timer and the floor a stalling host gives it, the AckReq
// interval, the bounds in bytes at each path MTU.
#include <algorithm>
#include <cstdint>

#include <gtest/gtest.h>

#include "sroce_cwnd.h"
#include "sroce_psn.h"

namespace {

constexpr std::uint64_t kUs = 1000;  // ns
// at the 1024-byte path MTU of a 1500-byte wire the byte bounds are these PSNs
constexpr std::uint32_t kInit = 128, kQueue = 64;

sroce_cwnd fresh(std::uint32_t mtu = 1024)
{
	sroce_cwnd c{};
	sroce_cwnd_init(&c, mtu, mtu);
	return c;
}

// one RTT sample of @us: time PSN @psn, acknowledge it
void sample(sroce_cwnd &c, std::uint32_t psn, std::uint32_t us, std::uint64_t t0 = 1000000)
{
	sroce_cwnd_sent(&c, psn, t0);
	ASSERT_TRUE(sroce_cwnd_covers(&c, sroce_psn_inc(psn)));
	sroce_cwnd_acked(&c, 0, sroce_psn_inc(psn), t0 + us * kUs);
}

// a window of @cwnd on a path whose smallest RTT is 1000 us, now @now_us
sroce_cwnd measured(std::uint32_t now_us, std::uint32_t cwnd = SROCE_CWND_MAX)
{
	sroce_cwnd c = fresh();
	sroce_cwnd_set(&c, cwnd);
	sample(c, 0, 1000);
	for (int i = 0; i < 40; i++)
		sample(c, 1 + i, now_us);
	c.clean = SROCE_CWND_MAX;  // the last loss (if any) was long ago
	return c;
}

TEST(Cwnd, StartsInSlowStartWithTheUsualAckInterval)
{
	sroce_cwnd c = fresh();
	EXPECT_EQ(c.max, SROCE_CWND_MAX);
	EXPECT_EQ(c.queue_pkts, kQueue);
	EXPECT_EQ(c.cwnd, kInit);
	EXPECT_EQ(c.ssthresh, SROCE_CWND_MAX);
	EXPECT_EQ(c.srtt_us, 0u);
	EXPECT_EQ(sroce_cwnd_rto_us(&c), 0u);  // nothing measured: the QP's timeout alone
	EXPECT_EQ(c.ack_mask + 1, kInit / SROCE_CWND_ACK_DIV);
	EXPECT_TRUE(sroce_cwnd_open(&c, 100 + kInit - 1, 100));
	EXPECT_FALSE(sroce_cwnd_open(&c, 100 + kInit, 100));
	// without loss it opens to the maximum, one PSN per PSN acknowledged
	sroce_cwnd_acked(&c, 5000, 5000, 0);
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.ack_mask, SROCE_CWND_ACK_MAX - 1);
	EXPECT_TRUE(sroce_cwnd_open(&c, 100 + SROCE_CWND_MAX - 1, 100));
	EXPECT_FALSE(sroce_cwnd_open(&c, 100 + SROCE_CWND_MAX, 100));
	// the first packet asks (no ACK on its way), then every 64th
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 100, 100, false));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, 101, 100, false));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, 163, 100, false));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 164, 100, false));
	// the last packet of a message always asks
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 165, 100, true));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, 166, 100, false));
}

TEST(Cwnd, AFullWindowAsksOnlyWhenNoAckIsComing)
{
	const std::uint32_t every = 64 / SROCE_CWND_ACK_DIV;
	sroce_cwnd c = fresh();
	sroce_cwnd_set(&c, 64);	 // every cwnd / SROCE_CWND_ACK_DIV-th asks
	for (std::uint32_t p = 0; p < 64; p++)
		EXPECT_EQ(sroce_cwnd_ack_req(&c, p, 0, false), p % every == 0) << p;
	// the window is full; ACKs let one packet go at a time, each at the
	// window's edge: only every so many asks, the others wait for the ACKs
	// already on their way (the last that asked)
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 64, 1, false));
	for (std::uint32_t p = 65; p < 64 + every; p++)
		EXPECT_FALSE(sroce_cwnd_ack_req(&c, p, p - 63, false)) << p;
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 64 + every, every + 1, false));
	// everything asked for is acknowledged: the next packet asks at once
	sroce_cwnd d = fresh();
	sroce_cwnd_set(&d, 64);
	EXPECT_TRUE(sroce_cwnd_ack_req(&d, 10, 10, false));
	EXPECT_FALSE(sroce_cwnd_ack_req(&d, 11, 10, false));
	EXPECT_TRUE(sroce_cwnd_ack_req(&d, 12, 12, false));
	// after a go-back the resent packets ask afresh
	sroce_cwnd_resend(&d);
	EXPECT_TRUE(sroce_cwnd_ack_req(&d, 11, 11, false));
}

TEST(Cwnd, TimesOnePacketAtATimeAndNeverAResend)
{
	sroce_cwnd c = fresh();
	sroce_cwnd_sent(&c, 10, 1000);
	sroce_cwnd_sent(&c, 20, 5000);	// one at a time: 10 stays timed
	EXPECT_EQ(c.t_psn, 10u);
	EXPECT_FALSE(sroce_cwnd_covers(&c, 10));  // 10 itself not acknowledged yet
	EXPECT_TRUE(sroce_cwnd_covers(&c, 11));
	sroce_cwnd_resend(&c);	// a go-back: the answer may be to either copy
	EXPECT_FALSE(sroce_cwnd_covers(&c, 11));
	sroce_cwnd_acked(&c, 11, 11, 0);
	EXPECT_EQ(c.srtt_us, 0u);
	sample(c, 30, 300);
	EXPECT_EQ(c.srtt_us, 300u);
	EXPECT_EQ(c.min_rtt_us, 300u);
	EXPECT_EQ(c.rttvar_us, 150u);
}

TEST(Cwnd, SmoothsTheRttAndKeepsTheMinimum)
{
	sroce_cwnd c = measured(1400);
	EXPECT_EQ(c.min_rtt_us, 1000u);
	EXPECT_NEAR(c.srtt_us, 1400, 10);
	EXPECT_GE(sroce_cwnd_rto_us(&c), SROCE_CWND_RTO_MIN_US);
	// a slow path's resend timer follows its RTT
	sroce_cwnd slow = measured(20000);
	EXPECT_GT(sroce_cwnd_rto_us(&slow), 20000u);
	EXPECT_LT(sroce_cwnd_rto_us(&slow), 60000u);
	// each resend without progress doubles it, six times at most
	const std::uint64_t rto = sroce_cwnd_rto_us(&slow);
	sroce_cwnd_rto_fired(&slow, 1, 0);
	EXPECT_EQ(sroce_cwnd_rto_us(&slow), 2 * rto);
	for (int i = 0; i < 10; i++)
		sroce_cwnd_rto_fired(&slow, 1, 0);
	EXPECT_EQ(sroce_cwnd_rto_us(&slow), rto << SROCE_CWND_RTO_BACKOFF);
}

TEST(Cwnd, TheRtoFloorFollowsTheHostsStalls)
{
	constexpr std::uint64_t kAt = 50000000;	 // the RTO resends, ns
	// a fast path: the floor is the resend timer
	sroce_cwnd c = measured(1000);
	EXPECT_EQ(sroce_cwnd_rto_us(&c), SROCE_CWND_RTO_MIN_US);
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, true));  // no resend to judge
	EXPECT_EQ(c.rto_floor_us, SROCE_CWND_RTO_MIN_US);
	// progress 200 us after the RTO resent answers a packet sent before it
	sroce_cwnd_rto_fired(&c, kAt, 7);
	EXPECT_TRUE(sroce_cwnd_wants_now(&c, 0));
	EXPECT_TRUE(sroce_cwnd_rto_early(&c, kAt + 200 * kUs));
	EXPECT_TRUE(sroce_cwnd_rto_judge(&c, true));
	c.rto_backoff = 0;  // the progress (the completer's part)
	EXPECT_EQ(sroce_cwnd_rto_us(&c), 2 * SROCE_CWND_RTO_MIN_US);
	// judged once: the next progress says nothing
	EXPECT_FALSE(sroce_cwnd_rto_early(&c, kAt + 300 * kUs));
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, true));
	EXPECT_EQ(c.rto_floor_us, 2 * SROCE_CWND_RTO_MIN_US);
	// a host that keeps stalling raises it to the cap, no further
	for (int i = 0; i < 10; i++) {
		sroce_cwnd_rto_fired(&c, kAt, 7);
		EXPECT_TRUE(sroce_cwnd_rto_judge(&c, true));
	}
	c.rto_backoff = 0;
	EXPECT_EQ(c.rto_floor_us, SROCE_CWND_RTO_FLOOR_MAX_US);
	EXPECT_EQ(sroce_cwnd_rto_us(&c), SROCE_CWND_RTO_FLOOR_MAX_US);
	// a resend answered a round trip later was needed: an eighth off,
	// and a path that stopped stalling gets the short timer back
	sroce_cwnd_rto_fired(&c, kAt, 7);
	EXPECT_FALSE(sroce_cwnd_rto_early(&c, kAt + 1000 * kUs));
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, false));
	EXPECT_EQ(c.rto_floor_us, SROCE_CWND_RTO_FLOOR_MAX_US - SROCE_CWND_RTO_FLOOR_MAX_US / 8);
	for (int i = 0; i < 40; i++) {
		sroce_cwnd_rto_fired(&c, kAt, 7);
		sroce_cwnd_rto_judge(&c, false);
	}
	EXPECT_EQ(c.rto_floor_us, SROCE_CWND_RTO_MIN_US);
	// a new QP starts from the shortest
	EXPECT_EQ(fresh().rto_floor_us, SROCE_CWND_RTO_MIN_US);
}

TEST(Cwnd, ASecondAnswerShowsAResendNeedless)
{
	constexpr std::uint64_t kAt = 50000000;
	// a READ whose responses were all held: the first one looks the same
	// from the request and from its resend, and is judged needed ...
	sroce_cwnd c = measured(1000);
	sroce_cwnd_rto_fired(&c, kAt, 100);
	EXPECT_FALSE(sroce_cwnd_rto_early(&c, kAt + 5000 * kUs));
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, false));
	EXPECT_EQ(c.rto_floor_us, SROCE_CWND_RTO_MIN_US);
	// ... until the resend's answer comes too, at the PSN it resent from
	EXPECT_FALSE(sroce_cwnd_rto_dup(&c, 101));
	EXPECT_TRUE(sroce_cwnd_rto_dup(&c, 100));
	EXPECT_EQ(c.rto_floor_us, 2 * SROCE_CWND_RTO_MIN_US);
	EXPECT_FALSE(sroce_cwnd_rto_dup(&c, 100));  // once
	// from the floor before the judgment, not from the eighth it took off
	sroce_cwnd_rto_fired(&c, kAt, 200);
	sroce_cwnd_rto_judge(&c, false);
	EXPECT_EQ(c.rto_floor_us, 2 * SROCE_CWND_RTO_MIN_US - 2 * SROCE_CWND_RTO_MIN_US / 8);
	EXPECT_TRUE(sroce_cwnd_rto_dup(&c, 200));
	EXPECT_EQ(c.rto_floor_us, 4 * SROCE_CWND_RTO_MIN_US);
	// one judged needless already: its second answer changes nothing
	sroce_cwnd_rto_fired(&c, kAt, 300);
	EXPECT_TRUE(sroce_cwnd_rto_judge(&c, true));
	EXPECT_FALSE(sroce_cwnd_rto_dup(&c, 300));
	EXPECT_EQ(c.rto_floor_us, 8 * SROCE_CWND_RTO_MIN_US);
	// a new resend ends the watch of the last one
	sroce_cwnd_rto_fired(&c, kAt, 400);
	sroce_cwnd_rto_judge(&c, false);
	sroce_cwnd_rto_fired(&c, kAt, 500);
	EXPECT_FALSE(sroce_cwnd_rto_dup(&c, 400));
}

TEST(Cwnd, ASecondAckShowsAResendNeedless)
{
	constexpr std::uint64_t kAt = 50000000;
	// a SEND whose ACK stalled: the RTO resent it, the late ACK of the
	// first one is judged needed ...
	sroce_cwnd c = measured(1000);
	sroce_cwnd_rto_fired(&c, kAt, 100);
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, false));
	// ... until the ACK of the resend comes too: through the PSN resent
	// from or past it (the responder had more), not before it
	EXPECT_FALSE(sroce_cwnd_rto_dup_ack(&c, 99));
	EXPECT_TRUE(sroce_cwnd_rto_dup_ack(&c, 104));
	EXPECT_EQ(c.rto_floor_us, 2 * SROCE_CWND_RTO_MIN_US);
	EXPECT_FALSE(sroce_cwnd_rto_dup_ack(&c, 104));	// once
	// across the PSN space's wrap
	sroce_cwnd_rto_fired(&c, kAt, SROCE_PSN_MASK);
	sroce_cwnd_rto_judge(&c, false);
	EXPECT_TRUE(sroce_cwnd_rto_dup_ack(&c, 2));
	EXPECT_EQ(c.rto_floor_us, 4 * SROCE_CWND_RTO_MIN_US);
	// none waits after a new resend judged needless at once
	sroce_cwnd_rto_fired(&c, kAt, 300);
	EXPECT_TRUE(sroce_cwnd_rto_judge(&c, true));
	EXPECT_FALSE(sroce_cwnd_rto_dup_ack(&c, 300));
	EXPECT_EQ(c.rto_floor_us, 8 * SROCE_CWND_RTO_MIN_US);
	// the duplicates of the QP timeout's go-back are that go-back's: the
	// RTO before it is neither judged nor watched any more
	sroce_cwnd_rto_fired(&c, kAt, 400);
	sroce_cwnd_rto_forget(&c);
	EXPECT_FALSE(sroce_cwnd_rto_judge(&c, true));
	EXPECT_FALSE(sroce_cwnd_rto_dup_ack(&c, 400));
	sroce_cwnd_rto_fired(&c, kAt, 500);
	sroce_cwnd_rto_judge(&c, false);
	sroce_cwnd_rto_forget(&c);
	EXPECT_FALSE(sroce_cwnd_rto_dup_ack(&c, 500));
	EXPECT_FALSE(sroce_cwnd_rto_dup(&c, 500));
}

TEST(Cwnd, TheMinimumForgetsAnOldPath)
{
	sroce_cwnd c = measured(1000);
	// the path got slower for good: after two sample windows the
	// minimum is the new path's
	for (unsigned i = 0; i < 2 * SROCE_CWND_MIN_WIN; i++)
		sample(c, 100 + i, 5000);
	EXPECT_EQ(c.min_rtt_us, 5000u);
	EXPECT_FALSE(sroce_cwnd_queueing(&c));
}

TEST(Cwnd, QueueingMeansManyOfOurPacketsWait)
{
	EXPECT_FALSE(sroce_cwnd_queueing(&static_cast<const sroce_cwnd &>(fresh())));
	// 1024 in flight, RTT up by 1/16: 64 of them queued, not more
	EXPECT_FALSE(sroce_cwnd_queueing(&static_cast<const sroce_cwnd &>(measured(1066))));
	EXPECT_TRUE(sroce_cwnd_queueing(&static_cast<const sroce_cwnd &>(measured(1100))));
	// a small window with a long RTT: the peer's scheduling, not our queue
	EXPECT_FALSE(sroce_cwnd_queueing(&static_cast<const sroce_cwnd &>(measured(20000, 64))));
	EXPECT_TRUE(sroce_cwnd_queueing(&static_cast<const sroce_cwnd &>(measured(20000, 128))));
}

TEST(Cwnd, LossWithAQueueDrainsIt)
{
	// RTT 1.25 x the minimum: a fifth of the window waits; the window
	// drops to the rest
	sroce_cwnd c = measured(1250);
	ASSERT_TRUE(sroce_cwnd_queueing(&c));
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 5000));
	EXPECT_NEAR(c.cwnd, SROCE_CWND_MAX * 4 / 5, 4);
	EXPECT_EQ(c.ssthresh, c.cwnd);
	// a deep queue: never below half
	sroce_cwnd d = measured(8000);
	EXPECT_TRUE(sroce_cwnd_loss(&d, false, 5000));
	EXPECT_EQ(d.cwnd, SROCE_CWND_MAX / 2);
	EXPECT_EQ(d.ssthresh, SROCE_CWND_MAX / 2);
	EXPECT_EQ(d.ack_mask + 1,
		  std::min(SROCE_CWND_MAX / 2 / SROCE_CWND_ACK_DIV, SROCE_CWND_ACK_MAX));
}

TEST(Cwnd, LossWithoutRttIsTreatedAsAQueue)
{
	sroce_cwnd c = fresh();
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 5000));
	EXPECT_EQ(c.cwnd, kInit / 2);
	EXPECT_EQ(c.ssthresh, kInit / 2);
}

TEST(Cwnd, RandomLossCostsAnEighthAndSlowStartReturns)
{
	sroce_cwnd c = measured(1000, 512);
	c.ssthresh = 300;
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 5000));
	EXPECT_EQ(c.cwnd, 512u - 64);
	EXPECT_EQ(c.ssthresh, 512u);  // remembers the window it had
	// below the threshold: one PSN per PSN acknowledged
	sroce_cwnd_acked(&c, 30, 5030, 0);
	EXPECT_EQ(c.cwnd, 512u - 34);
	sroce_cwnd_acked(&c, 500, 5530, 0);
	EXPECT_EQ(c.cwnd, 512u);
}

TEST(Cwnd, HeavyLossesCloserThanAWindowAreNotRandom)
{
	sroce_cwnd c = measured(1000, 512);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1000));
	EXPECT_EQ(c.cwnd, 448u);  // random: an eighth
	// the episode resends 26 of 400 PSNs (6.5 %, over a sixteenth)
	for (int i = 0; i < 26; i++)
		sroce_cwnd_resent(&c, 1);
	sroce_cwnd_acked(&c, 400, 1000, 0);  // the episode ends, slow start
	EXPECT_FALSE(c.light);
	sroce_cwnd_acked(&c, 100, 1100, 0);  // 100 clean PSNs, less than a window
	ASSERT_EQ(c.cwnd, 948u);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1300));
	EXPECT_EQ(c.cwnd, 474u);  // a shallow buffer: halved
	EXPECT_EQ(c.ssthresh, 474u);
}

TEST(Cwnd, LightLossesCloserThanAWindowStayRandom)
{
	// 1 % random loss: a loss about once per window, each a PSN or two
	sroce_cwnd c = measured(1000, 512);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1000));
	EXPECT_EQ(c.cwnd, 448u);
	sroce_cwnd_resent(&c, 4);  // 4 of 400: a hundredth
	sroce_cwnd_acked(&c, 400, 1000, 0);
	EXPECT_TRUE(c.light);
	sroce_cwnd_acked(&c, 100, 1100, 0);
	ASSERT_EQ(c.cwnd, 948u);  // slow start
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1300));
	EXPECT_EQ(c.cwnd, 948u - 948u / 8);  // an eighth again, not half
	// its episode resends a READ's 40 responses of 80 PSNs: heavy
	sroce_cwnd_resent(&c, 40);
	sroce_cwnd_acked(&c, 80, 1380, 0);
	EXPECT_FALSE(c.light);
	const std::uint32_t before = c.cwnd;
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1500));
	EXPECT_EQ(c.cwnd, before / 2);	// the next close one halves
	EXPECT_EQ(c.ssthresh, before / 2);
}

TEST(Cwnd, ResendsBeforeAnEpisodeDoNotCount)
{
	sroce_cwnd c = measured(1000, 512);
	sroce_cwnd_resent(&c, 300);  // a timer's go-back of an earlier episode
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 1000));
	EXPECT_EQ(c.ep_resent, 0u);
	sroce_cwnd_acked(&c, 400, 1000, 0);
	EXPECT_TRUE(c.light);
}

TEST(Cwnd, OneCutPerEpisode)
{
	sroce_cwnd c = measured(8000);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 5000));
	// more NAKs for PSNs sent before the cut: the same episode
	EXPECT_FALSE(sroce_cwnd_loss(&c, false, 5200));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX / 2);
	// the episode ends once what was sent before the cut is acknowledged
	sroce_cwnd_acked(&c, 10, 5000, 0);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 5600));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX / 4);
	// a timeout always counts
	EXPECT_TRUE(sroce_cwnd_loss(&c, true, 5600));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
}

TEST(Cwnd, TimeoutRestartsAtTheFloor)
{
	sroce_cwnd c = measured(1000);
	EXPECT_TRUE(sroce_cwnd_loss(&c, true, 100));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	EXPECT_EQ(c.ssthresh, SROCE_CWND_MAX);	// no queue: slow start all the way
	EXPECT_TRUE(sroce_cwnd_open(&c, 15, 0));
	EXPECT_FALSE(sroce_cwnd_open(&c, 16, 0));
	// at the floor every SROCE_CWND_ACK_DIV-th packet asks for an ACK
	EXPECT_EQ(c.ack_mask + 1, SROCE_CWND_MIN / SROCE_CWND_ACK_DIV);
	EXPECT_FALSE(sroce_cwnd_loss(&c, true, 100));
}

TEST(Cwnd, SlowStartDoublesPerWindowUpToTheThreshold)
{
	sroce_cwnd c = measured(1000);
	sroce_cwnd_loss(&c, true, 100);	 // 16
	sroce_cwnd_acked(&c, 16, 116, 0);
	EXPECT_EQ(c.cwnd, 32u);
	EXPECT_EQ(c.ack_mask + 1, 32u / SROCE_CWND_ACK_DIV);
	sroce_cwnd_acked(&c, 32, 148, 0);
	EXPECT_EQ(c.cwnd, 64u);
	EXPECT_EQ(c.ack_mask + 1, 64u / SROCE_CWND_ACK_DIV);
	sroce_cwnd_acked(&c, 5000, 5148, 0);  // never past the maximum
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.ack_mask, SROCE_CWND_ACK_MAX - 1);
}

TEST(Cwnd, AboveTheThresholdOnePsnPerWindow)
{
	sroce_cwnd c = measured(8000);
	sroce_cwnd_loss(&c, false, 100);  // 512, threshold 512
	// the queue drained
	for (int i = 0; i < 60; i++)
		sample(c, 200 + i, 1000);
	ASSERT_FALSE(sroce_cwnd_queueing(&c));
	sroce_cwnd_acked(&c, 511, 611, 0);
	EXPECT_EQ(c.cwnd, 512u);
	sroce_cwnd_acked(&c, 1, 612, 0);
	EXPECT_EQ(c.cwnd, 513u);
	sroce_cwnd_acked(&c, 513, 1125, 0);
	EXPECT_EQ(c.cwnd, 514u);
}

TEST(Cwnd, AQueueStopsGrowthAndEndsSlowStart)
{
	sroce_cwnd c = measured(8000);
	sroce_cwnd_loss(&c, false, 100);  // 512, threshold 512
	sroce_cwnd_acked(&c, 2000, 2100, 0);
	EXPECT_EQ(c.cwnd, 512u);	     // additive increase held while queueing
	sroce_cwnd t = measured(1000, 200);  // slow start, threshold at the top
	for (int i = 0; i < 40; i++)
		sample(t, 200 + i, 8000);
	ASSERT_TRUE(sroce_cwnd_queueing(&t));
	sroce_cwnd_acked(&t, 16, 300, 0);
	EXPECT_EQ(t.cwnd, 200u);
	EXPECT_EQ(t.ssthresh, 200u);  // slow start ended where the queue began
}

TEST(Cwnd, WrapsWithThePsnSpace)
{
	const std::uint32_t start = SROCE_PSN_MASK - 5;
	sroce_cwnd c = fresh();
	sroce_cwnd_set(&c, SROCE_CWND_MAX);
	EXPECT_TRUE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_CWND_MAX - 1), start));
	EXPECT_FALSE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_CWND_MAX), start));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, start, start, false));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, sroce_psn_add(start, 63), start, false));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, sroce_psn_add(start, 64), start, false));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, sroce_psn_add(start, 65), start, false));
	// a PSN before the oldest unacknowledged one (a resend) is inside
	EXPECT_TRUE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_PSN_MASK), start));
	// timing and the episode's end across the wrap
	sample(c, start, 300);
	EXPECT_EQ(c.srtt_us, 300u);
	sroce_cwnd_loss(&c, false, sroce_psn_add(start, 10));
	sroce_cwnd_acked(&c, 12, sroce_psn_add(start, 12), 0);
	EXPECT_FALSE(c.recovering);
}

// the smallest RTT of measured() is 1000 us; a timer resends at kT
constexpr std::uint64_t kT = 50000000;

TEST(Cwnd, ASpuriousTimeoutIsUndone)
{
	// a host that stalled: the timer fired, the ACK of a packet sent
	// before the resend arrives 200 us after it, sooner than any round trip
	sroce_cwnd c = measured(1000);
	EXPECT_TRUE(sroce_cwnd_timer_loss(&c, true, 100, kT));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	EXPECT_TRUE(sroce_cwnd_wants_now(&c, 50));  // the caller reads the clock
	EXPECT_TRUE(sroce_cwnd_acked(&c, 10, 60, kT + 200 * kUs));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.ssthresh, SROCE_CWND_MAX);
	EXPECT_EQ(c.ack_mask, SROCE_CWND_ACK_MAX - 1);
	// once: the next ACK is ordinary
	EXPECT_FALSE(sroce_cwnd_wants_now(&c, 70));
	EXPECT_FALSE(sroce_cwnd_acked(&c, 10, 70, 0));
}

TEST(Cwnd, ALossAfterAnUndoneTimeoutCutsAgain)
{
	// the undo ends the resend's episode: a NAK for a packet sent before
	// the resend is a real loss, not part of a cut that never happened
	sroce_cwnd c = measured(1000);
	sroce_cwnd_timer_loss(&c, true, 100, kT);
	EXPECT_TRUE(sroce_cwnd_acked(&c, 10, 60, kT + 200 * kUs));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_FALSE(c.recovering);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false, 100));
	EXPECT_LT(c.cwnd, SROCE_CWND_MAX);
}

TEST(Cwnd, ATimeoutWhoseAckTakesARoundTripStands)
{
	sroce_cwnd c = measured(1000);
	sroce_cwnd_timer_loss(&c, true, 100, kT);
	EXPECT_FALSE(sroce_cwnd_acked(&c, 10, 60, kT + 1000 * kUs));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN + 10);	 // slow start from the floor
	EXPECT_FALSE(sroce_cwnd_wants_now(&c, 70));
	// an ACK without progress decides nothing
	sroce_cwnd d = measured(1000);
	sroce_cwnd_timer_loss(&d, true, 100, kT);
	EXPECT_FALSE(sroce_cwnd_acked(&d, 0, 50, kT + 100 * kUs));
	EXPECT_TRUE(sroce_cwnd_acked(&d, 1, 51, kT + 150 * kUs));
	EXPECT_EQ(d.cwnd, SROCE_CWND_MAX);
}

TEST(Cwnd, OnlyTheLastTimerResendIsUndone)
{
	// the RTO cut first (a random loss: an eighth), then the timeout; the
	// ACK proves only the timeout's resend spurious
	sroce_cwnd c = measured(1000, 512);
	EXPECT_TRUE(sroce_cwnd_timer_loss(&c, false, 100, kT));
	EXPECT_EQ(c.cwnd, 448u);
	EXPECT_TRUE(sroce_cwnd_timer_loss(&c, true, 100, kT + 60000 * kUs));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	EXPECT_TRUE(sroce_cwnd_acked(&c, 10, 60, kT + 60100 * kUs));
	EXPECT_EQ(c.cwnd, 448u + 10);  // and slow start on from there
	EXPECT_EQ(c.ssthresh, SROCE_CWND_MAX);
}

TEST(Cwnd, ALossAfterTheResendEndsItsUndo)
{
	// a NAK after the timeout: packets were lost, the cut stands
	sroce_cwnd c = measured(1000);
	sroce_cwnd_timer_loss(&c, true, 100, kT);
	sroce_cwnd_loss(&c, false, 100);
	EXPECT_FALSE(sroce_cwnd_wants_now(&c, 50));
	EXPECT_FALSE(sroce_cwnd_acked(&c, 10, 60, kT + 100 * kUs));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN + 10);
	// nothing measured: no resend can be told spurious
	sroce_cwnd f = fresh();
	sroce_cwnd_timer_loss(&f, true, 100, kT);
	EXPECT_FALSE(sroce_cwnd_wants_now(&f, 50));
	EXPECT_FALSE(sroce_cwnd_acked(&f, 10, 60, kT + 1));
	EXPECT_EQ(f.cwnd, SROCE_CWND_MIN + 10);
}

}  // namespace

TEST(Cwnd, TheBoundsAreBytesInPathMtuPackets)
{
	// 4096 bytes (a 9000-byte wire): 128 KiB to start, 1 MiB at most, 64 KiB of queue
	sroce_cwnd c = fresh(4096);
	EXPECT_EQ(c.cwnd, 32u);
	EXPECT_EQ(c.max, 256u);
	EXPECT_EQ(c.ssthresh, 256u);
	EXPECT_EQ(c.queue_pkts, 16u);
	EXPECT_FALSE(sroce_cwnd_open(&c, 100 + 32, 100));
	sroce_cwnd_acked(&c, 5000, 5000, 0);
	EXPECT_EQ(c.cwnd, 256u);  // slow start stops at the byte bound
	EXPECT_FALSE(sroce_cwnd_open(&c, 100 + 256, 100));
	sroce_cwnd_set(&c, 4000);
	EXPECT_EQ(c.cwnd, 256u);
	// 2048 bytes: half of 1024's
	c = fresh(2048);
	EXPECT_EQ(c.cwnd, 64u);
	EXPECT_EQ(c.max, 512u);
	EXPECT_EQ(c.queue_pkts, 32u);
	// 256 bytes: more packets for the same bytes, never past SROCE_CWND_MAX PSNs
	c = fresh(256);
	EXPECT_EQ(c.cwnd, 512u);
	EXPECT_EQ(c.max, SROCE_CWND_MAX);
	EXPECT_EQ(c.queue_pkts, 256u);
	// no MTU: the largest window from the start, no queue
	c = fresh(0);
	EXPECT_EQ(c.max, SROCE_CWND_MAX);
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.queue_pkts, SROCE_CWND_MAX);
}

TEST(Cwnd, TheUnitFollowsThePacketsSize)
{
	sroce_cwnd c = fresh(4096);
	EXPECT_EQ(c.unit, 4096u);
	// 64-byte messages: within eight packets the PSN bounds of a 1024-byte MTU
	for (int i = 0; i < 8; i++)
		sroce_cwnd_pkt(&c, 64);
	EXPECT_EQ(c.unit, SROCE_CWND_UNIT_MIN);
	EXPECT_EQ(c.max, SROCE_CWND_MAX);
	EXPECT_EQ(c.ssthresh, SROCE_CWND_MAX);	// no loss yet: the threshold follows
	EXPECT_EQ(c.queue_pkts, kQueue);
	sroce_cwnd_acked(&c, 5000, 5000, 0);
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	// full packets again: back to 4096 bytes per PSN, the window clamped
	for (int i = 0; i < 12; i++)
		sroce_cwnd_pkt(&c, 4096);
	EXPECT_EQ(c.unit, 4096u);
	EXPECT_EQ(c.max, 256u);
	EXPECT_EQ(c.cwnd, 256u);
	EXPECT_EQ(c.ssthresh, 256u);
	// a threshold a loss set below the bound stays
	sroce_cwnd_loss(&c, false, 0);
	std::uint32_t t = c.ssthresh;
	ASSERT_LT(t, 256u);
	for (int i = 0; i < 12; i++)
		sroce_cwnd_pkt(&c, 64);
	EXPECT_EQ(c.max, SROCE_CWND_MAX);
	EXPECT_EQ(c.ssthresh, t);
	// half-full packets (3000 bytes) count 2048
	for (int i = 0; i < 40; i++)
		sroce_cwnd_pkt(&c, 3000);
	EXPECT_EQ(c.unit, 2048u);
	// a 1024-byte MTU never moves (loss_window=N's window); no MTU neither
	for (std::uint32_t mtu : {1024u, 0u}) {
		sroce_cwnd d = fresh(mtu);
		std::uint32_t max = d.max;
		for (int i = 0; i < 12; i++)
			sroce_cwnd_pkt(&d, 64);
		EXPECT_EQ(d.max, max) << mtu;
	}
	// below 1024 bytes the path MTU is the unit
	c = fresh(256);
	for (int i = 0; i < 12; i++)
		sroce_cwnd_pkt(&c, 64);
	EXPECT_EQ(c.unit, 256u);
}

TEST(Cwnd, WideSegmentsCountTheirBytes)
{
	// path MTU 4096, 7168-byte segments allowed: 4096's bounds until they go
	sroce_cwnd c{};
	sroce_cwnd_init(&c, 4096, 7168);
	EXPECT_EQ(c.unit, 4096u);
	EXPECT_EQ(c.cwnd, 32u);
	EXPECT_EQ(c.max, 256u);
	for (int i = 0; i < 4; i++)
		sroce_cwnd_pkt(&c, 4096);
	EXPECT_EQ(c.unit, 4096u);
	// a peer that takes them: counted as 8192, the same bytes in half the PSNs
	for (int i = 0; i < 16; i++)
		sroce_cwnd_pkt(&c, 7168);
	EXPECT_EQ(c.unit, 8192u);
	EXPECT_EQ(c.max, 128u);
	EXPECT_LE(c.cwnd, 128u);
	EXPECT_EQ(c.queue_pkts, 8u);
	// without the cap (no wide segments) 7168 would never count past 4096
	sroce_cwnd d = fresh(4096);
	for (int i = 0; i < 16; i++)
		sroce_cwnd_pkt(&d, 7168);
	EXPECT_EQ(d.unit, 4096u);
	// 1408-byte segments at path MTU 1024 keep 1024's bounds
	sroce_cwnd e{};
	sroce_cwnd_init(&e, 1024, 1408);
	EXPECT_EQ(e.unit, 1024u);
	EXPECT_EQ(e.cwnd, 128u);
	EXPECT_EQ(e.max, SROCE_CWND_MAX);
	for (int i = 0; i < 12; i++)
		sroce_cwnd_pkt(&e, 1408);
	EXPECT_EQ(e.unit, 1024u);
	EXPECT_EQ(e.max, SROCE_CWND_MAX);
}

TEST(Cwnd, AQueueIsBytesWhateverTheMtu)
{
	// 256 PSNs whose RTT is a tenth above the smallest: 23 packets wait,
	// 23 KiB at 1024 bytes (no queue), 92 KiB at 4096 (a queue)
	for (std::uint32_t mtu : {1024u, 4096u}) {
		sroce_cwnd c = fresh(mtu);
		sroce_cwnd_set(&c, 256);
		sample(c, 0, 1000);
		for (int i = 0; i < 40; i++)
			sample(c, 1 + i, 1100);
		EXPECT_EQ(sroce_cwnd_queueing(&c), mtu == 4096) << mtu;
	}
}
