// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Command-line parsing for `sroce`, separate from running the commands.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace sroce::cli {

struct Help {};
struct Version {};
struct LinkAdd {
	std::string name;
	std::string netdev;
};
struct LinkDel {
	std::string name;
};
struct Show {
	std::optional<std::string> name;
	bool json = false;
	bool all = false;
};
// `sroce show qp [NAME] [--json]`: the QPs of device NAME, else of every
// sroce device, with the driver's attributes (RDMA netlink resource dump).
struct ShowQp {
	std::optional<std::string> name;
	bool json = false;
};

using Command = std::variant<Help, Version, LinkAdd, LinkDel, Show, ShowQp>;

struct UsageError {
	std::string message;
};

// `args` excludes argv[0].
std::variant<Command, UsageError> parse_args(std::span<const std::string_view> args);

std::string_view usage_text();

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

}  // namespace sroce::cli
