// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One side of the test: device, PD, CQs, an RC QP and kNumMrs registered
// buffers of DEPTH slots each, plus what the peer needs to know about them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "plan.h"
#include "verbs_handles.h"
#include "wire.h"

namespace sroce::verify {

// What each side tells the other.
struct PeerInfo {
	uint32_t qpn = 0;
	uint32_t psn = 0;
	std::array<uint8_t, 16> gid{};
	uint32_t max_sge = 0;       // min of send, recv and RDMA read SGEs
	uint32_t active_mtu = 0;    // bytes
	uint32_t max_msg_sz = 0;
	uint32_t max_dest_rd_atomic = 0;  // READs it answers at once (responder)
	std::array<uint64_t, kNumMrs> mr_addr{};
	std::array<uint32_t, kNumMrs> mr_rkey{};
	std::array<uint64_t, kNumMrs> mr_len{};

	void encode(WireWriter &w) const;
	static PeerInfo decode(WireReader &r);
};

uint32_t mtu_bytes(ibv_mtu mtu);

class Endpoint {
public:
	// Opens DEVICE, creates everything and moves the QP to INIT; the
	// queues hold DEPTH transfers in flight. With ATOMICS the MRs and the
	// QP allow remote atomics (an Error if the device has no atomic_cap).
	// With ATOMIC_WRITE the QP is an extended one that may post ATOMIC
	// WRITE (an Error if the device does not advertise it).
	Endpoint(const std::string &device, int gid_index, uint32_t max_size, uint32_t depth,
		 uint32_t psn, bool atomics = false, bool atomic_write = false);

	PeerInfo info() const;
	// The requester's retry settings, applied by connect().
	struct Retry {
		uint8_t timeout = 17;   // local ACK timeout exponent
		uint8_t retry_cnt = 7;
	};
	// INIT -> RTR -> RTS towards PEER with path MTU MTU (bytes).
	void connect(const PeerInfo &peer, uint32_t mtu, Retry retry);
	// READs the QP may have outstanding as requester (after connect()).
	uint32_t max_rd_atomic() const { return max_rd_atomic_; }

	std::span<uint8_t> bytes(uint32_t mr) { return regions_[mr].mem; }
	uint64_t addr(uint32_t mr, uint64_t offset) const;
	uint32_t lkey(uint32_t mr) const { return regions_[mr].mr->lkey; }
	ibv_qp *qp() const { return qp_.get(); }
	// the extended QP (ATOMIC WRITE runs only), else nullptr
	ibv_qp_ex *qpx() const { return qpx_; }
	ibv_cq *send_cq() const { return scq_.get(); }
	ibv_cq *recv_cq() const { return rcq_.get(); }
	uint32_t max_inline() const { return max_inline_; }

private:
	struct Region {
		std::vector<uint8_t> mem;
		MrPtr mr;
	};
	ContextPtr ctx_;
	PdPtr pd_;
	CqPtr scq_;
	CqPtr rcq_;
	QpPtr qp_;
	ibv_qp_ex *qpx_ = nullptr;
	std::vector<Region> regions_;
	int gid_index_;
	ibv_gid gid_{};
	uint32_t psn_;
	uint32_t max_sge_ = 0;
	uint32_t max_inline_ = 0;
	uint32_t active_mtu_ = 0;
	uint32_t max_msg_sz_ = 0;
	uint32_t max_init_rd_atomic_ = 1;   // device limits
	uint32_t max_dest_rd_atomic_ = 1;
	uint32_t max_rd_atomic_ = 1;
};

}  // namespace sroce::verify
