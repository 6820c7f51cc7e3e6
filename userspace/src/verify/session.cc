// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "session.h"

#include <arpa/inet.h>

#include <cstdio>
#include <iostream>

#include "buffer_check.h"
#include "completion.h"
#include "pattern.h"
#include "wire.h"

namespace sroce::verify {

namespace {

const char *msg_name(Msg m)
{
	switch (m) {
	case Msg::Ready: return "READY";
	case Msg::Done: return "DONE";
	case Msg::Ack: return "ACK";
	case Msg::Fail: return "FAIL";
	case Msg::Bye: return "BYE";
	}
	return "?";
}

bool is_rdma(Op op)
{
	return op == Op::Write || op == Op::WriteImm || op == Op::Read;
}

ibv_wc_opcode send_wc_opcode(Op op)
{
	switch (op) {
	case Op::Send:
	case Op::SendImm: return IBV_WC_SEND;
	case Op::Write:
	case Op::WriteImm: return IBV_WC_RDMA_WRITE;
	case Op::Read: return IBV_WC_RDMA_READ;
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

}  // namespace

void send_control(TcpLink &link, Msg type, uint64_t iteration, std::string_view text)
{
	WireWriter w;
	w.u32(static_cast<uint32_t>(type));
	w.u64(iteration);
	w.bytes({reinterpret_cast<const uint8_t *>(text.data()), text.size()});
	link.send(w.data());
}

Session::Session(Endpoint &ep, TcpLink &link, Role me, const PeerInfo &peer,
		 std::chrono::milliseconds timeout, bool verbose)
	: ep_(ep), link_(link), me_(me), peer_(peer), timeout_(timeout), verbose_(verbose)
{
}

void Session::fail(const std::string &what)
{
	throw Error(what);
}

void Session::poll_peer()
{
	if (stashed_ || !link_.readable())
		return;
	stashed_ = link_.receive(timeout_);
	WireReader r(*stashed_);
	if (static_cast<Msg>(r.u32()) == Msg::Fail) {
		r.u64();
		auto rest = std::span<const uint8_t>(*stashed_).subspan(12);
		throw PeerFailure(std::string(rest.begin(), rest.end()));
	}
}

void Session::expect(Msg type, uint64_t iteration)
{
	std::vector<uint8_t> msg;
	if (stashed_) {
		msg = std::move(*stashed_);
		stashed_.reset();
	} else {
		msg = link_.receive(timeout_);
	}
	WireReader r(msg);
	auto got = static_cast<Msg>(r.u32());
	uint64_t it = r.u64();
	if (got == Msg::Fail) {
		auto rest = std::span<const uint8_t>(msg).subspan(12);
		throw PeerFailure(std::string(rest.begin(), rest.end()));
	}
	if (got != type || it != iteration)
		fail(std::string("protocol error: expected ") + msg_name(type) + " of iteration " +
		     std::to_string(iteration) + ", got " + msg_name(got) + " of iteration " +
		     std::to_string(it));
}

void Session::post_send(const Plan &plan)
{
	auto sges = to_ibv(ep_, plan.local);
	ibv_send_wr wr{};
	wr.wr_id = plan.send_wr_id;
	wr.sg_list = sges.empty() ? nullptr : sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	wr.opcode = wr_opcode(plan.op);
	wr.send_flags = IBV_SEND_SIGNALED;
	bool inl = plan.try_inline && plan.op != Op::Read && plan.size <= ep_.max_inline();
	if (inl)
		wr.send_flags |= IBV_SEND_INLINE;
	if (plan.op == Op::SendImm || plan.op == Op::WriteImm)
		wr.imm_data = htonl(plan.imm);
	if (is_rdma(plan.op)) {
		wr.wr.rdma.remote_addr = peer_.mr_addr[plan.remote.mr] + plan.remote.offset;
		wr.wr.rdma.rkey = peer_.mr_rkey[plan.remote.mr];
	}
	ibv_send_wr *bad = nullptr;
	if (int rc = ibv_post_send(ep_.qp(), &wr, &bad))
		throw_errno("ibv_post_send", rc);
	// inline data is copied by the post: scribbling on it now must not matter
	if (inl)
		fill_background(ep_, plan, plan.local);
}

void Session::post_recv(const Plan &plan)
{
	auto sges = to_ibv(ep_, plan.recv);
	ibv_recv_wr wr{};
	wr.wr_id = plan.recv_wr_id;
	wr.sg_list = sges.empty() ? nullptr : sges.data();
	wr.num_sge = static_cast<int>(sges.size());
	ibv_recv_wr *bad = nullptr;
	if (int rc = ibv_post_recv(ep_.qp(), &wr, &bad))
		throw_errno("ibv_post_recv", rc);
}

void Session::initiate(const Plan &plan)
{
	if (plan.op == Op::Read)
		fill_background(ep_, plan, plan.local);
	else
		fill_message(ep_, plan, plan.local);
	expect(Msg::Ready, plan.iteration);
	post_send(plan);

	ibv_wc wc = wait_completion(ep_.send_cq(), timeout_, "send", [this] { poll_peer(); });
	ExpectedWc e;
	e.wr_id = plan.send_wr_id;
	e.opcode = send_wc_opcode(plan.op);
	e.qp_num = ep_.qp()->qp_num;
	if (plan.op == Op::Read)
		e.byte_len = plan.size;
	if (auto bad = check_completion(wc, e))
		fail("send queue: " + *bad);
	if (plan.op == Op::Read)
		if (auto bad = check_list(ep_, plan, plan.local, plan.size, "RDMA READ destination"))
			fail(*bad);
	send_control(link_, Msg::Done, plan.iteration);
	expect(Msg::Ack, plan.iteration);
}

void Session::serve(const Plan &plan)
{
	std::vector<Sge> region;
	if (is_rdma(plan.op))
		region.push_back(plan.remote);
	if (plan.op == Op::Read) {
		fill_background(ep_, plan, region);
		fill_message(ep_, plan, region);
	} else if (is_rdma(plan.op)) {
		fill_background(ep_, plan, region);
	}
	if (plan.posts_recv) {
		fill_background(ep_, plan, plan.recv);
		post_recv(plan);
	}
	send_control(link_, Msg::Ready, plan.iteration);

	if (plan.posts_recv) {
		ibv_wc wc = wait_completion(ep_.recv_cq(), timeout_, "receive", [this] { poll_peer(); });
		ExpectedWc e;
		e.wr_id = plan.recv_wr_id;
		e.opcode = plan.op == Op::WriteImm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
		e.qp_num = ep_.qp()->qp_num;
		e.byte_len = plan.size;
		e.check_imm = true;
		if (plan.op != Op::Send)
			e.imm = plan.imm;
		if (auto bad = check_completion(wc, e))
			fail("receive queue: " + *bad);
		// the RECV buffer holds the message of a SEND, nothing of a WRITE
		uint64_t len = plan.op == Op::WriteImm ? 0 : plan.size;
		if (auto bad = check_list(ep_, plan, plan.recv, len, "RECV"))
			fail(*bad);
		// a WRITE with immediate is placed before its completion
		if (plan.op == Op::WriteImm)
			if (auto bad = check_list(ep_, plan, region, plan.size, "RDMA WRITE target"))
				fail(*bad);
	}
	expect(Msg::Done, plan.iteration);
	if (plan.op == Op::Write)
		if (auto bad = check_list(ep_, plan, region, plan.size, "RDMA WRITE target"))
			fail(*bad);
	if (plan.op == Op::Read)
		if (auto bad = check_list(ep_, plan, region, plan.size, "RDMA READ source"))
			fail(*bad);
	send_control(link_, Msg::Ack, plan.iteration);
}

void Session::run(const Plan &plan)
{
	if (verbose_)
		std::cout << describe_plan(plan) << std::endl;
	try {
		if (plan.initiator == me_)
			initiate(plan);
		else
			serve(plan);
	} catch (const PeerFailure &) {
		throw;
	} catch (const Error &e) {
		throw Error(std::string(role_name(me_)) + ": " + e.what() + "\n  in " +
			    describe_plan(plan));
	}
}

void Session::finish(uint64_t iterations)
{
	if (auto bad = check_cq_empty(ep_.send_cq(), "send"))
		fail(*bad);
	if (auto bad = check_cq_empty(ep_.recv_cq(), "receive"))
		fail(*bad);
	send_control(link_, Msg::Bye, iterations);
	expect(Msg::Bye, iterations);
}

}  // namespace sroce::verify
