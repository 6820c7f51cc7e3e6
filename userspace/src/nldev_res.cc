// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "nldev_res.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include <netlink/attr.h>

#include "nldev.h"

namespace sroce::nldev {

namespace {

constexpr int kMaxAttr = RDMA_NLDEV_ATTR_MAX - 1;
using AttrTable = std::array<nlattr *, RDMA_NLDEV_ATTR_MAX>;

// What the RES_*_GET replies and their entries carry; every other
// attribute goes unchecked (newer kernels add some).
const nla_policy *policy()
{
	static const auto table = [] {
		std::array<nla_policy, RDMA_NLDEV_ATTR_MAX> p{};
		for (int a :
		     {RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_PORT_INDEX,
		      RDMA_NLDEV_ATTR_RES_LQPN, RDMA_NLDEV_ATTR_RES_RQPN,
		      RDMA_NLDEV_ATTR_RES_SQ_PSN, RDMA_NLDEV_ATTR_RES_RQ_PSN,
		      RDMA_NLDEV_ATTR_RES_PID, RDMA_NLDEV_ATTR_RES_PDN, RDMA_NLDEV_ATTR_RES_CQE,
		      RDMA_NLDEV_ATTR_RES_CQN, RDMA_NLDEV_ATTR_RES_CTXN, RDMA_NLDEV_ATTR_RES_RKEY,
		      RDMA_NLDEV_ATTR_RES_LKEY, RDMA_NLDEV_ATTR_RES_MRN, RDMA_NLDEV_ATTR_RES_SRQN,
		      RDMA_NLDEV_ATTR_MIN_RANGE, RDMA_NLDEV_ATTR_MAX_RANGE})
			p[a].type = NLA_U32;
		for (int a : {RDMA_NLDEV_ATTR_RES_USECNT, RDMA_NLDEV_ATTR_RES_IOVA,
			      RDMA_NLDEV_ATTR_RES_MRLEN})
			p[a].type = NLA_U64;
		for (int a : {RDMA_NLDEV_ATTR_RES_TYPE, RDMA_NLDEV_ATTR_RES_STATE,
			      RDMA_NLDEV_ATTR_RES_POLL_CTX})
			p[a].type = NLA_U8;
		for (int a : {RDMA_NLDEV_ATTR_DEV_NAME, RDMA_NLDEV_ATTR_RES_KERN_NAME})
			p[a].type = NLA_STRING;
		for (int a :
		     {RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_DRIVER,
		      RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_MR,
		      RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_SRQ,
		      RDMA_NLDEV_ATTR_RES_SRQ_ENTRY})
			p[a].type = NLA_NESTED;
		return p;
	}();
	return table.data();
}

// A string attribute's text up to its NUL or its end, whichever is first.
std::string attr_string(const nlattr &a)
{
	const char *p = static_cast<const char *>(nla_data(&a));
	return std::string(p, ::strnlen(p, static_cast<std::size_t>(nla_len(&a))));
}

template <typename T> std::optional<T> opt(const nlattr *a, T (*get)(const nlattr *))
{
	if (!a)
		return std::nullopt;
	return get(a);
}

std::uint32_t get_u32(const nlattr *a)
{
	return nla_get_u32(const_cast<nlattr *>(a));
}
std::uint8_t get_u8(const nlattr *a)
{
	return nla_get_u8(const_cast<nlattr *>(a));
}
std::uint64_t get_u64(const nlattr *a)
{
	std::uint64_t v;
	std::memcpy(&v, nla_data(a), sizeof(v));  // may be 4-byte aligned
	return v;
}

// What every resource entry carries: its owner (a process, or a kernel
// ULP by name) and the driver's attributes. 0 or an errno.
template <typename Entry> int parse_owner(const AttrTable &tb, Entry &e)
{
	e.pid = opt(tb[RDMA_NLDEV_ATTR_RES_PID], get_u32);
	if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME])
		e.kern_name = attr_string(*tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]);
	if (tb[RDMA_NLDEV_ATTR_DRIVER]) {
		auto drv = parse_driver_attrs(*tb[RDMA_NLDEV_ATTR_DRIVER]);
		if (!drv)
			return drv.error();
		e.driver = std::move(drv).value();
	}
	return 0;
}

Result<QpEntry> parse_entry(nlattr &nest, std::uint32_t dev_index, const std::string &dev_name)
{
	AttrTable tb{};
	if (nla_parse_nested(tb.data(), kMaxAttr, &nest, policy()) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_RES_LQPN])
		return Errno{EINVAL};
	QpEntry q;
	q.dev_index = dev_index;
	q.dev_name = dev_name;
	q.port = opt(tb[RDMA_NLDEV_ATTR_PORT_INDEX], get_u32);
	q.lqpn = get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	q.rqpn = opt(tb[RDMA_NLDEV_ATTR_RES_RQPN], get_u32);
	q.type = opt(tb[RDMA_NLDEV_ATTR_RES_TYPE], get_u8);
	q.state = opt(tb[RDMA_NLDEV_ATTR_RES_STATE], get_u8);
	q.sq_psn = opt(tb[RDMA_NLDEV_ATTR_RES_SQ_PSN], get_u32);
	q.rq_psn = opt(tb[RDMA_NLDEV_ATTR_RES_RQ_PSN], get_u32);
	q.pdn = opt(tb[RDMA_NLDEV_ATTR_RES_PDN], get_u32);
	if (const int err = parse_owner(tb, q))
		return Errno{err};
	return q;
}

// The RES_*_GET command, table and entry attribute of a dump kind.
struct KindAttrs {
	int cmd, table, entry, id;
};
KindAttrs kind_attrs(ResKind kind)
{
	switch (kind) {
	case ResKind::Cq:
		return {RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ,
			RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_CQN};
	case ResKind::Mr:
		return {RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR,
			RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MRN};
	case ResKind::Srq:
	default:
		return {RDMA_NLDEV_CMD_RES_SRQ_GET, RDMA_NLDEV_ATTR_RES_SRQ,
			RDMA_NLDEV_ATTR_RES_SRQ_ENTRY, RDMA_NLDEV_ATTR_RES_SRQN};
	}
}

std::string_view poll_ctx_name(std::uint8_t v)
{
	static constexpr std::string_view names[] = {"DIRECT", "SOFTIRQ", "WORKQUEUE",
						     "UNBOUND_WORKQUEUE"};
	return v < std::size(names) ? names[v] : "UNKNOWN";
}

std::string_view srq_type_name(std::uint8_t v)
{
	static constexpr std::string_view names[] = {"BASIC", "XRC", "TM"};
	return v < std::size(names) ? names[v] : "UNKNOWN";
}

// An SRQ's QPs: RES_QP_ENTRY nests holding an LQPN or a MIN/MAX_RANGE.
Result<std::vector<std::uint32_t>> srq_qps(const nlattr &table)
{
	std::vector<std::uint32_t> out;
	const nlattr *e;
	int rem;
	nla_for_each_nested(e, &table, rem)
	{
		AttrTable tb{};
		if (nla_parse_nested(tb.data(), kMaxAttr, const_cast<nlattr *>(e), policy()) < 0)
			return Errno{EINVAL};
		if (tb[RDMA_NLDEV_ATTR_RES_LQPN]) {
			out.push_back(get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]));
			continue;
		}
		if (!tb[RDMA_NLDEV_ATTR_MIN_RANGE] || !tb[RDMA_NLDEV_ATTR_MAX_RANGE])
			return Errno{EINVAL};
		const std::uint32_t lo = get_u32(tb[RDMA_NLDEV_ATTR_MIN_RANGE]);
		const std::uint32_t hi = get_u32(tb[RDMA_NLDEV_ATTR_MAX_RANGE]);
		if (hi < lo || hi - lo > 1u << 20)
			return Errno{EINVAL};
		for (std::uint64_t q = lo; q <= hi; q++)
			out.push_back(static_cast<std::uint32_t>(q));
	}
	return out;
}

// The core's fields of one entry in rdma's order (ResEntry::fields).
Result<std::vector<ResField>> res_fields(ResKind kind, const AttrTable &tb)
{
	std::vector<ResField> f;
	auto num = [&](const char *key, int attr) {
		if (tb[attr])
			f.push_back({key, nla_len(tb[attr]) == 8
						  ? get_u64(tb[attr])
						  : std::uint64_t{get_u32(tb[attr])}});
	};
	auto name = [&](const char *key, int attr, std::string_view (*fn)(std::uint8_t)) {
		if (tb[attr])
			f.push_back({key, std::string(fn(get_u8(tb[attr])))});
	};
	switch (kind) {
	case ResKind::Cq:
		num("cqn", RDMA_NLDEV_ATTR_RES_CQN);
		num("cqe", RDMA_NLDEV_ATTR_RES_CQE);
		num("users", RDMA_NLDEV_ATTR_RES_USECNT);
		name("poll-ctx", RDMA_NLDEV_ATTR_RES_POLL_CTX, poll_ctx_name);
		num("ctxn", RDMA_NLDEV_ATTR_RES_CTXN);
		break;
	case ResKind::Mr:
		num("mrn", RDMA_NLDEV_ATTR_RES_MRN);
		num("rkey", RDMA_NLDEV_ATTR_RES_RKEY);
		num("lkey", RDMA_NLDEV_ATTR_RES_LKEY);
		num("iova", RDMA_NLDEV_ATTR_RES_IOVA);
		num("mrlen", RDMA_NLDEV_ATTR_RES_MRLEN);
		num("pdn", RDMA_NLDEV_ATTR_RES_PDN);
		break;
	case ResKind::Srq:
		num("srqn", RDMA_NLDEV_ATTR_RES_SRQN);
		name("type", RDMA_NLDEV_ATTR_RES_TYPE, srq_type_name);
		if (tb[RDMA_NLDEV_ATTR_RES_QP]) {
			auto qps = srq_qps(*tb[RDMA_NLDEV_ATTR_RES_QP]);
			if (!qps)
				return Errno{qps.error()};
			f.push_back({"lqpn", std::move(qps).value()});
		}
		num("pdn", RDMA_NLDEV_ATTR_RES_PDN);
		num("cqn", RDMA_NLDEV_ATTR_RES_CQN);
		break;
	}
	return f;
}

Result<ResEntry> parse_res_entry(ResKind kind, nlattr &nest, std::uint32_t dev_index,
				 const std::string &dev_name)
{
	AttrTable tb{};
	if (nla_parse_nested(tb.data(), kMaxAttr, &nest, policy()) < 0)
		return Errno{EINVAL};
	ResEntry r;
	r.dev_index = dev_index;
	r.dev_name = dev_name;
	if (const nlattr *id = tb[kind_attrs(kind).id])
		r.id = get_u32(id);
	auto fields = res_fields(kind, tb);
	if (!fields)
		return Errno{fields.error()};
	r.fields = std::move(fields).value();
	if (const int err = parse_owner(tb, r))
		return Errno{err};
	return r;
}

}  // namespace

std::string DriverAttr::text() const
{
	if (const auto *s = std::get_if<std::string>(&value))
		return *s;
	if (const auto *i = std::get_if<std::int64_t>(&value))
		return std::to_string(*i);
	std::uint64_t u = std::get<std::uint64_t>(value);
	if (!hex)
		return std::to_string(u);
	char buf[24];
	std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(u));
	return buf;
}

const DriverAttr *QpEntry::find_driver(std::string_view name) const
{
	for (const auto &a : driver)
		if (a.name == name)
			return &a;
	return nullptr;
}

Result<nl::Message> build_res_qp_dump(std::uint32_t dev_index)
{
	nl::Message msg(nlmsg_alloc_simple(msg_type(RDMA_NLDEV_CMD_RES_QP_GET),
					   NLM_F_REQUEST | NLM_F_DUMP));
	if (!msg)
		return Errno{ENOMEM};
	if (nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0 ||
	    nla_put_u8(msg.get(), kAttrDriverDetails, 1) < 0)
		return Errno{EMSGSIZE};
	return msg;
}

Result<std::vector<DriverAttr>> parse_driver_attrs(const nlattr &table)
{
	std::vector<DriverAttr> out;
	std::optional<std::string> name;
	bool hex = false;
	auto emit = [&](auto value) {
		out.push_back(DriverAttr{std::move(*name), std::move(value), hex});
		name.reset();
		hex = false;
	};
	const nlattr *a;
	int rem;
	nla_for_each_nested(a, &table, rem)
	{
		const int len = nla_len(a);
		const void *data = nla_data(a);
		switch (nla_type(a)) {
		case RDMA_NLDEV_ATTR_DRIVER_STRING:
			// the first string of a pair is the name, the second its value
			if (name)
				emit(attr_string(*a));
			else
				name = attr_string(*a);
			continue;
		case RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE:
			if (!name || len < 1)
				return Errno{EINVAL};
			hex = *static_cast<const std::uint8_t *>(data) == RDMA_NLDEV_PRINT_TYPE_HEX;
			continue;
		case RDMA_NLDEV_ATTR_DRIVER_U32:
		case RDMA_NLDEV_ATTR_DRIVER_S32: {
			if (!name || len != 4)
				return Errno{EINVAL};
			std::uint32_t v;
			std::memcpy(&v, data, sizeof(v));
			if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_S32)
				emit(static_cast<std::int64_t>(static_cast<std::int32_t>(v)));
			else
				emit(static_cast<std::uint64_t>(v));
			continue;
		}
		case RDMA_NLDEV_ATTR_DRIVER_U64:
		case RDMA_NLDEV_ATTR_DRIVER_S64: {
			if (!name || len != 8)
				return Errno{EINVAL};
			std::uint64_t v;
			std::memcpy(&v, data, sizeof(v));  // may be 4-byte aligned
			if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_S64)
				emit(static_cast<std::int64_t>(v));
			else
				emit(v);
			continue;
		}
		default: continue;  // RDMA_NLDEV_ATTR_PAD and what a newer kernel adds
		}
	}
	if (name)
		return Errno{EINVAL};
	return out;
}

Result<std::vector<QpEntry>> parse_res_qp(const nlmsghdr &nlh)
{
	if (nlh.nlmsg_type != msg_type(RDMA_NLDEV_CMD_RES_QP_GET))
		return Errno{EPROTO};
	AttrTable tb{};
	if (nlmsg_parse(const_cast<nlmsghdr *>(&nlh), 0, tb.data(), kMaxAttr, policy()) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return Errno{EINVAL};
	const std::uint32_t index = get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	const std::string name = attr_string(*tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	std::vector<QpEntry> out;
	if (!tb[RDMA_NLDEV_ATTR_RES_QP])
		return out;
	nlattr *e;
	int rem;
	nla_for_each_nested(e, tb[RDMA_NLDEV_ATTR_RES_QP], rem)
	{
		if (nla_type(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY)
			continue;
		auto q = parse_entry(*e, index, name);
		if (!q)
			return Errno{q.error()};
		out.push_back(std::move(q).value());
	}
	return out;
}

Result<nl::Message> build_res_dump(ResKind kind, std::uint32_t dev_index)
{
	nl::Message msg(
		nlmsg_alloc_simple(msg_type(kind_attrs(kind).cmd), NLM_F_REQUEST | NLM_F_DUMP));
	if (!msg)
		return Errno{ENOMEM};
	if (nla_put_u32(msg.get(), RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0 ||
	    nla_put_u8(msg.get(), kAttrDriverDetails, 1) < 0)
		return Errno{EMSGSIZE};
	return msg;
}

Result<std::vector<ResEntry>> parse_res(ResKind kind, const nlmsghdr &nlh)
{
	const KindAttrs k = kind_attrs(kind);
	if (nlh.nlmsg_type != msg_type(k.cmd))
		return Errno{EPROTO};
	AttrTable tb{};
	if (nlmsg_parse(const_cast<nlmsghdr *>(&nlh), 0, tb.data(), kMaxAttr, policy()) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return Errno{EINVAL};
	const std::uint32_t index = get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	const std::string name = attr_string(*tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	std::vector<ResEntry> out;
	if (!tb[k.table])
		return out;
	nlattr *e;
	int rem;
	nla_for_each_nested(e, tb[k.table], rem)
	{
		if (nla_type(e) != k.entry)
			continue;
		auto r = parse_res_entry(kind, *e, index, name);
		if (!r)
			return Errno{r.error()};
		out.push_back(std::move(r).value());
	}
	return out;
}

std::string_view qp_type_name(std::uint8_t type)
{
	static constexpr std::string_view names[] = {
		"SMI",		 "GSI",	    "RC",	  "UC",	     "UD",	"RAW_IPV6",
		"RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET", "XRC_INI", "XRC_TGT",
	};
	return type < std::size(names) ? names[type] : "UNKNOWN";
}

std::string_view qp_state_name(std::uint8_t state)
{
	static constexpr std::string_view names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};
	return state < std::size(names) ? names[state] : "UNKNOWN";
}

}  // namespace sroce::nldev
