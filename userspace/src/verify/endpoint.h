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
	std::vector<uint32_t> qpns;  // its QPs; QP i connects to the peer's QP i
	uint32_t psn = 0;	     // of QP 0, see qp_psn()
	std::array<uint8_t, 16> gid{};
	uint32_t max_sge = 0;	  // min of send, recv and RDMA read SGEs
	uint32_t active_mtu = 0;  // bytes
	uint32_t max_msg_sz = 0;
	uint32_t max_dest_rd_atomic = 0;  // READs it answers at once (responder)
	std::array<uint64_t, kNumMrs> mr_addr{};
	std::array<uint32_t, kNumMrs> mr_rkey{};
	std::array<uint64_t, kNumMrs> mr_len{};

	void encode(WireWriter &w) const;
	static PeerInfo decode(WireReader &r);
};

uint32_t mtu_bytes(ibv_mtu mtu);

// The initial PSN of QP number QP of a side whose QP 0 starts at PSN.
constexpr uint32_t qp_psn(uint32_t psn, uint32_t qp)
{
	return (psn + qp * 0x35a5a5u) & 0xffffff;
}

inline constexpr uint32_t kMaxQps = 64;	 // per side, in the handshake

// What an Endpoint is made for.
struct EndpointSpec {
	uint32_t max_size = 0;	    // the largest transfer
	uint32_t depth = 1;	    // transfers in flight (slots of every MR)
	uint32_t psn = 0;	    // QP 0's initial PSN
	bool atomics = false;	    // MRs and QPs allow remote atomics
	bool atomic_write = false;  // extended QPs that may post ATOMIC WRITE
	uint32_t qps = 1;	    // RC QPs, sharing the CQs and the MRs
	uint32_t wrs_per_slot = 1;  // send WRs a slot may have queued on one QP
};

class Endpoint {
public:
	// Opens DEVICE, creates everything and moves the QPs to INIT; the
	// queues hold SPEC.depth transfers in flight. With atomics the MRs and
	// the QPs allow remote atomics (an Error if the device has no
	// atomic_cap). With atomic_write the QPs are extended ones that may
	// post ATOMIC WRITE (an Error if the device does not advertise it).
	Endpoint(const std::string &device, int gid_index, const EndpointSpec &spec);

	PeerInfo info() const;
	// The requester's retry settings, applied by connect().
	struct Retry {
		uint8_t timeout = 17;  // local ACK timeout exponent
		uint8_t retry_cnt = 7;
	};
	// Every QP INIT -> RTR -> RTS towards the peer's QP of the same
	// number, with path MTU MTU (bytes).
	void connect(const PeerInfo &peer, uint32_t mtu, Retry retry);
	// READs the QP may have outstanding as requester (after connect()).
	uint32_t max_rd_atomic() const { return max_rd_atomic_; }

	std::span<uint8_t> bytes(uint32_t mr) { return regions_[mr].mem; }
	uint64_t addr(uint32_t mr, uint64_t offset) const;
	uint32_t lkey(uint32_t mr) const { return regions_[mr].mr->lkey; }
	ibv_qp *qp(uint32_t i = 0) const { return qps_[i].get(); }
	uint32_t num_qps() const { return static_cast<uint32_t>(qps_.size()); }
	// the extended QP (ATOMIC WRITE runs only), else nullptr
	ibv_qp_ex *qpx() const { return qpx_; }
	ibv_cq *send_cq() const { return scq_.get(); }
	ibv_cq *recv_cq() const { return rcq_.get(); }
	uint32_t max_inline() const { return max_inline_; }

private:
	int check_device(const EndpointSpec &spec, const ibv_device_attr &dattr);
	void create_queues(const EndpointSpec &spec, const ibv_device_attr &dattr);
	void register_regions(const EndpointSpec &spec, int access);
	void qps_to_init(int access);
	QpPtr create_qp(ibv_qp_init_attr &init, bool atomic_write);

	struct Region {
		std::vector<uint8_t> mem;
		MrPtr mr;
	};
	ContextPtr ctx_;
	PdPtr pd_;
	CqPtr scq_;
	CqPtr rcq_;
	std::vector<QpPtr> qps_;
	ibv_qp_ex *qpx_ = nullptr;
	std::vector<Region> regions_;
	int gid_index_;
	ibv_gid gid_{};
	uint32_t psn_;
	uint32_t max_sge_ = 0;
	uint32_t max_inline_ = 0;
	uint32_t active_mtu_ = 0;
	uint32_t max_msg_sz_ = 0;
	uint32_t max_init_rd_atomic_ = 1;  // device limits
	uint32_t max_dest_rd_atomic_ = 1;
	uint32_t max_rd_atomic_ = 1;
};

}  // namespace sroce::verify
