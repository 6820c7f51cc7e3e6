// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One fuzzing thread's operations on a World, chosen by its own PRNG.
#pragma once

#include <cstdint>
#include <vector>

#include "fuzz.h"
#include "verify/rng.h"
#include "world.h"

namespace sroce::hostile {

using Rng = sroce::verify::Rng;

class Ops {
public:
	Ops(World &w, FuzzShared &shared, const Options &o, std::uint64_t seed)
		: w_(w), shared_(shared), opt_(o), rng_(seed)
	{}
	void step();

private:
	// shared-lock operations
	void scribble();
	void post_send();
	void post_recv();
	void poll_cq();
	void modify_qp();
	void query();
	void advise();
	void bind_mw();
	void mcast();
	void notify();
	void doorbell();
	void srq_ops();
	void fork_child();
	// exclusive-lock operations
	void recreate_qp();
	void reregister_mr();
	void resize_cq();
	void resize_srq();
	void realloc_mw();
	void reopen();

	ibv_qp *pick_qp(unsigned *idx = nullptr);
	const MrSlot *pick_mr();
	ibv_cq *pick_cq();
	std::uint32_t pick_key();
	std::uint64_t pick_addr();
	std::uint32_t pick_len();
	std::uint32_t pick_index(std::uint32_t cur);
	void fill_sges(ibv_sge *sges, int n);
	void random_wqe(std::byte *slot, std::size_t room);
	void refresh_maps();

	World &w_;
	FuzzShared &shared_;
	const Options &opt_;
	Rng rng_;
	std::vector<Mapping> maps_;
	std::uint32_t maps_gen_ = ~0u;
};

}  // namespace sroce::hostile
