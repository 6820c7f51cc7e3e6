// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzz mode's population: one device context with objects of every
// type, QPs connected to each other through the device's own GID.
//
// Locking (World::mu): operations on existing objects (posts, polls,
// modify_qp, ring writes, ...) hold it shared and race each other freely;
// an operation that destroys or replaces an object, or unmaps a ring
// (destroy/recreate, dereg, resize_cq, close and reopen), holds it
// exclusive, so no thread of ours touches freed memory or an unmapped
// ring. The kernel's own asynchronous work still races with all of it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "device.h"
#include "mapping.h"
#include "verbs_ptr.h"

namespace sroce::hostile {

struct QpSlot {
	QpPtr qp;
	ibv_qp_type type = IBV_QPT_RC;
	bool on_srq = false;
	unsigned peer = 0;  // index of the QP it is connected to
};

struct MrSlot {
	MrPtr mr;
	std::unique_ptr<std::byte[]> buf;  // normal MRs
	AnonRegion odp_mem;		   // the ODP MRs
	std::size_t len = 0;
	bool odp = false;
	bool implicit = false;	// an implicit ODP MR, used on odp_mem

	// where the slot's memory starts (an implicit MR's addr is 0)
	std::uintptr_t base() const
	{
		return implicit ? reinterpret_cast<std::uintptr_t>(odp_mem.data())
				: reinterpret_cast<std::uintptr_t>(mr->addr);
	}
};

struct World {
	Device dev;
	ChannelPtr channel;
	std::vector<PdPtr> pds;
	std::vector<CqPtr> cqs;	 // [2] is cqx's
	ibv_cq_ex *cqx = nullptr;
	SrqPtr srq;
	std::vector<MrSlot> mrs;
	std::vector<QpSlot> qps;
	std::vector<AhPtr> ahs;
	std::vector<MwPtr> mws;	 // [0] type 1, [1] type 2
	DmPtr dm;

	std::shared_mutex mu;
	std::atomic<std::uint32_t> maps_gen{0};	 // bumped by every exclusive op

	// Everything destroyed, in an order the kernel accepts.
	void clear();
};

// Open @dev_name and create the population; false if not even the device
// context and a PD could be had (other failures leave gaps).
bool world_build(World &w, const std::string &dev_name, int gid_index);

// (Re)create QP slot @i; @connect: to its peer (which stays as is).
void world_make_qp(World &w, unsigned i, bool connect = true);
// (Re)register MR slot @i.
void world_make_mr(World &w, unsigned i);

}  // namespace sroce::hostile
