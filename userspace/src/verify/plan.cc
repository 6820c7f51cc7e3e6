// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "plan.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <set>

#include "pattern.h"
#include "rng.h"

namespace sroce::verify {

namespace {

enum Purpose : uint64_t { kPlanRng = 1, kData = 2, kBackground = 3 };

// Split TOTAL bytes into 1..max_sge non-empty SGEs spread over the MRs,
// never overlapping, with random gaps so guards sit between them.
// START[mr] is where MR number mr is free from.
std::vector<Sge> pick_layout(Rng &rng, uint64_t total, uint32_t max_sge,
			     const uint64_t (&start)[kNumMrs] = {})
{
	std::vector<Sge> list;
	if (total == 0)
		return list;
	uint64_t n = rng.chance(30) ? 1 : rng.between(1, max_sge);
	n = std::min<uint64_t>(n, total);
	// Floyd's algorithm: n-1 distinct cut points in [1, total-1].
	std::set<uint64_t> cuts;
	for (uint64_t j = total - 1 - (n - 1) + 1; j <= total - 1; j++) {
		uint64_t t = rng.between(1, j);
		if (!cuts.insert(t).second)
			cuts.insert(j);
	}
	cuts.insert(total);
	uint64_t cursor[kNumMrs];
	for (unsigned i = 0; i < kNumMrs; i++)
		cursor[i] = start[i] + rng.below(256);
	uint64_t prev = 0;
	for (uint64_t cut : cuts) {
		Sge s;
		s.mr = static_cast<uint32_t>(rng.below(kNumMrs));
		s.length = static_cast<uint32_t>(cut - prev);
		s.offset = cursor[s.mr] + (rng.chance(30) ? 0 : rng.between(1, kGuard));
		cursor[s.mr] = s.offset + s.length;
		list.push_back(s);
		prev = cut;
	}
	return list;
}

// The rest of an atomic's plan, once its op and initiator are drawn: 8
// bytes into one local SGE, from an 8-aligned remote region.
void plan_atomic(Rng &rng, Plan &plan)
{
	plan.size = kAtomicSize;
	plan.local = pick_layout(rng, kAtomicSize, 1);
	plan.remote.mr = static_cast<uint32_t>(rng.below(kNumMrs));
	plan.remote.offset = rng.below(kMaxRemoteOffset / kAtomicSize) * kAtomicSize;
	plan.remote.length = kAtomicSize;
	plan.send_wr_id = rng.next();
	const uint64_t orig = atomic_original(plan);
	if (plan.op == Op::FetchAdd) {
		// never 0: an addition executed twice must show in the region
		plan.compare_add = rng.next() | 1;
		return;
	}
	// half of the compares match and swap; the swap value always differs
	// from the original, so a swap that did (not) happen shows
	plan.compare_add = rng.chance(50) ? orig : orig ^ (rng.next() | 1);
	plan.swap = rng.next();
	if (plan.swap == orig)
		plan.swap = ~orig;
}

}  // namespace

uint32_t pick_size(Rng &rng, uint32_t max_size, uint32_t mtu)
{
	if (max_size == 0)
		return 0;
	uint64_t r = rng.below(100);
	uint64_t s;
	if (r < 5) {
		s = 0;
	} else if (r < 20) {
		s = rng.between(1, 64);
	} else if (r < 45) {
		uint64_t d = rng.below(5);
		s = rng.below(9) * mtu + d;
		s = s >= 2 ? s - 2 : 0;
	} else {
		unsigned top = std::bit_width(max_size) - 1;
		unsigned e = static_cast<unsigned>(rng.below(top + 1));
		uint64_t lo = 1ull << e;
		s = rng.between(lo, 2 * lo - 1);
	}
	return static_cast<uint32_t>(std::min<uint64_t>(s, max_size));
}

uint64_t atomic_original(const Plan &plan)
{
	uint8_t b[kAtomicSize];
	for (unsigned k = 0; k < kAtomicSize; k++)
		b[k] = pattern_byte(plan.data_key, k);
	uint64_t v;
	std::memcpy(&v, b, sizeof(v));
	return v;
}

uint64_t atomic_final(const Plan &plan)
{
	const uint64_t orig = atomic_original(plan);
	if (plan.op == Op::FetchAdd)
		return orig + plan.compare_add;
	return plan.compare_add == orig ? plan.swap : orig;
}

std::string_view role_name(Role r)
{
	return r == Role::Client ? "client" : "server";
}

uint64_t mr_size(uint32_t max_size)
{
	return (uint64_t{max_size} + kMrSlack + kAtomicSize - 1) / kAtomicSize * kAtomicSize;
}

uint64_t mr_size(uint32_t max_size, uint32_t depth)
{
	return mr_size(max_size) * depth;
}

void place_in_slot(Plan &plan, uint32_t slot, uint32_t max_size)
{
	uint64_t base = uint64_t{slot} * mr_size(max_size);
	plan.slot = slot;
	for (auto *list : {&plan.local, &plan.recv})
		for (Sge &s : *list)
			s.offset += base;
	plan.remote.offset += base;
}

Plan make_plan(const PlanParams &p, uint64_t iteration)
{
	Rng rng(derive_key(p.seed, iteration, kPlanRng));
	Plan plan;
	plan.iteration = iteration;
	plan.data_key = derive_key(p.seed, iteration, kData);
	plan.bg_key_base = derive_key(p.seed, iteration, kBackground);

	std::vector<Op> ops;
	for (unsigned i = 0; i < kNumOps; i++)
		if (p.ops & (1u << i))
			ops.push_back(static_cast<Op>(i));
	plan.op = ops[rng.below(ops.size())];
	plan.initiator = rng.chance(50) ? Role::Client : Role::Server;
	if (p.initiators != Initiators::Any)
		plan.initiator = p.initiators == Initiators::Client ? Role::Client : Role::Server;
	if (is_atomic(plan.op)) {
		plan_atomic(rng, plan);
		return plan;
	}
	if (plan.op == Op::AtomicWrite) {
		// the 8 message bytes, from the WR itself, to an 8-aligned region
		plan.size = kAtomicSize;
		plan.remote.mr = static_cast<uint32_t>(rng.below(kNumMrs));
		plan.remote.offset = rng.below(kMaxRemoteOffset / kAtomicSize) * kAtomicSize;
		plan.remote.length = kAtomicSize;
		plan.send_wr_id = rng.next();
		return plan;
	}
	plan.size = pick_size(rng, p.max_size, p.mtu);
	if (plan.size < p.min_size)
		plan.size = static_cast<uint32_t>(rng.between(p.min_size, p.max_size));
	plan.local = pick_layout(rng, plan.size, p.max_sge);
	plan.imm = static_cast<uint32_t>(rng.next());
	plan.try_inline = rng.chance(30);
	plan.send_wr_id = rng.next();
	plan.recv_wr_id = rng.next();

	switch (plan.op) {
	case Op::Send:
	case Op::SendImm:
		// a RECV may be longer than the message: the rest stays untouched
		plan.posts_recv = true;
		plan.recv = pick_layout(rng, plan.size + (rng.chance(50) ? 0 : rng.between(1, 256)),
					p.max_sge);
		break;
	case Op::CmpSwap:
	case Op::FetchAdd:
	case Op::AtomicWrite: break;  // planned above
	case Op::Write:
	case Op::WriteImm:
	case Op::Read:
		plan.remote.mr = static_cast<uint32_t>(rng.below(kNumMrs));
		plan.remote.offset = rng.below(kMaxRemoteOffset);
		plan.remote.length = plan.size;
		if (plan.op == Op::WriteImm) {
			// the RECV is consumed but none of its buffer is written; keep
			// it clear of the region and of the region's guards
			uint64_t start[kNumMrs] = {};
			start[plan.remote.mr] = plan.remote.offset + plan.size + 2 * kGuard;
			plan.posts_recv = true;
			plan.recv = pick_layout(rng, rng.chance(50) ? 0 : rng.between(1, 256),
						p.max_sge, start);
		}
		break;
	}
	return plan;
}

uint64_t background_key(const Plan &plan, uint32_t mr)
{
	return splitmix64(plan.bg_key_base + mr);
}

uint64_t list_length(const std::vector<Sge> &list)
{
	uint64_t n = 0;
	for (const auto &s : list)
		n += s.length;
	return n;
}

std::string describe_list(const std::vector<Sge> &list)
{
	if (list.empty())
		return "(no SGE)";
	std::string out;
	char buf[64];
	for (const auto &s : list) {
		std::snprintf(buf, sizeof(buf), "%smr%u+0x%llx/%u", out.empty() ? "" : " ", s.mr,
			      static_cast<unsigned long long>(s.offset), s.length);
		out += buf;
	}
	return out;
}

std::string describe_plan(const Plan &plan)
{
	char imm[128] = "";
	if (plan.op == Op::SendImm || plan.op == Op::WriteImm)
		std::snprintf(imm, sizeof(imm), ", imm 0x%08x", plan.imm);
	auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
	if (plan.op == Op::FetchAdd)
		std::snprintf(imm, sizeof(imm), ", original 0x%016llx + add 0x%016llx",
			      ull(atomic_original(plan)), ull(plan.compare_add));
	if (plan.op == Op::CmpSwap)
		std::snprintf(imm, sizeof(imm),
			      ", original 0x%016llx, compare 0x%016llx (%s), swap 0x%016llx",
			      ull(atomic_original(plan)), ull(plan.compare_add),
			      plan.compare_add == atomic_original(plan) ? "equal" : "differs",
			      ull(plan.swap));
	char buf[320];
	std::snprintf(buf, sizeof(buf), "iteration %llu (slot %u): %s of %u bytes, %s -> %s%s%s",
		      static_cast<unsigned long long>(plan.iteration), plan.slot,
		      std::string(op_name(plan.op)).c_str(), plan.size,
		      std::string(role_name(plan.initiator)).c_str(),
		      std::string(role_name(other(plan.initiator))).c_str(), imm,
		      plan.try_inline && plan.op != Op::Read && !is_atomic(plan.op) &&
				      plan.op != Op::AtomicWrite
			      ? ", inline if it fits"
			      : "");
	std::string out = buf;
	out += "\n  " + std::string(role_name(plan.initiator)) + " SGEs (" +
	       std::to_string(plan.local.size()) + "): " + describe_list(plan.local);
	if (plan.posts_recv)
		out += "\n  " + std::string(role_name(other(plan.initiator))) + " RECV SGEs (" +
		       std::to_string(plan.recv.size()) + "): " + describe_list(plan.recv);
	if (plan.op == Op::Write || plan.op == Op::WriteImm || plan.op == Op::Read ||
	    is_atomic(plan.op) || plan.op == Op::AtomicWrite)
		out += "\n  " + std::string(role_name(other(plan.initiator))) +
		       " remote region: " + describe_list({plan.remote});
	return out;
}

}  // namespace sroce::verify
