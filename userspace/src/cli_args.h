// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Command-line parsing for `sroce`, separate from running the commands.
// The grammar follows iproute2's `rdma`: options (-j, -p, -d, -dd) may
// stand anywhere, before or after the object and command.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace sroce::cli {

// Options that may appear anywhere on the command line, as with `rdma`.
struct Options {
	bool json = false;    // -j, --json
	bool pretty = false;  // -p, --pretty: indented JSON
	int details = 0;      // -d, --details; -dd counts 2
	bool all = false;     // -a, --all: every RDMA device, not only sroce's
	bool operator==(const Options &) const = default;
};

struct Help {};
struct Version {};
// `link add NAME [type sroce] netdev IFNAME`
struct LinkAdd {
	std::string name;
	std::string netdev;
};
// `link del|delete NAME`
struct LinkDel {
	std::string name;
};
// `link [show|list] [DEV[/PORT]]`, as `rdma link show`.
struct LinkShow {
	std::optional<std::string> name;
	std::optional<std::uint32_t> port;
};
// `show [NAME]`: the device overview (port, netdev, MTUs, GIDs).
struct Show {
	std::optional<std::string> name;
};
// `show qp|cq|mr|srq [NAME]`: an RDMA netlink resource dump of device
// NAME, else of every sroce device, with the driver's attributes.
enum class Resource { Qp, Cq, Mr, Srq };
struct ShowRes {
	Resource what = Resource::Qp;
	std::optional<std::string> name;
};
// `stat [show] [NAME[/PORT]]`: the port's hardware counters.
struct Stat {
	std::optional<std::string> name;
	std::optional<std::uint32_t> port;
};
// `set [DEV] KNOB VALUE`: a module parameter (no DEV) or a device
// attribute (with DEV) of sroce.ko; KNOB is one of knobs().
struct Set {
	std::optional<std::string> dev;
	std::string knob;
	std::string value;
};

using Command = std::variant<Help, Version, LinkAdd, LinkDel, LinkShow, Show, ShowRes, Stat, Set>;

struct Invocation {
	Command command;
	Options options;
};

struct UsageError {
	std::string message;
};

// `args` excludes argv[0].
std::variant<Invocation, UsageError> parse_args(std::span<const std::string_view> args);

// "qp", "cq", "mr", "srq".
std::string_view resource_name(Resource r);

// A knob `sroce set` writes: a writable module parameter of sroce.ko
// (/sys/module/sroce/parameters/NAME) or a writable attribute of each
// sroce device (/sys/class/infiniband/DEV/NAME).
struct Knob {
	std::string_view name;
	bool per_device;
	std::string_view help;
};
std::span<const Knob> knobs();
const Knob *find_knob(std::string_view name);

// The usage lines (`sroce link add ...`), one per form; usage_text()
// starts with them, and the man page's SYNOPSIS lists the same.
std::span<const std::string_view> synopsis();
// The synopsis as "usage: ..." lines: what a usage error prints.
std::string short_usage();
// What --help prints: the synopsis, the commands, knobs and options.
std::string usage_text();

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

}  // namespace sroce::cli
