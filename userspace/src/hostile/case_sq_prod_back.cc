// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case sq-prod-back: the SQ producer index moved backwards below what
// the kernel fetched (but not below what it completed), then the doorbell.
//
// An RC QP in RTS is connected to a peer QP left in INIT: its WRITEs are
// sent (fetched == sent) and never acknowledged (completed stays behind).
// The producer is then set into [completed, fetched) and the raw doorbell
// rung. A kernel that trusts the index walks from fetched up to it the long
// way round (2^32 entries, under the QP lock); a correct one fails the QP:
// it reaches ERR and its WRs flush. All kernel work runs in a child, so a
// stuck kernel is reported after --case-secs instead of hanging us.
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

constexpr unsigned kWrites = 8;
constexpr std::size_t kBuf = 64 * 1024;

// kWrites signalled RDMA WRITEs of the 64 bytes at buf to buf + 4 KiB
bool post_writes(ibv_qp *qp, ibv_sge &sge, const ibv_mr *mr, std::byte *buf)
{
	std::vector<ibv_send_wr> wrs(kWrites);
	for (unsigned i = 0; i < kWrites; i++) {
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sge;
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_RDMA_WRITE;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(buf) + 4096;
		wrs[i].wr.rdma.rkey = mr->rkey;
		wrs[i].next = i + 1 < kWrites ? &wrs[i + 1] : nullptr;
	}
	ibv_send_wr *bad = nullptr;
	if (ibv_post_send(qp, wrs.data(), &bad)) {
		std::printf("post_send: %s\n", std::strerror(errno));
		return false;
	}
	return true;
}

// With all kWrites in flight, the producer moved back to half of them, then
// the raw doorbell
bool move_producer_back(const Mapping &sq, ibv_qp *qp)
{
	auto prod = ring_word(sq, kProducerOff);
	const std::uint32_t cons = ring_word(sq, kConsumerOff).load();
	const std::uint32_t p0 = prod.load();
	if (p0 - cons != kWrites) {
		std::printf("expected %u WRs in flight, the ring says producer %u consumer %u\n",
			    kWrites, p0, cons);
		return false;
	}
	const std::uint32_t back = cons + kWrites / 2;
	std::printf("producer %u, consumer (completed) %u: producer moved back to %u, doorbell\n",
		    p0, cons, back);
	std::fflush(stdout);
	prod.store(back);
	const int db = sq_doorbell(qp);
	std::printf("doorbell returned %d (%s)\n", db, db ? std::strerror(db) : "ok");
	return true;
}

// The QP must reach ERR within 10 s; its WRs' completions are counted
bool expect_err(ibv_qp *qp, ibv_cq *cq)
{
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	ibv_qp_state st = qp_state(qp);
	while (st != IBV_QPS_ERR && std::chrono::steady_clock::now() < deadline) {
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		st = qp_state(qp);
	}
	unsigned flushed = 0, other = 0;
	ibv_wc wc[16];
	for (int n; (n = ibv_poll_cq(cq, 16, wc)) > 0;)
		for (int i = 0; i < n; i++)
			(wc[i].status == IBV_WC_WR_FLUSH_ERR ? flushed : other)++;
	std::printf("QP state %s; completions: %u flushed, %u other\n", qp_state_name(st), flushed,
		    other);
	if (st != IBV_QPS_ERR) {
		std::printf("FAILED: the QP did not reach ERR within 10 s\n");
		return false;
	}
	return true;
}

int sq_prod_back(const Options &o)
{
	Device dev;
	if (!open_device(o.dev, o.gid_index, dev))
		return 1;
	PdPtr pd(ibv_alloc_pd(dev.ctx.get()));
	CqPtr cq(pd ? ibv_create_cq(dev.ctx.get(), 64, nullptr, nullptr, 0) : nullptr);
	std::vector<std::byte> buf(kBuf);
	MrPtr mr(cq ? ibv_reg_mr(pd.get(), buf.data(), buf.size(), kAllAccess) : nullptr);
	if (!mr) {
		std::printf("PD/CQ/MR: %s\n", std::strerror(errno));
		return 1;
	}
	QpCaps caps;
	caps.send_wr = 64;
	auto a = create_tracked(
		[&] { return create_qp(pd.get(), IBV_QPT_RC, cq.get(), cq.get(), nullptr, caps); });
	QpPtr b = create_qp(pd.get(), IBV_QPT_RC, cq.get(), cq.get(), nullptr, caps);
	if (!a.qp || !b) {
		std::printf("create_qp: %s\n", std::strerror(errno));
		return 1;
	}
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(buf.data()), 64, mr->lkey};
	ibv_recv_wr rwr{};
	ibv_recv_wr *bad_r = nullptr;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (const int err = qp_init(a.qp.get())) {
		std::printf("modify_qp INIT: %s\n", std::strerror(err));
		return 1;
	}
	if (const int err = ibv_post_recv(a.qp.get(), &rwr, &bad_r)) {
		std::printf("post_recv: %s\n", std::strerror(err));
		return 1;
	}
	const auto sq = find_sq(a, 1);
	if (!sq) {
		std::printf("cannot tell the SQ mapping among %zu new ones\n", a.maps.size());
		return 1;
	}
	// the peer stays in INIT: it drops our requests, nothing is acknowledged
	if (qp_init(b.get()) || qp_rtr(a.qp.get(), dev, b->qp_num, 0) ||
	    qp_rts(a.qp.get(), 0, 18, 7)) {  // 1 s retransmit timeout: we act long before
		std::printf("connect: %s\n", std::strerror(errno));
		return 1;
	}
	if (!wait_need_wakeup(*sq, 5))
		std::printf("note: the SQ never asked for a doorbell after RTS\n");

	if (!post_writes(a.qp.get(), sge, mr.get(), buf.data()))
		return 1;
	// the doorbell ran the send worker in the call: all 8 fetched and sent
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	if (!move_producer_back(*sq, a.qp.get()))
		return 1;
	return expect_err(a.qp.get(), cq.get()) ? 0 : 1;
}

}  // namespace

int case_sq_prod_back(const Options &o)
{
	return run_bounded([&] { return sq_prod_back(o); }, o.case_secs, "sq-prod-back");
}

}  // namespace sroce::hostile
