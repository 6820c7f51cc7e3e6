// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "endpoint.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sroce::verify {

namespace {

constexpr uint8_t kPort = 1;
constexpr uint32_t kMinQueueDepth = 16;
constexpr uint32_t kWantSge = 16;
constexpr uint32_t kWantInline = 256;

ibv_mtu mtu_enum(uint32_t bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

void modify(ibv_qp *qp, ibv_qp_attr &attr, int mask, const char *what)
{
	int rc = ibv_modify_qp(qp, &attr, mask);
	if (rc)
		throw_errno(std::string("ibv_modify_qp to ") + what, rc);
}

}  // namespace

uint32_t mtu_bytes(ibv_mtu mtu)
{
	return 128u << static_cast<unsigned>(mtu);
}

void PeerInfo::encode(WireWriter &w) const
{
	w.u32(static_cast<uint32_t>(qpns.size()));
	for (uint32_t qpn : qpns)
		w.u32(qpn);
	w.u32(psn);
	w.bytes(gid);
	w.u32(max_sge);
	w.u32(active_mtu);
	w.u32(max_msg_sz);
	w.u32(max_dest_rd_atomic);
	for (unsigned i = 0; i < kNumMrs; i++) {
		w.u64(mr_addr[i]);
		w.u32(mr_rkey[i]);
		w.u64(mr_len[i]);
	}
}

PeerInfo PeerInfo::decode(WireReader &r)
{
	PeerInfo p;
	uint32_t n = r.u32();
	if (n < 1 || n > kMaxQps)
		throw Error("the peer announces " + std::to_string(n) + " QPs");
	for (uint32_t i = 0; i < n; i++)
		p.qpns.push_back(r.u32());
	p.psn = r.u32();
	r.bytes(p.gid);
	p.max_sge = r.u32();
	p.active_mtu = r.u32();
	p.max_msg_sz = r.u32();
	p.max_dest_rd_atomic = r.u32();
	for (unsigned i = 0; i < kNumMrs; i++) {
		p.mr_addr[i] = r.u64();
		p.mr_rkey[i] = r.u32();
		p.mr_len[i] = r.u64();
	}
	return p;
}

Endpoint::Endpoint(const std::string &device, int gid_index, const EndpointSpec &spec)
	: ctx_(open_device(device)), gid_index_(gid_index), psn_(spec.psn & 0xffffff)
{
	ibv_device_attr dattr{};
	if (int rc = ibv_query_device(ctx_.get(), &dattr))
		throw_errno("ibv_query_device", rc);
	const int access = check_device(spec, dattr);
	if (ibv_query_gid(ctx_.get(), kPort, gid_index, &gid_))
		throw_errno("ibv_query_gid index " + std::to_string(gid_index), errno);
	static const ibv_gid zero{};
	if (!std::memcmp(&gid_, &zero, sizeof(gid_)))
		throw Error("GID index " + std::to_string(gid_index) + " is empty");

	pd_.reset(ibv_alloc_pd(ctx_.get()));
	if (!pd_)
		throw_errno("ibv_alloc_pd", errno);
	create_queues(spec, dattr);
	register_regions(spec, access);
	qps_to_init(access);
}

// Whether the device and its port can do what spec asks; the MR access
// flags it calls for.
int Endpoint::check_device(const EndpointSpec &spec, const ibv_device_attr &dattr)
{
	ibv_port_attr pattr{};
	if (int rc = ibv_query_port(ctx_.get(), kPort, &pattr))
		throw_errno("ibv_query_port", rc);
	if (pattr.state != IBV_PORT_ACTIVE)
		throw Error("port 1 of " + std::string(ibv_get_device_name(ctx_->device)) +
			    " is not ACTIVE");
	active_mtu_ = mtu_bytes(pattr.active_mtu);
	max_msg_sz_ = pattr.max_msg_sz;
	if (spec.max_size > pattr.max_msg_sz)
		throw Error("--max-size " + std::to_string(spec.max_size) +
			    " exceeds the port's max_msg_sz " + std::to_string(pattr.max_msg_sz));
	if (mr_size(spec.max_size, spec.depth) > dattr.max_mr_size)
		throw Error("--max-size times --depth too large for the device's max_mr_size");
	if (spec.qps < 1 || spec.qps > static_cast<uint32_t>(std::max(dattr.max_qp, 1)))
		throw Error(std::to_string(spec.qps) + " QPs: more than the device's max_qp");
	// as many READs in flight as the device allows, both ways (rxe and
	// sroce: 128), so a batch's READs are really outstanding together
	max_init_rd_atomic_ = static_cast<uint32_t>(std::max(dattr.max_qp_init_rd_atom, 1));
	max_dest_rd_atomic_ = static_cast<uint32_t>(std::max(dattr.max_qp_rd_atom, 1));
	// remote atomics only when asked for: other runs register and connect
	// exactly as before
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (spec.atomics) {
		if (dattr.atomic_cap == IBV_ATOMIC_NONE)
			throw Error(
				"--ops cas/faa: " + std::string(ibv_get_device_name(ctx_->device)) +
				" reports atomic_cap IBV_ATOMIC_NONE (no remote atomics)");
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	}
	if (spec.atomic_write) {
		ibv_device_attr_ex xattr{};
		// IB_UVERBS_DEVICE_ATOMIC_WRITE: the device executes ATOMIC WRITE
		if (ibv_query_device_ex(ctx_.get(), nullptr, &xattr) ||
		    !(xattr.device_cap_flags_ex & (1ull << 40)))
			throw Error("--ops atomic_write: " +
				    std::string(ibv_get_device_name(ctx_->device)) +
				    " does not advertise ATOMIC WRITE");
	}
	return access;
}

// The CQs and the QPs, with what the QPs were granted
void Endpoint::create_queues(const EndpointSpec &spec, const ibv_device_attr &dattr)
{
	// per QP: wrs_per_slot send entries and one receive entry per slot;
	// the CQs hold every completion all QPs can have outstanding
	const uint32_t sdepth = std::max(kMinQueueDepth, spec.depth * spec.wrs_per_slot);
	const uint32_t rdepth = std::max(kMinQueueDepth, spec.depth);
	scq_.reset(ibv_create_cq(ctx_.get(), static_cast<int>(sdepth * spec.qps), nullptr, nullptr,
				 0));
	rcq_.reset(ibv_create_cq(ctx_.get(), static_cast<int>(rdepth * spec.qps), nullptr, nullptr,
				 0));
	if (!scq_ || !rcq_)
		throw_errno("ibv_create_cq", errno);

	// A device reporting max_sge 0 gets asked for kWantSge: the QP's caps
	// say what it really grants.
	uint32_t sge = dattr.max_sge > 0 ? std::min<uint32_t>(kWantSge, dattr.max_sge) : kWantSge;
	ibv_qp_init_attr init{};
	init.send_cq = scq_.get();
	init.recv_cq = rcq_.get();
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = sdepth;
	init.cap.max_recv_wr = rdepth;
	init.cap.max_send_sge = sge;
	init.cap.max_recv_sge = sge;
	init.cap.max_inline_data = kWantInline;
	for (uint32_t i = 0; i < spec.qps; i++)
		qps_.push_back(create_qp(init, spec.atomic_write));
	max_inline_ = init.cap.max_inline_data;
	max_sge_ = std::min(init.cap.max_send_sge, init.cap.max_recv_sge);
	if (dattr.max_sge_rd > 0)
		max_sge_ = std::min<uint32_t>(max_sge_, dattr.max_sge_rd);
	if (!max_sge_)
		throw Error("the QP has no SGE");
}

// kNumMrs MRs, each of a batch's worth of buffers
void Endpoint::register_regions(const EndpointSpec &spec, int access)
{
	for (unsigned i = 0; i < kNumMrs; i++) {
		Region r;
		r.mem.resize(mr_size(spec.max_size, spec.depth));
		r.mr.reset(ibv_reg_mr(pd_.get(), r.mem.data(), r.mem.size(), access));
		if (!r.mr)
			throw_errno("ibv_reg_mr of " + std::to_string(r.mem.size()) + " bytes",
				    errno);
		// plans put atomic operands at 8-aligned offsets (operator new
		// aligns far more; a failure here is a broken allocator)
		if (reinterpret_cast<uintptr_t>(r.mem.data()) % kAtomicSize)
			throw Error("MR buffer not 8-byte aligned");
		regions_.push_back(std::move(r));
	}
}

void Endpoint::qps_to_init(int access)
{
	for (auto &qp : qps_) {
		ibv_qp_attr attr{};
		attr.qp_state = IBV_QPS_INIT;
		attr.pkey_index = 0;
		attr.port_num = kPort;
		attr.qp_access_flags = static_cast<unsigned>(access);
		modify(qp.get(), attr,
		       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		       "INIT");
	}
}

// One RC QP of INIT's capabilities (updated to what the device granted).
QpPtr Endpoint::create_qp(ibv_qp_init_attr &init, bool atomic_write)
{
	QpPtr qp;
	if (atomic_write) {
		// an extended QP: ATOMIC WRITE exists only in the ibv_wr_* API; the
		// other operations keep using ibv_post_send on it
		ibv_qp_init_attr_ex ex{};
		ex.send_cq = init.send_cq;
		ex.recv_cq = init.recv_cq;
		ex.qp_type = IBV_QPT_RC;
		ex.cap = init.cap;
		ex.pd = pd_.get();
		ex.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ex.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
		qp.reset(ibv_create_qp_ex(ctx_.get(), &ex));
		if (!qp)
			throw_errno("ibv_create_qp_ex with ATOMIC WRITE", errno);
		if (!qpx_)
			qpx_ = ibv_qp_to_qp_ex(qp.get());
		init.cap = ex.cap;
		return qp;
	}
	qp.reset(ibv_create_qp(pd_.get(), &init));
	if (!qp && init.cap.max_inline_data) {
		// a device without inline data
		init.cap.max_inline_data = 0;
		qp.reset(ibv_create_qp(pd_.get(), &init));
	}
	if (!qp)
		throw_errno("ibv_create_qp", errno);
	return qp;
}

PeerInfo Endpoint::info() const
{
	PeerInfo p;
	for (const auto &qp : qps_)
		p.qpns.push_back(qp->qp_num);
	p.psn = psn_;
	std::memcpy(p.gid.data(), gid_.raw, p.gid.size());
	p.max_sge = max_sge_;
	p.active_mtu = active_mtu_;
	p.max_msg_sz = max_msg_sz_;
	p.max_dest_rd_atomic = max_dest_rd_atomic_;
	for (unsigned i = 0; i < kNumMrs; i++) {
		p.mr_addr[i] = reinterpret_cast<uintptr_t>(regions_[i].mem.data());
		p.mr_rkey[i] = regions_[i].mr->rkey;
		p.mr_len[i] = regions_[i].mem.size();
	}
	return p;
}

uint64_t Endpoint::addr(uint32_t mr, uint64_t offset) const
{
	return reinterpret_cast<uintptr_t>(regions_[mr].mem.data()) + offset;
}

void Endpoint::connect(const PeerInfo &peer, uint32_t mtu, Retry retry)
{
	if (peer.qpns.size() != qps_.size())
		throw Error("the peer has " + std::to_string(peer.qpns.size()) +
			    " QPs, this side " + std::to_string(qps_.size()));
	// never more READs outstanding than the peer answers at once
	max_rd_atomic_ = std::clamp<uint32_t>(peer.max_dest_rd_atomic, 1, max_init_rd_atomic_);

	for (uint32_t i = 0; i < qps_.size(); i++) {
		ibv_qp *qp = qps_[i].get();
		ibv_qp_attr attr{};
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = mtu_enum(mtu);
		attr.dest_qp_num = peer.qpns[i];
		attr.rq_psn = qp_psn(peer.psn, i);
		attr.max_dest_rd_atomic =
			static_cast<uint8_t>(std::min<uint32_t>(max_dest_rd_atomic_, 255));
		attr.min_rnr_timer = 12;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.port_num = kPort;
		std::memcpy(attr.ah_attr.grh.dgid.raw, peer.gid.data(), peer.gid.size());
		attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
		attr.ah_attr.grh.hop_limit = 64;
		modify(qp, attr,
		       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		       "RTR");

		attr = {};
		attr.qp_state = IBV_QPS_RTS;
		attr.timeout = retry.timeout;  // default 17, ~0.5 s: generous under emulation
		attr.retry_cnt = retry.retry_cnt;
		attr.rnr_retry = 7;
		attr.sq_psn = qp_psn(psn_, i);
		attr.max_rd_atomic = static_cast<uint8_t>(std::min<uint32_t>(max_rd_atomic_, 255));
		modify(qp, attr,
		       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
		       "RTS");
	}
}

}  // namespace sroce::verify
