// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "session.h"

#include <iostream>

#include "completion.h"
#include "transfer.h"
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

[[noreturn]] void throw_peer_failure(std::span<const uint8_t> msg)
{
	auto rest = msg.subspan(12);
	throw PeerFailure(std::string(rest.begin(), rest.end()));
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
{}

void Session::poll_peer()
{
	if (stashed_ || !link_.readable())
		return;
	stashed_ = link_.receive(timeout_);
	WireReader r(*stashed_);
	if (static_cast<Msg>(r.u32()) == Msg::Fail)
		throw_peer_failure(*stashed_);
}

void Session::expect(Msg type, uint64_t iteration, size_t wait)
{
	std::vector<uint8_t> msg;
	if (stashed_) {
		msg = std::move(*stashed_);
		stashed_.reset();
	} else {
		msg = link_.receive(timeout_ * static_cast<long>(wait));
	}
	WireReader r(msg);
	auto got = static_cast<Msg>(r.u32());
	uint64_t it = r.u64();
	if (got == Msg::Fail)
		throw_peer_failure(msg);
	if (got != type || it != iteration)
		throw Error(std::string("protocol error: expected ") + msg_name(type) +
			    " of iteration " + std::to_string(iteration) + ", got " +
			    msg_name(got) + " of iteration " + std::to_string(it));
}

void Session::exchange(Msg type, uint64_t id, size_t wait)
{
	send_control(link_, type, id);
	expect(type, id, wait);
}

// Run FN for PLAN; an Error it throws names the plan.
void Session::step(const Plan &plan, const std::function<void()> &fn)
{
	try {
		fn();
	} catch (const PeerFailure &) {
		throw;
	} catch (const Error &e) {
		throw Error(std::string(role_name(me_)) + ": " + e.what() + "\n  in " +
			    describe_plan(plan));
	}
}

ibv_wc Session::wait(ibv_cq *cq, const char *what)
{
	return wait_completion(cq, timeout_, what, [this] { poll_peer(); });
}

void Session::run(const std::vector<Plan> &batch)
{
	const uint64_t id = batch.front().iteration;
	auto mine = [this](const Plan &p) { return p.initiator == me_; };

	for (const Plan &p : batch) {
		if (verbose_)
			std::cout << describe_plan(p) << std::endl;
		step(p, [&] { mine(p) ? prepare_initiator(ep_, p) : prepare_target(ep_, p); });
	}
	exchange(Msg::Ready, id);
	for (const Plan &p : batch)
		if (mine(p))
			step(p, [&] { post_request(ep_, peer_, p); });
	// RC completes each queue in order: send completions in the order of
	// the posts, RECV completions in the order of the peer's posts
	for (const Plan &p : batch)
		if (mine(p))
			step(p, [&] { check_request(ep_, p, wait(ep_.send_cq(), "send")); });
	for (const Plan &p : batch)
		if (!mine(p) && p.posts_recv)
			step(p, [&] { check_receive(ep_, p, wait(ep_.recv_cq(), "receive")); });
	// the peer may wait a timeout per completion: outwait it, so that a
	// completion that never comes is reported by the side that waits for it
	exchange(Msg::Done, id, batch.size() + 2);
	for (const Plan &p : batch)
		if (!mine(p))
			step(p, [&] { settle_target(ep_, p); });
	exchange(Msg::Ack, id);
}

void Session::finish(uint64_t iterations)
{
	if (auto bad = check_cq_empty(ep_.send_cq(), "send"))
		throw Error(std::string(role_name(me_)) + ": " + *bad);
	if (auto bad = check_cq_empty(ep_.recv_cq(), "receive"))
		throw Error(std::string(role_name(me_)) + ": " + *bad);
	exchange(Msg::Bye, iterations);
}

}  // namespace sroce::verify
