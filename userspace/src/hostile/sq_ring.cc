// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "sq_ring.h"

#include <chrono>
#include <thread>

namespace sroce::hostile {

std::optional<Mapping> find_sq(const QpWithRings &q, unsigned recvs)
{
	std::optional<Mapping> sq;
	bool rq_seen = false;

	for (const auto &m : q.maps) {
		if (m.len < SROCE_RING_HDR_SIZE)
			continue;
		const auto prod = ring_word(m, kProducerOff).load();
		if (prod == 0 && !sq)
			sq = m;
		else if (prod == recvs)
			rq_seen = true;
	}
	return rq_seen ? sq : std::nullopt;
}

bool wait_need_wakeup(const Mapping &sq, double secs)
{
	const auto deadline =
		std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	while (!(ring_word(sq, kFlagsOff).load() & SROCE_RING_F_NEED_WAKEUP)) {
		if (std::chrono::steady_clock::now() >= deadline)
			return false;
		std::this_thread::sleep_for(std::chrono::milliseconds(2));
	}
	return true;
}

}  // namespace sroce::hostile
