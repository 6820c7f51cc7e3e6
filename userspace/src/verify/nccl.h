// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --nccl: the traffic of NCCL's IB transport (its net_ib plugin), every
// byte and every completion checked.
//
// A connection carries one direction, from a sender to a receiver, over
// QPS RC QPs. Per request (one isend/irecv pair of NCCL), with DEPTH
// requests in flight (NCCL_STEPS):
//   receiver  fills its buffer slot with background, posts a RECV without
//             SGEs on every QP of the connection, then writes a
//             clear-to-send entry {addr, rkey, capacity, tag, idx} into
//             the sender's FIFO slot: an inline RDMA WRITE on the first QP,
//             signaled once per DEPTH entries (as NCCL recycles its SQ)
//   sender    polls its FIFO memory until the entry's idx is request + 1,
//             splits the message over the QPs (chunks of a multiple of 128
//             bytes; a QP past the end gets a zero-length chunk) and posts
//             on each QP an RDMA WRITE_WITH_IMM of its chunk with the size
//             as immediate - or, above the adaptive-routing threshold, a
//             plain RDMA WRITE of the chunk followed by a zero-length
//             WRITE_WITH_IMM (remote address and rkey 0, as NCCL posts it);
//             only the last WR of each QP is signaled
//   receiver  takes one RECV_RDMA_WITH_IMM completion per QP (imm = size,
//             byte_len = the QP's chunk, 0 for the separate marker), then
//             checks the whole slot: the message, background around it
//   sender    takes one send completion per QP; the slot is free again
// With --initiator any both directions run at once, each over its own QPs.
#pragma once

#include <chrono>
#include <cstdint>

#include "endpoint.h"
#include "options.h"
#include "plan.h"
#include "session.h"

namespace sroce::verify {

struct NcclParams {
	uint64_t seed = 0;
	uint64_t iterations = 0;  // requests over both directions
	uint32_t max_size = 0;
	uint32_t min_size = 0;
	uint32_t mtu = 1024;
	uint32_t depth = kNcclDepth;
	uint32_t qps = 1;  // per connection
	uint32_t ar_threshold = kNcclArThreshold;
	Initiators senders = Initiators::Any;  // Client: client -> server only
};

// The send WRs one slot may keep queued on a QP: a chunk's WRITE and the
// zero-length WRITE_WITH_IMM, and the receiver's clear-to-send entry.
inline constexpr uint32_t kNcclWrsPerSlot = 3;

// Endpoints of an --nccl run have 2 * QPS QPs: QPs [0, QPS) carry the
// client -> server connection, [QPS, 2 * QPS) server -> client.
constexpr uint32_t nccl_endpoint_qps(uint32_t qps)
{
	return 2 * qps;
}

// The requests of direction DIR (0: client -> server).
uint64_t nccl_requests(const NcclParams &p, uint32_t dir);

// The size of request REQUEST of direction DIR (0: client -> server).
uint32_t nccl_size(const NcclParams &p, uint32_t dir, uint64_t request);

// Run every request of P on EP (connected to PEER); SESSION watches the
// TCP link for the peer's failure. Returns the bytes of all requests, both
// directions (each checked by its receiver). Throws Error on any problem.
uint64_t run_nccl(Endpoint &ep, Session &session, Role me, const PeerInfo &peer,
		  const NcclParams &p, std::chrono::milliseconds timeout, bool verbose);

}  // namespace sroce::verify
