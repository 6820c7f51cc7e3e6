// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The TCP side channel to the peer: length-prefixed messages with timeouts.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "unique_fd.h"

namespace sroce::verify {

class TcpLink {
public:
	// Client: connect to HOST:PORT, retrying until TIMEOUT.
	static TcpLink connect(const std::string &host, uint16_t port,
			       std::chrono::seconds timeout);
	// Server: accept one connection on PORT (waits without limit).
	static TcpLink accept_one(uint16_t port);

	void send(std::span<const uint8_t> msg);
	// Next message; throws Error on EOF or after TIMEOUT.
	std::vector<uint8_t> receive(std::chrono::milliseconds timeout);
	// True if a message (or EOF) is waiting.
	bool readable();

private:
	explicit TcpLink(UniqueFd fd) : fd_(std::move(fd)) {}
	void read_exact(std::span<uint8_t> out, std::chrono::steady_clock::time_point deadline);
	UniqueFd fd_;
};

}  // namespace sroce::verify
