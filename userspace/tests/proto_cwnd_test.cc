// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The requester's loss window (kernel/proto/sroce_cwnd.h, compiled as C
// into sroce.ko): how losses shrink it, how ACKs open it again, and the
// AckReq interval that keeps a small window moving.
#include <cstdint>

#include <gtest/gtest.h>

#include "sroce_cwnd.h"
#include "sroce_psn.h"

namespace {

sroce_cwnd fresh()
{
	sroce_cwnd c{};
	sroce_cwnd_init(&c);
	return c;
}

TEST(Cwnd, StartsWideOpenWithTheUsualAckInterval)
{
	const sroce_cwnd c = fresh();
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.ack_mask, SROCE_CWND_ACK_MAX - 1);
	EXPECT_TRUE(sroce_cwnd_open(&c, 100 + SROCE_CWND_MAX - 1, 100));
	EXPECT_FALSE(sroce_cwnd_open(&c, 100 + SROCE_CWND_MAX, 100));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 100, 100));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, 101, 100));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 164, 100));
	// the packet that fills the window asks too
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 100 + SROCE_CWND_MAX - 1, 100));
}

TEST(Cwnd, EachLossHalvesDownToTheFloor)
{
	sroce_cwnd c = fresh();
	EXPECT_TRUE(sroce_cwnd_loss(&c, false));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX / 2);
	EXPECT_EQ(c.ack_mask + 1, SROCE_CWND_MAX / 2 / SROCE_CWND_ACK_DIV);
	EXPECT_TRUE(sroce_cwnd_loss(&c, false));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX / 4);
	for (int i = 0; i < 10; i++)
		sroce_cwnd_loss(&c, false);
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	EXPECT_FALSE(sroce_cwnd_loss(&c, false));
	EXPECT_FALSE(sroce_cwnd_loss(&c, true));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	// at the floor every packet asks for an ACK
	EXPECT_EQ(c.ack_mask, 0u);
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, 7, 3));
}

TEST(Cwnd, TimeoutRestartsAtTheFloor)
{
	sroce_cwnd c = fresh();
	EXPECT_TRUE(sroce_cwnd_loss(&c, true));
	EXPECT_EQ(c.cwnd, SROCE_CWND_MIN);
	EXPECT_TRUE(sroce_cwnd_open(&c, 15, 0));
	EXPECT_FALSE(sroce_cwnd_open(&c, 16, 0));
}

TEST(Cwnd, DoublesPerWindowAcknowledged)
{
	sroce_cwnd c = fresh();
	sroce_cwnd_loss(&c, true);  // 16
	sroce_cwnd_acked(&c, 16);
	EXPECT_EQ(c.cwnd, 32u);
	EXPECT_EQ(c.ack_mask + 1, 2u);
	sroce_cwnd_acked(&c, 32);
	EXPECT_EQ(c.cwnd, 64u);
	EXPECT_EQ(c.ack_mask + 1, 4u);
	sroce_cwnd_acked(&c, 5000);  // never past the maximum
	EXPECT_EQ(c.cwnd, SROCE_CWND_MAX);
	EXPECT_EQ(c.ack_mask, SROCE_CWND_ACK_MAX - 1);
}

TEST(Cwnd, WrapsWithThePsnSpace)
{
	const std::uint32_t start = SROCE_PSN_MASK - 5;
	sroce_cwnd c = fresh();
	EXPECT_TRUE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_CWND_MAX - 1), start));
	EXPECT_FALSE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_CWND_MAX), start));
	EXPECT_TRUE(sroce_cwnd_ack_req(&c, sroce_psn_add(start, 64), start));
	EXPECT_FALSE(sroce_cwnd_ack_req(&c, sroce_psn_add(start, 65), start));
	// a PSN before the oldest unacknowledged one (a resend) is inside
	EXPECT_TRUE(sroce_cwnd_open(&c, sroce_psn_add(start, SROCE_PSN_MASK), start));
}

}  // namespace
