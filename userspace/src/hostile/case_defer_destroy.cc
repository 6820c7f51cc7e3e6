// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case defer-destroy: QPs destroyed while their deferred doorbell rounds,
// paced rounds and timers are still queued or running.
//
// Two threads each loop: connect an RC pair on the device's own GID, set a
// per-QP rate limit on every other sender (its pacer arms the pace timer),
// post a burst of WRITEs (each doorbell handed to the QP's work item when
// the module's doorbell_defer is 2, which the selftest sets), then destroy
// both QPs after 0-2 ms, with the burst still in flight. A kernel that can
// run one QP's work item twice at once, or lets destroy_qp return while a
// round, timer or work instance of the QP can still run, shows it in its
// log (the work item's one-instance WARNING, KASAN) or dies; the rounds
// themselves only have to end. All kernel work runs in a bounded child.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "cases.h"
#include "child.h"
#include "device.h"

namespace sroce::hostile {

namespace {

constexpr unsigned kWrites = 16;
constexpr std::uint32_t kWriteLen = 16 * 1024;
constexpr std::uint32_t kRateKbps = 200 * 1000;	 // 16 x 16 KiB: ~10 ms

struct Shared {
	Device dev;
	PdPtr pd;
	CqPtr cq;
	std::vector<std::byte> buf;
	MrPtr mr;
};

// One pair's life: connect, limit, post the burst, destroy. 0 or an errno.
int one_round(Shared &s, unsigned round, unsigned seed)
{
	QpCaps caps;
	caps.send_wr = kWrites;
	caps.recv_wr = 1;
	QpPtr a = create_qp(s.pd.get(), IBV_QPT_RC, s.cq.get(), s.cq.get(), nullptr, caps);
	QpPtr b = create_qp(s.pd.get(), IBV_QPT_RC, s.cq.get(), s.cq.get(), nullptr, caps);
	if (!a || !b)
		return errno ? errno : EIO;
	if (const int err = qp_connect(a.get(), s.dev, b->qp_num))
		return err;
	if (const int err = qp_connect(b.get(), s.dev, a->qp_num))
		return err;
	if (round % 2) {
		ibv_qp_attr attr{};
		attr.rate_limit = kRateKbps;
		if (ibv_modify_qp(a.get(), &attr, IBV_QP_RATE_LIMIT))
			return errno;
	}
	std::vector<ibv_send_wr> wrs(kWrites);
	std::vector<ibv_sge> sges(kWrites);
	const auto base = reinterpret_cast<std::uintptr_t>(s.buf.data());
	for (unsigned i = 0; i < kWrites; i++) {
		sges[i] = {base, kWriteLen, s.mr->lkey};
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_RDMA_WRITE;
		wrs[i].send_flags = i + 1 == kWrites ? IBV_SEND_SIGNALED : 0;
		wrs[i].wr.rdma.remote_addr = base + kWriteLen * (i % 4 + 1);
		wrs[i].wr.rdma.rkey = s.mr->rkey;
	}
	// posted one by one: each post may ring (and defer) a doorbell
	for (unsigned i = 0; i < kWrites; i++) {
		ibv_send_wr *bad = nullptr;
		if (ibv_post_send(a.get(), &wrs[i], &bad))
			return errno ? errno : EIO;
	}
	std::this_thread::sleep_for(
		std::chrono::microseconds((seed * 7919u + round * 104729u) % 2000));
	a.reset();
	b.reset();
	return 0;
}

int defer_destroy(const Options &o)
{
	Shared s;
	if (!open_device(o.dev, o.gid_index, s.dev))
		return 1;
	s.pd.reset(ibv_alloc_pd(s.dev.ctx.get()));
	s.cq.reset(s.pd ? ibv_create_cq(s.dev.ctx.get(), 4096, nullptr, nullptr, 0) : nullptr);
	s.buf.resize(kWriteLen * 5);
	s.mr.reset(s.cq ? ibv_reg_mr(s.pd.get(), s.buf.data(), s.buf.size(), kAllAccess) : nullptr);
	if (!s.mr) {
		std::printf("PD/CQ/MR: %s\n", std::strerror(errno));
		return 1;
	}
	// half of the case's time, so that the bounded child ends well in it
	const auto end =
		std::chrono::steady_clock::now() + std::chrono::duration<double>(o.case_secs / 2);
	std::atomic<unsigned> rounds{0}, failed{0};
	std::atomic<int> first_err{0};
	auto loop = [&](unsigned seed) {
		for (unsigned r = 0; std::chrono::steady_clock::now() < end; r++) {
			const int err = one_round(s, r, seed);
			rounds++;
			if (err) {
				failed++;
				int zero = 0;
				first_err.compare_exchange_strong(zero, err);
			}
		}
	};
	std::thread t1(loop, 1), t2(loop, 2);
	for (ibv_wc wc[64]; std::chrono::steady_clock::now() < end;)
		if (ibv_poll_cq(s.cq.get(), 64, wc) <= 0)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	t1.join();
	t2.join();
	std::printf("defer-destroy: %u pairs destroyed mid-burst, %u failed to set up%s%s\n",
		    rounds.load(), failed.load(), failed ? ": " : "",
		    failed ? std::strerror(first_err.load()) : "");
	return rounds > 0 && failed == 0 ? 0 : 1;
}

}  // namespace

int case_defer_destroy(const Options &o)
{
	return run_bounded([&] { return defer_destroy(o); }, o.case_secs, "defer-destroy");
}

}  // namespace sroce::hostile
