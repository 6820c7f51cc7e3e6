// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show` output formats; the JSON schema is a stable interface.
#include <gtest/gtest.h>

#include "render.h"

namespace {

sroce::DeviceView sample()
{
	sroce::DeviceView d;
	d.name = "sroce0";
	d.index = 3;
	d.node_guid = "5054:00ff:fe12:3456";
	d.port = 1;
	d.state = "ACTIVE";
	d.physical_state = "LINK_UP";
	d.netdev = "eth0";
	d.netdev_index = 2;
	d.netdev_mtu = 1500;
	d.active_mtu = 1024;
	d.gids = {
		{0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", std::nullopt},
		{1, "0000:0000:0000:0000:0000:ffff:c0a8:0102", "RoCE v2", "192.168.1.2"},
	};
	return d;
}

TEST(RenderJson, EmptyList)
{
	EXPECT_EQ(sroce::render_json({}), "[]\n");
}

TEST(RenderJson, Schema)
{
	const sroce::DeviceView d[] = {sample()};
	EXPECT_EQ(
		sroce::render_json(d),
		R"([{"ifname":"sroce0","ifindex":3,"node_guid":"5054:00ff:fe12:3456","port":1,)"
		R"("state":"ACTIVE","physical_state":"LINK_UP","netdev":"eth0","netdev_index":2,)"
		R"("netdev_mtu":1500,"active_mtu":1024,"gids":[)"
		R"({"index":0,"gid":"fe80:0000:0000:0000:5054:00ff:fe12:3456","type":"RoCE v2","ipv4":null},)"
		R"({"index":1,"gid":"0000:0000:0000:0000:0000:ffff:c0a8:0102","type":"RoCE v2","ipv4":"192.168.1.2"}]}])"
		"\n");
}

TEST(RenderJson, AbsentValuesAreNull)
{
	sroce::DeviceView d = sample();
	d.name = "we\"ird";
	d.netdev.reset();
	d.netdev_index.reset();
	d.netdev_mtu.reset();
	d.active_mtu.reset();
	d.gids.clear();
	const sroce::DeviceView two[] = {d, d};
	EXPECT_EQ(
		sroce::render_json(two),
		R"([{"ifname":"we\"ird","ifindex":3,"node_guid":"5054:00ff:fe12:3456","port":1,)"
		R"("state":"ACTIVE","physical_state":"LINK_UP","netdev":null,"netdev_index":null,)"
		R"("netdev_mtu":null,"active_mtu":null,"gids":[]},)"
		R"({"ifname":"we\"ird","ifindex":3,"node_guid":"5054:00ff:fe12:3456","port":1,)"
		R"("state":"ACTIVE","physical_state":"LINK_UP","netdev":null,"netdev_index":null,)"
		R"("netdev_mtu":null,"active_mtu":null,"gids":[]}])"
		"\n");
}

TEST(RenderHuman, EmptyList)
{
	EXPECT_EQ(sroce::render_human({}), "");
}

TEST(RenderHuman, Device)
{
	const sroce::DeviceView d[] = {sample()};
	EXPECT_EQ(
		sroce::render_human(d),
		"3: sroce0: node_guid 5054:00ff:fe12:3456\n"
		"    link sroce0/1 state ACTIVE physical_state LINK_UP netdev eth0 netdev_index 2\n"
		"    mtu 1500 active_mtu 1024\n"
		"    gid 0 fe80:0000:0000:0000:5054:00ff:fe12:3456 RoCE v2\n"
		"    gid 1 0000:0000:0000:0000:0000:ffff:c0a8:0102 RoCE v2 ipv4 192.168.1.2\n");
}

TEST(RenderHuman, DeviceWithoutNetdev)
{
	sroce::DeviceView d = sample();
	d.netdev.reset();
	d.netdev_index.reset();
	d.netdev_mtu.reset();
	d.active_mtu.reset();
	d.gids = {{4, "fe80:0000:0000:0000:0000:0000:0000:0001", std::nullopt, std::nullopt}};
	const sroce::DeviceView one[] = {d};
	EXPECT_EQ(sroce::render_human(one),
		  "3: sroce0: node_guid 5054:00ff:fe12:3456\n"
		  "    link sroce0/1 state ACTIVE physical_state LINK_UP\n"
		  "    mtu - active_mtu -\n"
		  "    gid 4 fe80:0000:0000:0000:0000:0000:0000:0001 -\n");
}

TEST(RenderLinks, HumanAsRdmaLinkShow)
{
	sroce::DeviceView bare = sample();
	bare.name = "sroce1";
	bare.index = 4;
	bare.netdev.reset();
	bare.netdev_index.reset();
	const sroce::DeviceView d[] = {sample(), bare};
	EXPECT_EQ(sroce::render_links_human(d, false),
		  "3/1: sroce0/1: state ACTIVE physical_state LINK_UP netdev eth0\n"
		  "4/1: sroce1/1: state ACTIVE physical_state LINK_UP\n");
	EXPECT_EQ(sroce::render_links_human(d, true),
		  "3/1: sroce0/1: state ACTIVE physical_state LINK_UP netdev eth0 netdev_index 2\n"
		  "4/1: sroce1/1: state ACTIVE physical_state LINK_UP\n");
	EXPECT_EQ(sroce::render_links_human({}, true), "");
}

TEST(RenderLinks, JsonKeysOfRdma)
{
	sroce::DeviceView bare = sample();
	bare.netdev.reset();
	bare.netdev_index.reset();
	const sroce::DeviceView d[] = {sample(), bare};
	EXPECT_EQ(sroce::render_links_json(d),
		  R"([{"ifindex":3,"ifname":"sroce0","port":1,"state":"ACTIVE",)"
		  R"("physical_state":"LINK_UP","netdev":"eth0","netdev_index":2},)"
		  R"({"ifindex":3,"ifname":"sroce0","port":1,"state":"ACTIVE",)"
		  R"("physical_state":"LINK_UP"}])"
		  "\n");
	EXPECT_EQ(sroce::render_links_json({}), "[]\n");
}

TEST(RenderStats, HumanAndJson)
{
	const sroce::StatView s[] = {{3, "sroce0", 1, {{"rx_pkts", 7}, {"tx_pkts", 1ull << 40}}},
				     {4, "sroce1", 1, {}}};
	EXPECT_EQ(sroce::render_stats_human(s), "link sroce0/1 rx_pkts 7 tx_pkts 1099511627776\n"
						"link sroce1/1\n");
	EXPECT_EQ(sroce::render_stats_json(s),
		  R"([{"ifname":"sroce0","port":1,"rx_pkts":7,"tx_pkts":1099511627776},)"
		  R"({"ifname":"sroce1","port":1}])"
		  "\n");
	EXPECT_EQ(sroce::render_stats_json({}), "[]\n");
}

}  // namespace
