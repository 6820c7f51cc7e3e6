// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-verify: the options of a batched run, the slots that keep the
// transfers of a batch apart, and the plans of the atomics.
#include <algorithm>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "options.h"
#include "plan.h"
#include "rng.h"

namespace {

using namespace sroce::verify;

struct Range {
	int side;  // whose memory: 0 client, 1 server
	uint32_t mr;
	uint64_t begin, end;  // with the guards around the SGE
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
	if (p.op == Op::Write || p.op == Op::WriteImm || p.op == Op::Read || is_atomic(p.op))
		add(1 - init, p.remote);
	return out;
}

TEST(VerifyBatch, SlotsNeverOverlapAndStayInTheirMr)
{
	constexpr uint32_t kDepth = 8;
	for (uint32_t max_size : {0u, 1u, 4095u, 4096u, 65536u, 1u << 20}) {
		PlanParams pp{.seed = 42,
			      .ops = kAllOps,
			      .max_size = max_size,
			      .max_sge = 16,
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
							EXPECT_TRUE(x.side != y.side ||
								    x.mr != y.mr ||
								    x.end <= y.begin ||
								    y.end <= x.begin)
								<< "batch " << batch << " slots "
								<< a << ", " << b;
		}
	}
}

TEST(VerifyBatch, MinSize)
{
	// the data transfers: an atomic is always kAtomicSize bytes
	PlanParams pp{.seed = 3,
		      .ops = kDefaultOps,
		      .max_size = 1 << 20,
		      .min_size = 256 << 10,
		      .max_sge = 16,
		      .mtu = 256};
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
	Options o = parse_ok({"--depth", "8", "--min-size", "256K", "--max-size=8M", "--qp-timeout",
			      "14", "--retry-cnt=3", "192.0.2.2"});
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

// --nccl: NCCL's defaults where nothing was given, what was given kept
TEST(VerifyBatch, NcclOptions)
{
	Options n = parse_ok({"--nccl", "192.0.2.2"});
	EXPECT_TRUE(n.nccl);
	EXPECT_EQ(n.depth, kNcclDepth);
	EXPECT_EQ(n.max_size, kNcclMaxSize);
	EXPECT_EQ(n.qp_timeout, kNcclQpTimeout);
	EXPECT_EQ(n.qps, 1u);
	EXPECT_EQ(n.ar_threshold, kNcclArThreshold);
	Options g = parse_ok({"--nccl", "--depth", "4", "--max-size", "1M", "--qp-timeout", "14",
			      "--qps", "4", "--ar-threshold", "64K"});
	EXPECT_EQ(g.depth, 4u);
	EXPECT_EQ(g.max_size, 1u << 20);
	EXPECT_EQ(g.qp_timeout, 14);
	EXPECT_EQ(g.qps, 4u);
	EXPECT_EQ(g.ar_threshold, 64u << 10);
	EXPECT_FALSE(parse_ok({}).nccl);
	EXPECT_TRUE(usage_error({"--qps", "2"}));
	EXPECT_TRUE(usage_error({"--ar-threshold", "0"}));
	EXPECT_TRUE(usage_error({"--nccl", "--qps", "0"}));
	EXPECT_TRUE(usage_error({"--nccl", "--qps", "17"}));
	EXPECT_TRUE(usage_error({"--nccl", "--ops", "write"}));
	EXPECT_TRUE(usage_error({"--nccl", "--min-size", "1M"}));
}

uint32_t bit(Op op)
{
	return 1u << static_cast<unsigned>(op);
}

TEST(VerifyBatch, OpsOption)
{
	// without --ops: the five data transfers, no atomics
	EXPECT_EQ(parse_ok({}).ops, bit(Op::Send) | bit(Op::SendImm) | bit(Op::Write) |
					    bit(Op::WriteImm) | bit(Op::Read));
	EXPECT_EQ(kDefaultOps, 0x1fu);
	EXPECT_EQ(parse_ok({"--ops", "cas,faa"}).ops, bit(Op::CmpSwap) | bit(Op::FetchAdd));
	EXPECT_EQ(parse_ok({"--ops=faa"}).ops, bit(Op::FetchAdd));
	EXPECT_EQ(parse_ok({"--ops", "read,write,cas,faa"}).ops,
		  bit(Op::Read) | bit(Op::Write) | bit(Op::CmpSwap) | bit(Op::FetchAdd));
	// all: every operation, atomics included
	EXPECT_EQ(parse_ok({"--ops", "all"}).ops, kAllOps);
	EXPECT_EQ(kAllOps, kDefaultOps | kAtomicOps | kAtomicWriteOp);
	EXPECT_EQ(op_name(Op::CmpSwap), "cas");
	EXPECT_EQ(op_name(Op::FetchAdd), "faa");
	EXPECT_EQ(op_name(Op::AtomicWrite), "atomic_write");
	EXPECT_EQ(parse_ok({"--ops", "atomic_write,read"}).ops,
		  bit(Op::AtomicWrite) | bit(Op::Read));
	// an ATOMIC WRITE: 8 bytes from the WR itself into an 8-aligned region
	PlanParams aw{.seed = 9,
		      .ops = bit(Op::AtomicWrite),
		      .max_size = 64 << 10,
		      .max_sge = 4,
		      .mtu = 1024};
	for (uint64_t i = 0; i < 100; i++) {
		Plan p = make_plan(aw, i);
		EXPECT_EQ(p.op, Op::AtomicWrite);
		EXPECT_EQ(p.size, kAtomicSize);
		EXPECT_TRUE(p.local.empty());
		EXPECT_FALSE(p.posts_recv);
		EXPECT_EQ(p.remote.length, kAtomicSize);
		EXPECT_EQ(p.remote.offset % kAtomicSize, 0u);
	}
	EXPECT_TRUE(usage_error({"--ops", "cas,atomic"}));
	EXPECT_TRUE(usage_error({"--ops", ""}));
}

TEST(VerifyBatch, Initiators)
{
	EXPECT_EQ(parse_ok({}).initiators, Initiators::Any);
	EXPECT_EQ(parse_ok({"--initiator", "client"}).initiators, Initiators::Client);
	EXPECT_EQ(parse_ok({"--initiator=server"}).initiators, Initiators::Server);
	EXPECT_TRUE(usage_error({"--initiator", "both"}));
	// forcing the side changes nothing else of a plan
	PlanParams any{.seed = 4, .ops = kAllOps, .max_size = 64 << 10, .max_sge = 4, .mtu = 1024};
	for (Initiators who : {Initiators::Client, Initiators::Server}) {
		PlanParams forced = any;
		forced.initiators = who;
		for (uint64_t i = 0; i < 200; i++) {
			Plan a = make_plan(any, i), f = make_plan(forced, i);
			EXPECT_EQ(f.initiator,
				  who == Initiators::Client ? Role::Client : Role::Server);
			EXPECT_EQ(a.op, f.op);
			EXPECT_EQ(a.size, f.size);
			EXPECT_EQ(a.remote.offset, f.remote.offset);
			EXPECT_EQ(a.send_wr_id, f.send_wr_id);
		}
	}
}

// The plans of the default op set are those of the tool before atomics
// existed (a fingerprint of every field of 2000 plans, taken then): old
// seeds reproduce old runs.
TEST(VerifyBatch, DefaultPlansUnchanged)
{
	PlanParams pp{
		.seed = 1, .ops = kDefaultOps, .max_size = 2u << 20, .max_sge = 16, .mtu = 1024};
	uint64_t h = 0;
	auto mix = [&](uint64_t v) { h = splitmix64(h ^ v); };
	for (uint64_t i = 0; i < 2000; i++) {
		Plan p = make_plan(pp, i);
		place_in_slot(p, static_cast<uint32_t>(i % 4), pp.max_size);
		mix(static_cast<uint64_t>(p.op));
		mix(static_cast<uint64_t>(p.initiator));
		mix(p.size);
		for (auto *l : {&p.local, &p.recv}) {
			mix(l->size());
			for (const Sge &s : *l) {
				mix(s.mr);
				mix(s.offset);
				mix(s.length);
			}
		}
		mix(p.posts_recv);
		mix(p.remote.mr);
		mix(p.remote.offset);
		mix(p.remote.length);
		mix(p.imm);
		mix(p.try_inline);
		mix(p.send_wr_id);
		mix(p.recv_wr_id);
		mix(p.data_key);
		mix(p.bg_key_base);
	}
	EXPECT_EQ(h, 0x729a3aefce1f3742ull);
}

TEST(VerifyBatch, AtomicPlans)
{
	constexpr uint32_t kDepth = 8;
	for (uint32_t max_size : {0u, 1u, 13u, 4095u, 65536u, 2u << 20}) {
		PlanParams pp{.seed = 9,
			      .ops = kAtomicOps,
			      .max_size = max_size,
			      .max_sge = 16,
			      .mtu = 1024};
		EXPECT_EQ(mr_size(max_size) % kAtomicSize, 0u);
		unsigned cas = 0, cas_equal = 0, faa = 0;
		for (uint64_t i = 0; i < 2000; i++) {
			Plan p = make_plan(pp, i);
			uint32_t slot = static_cast<uint32_t>(i % kDepth);
			place_in_slot(p, slot, max_size);
			ASSERT_TRUE(is_atomic(p.op));
			uint64_t lo = uint64_t{slot} * mr_size(max_size);
			uint64_t hi = lo + mr_size(max_size);
			// 8 bytes, one local SGE, no RECV, an 8-aligned remote region
			EXPECT_EQ(p.size, kAtomicSize);
			ASSERT_EQ(p.local.size(), 1u);
			EXPECT_EQ(p.local[0].length, kAtomicSize);
			EXPECT_FALSE(p.posts_recv);
			EXPECT_TRUE(p.recv.empty());
			EXPECT_FALSE(p.try_inline);
			EXPECT_LT(p.remote.mr, kNumMrs);
			EXPECT_EQ(p.remote.length, kAtomicSize);
			EXPECT_EQ(p.remote.offset % kAtomicSize, 0u) << "iteration " << i;
			// within the slot, the guard after it included (the one
			// before may reach into the previous slot's slack, see
			// SlotsNeverOverlapAndStayInTheirMr)
			for (const Sge &s : {p.local[0], p.remote}) {
				EXPECT_GE(s.offset, lo);
				EXPECT_LE(s.offset + s.length + kGuard, hi);
			}
			uint64_t orig = atomic_original(p);
			if (p.op == Op::FetchAdd) {
				faa++;
				EXPECT_NE(p.compare_add, 0u);
				EXPECT_EQ(atomic_final(p), orig + p.compare_add);
			} else {
				cas++;
				EXPECT_NE(p.swap, orig);
				if (p.compare_add == orig) {
					cas_equal++;
					EXPECT_EQ(atomic_final(p), p.swap);
				} else {
					EXPECT_EQ(atomic_final(p), orig);
				}
			}
			// a second execution would leave another value
			if (p.op == Op::FetchAdd) {
				EXPECT_NE(atomic_final(p) + p.compare_add, atomic_final(p));
			}
		}
		EXPECT_GT(faa, 800u);
		EXPECT_GT(cas, 800u);
		// the compare matches about half of the time
		EXPECT_GT(cas_equal, cas * 4 / 10);
		EXPECT_LT(cas_equal, cas * 6 / 10);
	}
}

// Mixed with the data transfers, the atomics keep to the same rules.
TEST(VerifyBatch, MixedOpsPickAtomics)
{
	PlanParams pp{.seed = 5, .ops = kAllOps, .max_size = 64 << 10, .max_sge = 4, .mtu = 1024};
	unsigned n[kNumOps] = {};
	for (uint64_t i = 0; i < 1400; i++) {
		Plan p = make_plan(pp, i);
		n[static_cast<unsigned>(p.op)]++;
		if (is_atomic(p.op)) {
			EXPECT_EQ(p.size, kAtomicSize);
		}
	}
	for (unsigned k = 0; k < kNumOps; k++)
		EXPECT_GT(n[k], 100u) << op_name(static_cast<Op>(k));
}

}  // namespace
