// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-verify command line: which device, which peer, what to transfer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sroce::verify {

// The five RC operations the tool exercises (bit positions in a mask).
enum class Op : uint8_t { Send, SendImm, Write, WriteImm, Read };
inline constexpr unsigned kNumOps = 5;
inline constexpr uint32_t kAllOps = (1u << kNumOps) - 1;

std::string_view op_name(Op op);

struct Options {
	std::string device;            // empty: the first RDMA device
	int gid_index = 0;
	uint32_t mtu = 0;              // 0: the port's active MTU
	uint32_t iterations = 1000;
	uint32_t max_size = 4u << 20;
	uint32_t ops = kAllOps;        // bit (1 << Op)
	uint64_t seed = 1;
	uint16_t port = 18515;
	unsigned timeout_s = 10;       // per completion / per peer message
	std::string server;            // empty: act as the server
	bool verbose = false;
};

struct Help { std::string text; };
struct UsageError { std::string message; };

std::variant<Options, Help, UsageError> parse_options(const std::vector<std::string_view> &args);
std::string usage_text();

// "send,write,read" -> mask; nullopt for an unknown name.
std::optional<uint32_t> parse_ops(std::string_view list);

}  // namespace sroce::verify
