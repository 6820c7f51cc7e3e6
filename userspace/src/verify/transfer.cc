// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "transfer.h"

#include <arpa/inet.h>

#include "buffer_check.h"
#include "completion.h"
#include "pattern.h"

namespace sroce::verify {

namespace {

ibv_wc_opcode send_wc_opcode(Op op)
{
	switch (op) {
	case Op::Send:
	case Op::SendImm: return IBV_WC_SEND;
	case Op::Write:
	case Op::WriteImm: return IBV_WC_RDMA_WRITE;
	case Op::Read: return IBV_WC_RDMA_READ;
	case Op::CmpSwap: return IBV_WC_COMP_SWAP;
	case Op::FetchAdd: return IBV_WC_FETCH_ADD;
	case Op::AtomicWrite: return IBV_WC_ATOMIC_WRITE;
	}
	return IBV_WC_SEND;
}

ibv_wr_opcode wr_opcode(Op op)
{
	switch (op) {
	case Op::Send: return IBV_WR_SEND;
	case Op::SendImm: return IBV_WR_SEND_WITH_IMM;
	case Op::Write: return IBV_WR_RDMA_WRITE;
	case Op::WriteImm: return IBV_WR_RDMA_WRITE_WITH_IMM;
	case Op::Read: return IBV_WR_RDMA_READ;
	case Op::CmpSwap: return IBV_WR_ATOMIC_CMP_AND_SWP;
	case Op::FetchAdd: return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case Op::AtomicWrite: return IBV_WR_ATOMIC_WRITE;
	}
	return IBV_WR_SEND;
}

std::vector<ibv_sge> to_ibv(const Endpoint &ep, const std::vector<Sge> &list)
{
	std::vector<ibv_sge> out;
	for (const Sge &s : list)
		out.push_back({ep.addr(s.mr, s.offset), s.length, ep.lkey(s.mr)});
	return out;
}

// The target's region of a WRITE, READ or atomic, as an SGE list (or none).
std::vector<Sge> region(const Plan &plan)
{
	if (!is_rdma(plan.op) && !is_atomic(plan.op) && plan.op != Op::AtomicWrite)
		return {};
	return {plan.remote};
}

void must(std::optional<std::string> bad)
{
	if (bad)
		throw Error(*bad);
}

}  // namespace

bool is_rdma(Op op)
{
	return op == Op::Write || op == Op::WriteImm || op == Op::Read;
}

void prepare_initiator(Endpoint &ep, const Plan &plan)
{
	// a READ's or an atomic's local buffer is written by the response
	if (plan.op == Op::Read || is_atomic(plan.op))
		fill_background(ep, plan, plan.local);
	else
		fill_message(ep, plan, plan.local);
}

void prepare_target(Endpoint &ep, const Plan &plan)
{
	auto reg = region(plan);
	fill_background(ep, plan, reg);	 // an ATOMIC WRITE's target too
	// an atomic's operand: the first 8 message bytes, atomic_original()
	if (plan.op == Op::Read || is_atomic(plan.op))
		fill_message(ep, plan, reg);
	if (!plan.posts_recv)
		return;
	fill_background(ep, plan, plan.recv);
	auto sges = to_ibv(ep, plan.recv);
	ibv_recv_wr wr{};
	wr.wr_id = plan.recv_wr_id;
	wr.sg_list = sges.empty() ? nullptr : sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	ibv_recv_wr *bad = nullptr;
	if (int rc = ibv_post_recv(ep.qp(), &wr, &bad))
		throw_errno("ibv_post_recv", rc);
}

namespace {

// ATOMIC WRITE: the message's 8 bytes go in the WR (ibv_wr_atomic_write)
void post_atomic_write(Endpoint &ep, const PeerInfo &peer, const Plan &plan)
{
	uint8_t data[kAtomicSize];
	for (unsigned k = 0; k < kAtomicSize; k++)
		data[k] = pattern_byte(plan.data_key, k);
	ibv_qp_ex *qpx = ep.qpx();
	if (!qpx)
		throw Error("atomic_write without an extended QP");
	ibv_wr_start(qpx);
	qpx->wr_id = plan.send_wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, peer.mr_rkey[plan.remote.mr],
			    peer.mr_addr[plan.remote.mr] + plan.remote.offset, data);
	if (int rc = ibv_wr_complete(qpx))
		throw_errno("ibv_wr_complete (ATOMIC WRITE)", rc);
}

}  // namespace

void post_request(Endpoint &ep, const PeerInfo &peer, const Plan &plan)
{
	if (plan.op == Op::AtomicWrite) {
		post_atomic_write(ep, peer, plan);
		return;
	}
	auto sges = to_ibv(ep, plan.local);
	ibv_send_wr wr{};
	wr.wr_id = plan.send_wr_id;
	wr.sg_list = sges.empty() ? nullptr : sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	wr.opcode = wr_opcode(plan.op);
	wr.send_flags = IBV_SEND_SIGNALED;
	bool inl = plan.try_inline && plan.op != Op::Read && !is_atomic(plan.op) &&
		   plan.size <= ep.max_inline();
	if (inl)
		wr.send_flags |= IBV_SEND_INLINE;
	if (plan.op == Op::SendImm || plan.op == Op::WriteImm)
		wr.imm_data = htonl(plan.imm);
	if (is_rdma(plan.op)) {
		wr.wr.rdma.remote_addr = peer.mr_addr[plan.remote.mr] + plan.remote.offset;
		wr.wr.rdma.rkey = peer.mr_rkey[plan.remote.mr];
	}
	if (is_atomic(plan.op)) {
		wr.wr.atomic.remote_addr = peer.mr_addr[plan.remote.mr] + plan.remote.offset;
		wr.wr.atomic.rkey = peer.mr_rkey[plan.remote.mr];
		wr.wr.atomic.compare_add = plan.compare_add;
		wr.wr.atomic.swap = plan.swap;
	}
	ibv_send_wr *bad = nullptr;
	if (int rc = ibv_post_send(ep.qp(), &wr, &bad))
		throw_errno("ibv_post_send", rc);
	// inline data is copied by the post: scribbling on it now must not matter
	if (inl)
		fill_background(ep, plan, plan.local);
}

void check_request(Endpoint &ep, const Plan &plan, const ibv_wc &wc)
{
	ExpectedWc e;
	e.wr_id = plan.send_wr_id;
	e.opcode = send_wc_opcode(plan.op);
	e.qp_num = ep.qp()->qp_num;
	if (plan.op == Op::Read || is_atomic(plan.op))
		e.byte_len = plan.size;
	// ATOMIC WRITE: byte_len is not defined for it (rxe and sroce differ)
	if (auto bad = check_completion(wc, e))
		throw Error("send queue: " + *bad);
	if (plan.op == Op::Read)
		must(check_list(ep, plan, plan.local, plan.size, "RDMA READ destination"));
	// the remote value before the atomic, in host order
	if (is_atomic(plan.op))
		must(check_word(ep, plan, plan.local.front(), atomic_original(plan),
				"atomic result (the original remote value)"));
}

void check_receive(Endpoint &ep, const Plan &plan, const ibv_wc &wc)
{
	ExpectedWc e;
	e.wr_id = plan.recv_wr_id;
	e.opcode = plan.op == Op::WriteImm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	e.qp_num = ep.qp()->qp_num;
	e.byte_len = plan.size;
	e.check_imm = true;
	if (plan.op != Op::Send)
		e.imm = plan.imm;
	if (auto bad = check_completion(wc, e))
		throw Error("receive queue: " + *bad);
	// the RECV buffer holds the message of a SEND, nothing of a WRITE
	uint64_t len = plan.op == Op::WriteImm ? 0 : plan.size;
	must(check_list(ep, plan, plan.recv, len, "RECV"));
	// a WRITE with immediate is placed before its completion
	if (plan.op == Op::WriteImm)
		must(check_list(ep, plan, region(plan), plan.size, "RDMA WRITE target"));
}

void settle_target(Endpoint &ep, const Plan &plan)
{
	if (plan.op == Op::Write)
		must(check_list(ep, plan, region(plan), plan.size, "RDMA WRITE target"));
	if (plan.op == Op::Read)
		must(check_list(ep, plan, region(plan), plan.size, "RDMA READ source"));
	// the 8 bytes as they were sent, the guards around them untouched
	if (plan.op == Op::AtomicWrite)
		must(check_list(ep, plan, region(plan), plan.size, "ATOMIC WRITE target"));
	// executed exactly once: a replayed FETCH_ADD must not add again
	if (is_atomic(plan.op))
		must(check_word(ep, plan, plan.remote, atomic_final(plan),
				plan.op == Op::FetchAdd ? "FETCH_ADD target" : "CMP_SWAP target"));
}

}  // namespace sroce::verify
