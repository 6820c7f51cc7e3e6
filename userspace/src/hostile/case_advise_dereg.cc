// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case advise-dereg: ibv_advise_mr(PREFETCH_WRITE, FLAG_FLUSH) of a cold
// 1 GiB ODP MR in one thread, ibv_dereg_mr of the same MR in another after
// a short delay (1..20 ms, different each round). The prefetch faults the
// range in chunk by chunk and takes long; a kernel that lets dereg free
// the MR's umem under it uses freed memory. A correct kernel makes one of
// them wait or the prefetch stop; advise may then fail, which is fine.
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

double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
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
	for (unsigned r = 0; r < o.rounds; r++) {
		const unsigned delay_ms = 1 + (r * 7) % 20;
		AnonRegion mem(kMrLen);	// never touched: every page cold
		if (!mem.valid()) {
			std::printf("mmap 1 GiB: %s\n", std::strerror(errno));
			return 1;
		}
		ibv_mr *mr = ibv_reg_mr(pd.get(), mem.data(), mem.size(),
					IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			std::printf("reg_mr ODP 1 GiB: %s\n", std::strerror(errno));
			return 1;
		}
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(mem.data()),
			    static_cast<std::uint32_t>(kMrLen), mr->lkey};
		int advise_rc = -1;
		double advise_ms = 0;
		const auto t0 = std::chrono::steady_clock::now();
		std::thread prefetch([&] {
			advise_rc = ibv_advise_mr(pd.get(), IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
						  IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
			advise_ms = ms_since(t0);
		});
		std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
		const double dereg_at = ms_since(t0);
		const int dereg_rc = ibv_dereg_mr(mr);
		const double dereg_ms = ms_since(t0);
		prefetch.join();
		std::printf("round %u: dereg at %.1f ms -> %d (%.1f ms); advise -> %d%s%s (%.1f ms)\n", r,
			    dereg_at, dereg_rc, dereg_ms, advise_rc, advise_rc ? " " : "",
			    advise_rc ? std::strerror(advise_rc) : "", advise_ms);
		std::fflush(stdout);
	}
	std::printf("%u rounds finished\n", o.rounds);
	return 0;
}

}  // namespace

int case_advise_dereg(const Options &o)
{
	// a correct kernel may finish every prefetch: up to seconds per round
	return run_bounded([&] { return advise_dereg(o); }, o.case_secs + 10.0 * o.rounds,
			   "advise-dereg");
}

}  // namespace sroce::hostile
