// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <gtest/gtest.h>

#include "gid.h"

namespace {

using sroce::Gid;

const Gid kLinkLocal = {0xfe, 0x80, 0,	  0,	0,    0,    0,	  0,
			0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};
const Gid kMapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 20};

TEST(Gid, FormatsAsSysfs)
{
	EXPECT_EQ(sroce::format_gid(kLinkLocal), "fe80:0000:0000:0000:5054:00ff:fe12:3456");
	EXPECT_EQ(sroce::format_gid(kMapped), "0000:0000:0000:0000:0000:ffff:c0a8:0114");
	EXPECT_EQ(sroce::format_gid(Gid{}), "0000:0000:0000:0000:0000:0000:0000:0000");
}

TEST(Gid, ParsesSysfsText)
{
	EXPECT_EQ(sroce::parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:3456\n"), kLinkLocal);
	EXPECT_EQ(sroce::parse_gid("FE80:0000:0000:0000:5054:00FF:FE12:3456"), kLinkLocal);
	EXPECT_EQ(sroce::parse_gid(sroce::format_gid(kMapped)), kMapped);
}

TEST(Gid, RejectsMalformedText)
{
	EXPECT_FALSE(sroce::parse_gid(""));
	EXPECT_FALSE(sroce::parse_gid("fe80::1"));
	EXPECT_FALSE(sroce::parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:345"));
	EXPECT_FALSE(sroce::parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:34567"));
	EXPECT_FALSE(sroce::parse_gid("fe80-0000:0000:0000:5054:00ff:fe12:3456"));
	EXPECT_FALSE(sroce::parse_gid("fe80:0000:0000:0000:5054:00ff:fe12:345g"));
}

TEST(Gid, ZeroDetection)
{
	EXPECT_TRUE(sroce::is_zero_gid(Gid{}));
	EXPECT_FALSE(sroce::is_zero_gid(kLinkLocal));
	Gid last{};
	last[15] = 1;
	EXPECT_FALSE(sroce::is_zero_gid(last));
}

TEST(Gid, Ipv4MappedDetection)
{
	EXPECT_EQ(sroce::gid_ipv4(kMapped), "192.168.1.20");
	EXPECT_EQ(sroce::gid_ipv4(Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}),
		  "0.0.0.0");
	EXPECT_FALSE(sroce::gid_ipv4(kLinkLocal));
	EXPECT_FALSE(sroce::gid_ipv4(Gid{}));
	// IPv4-compatible (no ffff) and near misses are not IPv4-mapped.
	EXPECT_FALSE(sroce::gid_ipv4(Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1}));
	EXPECT_FALSE(sroce::gid_ipv4(Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 10, 0, 0, 1}));
	EXPECT_FALSE(sroce::gid_ipv4(Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 10, 0, 0, 1}));
}

TEST(Guid, FormatsLikeRdmaTool)
{
	EXPECT_EQ(sroce::format_guid(0x505400fffe123456ull), "5054:00ff:fe12:3456");
	EXPECT_EQ(sroce::format_guid(0), "0000:0000:0000:0000");
	EXPECT_EQ(sroce::format_guid(~0ull), "ffff:ffff:ffff:ffff");
}

}  // namespace
