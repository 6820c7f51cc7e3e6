// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "world.h"

#include <fcntl.h>

#include <cstring>

namespace sroce::hostile {

namespace {

constexpr std::size_t kMrLen = 64 * 1024;
constexpr std::size_t kOdpLen = 1 << 20;

// Slot layout: RC pairs 0-1 and 2-3, UC pair 4-5, UD 6 and 7, RC on the
// SRQ 8 (peer 9) and 9 (peer 8).
struct QpPlan {
	ibv_qp_type type;
	bool on_srq;
	unsigned peer;
};
constexpr QpPlan kPlan[] = {
	{IBV_QPT_RC, false, 1}, {IBV_QPT_RC, false, 0}, {IBV_QPT_RC, false, 3},
	{IBV_QPT_RC, false, 2}, {IBV_QPT_UC, false, 5}, {IBV_QPT_UC, false, 4},
	{IBV_QPT_UD, false, 7}, {IBV_QPT_UD, false, 6}, {IBV_QPT_RC, true, 9},
	{IBV_QPT_RC, true, 8},
};

}  // namespace

void World::clear()
{
	qps.clear();
	ahs.clear();
	mws.clear();
	mrs.clear();
	dm.reset();
	srq.reset();
	cqs.clear();
	cqx = nullptr;
	channel.reset();
	pds.clear();
	dev.ctx.reset();
}

void world_make_mr(World &w, unsigned i)
{
	MrSlot &s = w.mrs[i];
	s.mr.reset();
	ibv_pd *pd = w.pds[i % w.pds.size()].get();
	if (s.odp) {
		if (!s.odp_mem.valid())
			s.odp_mem = AnonRegion(kOdpLen);
		s.len = kOdpLen;
		if (s.odp_mem.valid() && s.implicit)
			s.mr.reset(ibv_reg_mr(pd, nullptr, SIZE_MAX,
					      kAllAccess | IBV_ACCESS_ON_DEMAND));
		else if (s.odp_mem.valid())
			s.mr.reset(ibv_reg_mr(pd, s.odp_mem.data(), s.len,
					      kAllAccess | IBV_ACCESS_ON_DEMAND));
		return;
	}
	if (!s.buf)
		s.buf = std::make_unique<std::byte[]>(kMrLen);
	s.len = kMrLen;
	s.mr.reset(ibv_reg_mr(pd, s.buf.get(), s.len, kAllAccess | IBV_ACCESS_MW_BIND));
}

void world_make_qp(World &w, unsigned i, bool connect)
{
	QpSlot &s = w.qps[i];
	s.qp.reset();
	const QpPlan &p = kPlan[i];
	s.type = p.type;
	s.on_srq = p.on_srq;
	s.peer = p.peer;
	if (w.pds.empty() || w.cqs.size() < 2 || !w.cqs[0] || !w.cqs[1])
		return;
	QpCaps caps;
	caps.send_wr = 32;
	caps.recv_wr = 32;
	caps.sge = 4;
	ibv_cq *scq = w.cqs[i % 2].get(), *rcq = w.cqs[(i + 1) % w.cqs.size()].get();
	if (!rcq)
		rcq = scq;
	s.qp = create_qp(w.pds[0].get(), p.type, scq, rcq, p.on_srq ? w.srq.get() : nullptr, caps);
	if (!s.qp || !connect)
		return;
	const QpSlot &peer = w.qps[p.peer];
	(void)qp_connect(s.qp.get(), w.dev, peer.qp ? peer.qp->qp_num : 1);
}

bool world_build(World &w, const std::string &dev_name, int gid_index)
{
	if (!open_device(dev_name, gid_index, w.dev))
		return false;
	ibv_context *ctx = w.dev.ctx.get();
	for (int i = 0; i < 2; i++)
		if (PdPtr pd{ibv_alloc_pd(ctx)})
			w.pds.push_back(std::move(pd));
	if (w.pds.empty())
		return false;
	w.channel.reset(ibv_create_comp_channel(ctx));
	// events are picked up without waiting (fuzz_ops.cc): every one read
	// is acknowledged, else destroying its CQ would wait for ever
	if (w.channel)
		fcntl(w.channel->fd, F_SETFL, fcntl(w.channel->fd, F_GETFL) | O_NONBLOCK);
	w.cqs.emplace_back(ibv_create_cq(ctx, 256, nullptr, nullptr, 0));
	w.cqs.emplace_back(ibv_create_cq(ctx, 128, nullptr, w.channel.get(), 0));
	ibv_cq_init_attr_ex cx{};
	cx.cqe = 64;
	cx.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP;
	ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &cx);
	w.cqs.emplace_back(cqx ? ibv_cq_ex_to_cq(cqx) : nullptr);
	w.cqx = cqx;

	ibv_srq_init_attr sa{};
	sa.attr.max_wr = 64;
	sa.attr.max_sge = 2;
	w.srq.reset(ibv_create_srq(w.pds[0].get(), &sa));

	// 4 pinned MRs, then an implicit ODP MR and an explicit one (the last:
	// advise() prefers it), as far as the device has them
	w.mrs.resize(4 + w.dev.odp + w.dev.odp_implicit);
	if (w.dev.odp)
		w.mrs.back().odp = true;
	if (w.dev.odp_implicit)
		w.mrs[4].odp = w.mrs[4].implicit = true;
	for (unsigned i = 0; i < w.mrs.size(); i++)
		world_make_mr(w, i);

	w.qps.resize(std::size(kPlan));
	for (unsigned i = 0; i < w.qps.size(); i++)
		world_make_qp(w, i, false);
	for (auto &s : w.qps)
		if (s.qp)
			(void)qp_connect(s.qp.get(), w.dev,
					 w.qps[s.peer].qp ? w.qps[s.peer].qp->qp_num : 1);

	for (int i = 0; i < 2; i++) {
		ibv_ah_attr ah{};
		ah.is_global = 1;
		ah.grh.dgid = w.dev.gid;
		ah.grh.sgid_index = gid_index;
		ah.grh.hop_limit = 64;
		ah.port_num = 1;
		w.ahs.emplace_back(ibv_create_ah(w.pds[0].get(), &ah));
	}
	w.mws.emplace_back(ibv_alloc_mw(w.pds[0].get(), IBV_MW_TYPE_1));
	w.mws.emplace_back(ibv_alloc_mw(w.pds[0].get(), IBV_MW_TYPE_2));
	ibv_alloc_dm_attr da{};
	da.length = 4096;
	w.dm.reset(ibv_alloc_dm(ctx, &da));
	return true;
}

}  // namespace sroce::hostile
