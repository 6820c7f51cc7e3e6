// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "nldev.h"

#include <array>
#include <cerrno>
#include <utility>

#include <netlink/attr.h>

namespace sroce::nldev {

namespace {

constexpr int kMaxAttr = RDMA_NLDEV_ATTR_MAX - 1;
using AttrTable = std::array<nlattr *, RDMA_NLDEV_ATTR_MAX>;

const nla_policy *policy()
{
	static const auto table = [] {
		std::array<nla_policy, RDMA_NLDEV_ATTR_MAX> p{};
		p[RDMA_NLDEV_ATTR_DEV_INDEX].type = NLA_U32;
		p[RDMA_NLDEV_ATTR_DEV_NAME].type = NLA_STRING;
		p[RDMA_NLDEV_ATTR_PORT_INDEX].type = NLA_U32;
		p[RDMA_NLDEV_ATTR_NODE_GUID].type = NLA_U64;
		p[RDMA_NLDEV_ATTR_PORT_STATE].type = NLA_U8;
		p[RDMA_NLDEV_ATTR_PORT_PHYS_STATE].type = NLA_U8;
		p[RDMA_NLDEV_ATTR_NDEV_INDEX].type = NLA_U32;
		p[RDMA_NLDEV_ATTR_NDEV_NAME].type = NLA_STRING;
		p[RDMA_NLDEV_ATTR_DEV_PROTOCOL].type = NLA_STRING;
		p[RDMA_NLDEV_ATTR_LINK_TYPE].type = NLA_STRING;
		return p;
	}();
	return table.data();
}

Result<nl::Message> new_message(int cmd, int flags)
{
	nl::Message msg(nlmsg_alloc_simple(msg_type(cmd), flags));
	if (!msg)
		return Errno{ENOMEM};
	return msg;
}

int put_string(nl_msg *msg, int attr, std::string_view s)
{
	std::string z(s);  // nla_put_string wants a C string
	return nla_put_string(msg, attr, z.c_str()) < 0 ? EMSGSIZE : 0;
}

// Parses `nlh` (expected type `cmd`, or `alt_cmd` when >= 0) into `tb`,
// validating `required`.
template <std::size_t N>
int parse(const nlmsghdr &nlh, int cmd, AttrTable &tb, const int (&required)[N], int alt_cmd = -1)
{
	if (nlh.nlmsg_type != msg_type(cmd) && (alt_cmd < 0 || nlh.nlmsg_type != msg_type(alt_cmd)))
		return EPROTO;
	tb.fill(nullptr);
	// libnl takes a non-const header but only reads it.
	if (nlmsg_parse(const_cast<nlmsghdr *>(&nlh), 0, tb.data(), kMaxAttr,
			const_cast<nla_policy *>(policy())) < 0)
		return EINVAL;
	for (int a : required)
		if (!tb[a])
			return EINVAL;
	return 0;
}

std::optional<std::string> opt_string(const nlattr *a)
{
	if (!a)
		return std::nullopt;
	return std::string(nla_get_string(const_cast<nlattr *>(a)));
}

}  // namespace

Result<nl::Message> build_newlink(std::string_view name, std::string_view netdev,
				  std::string_view link_type)
{
	if (name.empty() || name.size() > kDevNameMax || netdev.empty() ||
	    netdev.size() > kNetdevNameMax)
		return Errno{EINVAL};
	auto msg = new_message(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg)
		return msg;
	const std::pair<int, std::string_view> attrs[] = {
		{RDMA_NLDEV_ATTR_DEV_NAME, name},
		{RDMA_NLDEV_ATTR_LINK_TYPE, link_type},
		{RDMA_NLDEV_ATTR_NDEV_NAME, netdev},
	};
	for (const auto &[attr, value] : attrs)
		if (int err = put_string(msg->get(), attr, value))
			return Errno{err};
	return msg;
}

Result<nl::Message> build_dellink(std::uint32_t index)
{
	auto msg = new_message(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg)
		return msg;
	if (nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0)
		return Errno{EMSGSIZE};
	return msg;
}

Result<nl::Message> build_get_dump()
{
	return new_message(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP);
}

Result<nl::Message> build_port_get(std::uint32_t index, std::uint32_t port)
{
	auto msg = new_message(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_ACK);
	if (!msg)
		return msg;
	if (nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, index) < 0 ||
	    nla_put_u32(msg->get(), RDMA_NLDEV_ATTR_PORT_INDEX, port) < 0)
		return Errno{EMSGSIZE};
	return msg;
}

Result<Device> parse_device(const nlmsghdr &nlh)
{
	AttrTable tb;
	if (int err = parse(nlh, RDMA_NLDEV_CMD_GET, tb,
			    {RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_DEV_NAME}))
		return Errno{err};
	Device d;
	d.index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	d.name = nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		d.num_ports = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		d.node_guid = nla_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	d.protocol = opt_string(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]);
	return d;
}

Result<Port> parse_port(const nlmsghdr &nlh)
{
	AttrTable tb;
	// The kernel types a PORT_GET dump entry RDMA_NLDEV_CMD_PORT_GET but
	// the reply to a single PORT_GET request RDMA_NLDEV_CMD_GET.
	if (int err = parse(nlh, RDMA_NLDEV_CMD_PORT_GET, tb,
			    {RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_PORT_INDEX},
			    RDMA_NLDEV_CMD_GET))
		return Errno{err};
	Port p;
	p.dev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME])
		p.dev_name = nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	p.port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_PORT_STATE])
		p.state = nla_get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE]);
	if (tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE])
		p.phys_state = nla_get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
	if (tb[RDMA_NLDEV_ATTR_NDEV_INDEX])
		p.ndev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
	p.ndev_name = opt_string(tb[RDMA_NLDEV_ATTR_NDEV_NAME]);
	return p;
}

std::string_view port_state_name(std::uint8_t state)
{
	static constexpr std::string_view names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};
	return state < std::size(names) ? names[state] : "UNKNOWN";
}

std::string_view phys_state_name(std::uint8_t phys_state)
{
	static constexpr std::string_view names[] = {
		"UNKNOWN",
		"SLEEP",
		"POLLING",
		"DISABLED",
		"PORT_CONFIGURATION_TRAINING",
		"LINK_UP",
		"LINK_ERROR_RECOVERY",
		"PHY_TEST",
	};
	return phys_state < std::size(names) ? names[phys_state] : "UNKNOWN";
}

}  // namespace sroce::nldev
