// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Running planned transfers in lock step with the peer and verifying them.
//
// Per transfer, with I the initiator and T the target of the plan:
//   T: fill its target/source buffers, post the RECV if any, send READY
//   I: fill its buffers, wait READY, post the WR, wait for and check its
//      completion (and the data of a READ), send DONE
//   T: wait for and check the RECV completion and its data (or wait DONE
//      and check the data of a WRITE), wait DONE, send ACK
//   I: wait ACK
// A side that finds a problem sends FAIL with the reason and stops; the
// other reports it and stops too.
#pragma once

#include <chrono>
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

	// One transfer; throws Error (with the plan) on any problem.
	void run(const Plan &plan);
	// After the last transfer: agree with the peer, no stray completions.
	void finish(uint64_t iterations);

private:
	void initiate(const Plan &plan);
	void serve(const Plan &plan);
	void post_send(const Plan &plan);
	void post_recv(const Plan &plan);
	void expect(Msg type, uint64_t iteration);
	void poll_peer();        // stash a message that arrived, throw on FAIL
	[[noreturn]] void fail(const std::string &what);

	Endpoint &ep_;
	TcpLink &link_;
	Role me_;
	PeerInfo peer_;
	std::chrono::milliseconds timeout_;
	bool verbose_;
	std::optional<std::vector<uint8_t>> stashed_;
};

}  // namespace sroce::verify
