// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Finding a QP's SQ ring among the process's uverbs mappings: the
// provider maps the SQ and RQ at create time; after one receive is posted
// the RQ's producer is 1 and the SQ's still 0.
#pragma once

#include <infiniband/verbs.h>

#include <optional>
#include <vector>

#include "mapping.h"
#include "verbs_ptr.h"

namespace sroce::hostile {

struct QpWithRings {
	QpPtr qp;
	std::vector<Mapping> maps;  // the mappings its creation added
};

// ibv_create_qp, remembering the mappings it added.
template <typename Create> QpWithRings create_tracked(Create &&create)
{
	QpWithRings r;
	const auto before = uverbs_mappings();
	r.qp = create();
	r.maps = new_mappings(before, uverbs_mappings());
	return r;
}

// The SQ mapping, once exactly @recvs receives (> 0) were posted and no
// send: the one new mapping whose producer is 0.
std::optional<Mapping> find_sq(const QpWithRings &q, unsigned recvs);

// Wait (at most @secs) until the kernel asks for a doorbell on @sq
// (SROCE_RING_F_NEED_WAKEUP: its send worker has gone idle).
bool wait_need_wakeup(const Mapping &sq, double secs);

}  // namespace sroce::hostile
