// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzz mode's operations: arbitrary writes into the uverbs mappings
// (ring indices, WQEs, CQEs, flags) and verbs calls with random arguments,
// racing with the other threads on the same objects. Every call may fail;
// failures are expected and ignored.
#include "ops.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "doorbell.h"

namespace sroce::hostile {

namespace {

// what the kernel may see as an opcode: valid ones, neighbours, garbage
constexpr std::array<ibv_wr_opcode, 10> kSendOps = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_LOCAL_INV,
	IBV_WR_SEND_WITH_INV,
	IBV_WR_BIND_MW,
};

constexpr std::array<ibv_qp_state, 7> kStates = {
	IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	IBV_QPS_SQD,   IBV_QPS_SQE,  IBV_QPS_ERR,
};

constexpr std::array<int, 18> kAttrBits = {
	IBV_QP_CUR_STATE,
	IBV_QP_EN_SQD_ASYNC_NOTIFY,
	IBV_QP_ACCESS_FLAGS,
	IBV_QP_PKEY_INDEX,
	IBV_QP_PORT,
	IBV_QP_QKEY,
	IBV_QP_AV,
	IBV_QP_PATH_MTU,
	IBV_QP_TIMEOUT,
	IBV_QP_RETRY_CNT,
	IBV_QP_RNR_RETRY,
	IBV_QP_RQ_PSN,
	IBV_QP_MAX_QP_RD_ATOMIC,
	IBV_QP_MIN_RNR_TIMER,
	IBV_QP_SQ_PSN,
	IBV_QP_MAX_DEST_RD_ATOMIC,
	IBV_QP_DEST_QPN,
	IBV_QP_ALT_PATH,
};

}  // namespace

void Ops::step()
{
	// weights out of 1000
	const auto r = rng_.below(1000);
	if (r < 999 || !rng_.chance(50)) {
		std::shared_lock lk(w_.mu);
		if (!w_.dev.ctx)
			return;
		if (r < 220)
			scribble();
		else if (r < 380)
			post_send();
		else if (r < 460)
			post_recv();
		else if (r < 580)
			poll_cq();
		else if (r < 680)
			modify_qp();
		else if (r < 710)
			query();
		else if (r < 740)
			advise();
		else if (r < 770)
			bind_mw();
		else if (r < 790)
			mcast();
		else if (r < 830)
			notify();
		else if (r < 910)
			doorbell();
		else if (r < 950)
			srq_ops();
		else if (r < 953)
			fork_child();
		else if (r < 999) {
			lk.unlock();
			std::unique_lock xl(w_.mu);
			w_.maps_gen++;
			if (!w_.dev.ctx)
				return;
			const auto k = rng_.below(5);
			if (k == 0)
				recreate_qp();
			else if (k == 1)
				reregister_mr();
			else if (k == 2)
				resize_cq();
			else if (k == 3)
				resize_srq();
			else
				realloc_mw();
		}
		return;
	}
	std::unique_lock xl(w_.mu);
	w_.maps_gen++;
	reopen();
}

// ---- picking ---------------------------------------------------------------

ibv_qp *Ops::pick_qp(unsigned *idx)
{
	if (w_.qps.empty())
		return nullptr;
	const unsigned i = rng_.below(w_.qps.size());
	if (idx)
		*idx = i;
	return w_.qps[i].qp.get();
}

const MrSlot *Ops::pick_mr()
{
	if (w_.mrs.empty())
		return nullptr;
	const MrSlot &s = w_.mrs[rng_.below(w_.mrs.size())];
	return s.mr ? &s : nullptr;
}

ibv_cq *Ops::pick_cq()
{
	return w_.cqs.empty() ? nullptr : w_.cqs[rng_.below(w_.cqs.size())].get();
}

std::uint32_t Ops::pick_key()
{
	const MrSlot *m = pick_mr();
	switch (rng_.below(6)) {
	case 0: return static_cast<std::uint32_t>(rng_.next());
	case 1: return m ? m->mr->lkey ^ static_cast<std::uint32_t>(rng_.below(256)) : 0;
	case 2: {
		const ibv_mw *mw =
			w_.mws.empty() ? nullptr : w_.mws[rng_.below(w_.mws.size())].get();
		return mw ? mw->rkey : 0;
	}
	default: return m ? (rng_.chance(50) ? m->mr->lkey : m->mr->rkey) : 0;
	}
}

std::uint64_t Ops::pick_addr()
{
	const MrSlot *m = pick_mr();
	if (!m || rng_.chance(10))
		return rng_.chance(50) ? rng_.next() : rng_.below(1 << 20);
	const auto base = m->base();
	switch (rng_.below(4)) {
	case 0: return base + m->len - rng_.below(64);	// at the end
	case 1: return base - rng_.below(64);		// before the start
	default: return base + (rng_.below(m->len) & ~std::uint64_t{7});
	}
}

std::uint32_t Ops::pick_len()
{
	switch (rng_.below(6)) {
	case 0: return 0;
	case 1: return static_cast<std::uint32_t>(rng_.next());
	case 2: return static_cast<std::uint32_t>(rng_.between(4096, 1 << 20));
	default: return static_cast<std::uint32_t>(rng_.below(4097));
	}
}

// A ring index relative to @cur: forward, backward, wrapped, near 2^32
std::uint32_t Ops::pick_index(std::uint32_t cur)
{
	switch (rng_.below(8)) {
	case 0: return cur + 1 + rng_.below(4);
	case 1: return cur - 1 - rng_.below(8);
	case 2: return cur + (1u << rng_.below(32));
	case 3: return cur - (1u << rng_.below(32));
	case 4: return 0xffffffffu - rng_.below(16);
	case 5: return static_cast<std::uint32_t>(rng_.below(16));
	case 6: return cur + 0x80000000u;
	default: return static_cast<std::uint32_t>(rng_.next());
	}
}

void Ops::fill_sges(ibv_sge *sges, int n)
{
	for (int i = 0; i < n; i++) {
		const MrSlot *m = pick_mr();
		if (m && rng_.chance(80)) {
			const auto base = m->base();
			const auto off = rng_.below(m->len);
			sges[i].addr = base + off;
			sges[i].length = static_cast<std::uint32_t>(
				rng_.chance(90)
					? rng_.below(std::min<std::uint64_t>(m->len - off, 8192) +
						     1)
					: pick_len());
			sges[i].lkey = rng_.chance(95) ? m->mr->lkey : pick_key();
		} else {
			sges[i].addr = pick_addr();
			sges[i].length = pick_len();
			sges[i].lkey = pick_key();
		}
	}
}

// ---- (a) writes into the mappings -------------------------------------------

void Ops::refresh_maps()
{
	const auto gen = w_.maps_gen.load();
	if (gen == maps_gen_)
		return;
	maps_ = uverbs_mappings();
	std::erase_if(maps_, [](const Mapping &m) { return !m.writable; });
	maps_gen_ = gen;
}

// A plausible SQ entry (or RQ entry, or CQE: the same bytes) with random
// fields: opcode, flags, num_sge, inline_len, keys, lengths, AH ids.
void Ops::random_wqe(std::byte *slot, std::size_t room)
{
	std::array<std::byte, 512> raw{};
	auto *w = reinterpret_cast<sroce_send_wqe *>(raw.data());
	w->wr_id = rng_.next();
	w->opcode = rng_.chance(85) ? static_cast<std::uint32_t>(rng_.below(24))
				    : static_cast<std::uint32_t>(rng_.next());
	w->send_flags = rng_.chance(85) ? static_cast<std::uint32_t>(rng_.below(16))
					: static_cast<std::uint32_t>(rng_.next());
	const unsigned max_sge = (raw.size() - sizeof(*w)) / sizeof(sroce_sge);
	const unsigned nsge = static_cast<unsigned>(rng_.below(max_sge + 1));
	w->num_sge = rng_.chance(85)   ? static_cast<std::uint32_t>(rng_.below(8))
		     : rng_.chance(50) ? nsge
				       : static_cast<std::uint32_t>(rng_.next());
	w->inline_len = rng_.chance(70)	  ? 0
			: rng_.chance(50) ? static_cast<std::uint32_t>(rng_.below(1024))
					  : static_cast<std::uint32_t>(rng_.next());
	w->ex = static_cast<__be32>(pick_key());
	w->xrc_srqn = static_cast<std::uint32_t>(rng_.below(64));
	switch (rng_.below(4)) {
	case 0:
		w->wr.ud.ah =
			static_cast<std::uint32_t>(rng_.chance(80) ? rng_.below(8) : rng_.next());
		w->wr.ud.remote_qpn = static_cast<std::uint32_t>(rng_.below(64));
		w->wr.ud.remote_qkey =
			rng_.chance(50) ? kQkey : static_cast<std::uint32_t>(rng_.next());
		break;
	case 1:
		w->wr.atomic.remote_addr = pick_addr();
		w->wr.atomic.compare_add = rng_.next();
		w->wr.atomic.swap = rng_.next();
		w->wr.atomic.rkey = pick_key();
		break;
	case 2:
		w->wr.bind.addr = pick_addr();
		w->wr.bind.length = rng_.chance(50) ? pick_len() : rng_.next();
		w->wr.bind.mr_lkey = pick_key();
		w->wr.bind.mw_rkey = pick_key();
		w->wr.bind.new_rkey = pick_key();
		w->wr.bind.access = static_cast<std::uint32_t>(rng_.next());
		break;
	default:
		w->wr.rdma.remote_addr = pick_addr();
		w->wr.rdma.rkey = pick_key();
		break;
	}
	auto *sge = reinterpret_cast<sroce_sge *>(raw.data() + sizeof(*w));
	for (unsigned i = 0; i < nsge; i++) {
		sge[i].addr = pick_addr();
		sge[i].length = pick_len();
		sge[i].lkey = pick_key();
	}
	if (rng_.chance(10))  // flip a byte
		raw[rng_.below(sizeof(*w) + nsge * sizeof(sroce_sge))] ^= std::byte{0xff};
	std::memcpy(slot, raw.data(), std::min(room, raw.size()));
}

void Ops::scribble()
{
	refresh_maps();
	if (maps_.empty())
		return;
	const Mapping &m = maps_[rng_.below(maps_.size())];
	if (m.len < SROCE_RING_HDR_SIZE + 16) {	 // not a ring: device memory?
		ring_word(m, rng_.below(m.len / 4) * 4)
			.store(static_cast<std::uint32_t>(rng_.next()));
		return;
	}
	const std::size_t slots = (m.len - SROCE_RING_HDR_SIZE) / 16;
	auto kind = rng_.below(10);
	if (opt_.avoid_producer && kind < 3)
		kind = 3;
	switch (kind) {
	case 0:
	case 1:
	case 2: {
		auto p = ring_word(m, kProducerOff);
		p.store(pick_index(p.load()));
		break;
	}
	case 3:
	case 4: {
		auto c = ring_word(m, kConsumerOff);
		c.store(pick_index(c.load()));
		break;
	}
	case 5: ring_word(m, kFlagsOff).store(static_cast<std::uint32_t>(rng_.below(4))); break;
	case 6: {  // random bytes anywhere in the entries
		const std::size_t off = SROCE_RING_HDR_SIZE + rng_.below(slots) * 16;
		const unsigned words = static_cast<unsigned>(rng_.between(1, 16));
		for (unsigned i = 0; i < words && off + 4 * i + 4 <= m.len; i++)
			ring_word(m, off + 4 * i).store(static_cast<std::uint32_t>(rng_.next()));
		break;
	}
	default: {  // a whole entry at the producer's slot, then publish it
		const std::uint32_t entry = 1u << rng_.between(6, 10);	// 64..1024
		auto p = ring_word(m, kProducerOff);
		const std::uint32_t prod = p.load();
		const std::size_t n =
			std::max<std::size_t>(1, (m.len - SROCE_RING_HDR_SIZE) / entry);
		const std::size_t off = SROCE_RING_HDR_SIZE + (prod % n) * entry;
		if (off + 64 <= m.len)
			random_wqe(m.base() + off, std::min<std::size_t>(entry, m.len - off));
		if (rng_.chance(70) && !opt_.avoid_producer)
			p.store(prod + 1);
		break;
	}
	}
	if (rng_.chance(40))
		doorbell();
}

// ---- (b) verbs calls ---------------------------------------------------------

void Ops::post_send()
{
	unsigned idx;
	ibv_qp *qp = pick_qp(&idx);
	if (!qp)
		return;
	const QpSlot &slot = w_.qps[idx];
	const QpSlot &peer = w_.qps[slot.peer];
	const int n = static_cast<int>(rng_.between(1, 4));
	std::array<ibv_send_wr, 4> wrs{};
	std::array<std::array<ibv_sge, 4>, 4> sges{};
	for (int i = 0; i < n; i++) {
		ibv_send_wr &wr = wrs[i];
		wr.wr_id = rng_.next();
		wr.opcode = kSendOps[rng_.below(kSendOps.size())];
		wr.send_flags = static_cast<unsigned>(rng_.below(16));
		wr.num_sge = static_cast<int>(rng_.below(5));
		wr.sg_list = sges[i].data();
		fill_sges(sges[i].data(), wr.num_sge);
		wr.imm_data = static_cast<std::uint32_t>(rng_.next());
		if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr.num_sge = 1;
			sges[i][0].length = 8;
			sges[i][0].addr &= ~std::uint64_t{7};
			wr.wr.atomic.remote_addr =
				pick_addr() & ~std::uint64_t{rng_.chance(90) ? 7u : 0u};
			wr.wr.atomic.rkey = pick_key();
			wr.wr.atomic.compare_add = rng_.next();
			wr.wr.atomic.swap = rng_.next();
		} else if (wr.opcode == IBV_WR_BIND_MW) {
			const MrSlot *m = pick_mr();
			ibv_mw *mw = w_.mws.size() > 1 ? w_.mws[rng_.below(2)].get() : nullptr;
			if (!m || !mw)
				return;
			wr.bind_mw.mw = mw;
			wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
			wr.bind_mw.bind_info.mr = m->mr.get();
			wr.bind_mw.bind_info.addr = pick_addr();
			wr.bind_mw.bind_info.length = pick_len();
			wr.bind_mw.bind_info.mw_access_flags =
				static_cast<unsigned>(rng_.below(32));
		} else if (slot.type == IBV_QPT_UD) {
			ibv_ah *ah =
				w_.ahs.empty() ? nullptr : w_.ahs[rng_.below(w_.ahs.size())].get();
			if (!ah)
				return;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = peer.qp && rng_.chance(80)
						      ? peer.qp->qp_num
						      : static_cast<std::uint32_t>(rng_.below(64));
			wr.wr.ud.remote_qkey =
				rng_.chance(80) ? kQkey : static_cast<std::uint32_t>(rng_.next());
		} else {
			wr.wr.rdma.remote_addr = pick_addr();
			wr.wr.rdma.rkey = pick_key();
			wr.invalidate_rkey = pick_key();
		}
		wr.next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	ibv_send_wr *bad = nullptr;
	(void)ibv_post_send(qp, wrs.data(), &bad);
}

void Ops::post_recv()
{
	ibv_qp *qp = pick_qp();
	if (!qp)
		return;
	const int n = static_cast<int>(rng_.between(1, 4));
	std::array<ibv_recv_wr, 4> wrs{};
	std::array<std::array<ibv_sge, 4>, 4> sges{};
	for (int i = 0; i < n; i++) {
		wrs[i].wr_id = rng_.next();
		wrs[i].num_sge = static_cast<int>(rng_.below(5));
		wrs[i].sg_list = sges[i].data();
		fill_sges(sges[i].data(), wrs[i].num_sge);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	ibv_recv_wr *bad = nullptr;
	(void)ibv_post_recv(qp, wrs.data(), &bad);
}

void Ops::poll_cq()
{
	const unsigned i = w_.cqs.empty() ? 0 : static_cast<unsigned>(rng_.below(w_.cqs.size()));
	if (i == 2 && w_.cqx && rng_.chance(50)) {
		ibv_poll_cq_attr attr{};
		ibv_cq_ex *cq = w_.cqx;
		if (ibv_start_poll(cq, &attr))
			return;
		unsigned got = 0;
		do {
			(void)ibv_wc_read_byte_len(cq);
			(void)ibv_wc_read_qp_num(cq);
			(void)ibv_wc_read_src_qp(cq);
		} while (++got < 32 && ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
		return;
	}
	ibv_cq *cq = w_.cqs.empty() ? nullptr : w_.cqs[i].get();
	if (!cq)
		return;
	std::array<ibv_wc, 16> wc;
	(void)ibv_poll_cq(cq, static_cast<int>(rng_.between(1, wc.size())), wc.data());
}

void Ops::modify_qp()
{
	unsigned idx;
	ibv_qp *qp = pick_qp(&idx);
	if (!qp)
		return;
	const QpSlot &peer = w_.qps[w_.qps[idx].peer];
	if (rng_.chance(40)) {	// back to a working connection
		ibv_qp_attr a{};
		a.qp_state = IBV_QPS_RESET;
		(void)ibv_modify_qp(qp, &a, IBV_QP_STATE);
		(void)qp_connect(qp, w_.dev, peer.qp ? peer.qp->qp_num : 1);
		if (rng_.chance(30)) {	// paced: its rounds arm the pace timer
			ibv_qp_attr r{};
			r.rate_limit = 1000 + static_cast<std::uint32_t>(rng_.below(1000000));
			(void)ibv_modify_qp(qp, &r, IBV_QP_RATE_LIMIT);
		}
		return;
	}
	ibv_qp_attr a{};
	int mask = rng_.chance(90) ? IBV_QP_STATE : 0;
	a.qp_state = kStates[rng_.below(kStates.size())];
	a.cur_qp_state = kStates[rng_.below(kStates.size())];
	for (int bit : kAttrBits)
		if (rng_.chance(25))
			mask |= bit;
	if (rng_.chance(5))
		mask = static_cast<int>(rng_.next() & 0x3fffff);
	a.qp_access_flags = static_cast<unsigned>(rng_.chance(80) ? kAllAccess : rng_.next());
	a.pkey_index = static_cast<std::uint16_t>(rng_.below(3));
	a.port_num = static_cast<std::uint8_t>(rng_.chance(90) ? 1 : rng_.below(4));
	a.qkey = rng_.chance(80) ? kQkey : static_cast<std::uint32_t>(rng_.next());
	a.path_mtu = static_cast<ibv_mtu>(rng_.below(7));
	a.timeout = static_cast<std::uint8_t>(rng_.below(32));
	a.retry_cnt = static_cast<std::uint8_t>(rng_.below(9));
	a.rnr_retry = static_cast<std::uint8_t>(rng_.below(9));
	// PSNs are 24 bits: the core masks wider ones with an unratelimited
	// warning per call, so only a few go past it (the driver never sees them)
	auto psn = [this] {
		if (rng_.chance(50))
			return static_cast<std::uint32_t>(rng_.below(16));
		const auto v = static_cast<std::uint32_t>(rng_.next());
		return rng_.chance(5) ? v : v & 0xffffffu;
	};
	a.rq_psn = psn();
	a.sq_psn = psn();
	a.max_rd_atomic = static_cast<std::uint8_t>(rng_.below(32));
	a.max_dest_rd_atomic = static_cast<std::uint8_t>(rng_.below(32));
	a.min_rnr_timer = static_cast<std::uint8_t>(rng_.below(32));
	a.dest_qp_num = peer.qp && rng_.chance(70) ? peer.qp->qp_num
						   : static_cast<std::uint32_t>(rng_.next());
	a.en_sqd_async_notify = static_cast<std::uint8_t>(rng_.below(2));
	a.ah_attr.is_global = static_cast<std::uint8_t>(rng_.chance(90));
	a.ah_attr.grh.dgid = w_.dev.gid;
	if (rng_.chance(15))
		a.ah_attr.grh.dgid.raw[rng_.below(16)] ^= static_cast<std::uint8_t>(rng_.next());
	a.ah_attr.grh.sgid_index =
		static_cast<std::uint8_t>(rng_.chance(80) ? w_.dev.gid_index : rng_.below(8));
	a.ah_attr.grh.hop_limit = static_cast<std::uint8_t>(rng_.next());
	a.ah_attr.grh.flow_label = static_cast<std::uint32_t>(rng_.next());
	a.ah_attr.grh.traffic_class = static_cast<std::uint8_t>(rng_.next());
	a.ah_attr.port_num = a.port_num;
	a.ah_attr.sl = static_cast<std::uint8_t>(rng_.below(16));
	a.alt_ah_attr = a.ah_attr;
	a.alt_port_num = a.port_num;
	(void)ibv_modify_qp(qp, &a, mask);
}

void Ops::query()
{
	ibv_qp *qp = pick_qp();
	if (qp) {
		ibv_qp_attr a{};
		ibv_qp_init_attr ia{};
		(void)ibv_query_qp(qp, &a, static_cast<int>(rng_.next() & 0x1fffff), &ia);
	}
	if (w_.srq) {
		ibv_srq_attr sa{};
		(void)ibv_query_srq(w_.srq.get(), &sa);
	}
}

void Ops::advise()
{
	const MrSlot *m = pick_mr();
	if (!m)
		return;
	// the ODP MR most of the time, if there is one
	if (w_.dev.odp && w_.mrs.back().mr && rng_.chance(80))
		m = &w_.mrs.back();
	std::array<ibv_sge, 3> sge{};
	const int n = static_cast<int>(rng_.between(1, 3));
	for (int i = 0; i < n; i++) {
		const auto base = m->base();
		const auto off = rng_.below(m->len);
		sge[i].addr = rng_.chance(90) ? base + off : pick_addr();
		sge[i].length = static_cast<std::uint32_t>(
			rng_.chance(90) ? rng_.below(m->len - off + 1) : pick_len());
		sge[i].lkey = rng_.chance(90) ? m->mr->lkey : pick_key();
	}
	const auto advice = static_cast<ibv_advise_mr_advice>(rng_.below(4));
	const std::uint32_t flags = rng_.chance(70) ? std::uint32_t{IBV_ADVISE_MR_FLAG_FLUSH}
						    : static_cast<std::uint32_t>(rng_.below(4));
	ibv_pd *pd = w_.pds[rng_.chance(90) ? 0 : rng_.below(w_.pds.size())].get();
	(void)ibv_advise_mr(pd, advice, flags, sge.data(), static_cast<std::uint32_t>(n));
}

void Ops::bind_mw()
{
	unsigned idx;
	ibv_qp *qp = pick_qp(&idx);
	const MrSlot *m = pick_mr();
	if (!qp || !m || w_.mws.empty() || !w_.mws[0])
		return;
	ibv_mw_bind b{};
	b.wr_id = rng_.next();
	b.send_flags = rng_.chance(50) ? IBV_SEND_SIGNALED : 0;
	b.bind_info.mr = m->mr.get();
	b.bind_info.addr = pick_addr();
	b.bind_info.length = rng_.chance(20) ? 0 : pick_len();
	b.bind_info.mw_access_flags = static_cast<unsigned>(rng_.below(32));
	(void)ibv_bind_mw(qp, w_.mws[0].get(), &b);
}

void Ops::mcast()
{
	unsigned idx;
	ibv_qp *qp = pick_qp(&idx);
	if (!qp)
		return;
	ibv_gid g{};
	// ::ffff:239.1.1.x (IPv4 multicast), or ff0e::x (IPv6), or garbage
	switch (rng_.below(3)) {
	case 0:
		g.raw[10] = g.raw[11] = 0xff;
		g.raw[12] = 239;
		g.raw[13] = g.raw[14] = 1;
		g.raw[15] = static_cast<std::uint8_t>(rng_.below(4));
		break;
	case 1:
		g.raw[0] = 0xff;
		g.raw[1] = 0x0e;
		g.raw[15] = static_cast<std::uint8_t>(rng_.below(4));
		break;
	default:
		for (auto &b : g.raw)
			b = static_cast<std::uint8_t>(rng_.next());
	}
	const auto lid = static_cast<std::uint16_t>(rng_.chance(90) ? 0 : rng_.next());
	if (rng_.chance(55))
		(void)ibv_attach_mcast(qp, &g, lid);
	else
		(void)ibv_detach_mcast(qp, &g, lid);
}

void Ops::notify()
{
	ibv_cq *cq = pick_cq();
	if (cq)
		(void)ibv_req_notify_cq(cq, static_cast<int>(rng_.below(2)));
	if (!w_.channel)
		return;
	// non-blocking: every event read is acknowledged at once
	ibv_cq *ev_cq = nullptr;
	void *ev_ctx = nullptr;
	for (int i = 0; i < 4 && ibv_get_cq_event(w_.channel.get(), &ev_cq, &ev_ctx) == 0; i++)
		ibv_ack_cq_events(ev_cq, 1);
}

void Ops::doorbell()
{
	ibv_qp *qp = pick_qp();
	if (!qp)
		return;
	(void)(rng_.chance(75) ? sq_doorbell(qp) : rq_doorbell(qp));
}

void Ops::srq_ops()
{
	if (!w_.srq)
		return;
	if (rng_.chance(20)) {
		// the limit only: a resize replaces the ring mapping (resize_srq())
		ibv_srq_attr a{};
		a.srq_limit = static_cast<std::uint32_t>(rng_.below(128));
		(void)ibv_modify_srq(w_.srq.get(), &a, IBV_SRQ_LIMIT);
		return;
	}
	const int n = static_cast<int>(rng_.between(1, 4));
	std::array<ibv_recv_wr, 4> wrs{};
	std::array<std::array<ibv_sge, 2>, 4> sges{};
	for (int i = 0; i < n; i++) {
		wrs[i].wr_id = rng_.next();
		wrs[i].num_sge = static_cast<int>(rng_.below(3));
		wrs[i].sg_list = sges[i].data();
		fill_sges(sges[i].data(), wrs[i].num_sge);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
	}
	ibv_recv_wr *bad = nullptr;
	(void)ibv_post_srq_recv(w_.srq.get(), wrs.data(), &bad);
}

void Ops::fork_child()
{
	shared_.forks.fetch_add(1);
	const pid_t pid = fork();
	if (pid == 0)
		_exit(0);  // the child exits at once, holding the device's fd
	if (pid > 0)
		(void)waitpid(pid, nullptr, 0);
}

// ---- exclusive -------------------------------------------------------------

void Ops::recreate_qp()
{
	if (!w_.qps.empty())
		world_make_qp(w_, static_cast<unsigned>(rng_.below(w_.qps.size())),
			      rng_.chance(80));
}

void Ops::reregister_mr()
{
	if (w_.mrs.empty())
		return;
	const unsigned i = static_cast<unsigned>(rng_.below(w_.mrs.size()));
	MrSlot &s = w_.mrs[i];
	if (s.mr && rng_.chance(50)) {
		const int flags = static_cast<int>(rng_.between(1, 7));
		const auto off = rng_.below(s.len / 2) & ~std::uint64_t{4095};
		std::byte *base = s.odp ? s.odp_mem.data() : s.buf.get();
		(void)ibv_rereg_mr(s.mr.get(), flags, w_.pds[rng_.below(w_.pds.size())].get(),
				   base + off, s.len - off,
				   rng_.chance(80) ? kAllAccess
						   : static_cast<int>(rng_.below(1 << 12)));
		return;
	}
	world_make_mr(w_, i);
}

void Ops::resize_cq()
{
	ibv_cq *cq = pick_cq();
	if (cq)
		(void)ibv_resize_cq(cq, static_cast<int>(rng_.chance(90) ? rng_.between(1, 1024)
									 : rng_.next()));
}

// Under the world's exclusive lock, like resize_cq(): the provider unmaps
// the old ring, which the other threads' writes must not be aimed at. Racing
// posts and QPs taking buffers stay: the receive path runs in the kernel.
void Ops::resize_srq()
{
	if (!w_.srq)
		return;
	ibv_srq_attr a{};
	a.max_wr = static_cast<std::uint32_t>(rng_.chance(90) ? rng_.below(300) : rng_.next());
	a.srq_limit = static_cast<std::uint32_t>(rng_.below(128));
	(void)ibv_modify_srq(w_.srq.get(), &a,
			     rng_.chance(70) ? IBV_SRQ_MAX_WR : IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT);
}

void Ops::realloc_mw()
{
	if (w_.mws.size() < 2)
		return;
	const unsigned i = static_cast<unsigned>(rng_.below(2));
	w_.mws[i].reset();
	if (rng_.chance(80))
		w_.mws[i].reset(ibv_alloc_mw(w_.pds[0].get(), i ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1));
}

void Ops::reopen()
{
	shared_.reopens.fetch_add(1);
	w_.clear();
	(void)world_build(w_, opt_.dev, opt_.gid_index);
}

}  // namespace sroce::hostile
