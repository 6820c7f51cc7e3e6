// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RES_QP_GET: the dump request and the decoding of its replies with the
// driver attributes, against hand-built messages laid out as the kernel's
// nldev.c and rdma_nl_put_driver_*() write them.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <netlink/attr.h>

#include "nldev.h"
#include "nldev_res.h"
#include "wire_msg.h"

namespace {

namespace nldev = sroce::nldev;
using sroce::test::hdr;
using sroce::test::WireMsg;

// RDMA_NL_GET_TYPE(RDMA_NL_NLDEV = 5, RDMA_NLDEV_CMD_RES_QP_GET = 10)
constexpr std::uint16_t kTypeResQpGet = 0x140a;
constexpr std::uint16_t kTypeGet = 0x1401;

// rdma_nl_put_driver_u32() and friends: name, [print type], value
void drv_u32(WireMsg &m, const std::string &name, std::uint32_t v, bool hex = false)
{
	m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, name);
	if (hex)
		m.u8(RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, RDMA_NLDEV_PRINT_TYPE_HEX);
	m.u32(RDMA_NLDEV_ATTR_DRIVER_U32, v);
}

void drv_str(WireMsg &m, const std::string &name, const std::string &v)
{
	m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, name).str(RDMA_NLDEV_ATTR_DRIVER_STRING, v);
}

// A dump message as nldev.c fills it: the device, then the QP table.
WireMsg reply_head()
{
	WireMsg m(kTypeResQpGet, NLM_F_MULTI);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 4).str(RDMA_NLDEV_ATTR_DEV_NAME, "sroce0");
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP);
	return m;
}

// A user RC QP in RTS with sroce's attributes, as the kernel sends it
void rc_entry(WireMsg &m)
{
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY)
		.u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
		.u32(RDMA_NLDEV_ATTR_RES_LQPN, 17)
		.u32(RDMA_NLDEV_ATTR_RES_PDN, 3)
		.u32(RDMA_NLDEV_ATTR_RES_PID, 812)
		.u32(RDMA_NLDEV_ATTR_RES_RQPN, 18)
		.u32(RDMA_NLDEV_ATTR_RES_RQ_PSN, 200)
		.u32(RDMA_NLDEV_ATTR_RES_SQ_PSN, 100)
		.u8(RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0)
		.u8(RDMA_NLDEV_ATTR_RES_TYPE, 2)
		.u8(RDMA_NLDEV_ATTR_RES_STATE, 3);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	drv_str(m, "qp_state", "RTS");
	drv_u32(m, "sq_prod", 3);
	drv_u32(m, "sq_flags", 0x1f, true);
	drv_u32(m, "next_psn", 148);
	m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "odp_faults");
	m.u64_padded(RDMA_NLDEV_ATTR_DRIVER_U64, 1ull << 40);
	drv_str(m, "sr", "off");
	m.end_nest().end_nest();
}

std::vector<nldev::QpEntry> parse_ok(const WireMsg &m)
{
	auto b = m.bytes();
	auto r = nldev::parse_res_qp(hdr(b));
	EXPECT_TRUE(r) << r.error();
	return r ? *r : std::vector<nldev::QpEntry>{};
}

TEST(NldevResEncode, QpDump)
{
	auto msg = nldev::build_res_qp_dump(4);
	ASSERT_TRUE(msg);
	nlmsghdr *h = nlmsg_hdr(msg->get());
	EXPECT_EQ(h->nlmsg_type, kTypeResQpGet);
	EXPECT_EQ(h->nlmsg_flags & (NLM_F_REQUEST | NLM_F_DUMP), NLM_F_REQUEST | NLM_F_DUMP);
	// the build host's RDMA_NLDEV_ATTR_MAX may predate DRIVER_DETAILS
	const int max = std::max<int>(RDMA_NLDEV_ATTR_MAX - 1, nldev::kAttrDriverDetails);
	std::vector<nlattr *> tb(max + 1, nullptr);
	ASSERT_EQ(nlmsg_parse(h, 0, tb.data(), max, nullptr), 0);
	ASSERT_NE(tb[RDMA_NLDEV_ATTR_DEV_INDEX], nullptr);
	EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 4u);
	ASSERT_NE(tb[nldev::kAttrDriverDetails], nullptr);
	EXPECT_EQ(nla_len(tb[nldev::kAttrDriverDetails]), 1);
	EXPECT_EQ(nla_get_u8(tb[nldev::kAttrDriverDetails]), 1);
}

TEST(NldevResDecode, RcEntryWithDriverAttributes)
{
	auto m = reply_head();
	rc_entry(m);
	m.end_nest();
	auto qps = parse_ok(m);
	ASSERT_EQ(qps.size(), 1u);
	const auto &q = qps[0];
	EXPECT_EQ(q.dev_index, 4u);
	EXPECT_EQ(q.dev_name, "sroce0");
	EXPECT_EQ(q.port, 1u);
	EXPECT_EQ(q.lqpn, 17u);
	EXPECT_EQ(q.rqpn, 18u);
	EXPECT_EQ(q.sq_psn, 100u);
	EXPECT_EQ(q.rq_psn, 200u);
	EXPECT_EQ(q.pid, 812u);
	EXPECT_FALSE(q.kern_name);
	EXPECT_EQ(nldev::qp_type_name(*q.type), "RC");
	EXPECT_EQ(nldev::qp_state_name(*q.state), "RTS");

	const std::vector<nldev::DriverAttr> want = {
		{"qp_state", std::string("RTS")},	 {"sq_prod", std::uint64_t{3}},
		{"sq_flags", std::uint64_t{0x1f}, true}, {"next_psn", std::uint64_t{148}},
		{"odp_faults", std::uint64_t{1} << 40},	 {"sr", std::string("off")},
	};
	EXPECT_EQ(q.driver, want);
	ASSERT_NE(q.find_driver("sq_flags"), nullptr);
	EXPECT_EQ(q.find_driver("sq_flags")->text(), "0x1f");
	EXPECT_EQ(q.find_driver("next_psn")->text(), "148");
	EXPECT_EQ(q.find_driver("qp_state")->text(), "RTS");
	EXPECT_EQ(q.find_driver("nosuch"), nullptr);
}

TEST(NldevResDecode, SeveralEntriesAndKernelOwner)
{
	auto m = reply_head();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY)
		.u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
		.u32(RDMA_NLDEV_ATTR_RES_LQPN, 1)
		.str(RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core")
		.u32(RDMA_NLDEV_ATTR_RES_SQ_PSN, 0)
		.u8(RDMA_NLDEV_ATTR_RES_TYPE, 1)
		.u8(RDMA_NLDEV_ATTR_RES_STATE, 3)
		.end_nest();
	rc_entry(m);
	m.end_nest();
	auto qps = parse_ok(m);
	ASSERT_EQ(qps.size(), 2u);
	EXPECT_EQ(qps[0].lqpn, 1u);
	EXPECT_EQ(qps[0].kern_name, "ib_core");
	EXPECT_FALSE(qps[0].pid);
	EXPECT_FALSE(qps[0].rqpn);
	EXPECT_TRUE(qps[0].driver.empty());
	EXPECT_EQ(nldev::qp_type_name(*qps[0].type), "GSI");
	EXPECT_EQ(qps[1].lqpn, 17u);
	EXPECT_EQ(qps[1].driver.size(), 6u);
}

TEST(NldevResDecode, DeviceWithoutQps)
{
	WireMsg m(kTypeResQpGet, NLM_F_MULTI);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 4).str(RDMA_NLDEV_ATTR_DEV_NAME, "sroce0");
	EXPECT_TRUE(parse_ok(m).empty());
	auto empty = reply_head();
	empty.end_nest();
	EXPECT_TRUE(parse_ok(empty).empty());
}

TEST(NldevResDecode, SignedValues)
{
	auto m = reply_head();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_RES_LQPN, 5);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "delta").u32(RDMA_NLDEV_ATTR_DRIVER_S32, 0xfffffffe);
	std::int64_t big = -5;
	m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "big").attr(RDMA_NLDEV_ATTR_DRIVER_S64, &big, 8);
	m.end_nest().end_nest().end_nest();
	auto qps = parse_ok(m);
	ASSERT_EQ(qps.size(), 1u);
	ASSERT_EQ(qps[0].driver.size(), 2u);
	EXPECT_EQ(qps[0].driver[0].value,
		  (std::variant<std::uint64_t, std::int64_t, std::string>(std::int64_t{-2})));
	EXPECT_EQ(qps[0].driver[0].text(), "-2");
	EXPECT_EQ(qps[0].driver[1].text(), "-5");
}

// Attributes a newer kernel may add, inside the entry and the driver
// table, are skipped.
TEST(NldevResDecode, UnknownAttributesSkipped)
{
	auto m = reply_head();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_RES_LQPN, 5);
	m.u32(RDMA_NLDEV_ATTR_MAX + 7, 1);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	m.u32(RDMA_NLDEV_ATTR_DRIVER_ENTRY, 9);
	drv_u32(m, "a", 1);
	m.end_nest().end_nest().end_nest();
	auto qps = parse_ok(m);
	ASSERT_EQ(qps.size(), 1u);
	ASSERT_EQ(qps[0].driver.size(), 1u);
	EXPECT_EQ(qps[0].driver[0].name, "a");
}

// One entry's driver table: only `body` in it.
int driver_table_error(void (*body)(WireMsg &))
{
	auto m = reply_head();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_RES_LQPN, 5);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	body(m);
	m.end_nest().end_nest().end_nest();
	auto b = m.bytes();
	return nldev::parse_res_qp(hdr(b)).error();
}

TEST(NldevResDecode, MalformedDriverTables)
{
	// a value without a name
	EXPECT_EQ(driver_table_error([](WireMsg &m) { m.u32(RDMA_NLDEV_ATTR_DRIVER_U32, 1); }),
		  EINVAL);
	// a name without a value
	EXPECT_EQ(driver_table_error([](WireMsg &m) { m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "x"); }),
		  EINVAL);
	// a print type without a name
	EXPECT_EQ(driver_table_error([](WireMsg &m) {
			  m.u8(RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE, RDMA_NLDEV_PRINT_TYPE_HEX);
		  }),
		  EINVAL);
	// values of the wrong size
	EXPECT_EQ(
		driver_table_error([](WireMsg &m) {
			m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "x").u8(RDMA_NLDEV_ATTR_DRIVER_U32, 1);
		}),
		EINVAL);
	EXPECT_EQ(driver_table_error([](WireMsg &m) {
			  m.str(RDMA_NLDEV_ATTR_DRIVER_STRING, "x")
				  .u32(RDMA_NLDEV_ATTR_DRIVER_U64, 1);
		  }),
		  EINVAL);
	// well formed: no error
	EXPECT_EQ(driver_table_error([](WireMsg &m) { drv_u32(m, "x", 1); }), 0);
}

TEST(NldevResDecode, StringWithoutNulTerminator)
{
	auto m = reply_head();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_RES_LQPN, 5);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	m.attr(RDMA_NLDEV_ATTR_DRIVER_STRING, "abc", 3).u32(RDMA_NLDEV_ATTR_DRIVER_U32, 7);
	m.end_nest().end_nest().end_nest();
	auto qps = parse_ok(m);
	ASSERT_EQ(qps.size(), 1u);
	ASSERT_EQ(qps[0].driver.size(), 1u);
	EXPECT_EQ(qps[0].driver[0].name, "abc");
}

TEST(NldevResDecode, RejectsOtherMessagesAndMissingFields)
{
	WireMsg get(kTypeGet);
	get.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 4).str(RDMA_NLDEV_ATTR_DEV_NAME, "sroce0");
	auto b = get.bytes();
	EXPECT_EQ(nldev::parse_res_qp(hdr(b)).error(), EPROTO);

	WireMsg no_name(kTypeResQpGet);
	no_name.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	b = no_name.bytes();
	EXPECT_EQ(nldev::parse_res_qp(hdr(b)).error(), EINVAL);

	auto no_qpn = reply_head();
	no_qpn.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u8(RDMA_NLDEV_ATTR_RES_TYPE, 2).end_nest();
	no_qpn.end_nest();
	b = no_qpn.bytes();
	EXPECT_EQ(nldev::parse_res_qp(hdr(b)).error(), EINVAL);

	auto short_qpn = reply_head();
	short_qpn.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY)
		.u8(RDMA_NLDEV_ATTR_RES_LQPN, 2)
		.end_nest();
	short_qpn.end_nest();
	b = short_qpn.bytes();
	EXPECT_EQ(nldev::parse_res_qp(hdr(b)).error(), EINVAL);
}

TEST(NldevResNames, TypesAndStates)
{
	EXPECT_EQ(nldev::qp_type_name(0), "SMI");
	EXPECT_EQ(nldev::qp_type_name(4), "UD");
	EXPECT_EQ(nldev::qp_type_name(9), "XRC_INI");
	EXPECT_EQ(nldev::qp_type_name(10), "XRC_TGT");
	EXPECT_EQ(nldev::qp_type_name(0xff), "UNKNOWN");
	EXPECT_EQ(nldev::qp_state_name(0), "RESET");
	EXPECT_EQ(nldev::qp_state_name(6), "ERR");
	EXPECT_EQ(nldev::qp_state_name(7), "UNKNOWN");
}

constexpr std::uint16_t kTypeResCqGet = nldev::msg_type(RDMA_NLDEV_CMD_RES_CQ_GET);
constexpr std::uint16_t kTypeResMrGet = nldev::msg_type(RDMA_NLDEV_CMD_RES_MR_GET);
constexpr std::uint16_t kTypeResSrqGet = nldev::msg_type(RDMA_NLDEV_CMD_RES_SRQ_GET);

TEST(NldevResEncode, CqMrSrqDumps)
{
	for (auto [kind, type] : {std::pair{nldev::ResKind::Cq, kTypeResCqGet},
				  std::pair{nldev::ResKind::Mr, kTypeResMrGet},
				  std::pair{nldev::ResKind::Srq, kTypeResSrqGet}}) {
		auto msg = nldev::build_res_dump(kind, 7);
		ASSERT_TRUE(msg);
		nlmsghdr *h = nlmsg_hdr(msg->get());
		EXPECT_EQ(h->nlmsg_type, type);
		EXPECT_EQ(h->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
		const int max = std::max<int>(RDMA_NLDEV_ATTR_MAX - 1, nldev::kAttrDriverDetails);
		std::vector<nlattr *> tb(max + 1, nullptr);
		ASSERT_EQ(nlmsg_parse(h, 0, tb.data(), max, nullptr), 0);
		ASSERT_NE(tb[RDMA_NLDEV_ATTR_DEV_INDEX], nullptr);
		EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7u);
		ASSERT_NE(tb[nldev::kAttrDriverDetails], nullptr);
	}
}

// A dump message of `type` for sroce0 (index 4), its table `table` open.
WireMsg res_head(std::uint16_t type, std::uint16_t table)
{
	WireMsg m(type, NLM_F_MULTI);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, 4).str(RDMA_NLDEV_ATTR_DEV_NAME, "sroce0");
	m.begin_nest(table);
	return m;
}

std::vector<nldev::ResEntry> parse_res_ok(nldev::ResKind kind, const WireMsg &m)
{
	auto b = m.bytes();
	auto r = nldev::parse_res(kind, hdr(b));
	EXPECT_TRUE(r) << r.error();
	return r ? *r : std::vector<nldev::ResEntry>{};
}

TEST(NldevResDecode, CqEntry)
{
	auto m = res_head(kTypeResCqGet, RDMA_NLDEV_ATTR_RES_CQ);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_CQ_ENTRY)
		.u32(RDMA_NLDEV_ATTR_RES_CQE, 63)
		.u64_padded(RDMA_NLDEV_ATTR_RES_USECNT, 1)
		.u8(RDMA_NLDEV_ATTR_RES_POLL_CTX, 1)
		.u32(RDMA_NLDEV_ATTR_RES_CQN, 2)
		.u32(RDMA_NLDEV_ATTR_RES_CTXN, 0)
		.u32(RDMA_NLDEV_ATTR_RES_PID, 812);
	m.begin_nest(RDMA_NLDEV_ATTR_DRIVER);
	drv_u32(m, "cq_entries", 64);
	drv_str(m, "armed", "no");
	m.end_nest().end_nest().end_nest();
	auto cqs = parse_res_ok(nldev::ResKind::Cq, m);
	ASSERT_EQ(cqs.size(), 1u);
	const auto &c = cqs[0];
	EXPECT_EQ(c.dev_index, 4u);
	EXPECT_EQ(c.dev_name, "sroce0");
	EXPECT_EQ(c.id, 2u);
	const std::vector<nldev::ResField> want = {{"cqn", std::uint64_t{2}},
						   {"cqe", std::uint64_t{63}},
						   {"users", std::uint64_t{1}},
						   {"poll-ctx", std::string("SOFTIRQ")},
						   {"ctxn", std::uint64_t{0}}};
	EXPECT_EQ(c.fields, want);
	EXPECT_EQ(c.pid, 812u);
	ASSERT_EQ(c.driver.size(), 2u);
	EXPECT_EQ(c.driver[0].text(), "64");
	EXPECT_EQ(c.driver[1].text(), "no");
}

TEST(NldevResDecode, MrEntriesSortedByCaller)
{
	auto m = res_head(kTypeResMrGet, RDMA_NLDEV_ATTR_RES_MR);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_MR_ENTRY)
		.u32(RDMA_NLDEV_ATTR_RES_RKEY, 0x1234)
		.u32(RDMA_NLDEV_ATTR_RES_LKEY, 0x1234)
		.u64_padded(RDMA_NLDEV_ATTR_RES_IOVA, 0x7f0000001000ull)
		.u64_padded(RDMA_NLDEV_ATTR_RES_MRLEN, 1u << 20)
		.u32(RDMA_NLDEV_ATTR_RES_MRN, 5)
		.u32(RDMA_NLDEV_ATTR_RES_PDN, 3)
		.str(RDMA_NLDEV_ATTR_RES_KERN_NAME, "nvme_rdma")
		.end_nest();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_MR_ENTRY)
		.u64_padded(RDMA_NLDEV_ATTR_RES_MRLEN, 4096)
		.u32(RDMA_NLDEV_ATTR_RES_MRN, 1)
		.end_nest();
	m.end_nest();
	auto mrs = parse_res_ok(nldev::ResKind::Mr, m);
	ASSERT_EQ(mrs.size(), 2u);
	const std::vector<nldev::ResField> want = {
		{"mrn", std::uint64_t{5}},	   {"rkey", std::uint64_t{0x1234}},
		{"lkey", std::uint64_t{0x1234}},   {"iova", std::uint64_t{0x7f0000001000ull}},
		{"mrlen", std::uint64_t{1} << 20}, {"pdn", std::uint64_t{3}}};
	EXPECT_EQ(mrs[0].fields, want);
	EXPECT_EQ(mrs[0].kern_name, "nvme_rdma");
	EXPECT_FALSE(mrs[0].pid);
	EXPECT_EQ(mrs[1].id, 1u);
	EXPECT_EQ(mrs[1].fields.size(), 2u);
}

TEST(NldevResDecode, SrqEntryWithQpsAndRanges)
{
	auto m = res_head(kTypeResSrqGet, RDMA_NLDEV_ATTR_RES_SRQ);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_SRQ_ENTRY)
		.u32(RDMA_NLDEV_ATTR_RES_SRQN, 1)
		.u8(RDMA_NLDEV_ATTR_RES_TYPE, 0);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_RES_LQPN, 17).end_nest();
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY)
		.u32(RDMA_NLDEV_ATTR_MIN_RANGE, 20)
		.u32(RDMA_NLDEV_ATTR_MAX_RANGE, 22)
		.end_nest();
	m.end_nest();
	m.u32(RDMA_NLDEV_ATTR_RES_PDN, 3).u32(RDMA_NLDEV_ATTR_RES_CQN, 2);
	m.u32(RDMA_NLDEV_ATTR_RES_PID, 9);
	m.end_nest().end_nest();
	auto srqs = parse_res_ok(nldev::ResKind::Srq, m);
	ASSERT_EQ(srqs.size(), 1u);
	const std::vector<nldev::ResField> want = {
		{"srqn", std::uint64_t{1}},
		{"type", std::string("BASIC")},
		{"lqpn", std::vector<std::uint32_t>{17, 20, 21, 22}},
		{"pdn", std::uint64_t{3}},
		{"cqn", std::uint64_t{2}}};
	EXPECT_EQ(srqs[0].fields, want);
}

TEST(NldevResDecode, ResErrors)
{
	// another command's reply
	auto qp = reply_head();
	qp.end_nest();
	auto b = qp.bytes();
	EXPECT_EQ(nldev::parse_res(nldev::ResKind::Cq, hdr(b)).error(), EPROTO);
	// an SRQ QP entry with half a range
	auto m = res_head(kTypeResSrqGet, RDMA_NLDEV_ATTR_RES_SRQ);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_SRQ_ENTRY).u32(RDMA_NLDEV_ATTR_RES_SRQN, 1);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP);
	m.begin_nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY).u32(RDMA_NLDEV_ATTR_MIN_RANGE, 20).end_nest();
	m.end_nest().end_nest().end_nest();
	auto sb = m.bytes();
	EXPECT_EQ(nldev::parse_res(nldev::ResKind::Srq, hdr(sb)).error(), EINVAL);
	// no table: no entries
	auto empty = res_head(kTypeResCqGet, RDMA_NLDEV_ATTR_RES_CQ);
	empty.end_nest();
	EXPECT_TRUE(parse_res_ok(nldev::ResKind::Cq, empty).empty());
}

}  // namespace
