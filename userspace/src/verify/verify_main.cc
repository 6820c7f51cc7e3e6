// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-verify: random RC transfers against a peer, every byte and every
// completion checked. See Documentation/verify.rst.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "endpoint.h"
#include "nccl.h"
#include "options.h"
#include "plan.h"
#include "rng.h"
#include "session.h"
#include "tcp_link.h"
#include "wire.h"

using namespace sroce::verify;

namespace {

constexpr uint32_t kMagic = 0x53525646;	 // "SRVF"
constexpr uint32_t kVersion = 5;	 // 3: cas and faa; 4: atomic_write; 5: --nccl
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;

// What the client imposes on the run.
struct Hello {
	uint64_t seed;
	uint32_t iterations, max_size, ops, mtu, min_size, depth, timeout_s, initiators;
	Endpoint::Retry retry;
	uint32_t nccl, qps, ar_threshold;
};

uint32_t initial_psn(uint64_t seed, Role role)
{
	return static_cast<uint32_t>(derive_key(seed, static_cast<uint64_t>(role), 7)) & 0xffffff;
}

EndpointSpec spec_of(const Hello &h, Role role)
{
	EndpointSpec s;
	s.max_size = h.max_size;
	s.depth = h.depth;
	s.psn = initial_psn(h.seed, role);
	if (h.nccl) {
		s.qps = nccl_endpoint_qps(h.qps);
		s.wrs_per_slot = kNcclWrsPerSlot;
	} else {
		s.atomics = (h.ops & kAtomicOps) != 0;
		s.atomic_write = (h.ops & kAtomicWriteOp) != 0;
	}
	return s;
}

std::chrono::milliseconds timeout_of(const Options &o)
{
	return std::chrono::seconds(o.timeout_s);
}

struct Connected {
	std::unique_ptr<Endpoint> ep;
	PeerInfo peer;
	Hello hello;
};

Hello hello_of(const Options &o)
{
	return {o.seed,
		o.iterations,
		o.max_size,
		o.ops,
		o.mtu,
		o.min_size,
		o.depth,
		o.timeout_s,
		static_cast<uint32_t>(o.initiators),
		{o.qp_timeout, o.retry_cnt},
		o.nccl,
		o.qps,
		o.ar_threshold};
}

Connected client_setup(const Options &o, std::unique_ptr<Endpoint> ep, TcpLink &link)
{
	Connected c;
	c.ep = std::move(ep);
	c.hello = hello_of(o);
	WireWriter w;
	w.u32(kMagic);
	w.u32(kVersion);
	w.u64(c.hello.seed);
	w.u32(c.hello.iterations);
	w.u32(c.hello.max_size);
	w.u32(c.hello.ops);
	w.u32(c.hello.mtu);
	w.u32(c.hello.min_size);
	w.u32(c.hello.depth);
	w.u32(c.hello.timeout_s);
	w.u32(c.hello.retry.timeout);
	w.u32(c.hello.retry.retry_cnt);
	w.u32(c.hello.initiators);
	w.u32(c.hello.nccl);
	w.u32(c.hello.qps);
	w.u32(c.hello.ar_threshold);
	c.ep->info().encode(w);
	link.send(w.data());

	auto reply = link.receive(timeout_of(o));
	WireReader r(reply);
	if (r.u32() != kMagic) {
		auto rest = std::span<const uint8_t>(reply).subspan(4);
		throw PeerFailure(std::string(rest.begin(), rest.end()));
	}
	c.peer = PeerInfo::decode(r);
	return c;
}

Connected server_setup(const Options &o, TcpLink &link)
{
	Connected c;
	auto msg = link.receive(std::chrono::hours(24));
	WireReader r(msg);
	if (r.u32() != kMagic || r.u32() != kVersion)
		throw Error("the client is not sroce-verify of the same version");
	c.hello.seed = r.u64();
	c.hello.iterations = r.u32();
	c.hello.max_size = r.u32();
	c.hello.ops = r.u32();
	c.hello.mtu = r.u32();
	c.hello.min_size = r.u32();
	c.hello.depth = r.u32();
	c.hello.timeout_s = r.u32();
	c.hello.retry.timeout = static_cast<uint8_t>(r.u32());
	c.hello.retry.retry_cnt = static_cast<uint8_t>(r.u32());
	c.hello.initiators = r.u32();
	c.hello.nccl = r.u32();
	c.hello.qps = r.u32();
	c.hello.ar_threshold = r.u32();
	try {
		c.peer = PeerInfo::decode(r);
		if (c.hello.depth < 1 || c.hello.depth > kMaxDepth ||
		    c.hello.min_size > c.hello.max_size || c.hello.timeout_s < 1 || !c.hello.ops ||
		    (c.hello.ops & ~kAllOps) ||
		    c.hello.initiators > static_cast<uint32_t>(Initiators::Server) ||
		    c.hello.nccl > 1 || c.hello.qps < 1 || c.hello.qps > kMaxNcclQps)
			throw Error("the client asks for an impossible run");
		c.ep = std::make_unique<Endpoint>(o.device, o.gid_index,
						  spec_of(c.hello, Role::Server));
	} catch (const Error &e) {
		// tell the client why instead of just hanging up
		WireWriter w;
		w.u32(0);
		std::string_view t = e.what();
		w.bytes({reinterpret_cast<const uint8_t *>(t.data()), t.size()});
		link.send(w.data());
		throw;
	}
	WireWriter w;
	w.u32(kMagic);
	c.ep->info().encode(w);
	link.send(w.data());
	return c;
}

// The endpoint, connected over link to the peer (the client asks, the server answers)
Connected setup(const Options &o, Role me, std::optional<TcpLink> &link)
{
	if (me == Role::Client) {
		// the device first: a local problem need not bother the server
		auto ep = std::make_unique<Endpoint>(o.device, o.gid_index,
						     spec_of(hello_of(o), Role::Client));
		link = TcpLink::connect(o.server, o.port, std::chrono::seconds(o.timeout_s));
		return client_setup(o, std::move(ep), *link);
	}
	link = TcpLink::accept_one(o.port);
	return server_setup(o, *link);
}

// What the plans are made of: the hello's, and what both ends can do
PlanParams plan_params(const Connected &c, const PeerInfo &mine)
{
	PlanParams pp;
	pp.seed = c.hello.seed;
	pp.ops = c.hello.ops;
	pp.max_size = c.hello.max_size;
	pp.min_size = c.hello.min_size;
	pp.max_sge = std::min(mine.max_sge, c.peer.max_sge);
	pp.mtu = c.hello.mtu ? c.hello.mtu : std::min(mine.active_mtu, c.peer.active_mtu);
	pp.initiators = static_cast<Initiators>(c.hello.initiators);
	return pp;
}

// The collectives run (--nccl): the bytes it moved
uint64_t run_nccl_session(const Options &o, Connected &c, Session &session, Role me,
			  const PlanParams &pp)
{
	NcclParams np;
	np.seed = pp.seed;
	np.iterations = c.hello.iterations;
	np.max_size = pp.max_size;
	np.min_size = pp.min_size;
	np.mtu = pp.mtu;
	np.depth = c.hello.depth;
	np.qps = c.hello.qps;
	np.ar_threshold = c.hello.ar_threshold;
	np.senders = pp.initiators;
	return run_nccl(*c.ep, session, me, c.peer, np, std::chrono::seconds(c.hello.timeout_s),
			o.verbose);
}

// The planned transfers, a batch of --depth at a time: the bytes they moved
uint64_t run_plans(const Connected &c, Session &session, const PlanParams &pp)
{
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < c.hello.iterations; i += c.hello.depth) {
		std::vector<Plan> batch;
		for (uint32_t k = 0; k < c.hello.depth && i + k < c.hello.iterations; k++) {
			batch.push_back(make_plan(pp, i + k));
			place_in_slot(batch.back(), k, pp.max_size);
		}
		session.run(batch);
		for (const Plan &p : batch)
			bytes += p.size;
	}
	return bytes;
}

int run(const Options &o)
{
	Role me = o.server.empty() ? Role::Server : Role::Client;
	std::optional<TcpLink> link;
	try {
		Connected c = setup(o, me, link);
		PeerInfo mine = c.ep->info();
		const PlanParams pp = plan_params(c, mine);
		c.ep->connect(c.peer, pp.mtu, c.hello.retry);
		if (o.verbose)
			std::cout << "sroce-verify: " << role_name(me) << " qpn " << mine.qpns[0]
				  << " psn " << mine.psn << ", peer qpn " << c.peer.qpns[0]
				  << ", qps " << mine.qpns.size() << ", mtu " << pp.mtu
				  << ", max_sge " << pp.max_sge << ", max_inline "
				  << c.ep->max_inline() << ", depth " << c.hello.depth
				  << ", max_rd_atomic " << c.ep->max_rd_atomic() << ", seed "
				  << pp.seed << std::endl;

		// the client's --timeout holds for both sides
		Session session(*c.ep, *link, me, c.peer, std::chrono::seconds(c.hello.timeout_s),
				o.verbose);
		const uint64_t bytes = c.hello.nccl ? run_nccl_session(o, c, session, me, pp)
						    : run_plans(c, session, pp);
		session.finish(c.hello.iterations);
		std::cout << "sroce-verify: " << c.hello.iterations << " transfers, " << bytes
			  << " bytes, all verified" << std::endl;
		return 0;
	} catch (const PeerFailure &e) {
		std::cerr << "sroce-verify: " << role_name(me) << ": the peer failed: " << e.what()
			  << std::endl;
	} catch (const Error &e) {
		std::cerr << "sroce-verify: FAILED: " << e.what() << std::endl;
		if (link) {
			try {
				send_control(*link, Msg::Fail, 0, e.what());
			} catch (const Error &) {
				// the peer is gone already
			}
		}
	}
	return kExitFail;
}

}  // namespace

int main(int argc, char **argv)
{
	std::vector<std::string_view> args(argv + 1, argv + argc);
	auto parsed = parse_options(args);
	if (auto *help = std::get_if<Help>(&parsed)) {
		std::cout << help->text;
		return 0;
	}
	if (auto *bad = std::get_if<UsageError>(&parsed)) {
		std::cerr << "sroce-verify: " << bad->message << "\n" << usage_text();
		return kExitUsage;
	}
	return run(std::get<Options>(parsed));
}
