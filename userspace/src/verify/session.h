// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Running batches of planned transfers in lock step with the peer and
// verifying them. A batch is up to --depth plans, each in its own slot of
// the MRs, in flight together; either side may initiate any of them.
//
// Per batch, both sides (transfer.h names the steps of one plan):
//   prepare every plan (fill the buffers, post the RECVs), send READY
//   wait for the peer's READY, post every work request this side initiates
//   wait for and check each send completion in plan order, then each RECV
//   completion in plan order (the order RC delivers them in)
//   send DONE, wait for the peer's DONE, settle the plans this side is the
//   target of, send ACK, wait for the peer's ACK
// A side that finds a problem sends FAIL with the reason and stops; the
// other reports it and stops too.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "endpoint.h"
#include "plan.h"
#include "tcp_link.h"

namespace sroce::verify {

// The peer sent FAIL.
class PeerFailure : public Error {
public:
	using Error::Error;
};

enum class Msg : uint32_t { Ready = 1, Done = 2, Ack = 3, Fail = 4, Bye = 5 };

void send_control(TcpLink &link, Msg type, uint64_t iteration, std::string_view text = {});

class Session {
public:
	Session(Endpoint &ep, TcpLink &link, Role me, const PeerInfo &peer,
		std::chrono::milliseconds timeout, bool verbose);

	// One batch (plans already placed in their slots); throws Error, naming
	// the plan, on any problem.
	void run(const std::vector<Plan> &batch);
	// After the last batch: agree with the peer, no stray completions.
	void finish(uint64_t iterations);
	// Stash a message that arrived from the peer; throw if it is FAIL.
	void poll_peer();

private:
	void step(const Plan &plan, const std::function<void()> &fn);
	ibv_wc wait(ibv_cq *cq, const char *what);
	// send TYPE, expect the peer's within WAIT timeouts
	void exchange(Msg type, uint64_t id, size_t wait = 1);
	void expect(Msg type, uint64_t iteration, size_t wait = 1);

	Endpoint &ep_;
	TcpLink &link_;
	Role me_;
	PeerInfo peer_;
	std::chrono::milliseconds timeout_;
	bool verbose_;
	std::optional<std::vector<uint8_t>> stashed_;
};

}  // namespace sroce::verify
