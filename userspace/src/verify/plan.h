// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The plan of one transfer: which side starts it, the operation, its size,
// the scatter/gather lists of both sides and the remote region. Both peers
// compute the same plan from (seed, iteration), so nothing but "ready" and
// "done" travels over TCP per batch of transfers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "options.h"

namespace sroce::verify {

inline constexpr unsigned kNumMrs = 4;	    // MRs per side
inline constexpr uint32_t kMrSlack = 8192;  // MR size = max_size + slack
inline constexpr uint32_t kGuard = 64;	    // checked bytes around targets
inline constexpr uint32_t kMaxRemoteOffset = 4096;
inline constexpr uint32_t kAtomicSize = 8;  // an atomic's operand, 8-aligned

enum class Role : uint8_t { Client, Server };
std::string_view role_name(Role r);
constexpr Role other(Role r)
{
	return r == Role::Client ? Role::Server : Role::Client;
}

// One SGE: OFFSET into the side's MR number MR.
struct Sge {
	uint32_t mr = 0;
	uint64_t offset = 0;
	uint32_t length = 0;
};

struct PlanParams {
	uint64_t seed = 0;
	uint32_t ops = 0;  // mask of enabled Op
	uint32_t max_size = 0;
	uint32_t min_size = 0;	// smaller sizes are redrawn in [min_size, max_size]
	uint32_t max_sge = 1;	// min over both sides and send/recv/read
	uint32_t mtu = 1024;	// path MTU in bytes (sizes cluster around it)
	Initiators initiators = Initiators::Any;  // a forced side keeps the rest
						  // of every plan as it was
};

struct Plan {
	uint64_t iteration = 0;
	uint32_t slot = 0;  // position in its batch, see place_in_slot()
	Op op = Op::Send;
	Role initiator = Role::Client;
	uint32_t size = 0;
	std::vector<Sge> local;	  // initiator: gather (send, write) / scatter (read)
	bool posts_recv = false;  // target posts a RECV (send, send_imm, write_imm)
	std::vector<Sge> recv;	  // target's RECV scatter list
	Sge remote;		  // target's region of a write/read/atomic (length = size)
	uint32_t imm = 0;	  // host order
	bool try_inline = false;  // send inline if the QP allows it
	uint64_t send_wr_id = 0;
	uint64_t recv_wr_id = 0;
	uint64_t data_key = 0;	   // message byte k = pattern_byte(data_key, k)
	uint64_t bg_key_base = 0;  // see background_key()
	// An atomic (size kAtomicSize, one local SGE, an 8-aligned remote
	// region holding the first 8 message bytes, see atomic_original()):
	// FETCH_ADD's addend or CMP_SWAP's compare value, and CMP_SWAP's swap.
	uint64_t compare_add = 0;
	uint64_t swap = 0;
};

// The target region's value before an atomic: message bytes 0..7 read as
// a host-order 64-bit word. The initiator gets it back in its local SGE.
uint64_t atomic_original(const Plan &plan);
// The value the region must hold after the atomic ran exactly once.
uint64_t atomic_final(const Plan &plan);

// Bytes of one slot of an MR (a multiple of kAtomicSize, so remote offsets
// that are multiples of it stay aligned in every slot); every MR holds
// DEPTH slots.
class Rng;
// A transfer size: zero, tiny, around multiples of the MTU (packet
// boundaries) or log-uniform up to MAX_SIZE.
uint32_t pick_size(Rng &rng, uint32_t max_size, uint32_t mtu);

uint64_t mr_size(uint32_t max_size);
uint64_t mr_size(uint32_t max_size, uint32_t depth);
Plan make_plan(const PlanParams &p, uint64_t iteration);

// Transfers in flight together each get their own slot of every MR: the
// offsets of plan SLOT of a batch (local, RECV and remote lists alike, on
// both sides) move up by SLOT * mr_size(max_size). A plan never reaches
// past its slot, guards included, so the plans of a batch never overlap.
void place_in_slot(Plan &plan, uint32_t slot, uint32_t max_size);

// Untouched bytes of MR number MR hold pattern_byte(background_key(), offset).
uint64_t background_key(const Plan &plan, uint32_t mr);

// Sum of the SGE lengths.
uint64_t list_length(const std::vector<Sge> &list);

// "mr1+0x40/100 mr3+0x0/7" and a multi-line description for failures.
std::string describe_list(const std::vector<Sge> &list);
std::string describe_plan(const Plan &plan);

}  // namespace sroce::verify
