// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The shared protocol core (kernel/proto/sroce_gid.c, compiled as C).
#include <array>
#include <climits>
#include <cstdint>

#include <gtest/gtest.h>

#include "sroce_proto.h"

namespace {

using Bytes8 = std::array<std::uint8_t, 8>;

Bytes8 eui64(std::array<std::uint8_t, 6> mac)
{
	Bytes8 eui{};
	sroce_eui64_from_mac(eui.data(), mac.data());
	return eui;
}

TEST(Eui64, QemuMac)
{
	EXPECT_EQ(eui64({0x52, 0x54, 0x00, 0x12, 0x34, 0x56}),
		  (Bytes8{0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56}));
}

TEST(Eui64, UniversalLocalBitFlipsBothWays)
{
	// Universally administered (U/L bit clear) -> bit set in the EUI-64.
	EXPECT_EQ(eui64({0x00, 0x1b, 0x21, 0xaa, 0xbb, 0xcc})[0], 0x02);
	// Locally administered (U/L bit set) -> bit clear.
	EXPECT_EQ(eui64({0x02, 0x00, 0x00, 0x00, 0x00, 0x01})[0], 0x00);
	// Other bits of the first octet are untouched.
	EXPECT_EQ(eui64({0xfd, 0, 0, 0, 0, 0})[0], 0xff);
	EXPECT_EQ(eui64({0xff, 0, 0, 0, 0, 0})[0], 0xfd);
}

TEST(Eui64, AllOnesAndZeros)
{
	EXPECT_EQ(eui64({0, 0, 0, 0, 0, 0}), (Bytes8{0x02, 0, 0, 0xff, 0xfe, 0, 0, 0}));
	EXPECT_EQ(eui64({0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
		  (Bytes8{0xfd, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff}));
}

TEST(IbMtu, OverheadIsRoceV2WorstCase)
{
	EXPECT_EQ(SROCE_MAX_OVERHEAD, 40 + 8 + 12 + 16 + 4 + 4);
}

TEST(IbMtu, CommonNetdevMtus)
{
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(1500), SROCE_IB_MTU_1024);
	EXPECT_EQ(SROCE_IB_MTU_1024, 3);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(9000), SROCE_IB_MTU_4096);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(4200), SROCE_IB_MTU_4096);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(4000), SROCE_IB_MTU_2048);
}

TEST(IbMtu, ExactThresholds)
{
	const unsigned o = SROCE_MAX_OVERHEAD;
	const struct {
		unsigned bytes;
		int mtu;
		int below;
	} cases[] = {
		{256, SROCE_IB_MTU_256, 0},
		{512, SROCE_IB_MTU_512, SROCE_IB_MTU_256},
		{1024, SROCE_IB_MTU_1024, SROCE_IB_MTU_512},
		{2048, SROCE_IB_MTU_2048, SROCE_IB_MTU_1024},
		{4096, SROCE_IB_MTU_4096, SROCE_IB_MTU_2048},
	};
	for (const auto &c : cases) {
		SCOPED_TRACE(c.bytes);
		EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(o + c.bytes), c.mtu);
		EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(o + c.bytes - 1), c.below);
	}
}

TEST(IbMtu, TinyAndHugeValues)
{
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(0), 0);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(1), 0);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(SROCE_MAX_OVERHEAD - 1), 0);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(SROCE_MAX_OVERHEAD), 0);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(68), 0);	 // IPv4 minimum MTU
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(65535), SROCE_IB_MTU_4096);
	EXPECT_EQ(sroce_ib_mtu_from_netdev_mtu(UINT_MAX), SROCE_IB_MTU_4096);
}

TEST(IbMtuBytes, ValidValues)
{
	EXPECT_EQ(sroce_ib_mtu_bytes(SROCE_IB_MTU_256), 256u);
	EXPECT_EQ(sroce_ib_mtu_bytes(SROCE_IB_MTU_512), 512u);
	EXPECT_EQ(sroce_ib_mtu_bytes(SROCE_IB_MTU_1024), 1024u);
	EXPECT_EQ(sroce_ib_mtu_bytes(SROCE_IB_MTU_2048), 2048u);
	EXPECT_EQ(sroce_ib_mtu_bytes(SROCE_IB_MTU_4096), 4096u);
}

TEST(IbMtuBytes, InvalidValues)
{
	EXPECT_EQ(sroce_ib_mtu_bytes(0), 0u);
	EXPECT_EQ(sroce_ib_mtu_bytes(6), 0u);
	EXPECT_EQ(sroce_ib_mtu_bytes(-1), 0u);
	EXPECT_EQ(sroce_ib_mtu_bytes(INT_MIN), 0u);
	EXPECT_EQ(sroce_ib_mtu_bytes(INT_MAX), 0u);
}

}  // namespace
