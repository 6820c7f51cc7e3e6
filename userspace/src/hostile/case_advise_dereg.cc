// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case advise-dereg: ibv_advise_mr(PREFETCH_WRITE, FLAG_FLUSH) of a cold
// 1 GiB ODP MR in one thread, ibv_dereg_mr of the same MR in another after
// a short delay (1..20 ms, different each round). The prefetch faults the
// range in chunk by chunk and takes long; a kernel that lets dereg free
// the MR's umem under it uses freed memory. A correct kernel makes one of
// them wait or the prefetch stop; advise may then fail, which is fine.
// Where the device has implicit ODP, every other round prefetches the
// region through an implicit MR (the whole address space) instead: the
// prefetch then makes the MR's 2 MiB children while dereg frees them.
//
// Without KASAN the freed umem is noticed only once its memory is used
// again: so while the prefetch still runs after dereg returned, new ODP
// MRs of the same size are registered and deregistered (their umems take
// the freed memory), and 300 ms after the delay the range is unmapped, which
// ends a prefetch still faulting it in: a round takes well under a second
// whether dereg waits for the prefetch or not.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "cases.h"
#include "child.h"
#include "device.h"
#include "mapping.h"

namespace sroce::hostile {

namespace {

constexpr std::size_t kMrLen = std::size_t{1} << 30;
constexpr int kOdpAccess = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
constexpr unsigned kChurnMs = 300;  // from dereg to the end of a round

double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
		.count();
}

enum class Round { ok, lost, error };

// A 1 GiB ODP MR of mem (or an implicit one), or nullptr
ibv_mr *reg_odp(ibv_pd *pd, AnonRegion &mem, bool implicit)
{
	ibv_mr *mr = implicit ? ibv_reg_mr(pd, nullptr, SIZE_MAX, kOdpAccess)
			      : ibv_reg_mr(pd, mem.data(), mem.size(), kOdpAccess);
	if (!mr)
		std::printf("reg_mr ODP %s: %s\n", implicit ? "implicit" : "1 GiB",
			    std::strerror(errno));
	return mr;
}

// Dereg returned under a running prefetch: new ODP MRs of the same size
// take the memory the old one's umem had (the prefetch then writes into
// theirs, or trips over it). Until the prefetch ends or the round does;
// returns how many were registered.
unsigned churn_mrs(ibv_pd *pd, std::chrono::steady_clock::time_point t0, unsigned delay_ms,
		   const std::atomic<bool> &advise_done)
{
	unsigned churn = 0;
	while (!advise_done && ms_since(t0) < delay_ms + kChurnMs) {
		AnonRegion other(kMrLen);
		if (ibv_mr *m2 = ibv_reg_mr(pd, other.data(), other.size(), kOdpAccess)) {
			churn++;
			(void)ibv_dereg_mr(m2);
		}
	}
	return churn;
}

// Round r: a prefetch of a cold 1 GiB ODP MR, the MR deregistered under it
Round advise_dereg_round(const Device &dev, ibv_pd *pd, unsigned r)
{
	const unsigned delay_ms = 1 + (r * 7) % 20;
	AnonRegion mem(kMrLen);	 // never touched: every page cold
	if (!mem.valid()) {
		std::printf("mmap 1 GiB: %s\n", std::strerror(errno));
		return Round::error;
	}
	const bool implicit = dev.odp_implicit && (r & 1);
	ibv_mr *mr = reg_odp(pd, mem, implicit);
	if (!mr)
		return Round::error;
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(mem.data()),
		    static_cast<std::uint32_t>(kMrLen), mr->lkey};
	std::atomic<bool> advise_started{false}, advise_done{false};
	int advise_rc = -1;
	double advise_ms = 0;
	const auto t0 = std::chrono::steady_clock::now();
	std::thread prefetch([&] {
		advise_started = true;
		advise_rc = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					  IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		advise_ms = ms_since(t0);
		advise_done = true;
	});
	// the end of the round: the range unmapped, so a prefetch still
	// faulting it in stops (whether dereg waited for it or not)
	std::thread unmapper([&, region = std::move(mem)]() mutable {
		std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms + kChurnMs));
		region = AnonRegion();
	});
	// the delay counts from the prefetch's start (a thread may take
	// milliseconds to get going under emulation)
	while (!advise_started)
		std::this_thread::yield();
	std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
	const double dereg_at = ms_since(t0);
	const int dereg_rc = ibv_dereg_mr(mr);
	const double dereg_ms = ms_since(t0);
	const unsigned churn = churn_mrs(pd, t0, delay_ms, advise_done);
	prefetch.join();
	unmapper.join();
	std::printf("round %u%s: dereg at %.1f ms -> %d (%.1f ms); advise -> %d%s%s "
		    "(%.1f ms)%s; %u MRs registered meanwhile\n",
		    r, implicit ? " (implicit MR)" : "", dereg_at, dereg_rc, dereg_ms, advise_rc,
		    advise_rc ? " " : "", advise_rc ? std::strerror(advise_rc) : "", advise_ms,
		    advise_ms > dereg_ms ? ", after dereg had returned" : "", churn);
	// a thread the kernel oopsed in is ended without returning
	if (!advise_done) {
		std::printf("round %u: FAILED: the prefetch thread ended inside ibv_advise_mr "
			    "(killed by a kernel oops?)\n",
			    r);
		return Round::lost;
	}
	return Round::ok;
}

int advise_dereg(const Options &o)
{
	Device dev;
	if (!open_device(o.dev, o.gid_index, dev))
		return 1;
	if (!dev.odp) {
		std::printf("no ODP on this device (IBV_ODP_SUPPORT with RC WRITE)\n");
		return 4;
	}
	PdPtr pd(ibv_alloc_pd(dev.ctx.get()));
	if (!pd) {
		std::printf("alloc_pd: %s\n", std::strerror(errno));
		return 1;
	}
	unsigned lost = 0;
	for (unsigned r = 0; r < o.rounds; r++) {
		const Round res = advise_dereg_round(dev, pd.get(), r);
		if (res == Round::error)
			return 1;
		if (res == Round::lost)
			lost++;
		std::fflush(stdout);
	}
	std::printf("%u rounds finished%s\n", o.rounds,
		    lost ? ", in some the prefetch never returned" : "");
	return lost ? 1 : 0;
}

}  // namespace

int case_advise_dereg(const Options &o)
{
	// a correct kernel may finish every prefetch: up to seconds per round
	return run_bounded([&] { return advise_dereg(o); }, o.case_secs + 10.0 * o.rounds,
			   "advise-dereg");
}

}  // namespace sroce::hostile
