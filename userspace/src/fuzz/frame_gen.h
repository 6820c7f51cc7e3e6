// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Hostile RoCEv2 frames for sroce-fuzz: valid packets of every opcode
// sroce knows, built with the protocol core shared with sroce.ko, then
// mutated, plus raw garbage. Each frame is a whole IPv4 datagram.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace sroce::fuzz {

// What a frame was made as (counted for the summary).
enum class FrameKind : std::size_t {
	valid,	   // well formed, correct ICRC
	mutated,   // header bits flipped, length changed; ICRC recomputed
	bad_icrc,  // well formed, wrong ICRC
	garbage,   // random bytes after the UDP header
	count,
};

struct Target {
	std::uint32_t src_ip;		  // network order
	std::uint32_t dst_ip;		  // network order
	std::vector<std::uint32_t> qpns;  // QPs to aim at (plus random ones)
	std::uint32_t rkey = 0;		  // a real MR to aim WRITE/READ/atomics at
	std::uint64_t va = 0;
	std::uint32_t mr_len = 0;
	std::uint32_t srqn = 0;	 // a real XRC SRQ for XRC requests to name
	std::uint32_t mtu = 1024;
};

class FrameGen {
public:
	FrameGen(Target target, std::uint64_t seed);

	// Writes one IPv4 datagram into @buf (at least kMaxFrame bytes);
	// returns its length and what it is.
	std::size_t next(std::span<std::uint8_t> buf, FrameKind &kind);

	static constexpr std::size_t kMaxFrame = 20 + 8 + 64 + 4096 + 8;

private:
	std::uint32_t pick_qpn();
	std::uint32_t pick_psn();
	std::size_t build_valid(std::span<std::uint8_t> bth_and_on);
	std::uint64_t below(std::uint64_t n) { return n ? rng_() % n : 0; }
	bool chance(unsigned percent) { return below(100) < percent; }

	Target t_;
	std::mt19937_64 rng_;
	std::vector<std::uint8_t> opcodes_;  // every opcode the table knows
	std::uint16_t ip_id_ = 1;
};

}  // namespace sroce::fuzz
