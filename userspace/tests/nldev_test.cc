// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// nldev request encoding and reply decoding, checked against the wire
// format (hand-built byte buffers as the kernel would send them).
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <netlink/attr.h>

#include "nldev.h"
#include "wire_msg.h"

namespace {

namespace nldev = sroce::nldev;

// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV = 5, cmd): fixed kernel ABI.
constexpr std::uint16_t kTypeGet = 0x1401;
constexpr std::uint16_t kTypeNewlink = 0x1403;
constexpr std::uint16_t kTypeDellink = 0x1404;
constexpr std::uint16_t kTypePortGet = 0x1405;

using sroce::test::WireMsg;
using sroce::test::hdr;

// All attributes of a libnl-built request, by type (no policy).
std::vector<nlattr *> attrs_of(nl_msg *msg)
{
	std::vector<nlattr *> tb(RDMA_NLDEV_ATTR_MAX, nullptr);
	EXPECT_EQ(nlmsg_parse(nlmsg_hdr(msg), 0, tb.data(), RDMA_NLDEV_ATTR_MAX - 1, nullptr), 0);
	return tb;
}

int attr_count(nl_msg *msg)
{
	nlmsghdr *h = nlmsg_hdr(msg);
	int n = 0, rem;
	nlattr *a;
	nla_for_each_attr(a, nlmsg_attrdata(h, 0), nlmsg_attrlen(h, 0), rem)
		n++;
	return n;
}

std::string string_attr(const nlattr *a)
{
	EXPECT_NE(a, nullptr);
	if (!a)
		return {};
	// Must be NUL-terminated: the kernel policy is NLA_NUL_STRING.
	const char *p = static_cast<const char *>(nla_data(a));
	EXPECT_EQ(p[nla_len(a) - 1], '\0');
	return std::string(p, nla_len(a) - 1);
}

TEST(NldevEncode, MessageTypesMatchKernelAbi)
{
	EXPECT_EQ(nldev::msg_type(RDMA_NLDEV_CMD_GET), kTypeGet);
	EXPECT_EQ(nldev::msg_type(RDMA_NLDEV_CMD_NEWLINK), kTypeNewlink);
	EXPECT_EQ(nldev::msg_type(RDMA_NLDEV_CMD_DELLINK), kTypeDellink);
	EXPECT_EQ(nldev::msg_type(RDMA_NLDEV_CMD_PORT_GET), kTypePortGet);
}

TEST(NldevEncode, Newlink)
{
	auto msg = nldev::build_newlink("sroce0", "eth0");
	ASSERT_TRUE(msg) << msg.error();
	nlmsghdr *h = nlmsg_hdr(msg->get());
	EXPECT_EQ(h->nlmsg_type, kTypeNewlink);
	EXPECT_EQ(h->nlmsg_flags & (NLM_F_REQUEST | NLM_F_ACK), NLM_F_REQUEST | NLM_F_ACK);
	EXPECT_FALSE(h->nlmsg_flags & NLM_F_DUMP);
	auto tb = attrs_of(msg->get());
	EXPECT_EQ(string_attr(tb[RDMA_NLDEV_ATTR_DEV_NAME]), "sroce0");
	EXPECT_EQ(string_attr(tb[RDMA_NLDEV_ATTR_LINK_TYPE]), "sroce");
	EXPECT_EQ(string_attr(tb[RDMA_NLDEV_ATTR_NDEV_NAME]), "eth0");
	EXPECT_EQ(attr_count(msg->get()), 3);
}

TEST(NldevEncode, NewlinkNameLimits)
{
	const std::string dev63(63, 'd'), netdev15(15, 'n');
	EXPECT_TRUE(nldev::build_newlink(dev63, netdev15));
	EXPECT_EQ(nldev::build_newlink(dev63 + "d", "eth0").error(), EINVAL);
	EXPECT_EQ(nldev::build_newlink("sroce0", netdev15 + "n").error(), EINVAL);
	EXPECT_EQ(nldev::build_newlink("", "eth0").error(), EINVAL);
	EXPECT_EQ(nldev::build_newlink("sroce0", "").error(), EINVAL);

	auto msg = nldev::build_newlink(dev63, netdev15);
	auto tb = attrs_of(msg->get());
	EXPECT_EQ(string_attr(tb[RDMA_NLDEV_ATTR_DEV_NAME]), dev63);
	EXPECT_EQ(string_attr(tb[RDMA_NLDEV_ATTR_NDEV_NAME]), netdev15);
}

TEST(NldevEncode, Dellink)
{
	auto msg = nldev::build_dellink(7);
	ASSERT_TRUE(msg);
	nlmsghdr *h = nlmsg_hdr(msg->get());
	EXPECT_EQ(h->nlmsg_type, kTypeDellink);
	EXPECT_TRUE(h->nlmsg_flags & NLM_F_ACK);
	auto tb = attrs_of(msg->get());
	ASSERT_NE(tb[RDMA_NLDEV_ATTR_DEV_INDEX], nullptr);
	EXPECT_EQ(nla_len(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 4);
	EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7u);
	EXPECT_EQ(attr_count(msg->get()), 1);
}

TEST(NldevEncode, GetDump)
{
	auto msg = nldev::build_get_dump();
	ASSERT_TRUE(msg);
	nlmsghdr *h = nlmsg_hdr(msg->get());
	EXPECT_EQ(h->nlmsg_type, kTypeGet);
	EXPECT_EQ(h->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
	EXPECT_EQ(nlmsg_datalen(h), 0);
}

TEST(NldevEncode, PortGet)
{
	auto msg = nldev::build_port_get(3, 1);
	ASSERT_TRUE(msg);
	nlmsghdr *h = nlmsg_hdr(msg->get());
	EXPECT_EQ(h->nlmsg_type, kTypePortGet);
	EXPECT_FALSE(h->nlmsg_flags & NLM_F_DUMP);
	auto tb = attrs_of(msg->get());
	EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 3u);
	EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]), 1u);
	EXPECT_EQ(attr_count(msg->get()), 2);
}

WireMsg device_reply(std::uint32_t index, const std::string &name, std::uint64_t guid)
{
	WireMsg m(kTypeGet, NLM_F_MULTI);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index)
		.str(RDMA_NLDEV_ATTR_DEV_NAME, name)
		.u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
		.u64_padded(RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234)
		.str(RDMA_NLDEV_ATTR_FW_VERSION, "1.0.0")
		.u64_padded(RDMA_NLDEV_ATTR_NODE_GUID, guid)
		.u64_padded(RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, guid)
		.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1)
		.str(RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	return m;
}

TEST(NldevDecode, DeviceReply)
{
	auto b = device_reply(3, "sroce0", 0x505400fffe123456ull).bytes();
	auto d = nldev::parse_device(hdr(b));
	ASSERT_TRUE(d) << d.error();
	EXPECT_EQ(d->index, 3u);
	EXPECT_EQ(d->name, "sroce0");
	EXPECT_EQ(d->num_ports, 1u);
	EXPECT_EQ(d->node_guid, 0x505400fffe123456ull);
	EXPECT_EQ(d->protocol, "roce");
}

TEST(NldevDecode, DumpReplyBuffer)
{
	// What one recv() of a dump returns: two devices, then NLMSG_DONE.
	std::vector<std::uint8_t> buf;
	for (const auto &m : {device_reply(0, "rxe0", 1), device_reply(5, "sroce1", 2)}) {
		auto b = m.bytes();
		buf.insert(buf.end(), b.begin(), b.end());
	}
	WireMsg done(NLMSG_DONE, NLM_F_MULTI);
	std::int32_t zero = 0;
	auto d = done.bytes();
	d.insert(d.end(), reinterpret_cast<std::uint8_t *>(&zero),
		 reinterpret_cast<std::uint8_t *>(&zero) + 4);
	std::uint32_t dlen = static_cast<std::uint32_t>(d.size());
	std::memcpy(d.data(), &dlen, 4);
	buf.insert(buf.end(), d.begin(), d.end());

	std::vector<nldev::Device> devs;
	auto *h = reinterpret_cast<nlmsghdr *>(buf.data());
	int rem = static_cast<int>(buf.size());
	bool saw_done = false;
	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		if (h->nlmsg_type == NLMSG_DONE) {
			saw_done = true;
			break;
		}
		auto dev = nldev::parse_device(*h);
		ASSERT_TRUE(dev) << dev.error();
		devs.push_back(*dev);
	}
	EXPECT_TRUE(saw_done);
	ASSERT_EQ(devs.size(), 2u);
	EXPECT_EQ(devs[0].name, "rxe0");
	EXPECT_EQ(devs[0].node_guid, 1u);
	EXPECT_EQ(devs[1].index, 5u);
	EXPECT_EQ(devs[1].name, "sroce1");
}

TEST(NldevDecode, IgnoresUnknownAndNewerAttributes)
{
	std::uint32_t junk = 0xdeadbeef;
	WireMsg m(kTypeGet);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 9)
		.attr(RDMA_NLDEV_ATTR_MAX + 20, &junk, 4)  // from a newer kernel
		.attr(RDMA_NLDEV_ATTR_DEV_DIM | NLA_F_NESTED, &junk, 4)
		.str(RDMA_NLDEV_ATTR_DEV_NAME, "x");
	auto b = m.bytes();
	auto d = nldev::parse_device(hdr(b));
	ASSERT_TRUE(d) << d.error();
	EXPECT_EQ(d->index, 9u);
	EXPECT_EQ(d->name, "x");
	EXPECT_EQ(d->num_ports, 0u);
	EXPECT_EQ(d->node_guid, 0u);
	EXPECT_FALSE(d->protocol);
}

TEST(NldevDecode, RejectsWrongMessageType)
{
	auto b = device_reply(1, "sroce0", 0).bytes();
	reinterpret_cast<nlmsghdr *>(b.data())->nlmsg_type = kTypePortGet;
	EXPECT_EQ(nldev::parse_device(hdr(b)).error(), EPROTO);
	auto newlink = device_reply(1, "a", 0).bytes();
	reinterpret_cast<nlmsghdr *>(newlink.data())->nlmsg_type =
		RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	EXPECT_EQ(nldev::parse_port(hdr(newlink)).error(), EPROTO);
}

TEST(NldevDecode, PortReplyTypedAsGet)
{
	// Linux answers a single PORT_GET request with a message typed
	// RDMA_NLDEV_CMD_GET (only dump entries are typed PORT_GET).
	auto b = WireMsg(kTypeGet)
			 .u32(RDMA_NLDEV_ATTR_DEV_INDEX, 3)
			 .u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
			 .u8(RDMA_NLDEV_ATTR_PORT_STATE, 4)
			 .bytes();
	auto p = nldev::parse_port(hdr(b));
	ASSERT_TRUE(p) << p.error();
	EXPECT_EQ(p->port, 1u);
	EXPECT_EQ(nldev::port_state_name(p->state), "ACTIVE");
}

TEST(NldevDecode, RejectsMissingRequiredAttributes)
{
	auto no_name = WireMsg(kTypeGet).u32(RDMA_NLDEV_ATTR_DEV_INDEX, 1).bytes();
	EXPECT_EQ(nldev::parse_device(hdr(no_name)).error(), EINVAL);
	auto no_index = WireMsg(kTypeGet).str(RDMA_NLDEV_ATTR_DEV_NAME, "a").bytes();
	EXPECT_EQ(nldev::parse_device(hdr(no_index)).error(), EINVAL);
	auto no_port = WireMsg(kTypePortGet).u32(RDMA_NLDEV_ATTR_DEV_INDEX, 1).bytes();
	EXPECT_EQ(nldev::parse_port(hdr(no_port)).error(), EINVAL);
}

TEST(NldevDecode, RejectsMalformedAttributes)
{
	std::uint16_t short_index = 1;
	auto bad_u32 = WireMsg(kTypeGet)
			       .attr(RDMA_NLDEV_ATTR_DEV_INDEX, &short_index, 2)
			       .str(RDMA_NLDEV_ATTR_DEV_NAME, "a")
			       .bytes();
	EXPECT_EQ(nldev::parse_device(hdr(bad_u32)).error(), EINVAL);

	const char unterminated[] = {'s', 'r'};
	auto bad_str = WireMsg(kTypeGet)
			       .u32(RDMA_NLDEV_ATTR_DEV_INDEX, 1)
			       .attr(RDMA_NLDEV_ATTR_DEV_NAME, unterminated, 2)
			       .bytes();
	EXPECT_EQ(nldev::parse_device(hdr(bad_str)).error(), EINVAL);
}

TEST(NldevDecode, PortReply)
{
	auto b = WireMsg(kTypePortGet)
			 .u32(RDMA_NLDEV_ATTR_DEV_INDEX, 3)
			 .str(RDMA_NLDEV_ATTR_DEV_NAME, "sroce0")
			 .u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
			 .u64_padded(RDMA_NLDEV_ATTR_CAP_FLAGS, 0)
			 .u8(RDMA_NLDEV_ATTR_PORT_STATE, 4)
			 .u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5)
			 .u32(RDMA_NLDEV_ATTR_NDEV_INDEX, 2)
			 .str(RDMA_NLDEV_ATTR_NDEV_NAME, "eth0")
			 .bytes();
	auto p = nldev::parse_port(hdr(b));
	ASSERT_TRUE(p) << p.error();
	EXPECT_EQ(p->dev_index, 3u);
	EXPECT_EQ(p->dev_name, "sroce0");
	EXPECT_EQ(p->port, 1u);
	EXPECT_EQ(nldev::port_state_name(p->state), "ACTIVE");
	EXPECT_EQ(nldev::phys_state_name(p->phys_state), "LINK_UP");
	EXPECT_EQ(p->ndev_index, 2u);
	EXPECT_EQ(p->ndev_name, "eth0");
}

TEST(NldevDecode, PortReplyWithoutNetdev)
{
	// The kernel omits NDEV_* when the netdev is gone or in another netns.
	auto b = WireMsg(kTypePortGet)
			 .u32(RDMA_NLDEV_ATTR_DEV_INDEX, 3)
			 .u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
			 .u8(RDMA_NLDEV_ATTR_PORT_STATE, 1)
			 .u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 3)
			 .bytes();
	auto p = nldev::parse_port(hdr(b));
	ASSERT_TRUE(p) << p.error();
	EXPECT_EQ(nldev::port_state_name(p->state), "DOWN");
	EXPECT_EQ(nldev::phys_state_name(p->phys_state), "DISABLED");
	EXPECT_FALSE(p->ndev_index);
	EXPECT_FALSE(p->ndev_name);
}

TEST(NldevDecode, StateNames)
{
	EXPECT_EQ(nldev::port_state_name(0), "NOP");
	EXPECT_EQ(nldev::port_state_name(2), "INIT");
	EXPECT_EQ(nldev::port_state_name(5), "ACTIVE_DEFER");
	EXPECT_EQ(nldev::port_state_name(6), "UNKNOWN");
	EXPECT_EQ(nldev::phys_state_name(2), "POLLING");
	EXPECT_EQ(nldev::phys_state_name(7), "PHY_TEST");
	EXPECT_EQ(nldev::phys_state_name(8), "UNKNOWN");
	EXPECT_EQ(nldev::phys_state_name(255), "UNKNOWN");
}

TEST(NldevRoundTrip, EncoderOutputDecodes)
{
	// A request re-typed as a reply decodes with the same parser the CLI
	// uses on kernel replies.
	auto msg = nldev::build_port_get(12, 1);
	ASSERT_TRUE(msg);
	auto d = nldev::parse_port(*nlmsg_hdr(msg->get()));
	ASSERT_TRUE(d) << d.error();
	EXPECT_EQ(d->dev_index, 12u);
	EXPECT_EQ(d->port, 1u);
}

}  // namespace
