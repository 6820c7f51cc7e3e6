// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-verify: the options of a batched run and the slots that keep the
// transfers of a batch apart.
#include <algorithm>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "options.h"
#include "plan.h"

namespace {

using namespace sroce::verify;

struct Range {
	int side;               // whose memory: 0 client, 1 server
	uint32_t mr;
	uint64_t begin, end;    // with the guards around the SGE
};

// Every byte a plan may touch or check, on either side.
std::vector<Range> ranges_of(const Plan &p)
{
	int init = p.initiator == Role::Client ? 0 : 1;
	std::vector<Range> out;
	auto add = [&](int side, const Sge &s) {
		out.push_back({side, s.mr, s.offset >= kGuard ? s.offset - kGuard : 0,
			       s.offset + s.length + kGuard});
	};
	for (const Sge &s : p.local)
		add(init, s);
	for (const Sge &s : p.recv)
		add(1 - init, s);
	if (p.op == Op::Write || p.op == Op::WriteImm || p.op == Op::Read)
		add(1 - init, p.remote);
	return out;
}

TEST(VerifyBatch, SlotsNeverOverlapAndStayInTheirMr)
{
	constexpr uint32_t kDepth = 8;
	for (uint32_t max_size : {0u, 1u, 4096u, 65536u, 1u << 20}) {
		PlanParams pp{.seed = 42, .ops = kAllOps, .max_size = max_size, .max_sge = 16,
			      .mtu = 1024};
		for (uint64_t batch = 0; batch < 40; batch++) {
			std::vector<std::vector<Range>> slots;
			for (uint32_t k = 0; k < kDepth; k++) {
				Plan p = make_plan(pp, batch * kDepth + k);
				place_in_slot(p, k, max_size);
				uint64_t lo = uint64_t{k} * mr_size(max_size);
				for (const Range &x : ranges_of(p)) {
					// the guard before a slot's first byte may reach into
					// the previous slot's slack, nothing further
					EXPECT_GE(x.begin + kGuard, lo);
					EXPECT_LE(x.end, lo + mr_size(max_size));
					EXPECT_LE(x.end, mr_size(max_size, kDepth));
				}
				slots.push_back(ranges_of(p));
			}
			// ranges of different plans of the batch never share a byte
			for (size_t a = 0; a < slots.size(); a++)
				for (size_t b = a + 1; b < slots.size(); b++)
					for (const Range &x : slots[a])
						for (const Range &y : slots[b])
							EXPECT_TRUE(x.side != y.side || x.mr != y.mr ||
								    x.end <= y.begin || y.end <= x.begin)
								<< "batch " << batch << " slots " << a << ", " << b;
		}
	}
}

TEST(VerifyBatch, MinSize)
{
	PlanParams pp{.seed = 3, .ops = kAllOps, .max_size = 1 << 20, .min_size = 256 << 10,
		      .max_sge = 16, .mtu = 256};
	for (uint64_t i = 0; i < 500; i++) {
		Plan p = make_plan(pp, i);
		EXPECT_GE(p.size, pp.min_size);
		EXPECT_LE(p.size, pp.max_size);
	}
}

Options parse_ok(std::vector<std::string_view> args)
{
	auto r = parse_options(args);
	EXPECT_TRUE(std::holds_alternative<Options>(r));
	return std::holds_alternative<Options>(r) ? std::get<Options>(r) : Options{};
}

bool usage_error(std::vector<std::string_view> args)
{
	return std::holds_alternative<UsageError>(parse_options(args));
}

TEST(VerifyBatch, Options)
{
	Options d = parse_ok({});
	EXPECT_EQ(d.depth, 1u);
	EXPECT_EQ(d.min_size, 0u);
	EXPECT_EQ(d.qp_timeout, 17);
	EXPECT_EQ(d.retry_cnt, 7);
	Options o = parse_ok({"--depth", "8", "--min-size", "256K", "--max-size=8M",
			      "--qp-timeout", "14", "--retry-cnt=3", "192.0.2.2"});
	EXPECT_EQ(o.depth, 8u);
	EXPECT_EQ(o.min_size, 256u << 10);
	EXPECT_EQ(o.max_size, 8u << 20);
	EXPECT_EQ(o.qp_timeout, 14);
	EXPECT_EQ(o.retry_cnt, 3);
	EXPECT_EQ(o.server, "192.0.2.2");
	EXPECT_TRUE(usage_error({"--depth", "0"}));
	EXPECT_TRUE(usage_error({"--depth", "257"}));
	EXPECT_TRUE(usage_error({"--qp-timeout", "0"}));
	EXPECT_TRUE(usage_error({"--qp-timeout", "32"}));
	EXPECT_TRUE(usage_error({"--retry-cnt", "8"}));
	EXPECT_TRUE(usage_error({"--min-size", "2M", "--max-size", "1M"}));
}

}  // namespace
