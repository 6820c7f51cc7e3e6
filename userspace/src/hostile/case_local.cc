// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case local-chain and local-fanin: many RC QPs of one device sending to
// each other through local delivery (the destination GID is the device's
// own, so packets never leave the kernel).
//
// Each sender gets one SEND into its SQ without a doorbell: once its send
// worker has gone idle (SROCE_RING_F_NEED_WAKEUP) we clear the flag, so
// ibv_post_send only publishes the entry. Then the doorbells: the first
// QP's send is delivered to the next QP right away, whose transport runs
// in that context and finds its own SEND waiting, and so on. A kernel that
// runs each destination's transport nested in the sender's overflows its
// stack; a correct one defers it. We poll completions for a bounded time
// and report what completed (RC peers do not match up here: QP i sends to
// i+1 but i+1's peer is i+2, so ACKs go astray and retries may end in
// errors; only surviving matters).
//
//   ring   QP i -> QP i+1, the last -> QP 0
//   chain  QP i -> QP i+1, the last -> a sink QP that sends nothing
//   fanin  QP 1..N-1 -> QP 0 (the hub), the hub -> QP 1
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "cases.h"
#include "child.h"
#include "device.h"
#include "doorbell.h"
#include "sq_ring.h"

namespace sroce::hostile {

namespace {

enum class Shape { ring, chain, fanin };

const char *shape_name(Shape s)
{
	return s == Shape::ring ? "ring" : s == Shape::chain ? "chain" : "fanin";
}

constexpr std::uint32_t kMsg = 64;

// One run: the device's objects, the QPs and their SQ mappings
struct Local {
	Shape shape;
	unsigned n;	     // ring, fanin: n QPs; chain: n senders and a sink
	unsigned total;	     // QPs
	unsigned hub_recvs;  // receives the hub of a fan-in posts (one per sender)
	unsigned recvs = 2;  // receives everyone else posts
	Device dev;
	PdPtr pd;
	CqPtr cq;
	std::vector<std::byte> buf;  // a receive buffer per (QP, receive), then the SEND's source
	MrPtr mr;
	std::vector<QpWithRings> qps;
	std::vector<Mapping> sq;

	Local(Shape s, unsigned qps_asked)
		: shape(s), n(qps_asked), total(s == Shape::chain ? n + 1 : n),
		  hub_recvs(s == Shape::fanin ? n : 2),
		  buf(static_cast<std::size_t>(total * hub_recvs + 1) * kMsg), sq(total)
	{}

	unsigned dest(unsigned i) const
	{
		switch (shape) {
		case Shape::ring: return (i + 1) % n;
		case Shape::chain: return i < n ? i + 1 : n - 1;
		default: return i == 0 ? 1 : 0;
		}
	}
	bool sends(unsigned i) const { return shape == Shape::fanin ? i != 0 : i < n; }
	std::uintptr_t recv_addr(unsigned i, unsigned r) const
	{
		return reinterpret_cast<std::uintptr_t>(buf.data()) + (i * hub_recvs + r) * kMsg;
	}
};

// The PD, one CQ for every QP and the MR over buf
bool local_objects(Local &l)
{
	l.pd.reset(ibv_alloc_pd(l.dev.ctx.get()));
	l.cq.reset(l.pd ? ibv_create_cq(l.dev.ctx.get(), static_cast<int>(l.total * 8 + l.n * 2),
					nullptr, nullptr, 0)
			: nullptr);
	l.mr.reset(l.cq ? ibv_reg_mr(l.pd.get(), l.buf.data(), l.buf.size(), kAllAccess) : nullptr);
	if (!l.mr) {
		std::printf("PD/CQ/MR: %s\n", std::strerror(errno));
		return false;
	}
	return true;
}

bool local_create_qps(Local &l)
{
	QpCaps caps;
	caps.send_wr = 4;
	caps.recv_wr = l.hub_recvs;
	for (unsigned i = 0; i < l.total; i++) {
		l.qps.push_back(create_tracked([&] {
			return create_qp(l.pd.get(), IBV_QPT_RC, l.cq.get(), l.cq.get(), nullptr,
					 caps);
		}));
		if (!l.qps.back().qp) {
			std::printf("create_qp %u: %s\n", i, std::strerror(errno));
			return false;
		}
	}
	return true;
}

// QP i to INIT with its receives posted, and its SQ's mapping found
bool local_init_qp(Local &l, unsigned i)
{
	ibv_qp *qp = l.qps[i].qp.get();
	if (qp_init(qp)) {
		std::printf("INIT %u: %s\n", i, std::strerror(errno));
		return false;
	}
	const unsigned nrecv = i == 0 ? l.hub_recvs : l.recvs;
	for (unsigned r = 0; r < nrecv; r++) {
		ibv_sge sge{l.recv_addr(i, r), kMsg, l.mr->lkey};
		ibv_recv_wr wr{};
		ibv_recv_wr *bad = nullptr;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(qp, &wr, &bad)) {
			std::printf("post_recv %u: %s\n", i, std::strerror(errno));
			return false;
		}
	}
	const auto m = find_sq(l.qps[i], nrecv);
	if (!m) {
		std::printf("QP %u: cannot tell its SQ mapping\n", i);
		return false;
	}
	l.sq[i] = *m;
	return true;
}

bool local_connect(Local &l)
{
	for (unsigned i = 0; i < l.total; i++) {
		ibv_qp *qp = l.qps[i].qp.get();
		if (qp_rtr(qp, l.dev, l.qps[l.dest(i)].qp->qp_num, 0) || qp_rts(qp, 0, 14, 1)) {
			std::printf("RTR/RTS %u: %s\n", i, std::strerror(errno));
			return false;
		}
	}
	return true;
}

// One SEND in every sender's ring, published without a doorbell once its
// worker is idle: how many were (or -1 on a failed post)
int local_publish_sends(Local &l)
{
	unsigned quiet = 0;
	for (unsigned i = 0; i < l.total; i++) {
		if (!l.sends(i))
			continue;
		if (wait_need_wakeup(l.sq[i], 5)) {
			ring_word(l.sq[i], kFlagsOff).store(0);
			quiet++;
		}
		ibv_sge sge{l.recv_addr(l.total, 0), kMsg, l.mr->lkey};
		ibv_send_wr wr{};
		ibv_send_wr *bad = nullptr;
		wr.wr_id = 1000 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(l.qps[i].qp.get(), &wr, &bad)) {
			std::printf("post_send %u: %s\n", i, std::strerror(errno));
			return -1;
		}
	}
	return static_cast<int>(quiet);
}

// Ring every sender's doorbell, then count the completions of 5 s
void local_ring_and_count(Local &l)
{
	unsigned db_err = 0;
	for (unsigned i = 0; i < l.total; i++)
		if (l.sends(i) && sq_doorbell(l.qps[i].qp.get()))
			db_err++;

	unsigned ok = 0, err = 0;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
	ibv_wc wc[64];
	while (std::chrono::steady_clock::now() < deadline) {
		const int got = ibv_poll_cq(l.cq.get(), 64, wc);
		for (int i = 0; i < got; i++)
			(wc[i].status == IBV_WC_SUCCESS ? ok : err)++;
		if (got <= 0)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	std::printf("%s: %u doorbell errors; completions in 5 s: %u successful, %u in error\n",
		    shape_name(l.shape), db_err, ok, err);
}

int local_run(const Options &o, Shape shape)
{
	Local l(shape, o.qps);
	if (!open_device(o.dev, o.gid_index, l.dev))
		return 1;
	if (!local_objects(l) || !local_create_qps(l))
		return 1;
	for (unsigned i = 0; i < l.total; i++)
		if (!local_init_qp(l, i))
			return 1;
	if (!local_connect(l))
		return 1;
	const int quiet = local_publish_sends(l);
	if (quiet < 0)
		return 1;
	std::printf("%s of %u QPs: %d SENDs published without a doorbell; ringing the doorbells\n",
		    shape_name(shape), l.total, quiet);
	std::fflush(stdout);
	local_ring_and_count(l);
	return 0;
}

}  // namespace

int case_local_chain(const Options &o)
{
	int rc = run_bounded([&] { return local_run(o, Shape::ring); }, o.case_secs,
			     "local-chain ring");
	if (!rc)
		rc = run_bounded([&] { return local_run(o, Shape::chain); }, o.case_secs,
				 "local-chain chain");
	return rc;
}

int case_local_fanin(const Options &o)
{
	return run_bounded([&] { return local_run(o, Shape::fanin); }, o.case_secs, "local-fanin");
}

}  // namespace sroce::hostile
