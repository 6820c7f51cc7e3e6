// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli_args.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "nldev.h"

namespace sroce::cli {

namespace {

using Args = std::span<const std::string_view>;
using Parsed = std::variant<Command, UsageError>;

UsageError err(std::string msg)
{
	return UsageError{std::move(msg)};
}

std::string quoted(std::string_view s)
{
	return "'" + std::string(s) + "'";
}

// The words of the command line without its options; the options go to
// `opts`. "--" ends the options: every word after it is a plain word.
std::variant<std::vector<std::string_view>, UsageError> split_options(Args args, Options &opts)
{
	std::vector<std::string_view> words;
	bool options_done = false;
	for (std::string_view a : args) {
		if (options_done || a.size() < 2 || a[0] != '-') {
			words.push_back(a);
		} else if (a == "--") {
			options_done = true;
		} else if (a == "--json") {
			opts.json = true;
		} else if (a == "--pretty") {
			opts.pretty = true;
		} else if (a == "--details") {
			opts.details++;
		} else if (a == "--all") {
			opts.all = true;
		} else if (a == "--help" || a == "--version") {
			words.push_back(a);  // commands of their own
		} else if (a[1] == '-') {
			return err("unknown option " + quoted(a));
		} else if (a == "-h" || a == "-V") {
			words.push_back(a);
		} else {
			// a cluster of one-letter options, as getopt takes them: -jdd
			for (char c : a.substr(1)) {
				if (c == 'j')
					opts.json = true;
				else if (c == 'p')
					opts.pretty = true;
				else if (c == 'd')
					opts.details++;
				else if (c == 'a')
					opts.all = true;
				else
					return err("unknown option " + quoted(a));
			}
		}
	}
	return words;
}

// "DEV" or "DEV/PORT" (PORT a positive decimal number).
std::optional<UsageError> dev_port(std::string_view what, std::string_view arg,
				   std::optional<std::string> &name,
				   std::optional<std::uint32_t> &port)
{
	std::string_view dev = arg;
	if (auto slash = arg.find('/'); slash != std::string_view::npos) {
		dev = arg.substr(0, slash);
		std::string_view p = arg.substr(slash + 1);
		std::uint32_t n = 0;
		auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), n);
		if (p.empty() || ec != std::errc() || end != p.data() + p.size() || n == 0)
			return err(std::string(what) + ": bad port in " + quoted(arg) +
				   " (DEV/PORT, PORT from 1)");
		port = n;
	}
	if (dev.empty() || dev.size() > nldev::kDevNameMax)
		return err(std::string(what) + ": device name must be 1-" +
			   std::to_string(nldev::kDevNameMax) + " characters");
	name = std::string(dev);
	return std::nullopt;
}

Parsed parse_link_add(Args a)
{
	constexpr std::string_view usage = "usage: sroce link add NAME [type sroce] netdev IFNAME";
	if (a.empty())
		return err(std::string(usage));
	if (a[0].empty() || a[0].size() > nldev::kDevNameMax)
		return err("link add: device name must be 1-" + std::to_string(nldev::kDevNameMax) +
			   " characters");
	std::optional<std::string_view> type, netdev;
	for (std::size_t i = 1; i < a.size(); i += 2) {
		if (i + 1 >= a.size())
			return err("link add: " + quoted(a[i]) + " needs a value; " +
				   std::string(usage));
		if (a[i] != "type" && a[i] != "netdev")
			return err("link add: unknown parameter " + quoted(a[i]) + "; " +
				   std::string(usage));
		auto &slot = a[i] == "type" ? type : netdev;
		if (slot)
			return err("link add: " + quoted(a[i]) + " given twice");
		slot = a[i + 1];
	}
	if (type && *type != nldev::kLinkType)
		return err("link add: type " + quoted(*type) + ": sroce creates type sroce only");
	if (!netdev)
		return err(std::string(usage));
	if (netdev->empty() || netdev->size() > nldev::kNetdevNameMax)
		return err("link add: netdev name must be 1-" +
			   std::to_string(nldev::kNetdevNameMax) + " characters");
	return Command{LinkAdd{std::string(a[0]), std::string(*netdev)}};
}

Parsed parse_link(Args a)
{
	if (a.empty() || a[0] == "show" || a[0] == "list") {
		LinkShow s;
		if (!a.empty())
			a = a.subspan(1);
		if (a.size() > 1)
			return err("usage: sroce link show [DEV[/PORT]]");
		if (!a.empty())
			if (auto e = dev_port("link show", a[0], s.name, s.port))
				return *e;
		return Command{s};
	}
	if (a[0] == "add")
		return parse_link_add(a.subspan(1));
	if (a[0] == "del" || a[0] == "delete") {
		if (a.size() != 2 || a[1].empty())
			return err("usage: sroce link del NAME");
		return Command{LinkDel{std::string(a[1])}};
	}
	return err("link: unknown command " + quoted(a[0]) + " (add, del, show)");
}

std::optional<Resource> resource_of(std::string_view w)
{
	for (Resource r : {Resource::Qp, Resource::Cq, Resource::Mr, Resource::Srq})
		if (w == resource_name(r))
			return r;
	return std::nullopt;
}

// `show qp|cq|mr|srq [NAME]`; also rdma's `dev NAME` and `link NAME/1`.
Parsed parse_show_res(Resource res, Args a)
{
	const std::string what = "show " + std::string(resource_name(res));
	if (!a.empty() && (a[0] == "dev" || a[0] == "link")) {
		if (a.size() != 2)
			return err(what + ": " + std::string(a[0]) + " takes one device name");
		a = a.subspan(1);
	}
	if (a.size() > 1)
		return err(what + ": more than one device name");
	ShowRes s{res, std::nullopt};
	std::optional<std::uint32_t> port;
	if (!a.empty())
		if (auto e = dev_port(what, a[0], s.name, port))
			return *e;
	if (port && port != 1u)
		return err(what + ": sroce devices have port 1 only");
	return Command{s};
}

// `show [[dev] NAME]`, or a resource listing. `show dev qp` names a
// device called qp.
Parsed parse_show(Args a)
{
	if (!a.empty())
		if (auto res = resource_of(a[0]))
			return parse_show_res(*res, a.subspan(1));
	if (a.size() == 2 && a[0] == "dev")
		a = a.subspan(1);
	if (a.size() > 1)
		return err("show: more than one device name");
	Show s;
	std::optional<std::uint32_t> port;
	if (!a.empty())
		if (auto e = dev_port("show", a[0], s.name, port))
			return *e;
	if (port)
		return err("show: a device name, not DEV/PORT");
	return Command{s};
}

// `stat [show] [link] [NAME[/PORT]]`, as `rdma statistic show link DEV/PORT`.
Parsed parse_stat(Args a)
{
	if (!a.empty() && a[0] == "show")
		a = a.subspan(1);
	if (!a.empty() && a[0] == "link")
		a = a.subspan(1);
	if (a.size() > 1)
		return err("usage: sroce stat [show] [link] [DEV[/PORT]]");
	Stat s;
	if (!a.empty())
		if (auto e = dev_port("stat", a[0], s.name, s.port))
			return *e;
	return Command{s};
}

std::string knob_names(bool per_device)
{
	std::string out;
	for (const auto &k : knobs())
		if (k.per_device == per_device)
			out += (out.empty() ? "" : ", ") + std::string(k.name);
	return out;
}

// `set KNOB VALUE` (module parameter), `set DEV KNOB VALUE` (device).
Parsed parse_set(Args a)
{
	if (a.size() != 2 && a.size() != 3)
		return err("usage: sroce set [DEV] KNOB VALUE");
	Set s;
	if (a.size() == 3) {
		std::optional<std::uint32_t> port;
		if (auto e = dev_port("set", a[0], s.dev, port))
			return *e;
		if (port)
			return err("set: a device name, not DEV/PORT");
		a = a.subspan(1);
	}
	const Knob *k = find_knob(a[0]);
	if (!k)
		return err("set: unknown knob " + quoted(a[0]) +
			   "; module knobs: " + knob_names(false) +
			   "; device knobs (set DEV KNOB VALUE): " + knob_names(true));
	if (k->per_device && !s.dev)
		return err("set: " + quoted(a[0]) + " is a device knob: sroce set DEV " +
			   std::string(a[0]) + " VALUE");
	if (!k->per_device && s.dev)
		return err("set: " + quoted(a[0]) +
			   " is a module knob, for every device: sroce set " + std::string(a[0]) +
			   " VALUE");
	if (a[1].empty() || a[1].find_first_of("\n\r") != std::string_view::npos)
		return err("set: " + std::string(a[0]) + ": the value must be one non-empty line");
	s.knob = std::string(a[0]);
	s.value = std::string(a[1]);
	return Command{s};
}

Parsed parse_command(Args a)
{
	if (a.empty())
		return err("missing command");
	std::string_view cmd = a[0];
	auto rest = a.subspan(1);
	if (cmd == "-h" || cmd == "--help" || cmd == "help")
		return Command{Help{}};
	if (cmd == "-V" || cmd == "--version" || cmd == "version")
		return Command{Version{}};
	if (cmd == "link")
		return parse_link(rest);
	if (cmd == "show")
		return parse_show(rest);
	if (cmd == "stat" || cmd == "statistic")
		return parse_stat(rest);
	if (cmd == "set")
		return parse_set(rest);
	return err("unknown command " + quoted(cmd));
}

bool lists_devices(const Command &c)
{
	return std::holds_alternative<LinkShow>(c) || std::holds_alternative<Show>(c) ||
	       std::holds_alternative<ShowRes>(c) || std::holds_alternative<Stat>(c);
}

}  // namespace

std::variant<Invocation, UsageError> parse_args(Args args)
{
	Options opts;
	auto words = split_options(args, opts);
	if (auto *e = std::get_if<UsageError>(&words))
		return *e;
	auto parsed = parse_command(std::get<std::vector<std::string_view>>(words));
	if (auto *e = std::get_if<UsageError>(&parsed))
		return *e;
	Command cmd = std::get<Command>(std::move(parsed));
	if (opts.all && !lists_devices(cmd))
		return err("--all (-a) goes with the listing commands (show, link show, stat)");
	return Invocation{std::move(cmd), opts};
}

std::string_view resource_name(Resource r)
{
	switch (r) {
	case Resource::Qp: return "qp";
	case Resource::Cq: return "cq";
	case Resource::Mr: return "mr";
	case Resource::Srq: return "srq";
	}
	return "?";
}

std::span<const Knob> knobs()
{
	// What sroce.ko makes writable (0644): module_param*() in kernel/*.c
	// and the device attributes of kernel/verbs.c, as
	// Documentation/knobs.rst describes them. cli_docs_test checks that
	// this table and the sources agree.
	static constexpr Knob table[] = {
		{"copy", false, "payload copies: auto, memcpy, words"},
		{"crc", false, "ICRC CRC-32: auto, lib, shash, table"},
		{"doorbell_defer", false, "0 never, 1 when a QP streams, 2 always"},
		{"loopback", false, "deliver to local addresses directly (bool)"},
		{"loss_window", false, "shrink the send window on loss (bool)"},
		{"rx_backlog_dev_kb", false, "KiB of packets a device's QPs may queue"},
		{"selective_read", false, "ask again only for lost READ responses (bool)"},
		{"sq_poll_us", false, "us a streaming QP waits for the next post"},
		{"sr_default", false, "new devices allow selective repeat (bool)"},
		{"sr_nak_delay_ms", false, "ms a selective-repeat gap stays open"},
		{"tx_gso_default", false, "new devices on NICs send bursts (bool)"},
		{"wide_segments_default", false, "new devices offer wide segments (bool)"},
		{"zcopy", false, "send user MR pages by reference (bool)"},
		{"dcqcn_alpha_timer_us", true, "DCQCN alpha update period, us"},
		{"dcqcn_byte_counter_kb", true, "DCQCN byte counter, KiB"},
		{"dcqcn_cnp_interval_us", true, "DCQCN minimum CNP interval, us"},
		{"dcqcn_enable", true, "DCQCN for new connections (bool)"},
		{"dcqcn_fast_recovery", true, "DCQCN fast recovery steps"},
		{"dcqcn_g", true, "DCQCN alpha gain, 1-1024"},
		{"dcqcn_rate_ai_mbps", true, "DCQCN additive increase, Mbit/s"},
		{"dcqcn_rate_hai_mbps", true, "DCQCN hyper increase, Mbit/s"},
		{"dcqcn_rate_max_mbps", true, "DCQCN maximum rate, Mbit/s"},
		{"dcqcn_rate_min_mbps", true, "DCQCN minimum rate, Mbit/s"},
		{"dcqcn_rate_timer_us", true, "DCQCN rate increase period, us"},
		{"icrc_skip", true, "skip the ICRC with a peer that allows it (bool)"},
		{"selective_repeat", true, "RC selective repeat with a peer that allows it (bool)"},
		{"adaptive_routing", true, "RC WRITEs as per-MTU WRITE ONLYs, sprayed (bool)"},
		{"ar_paths", true, "UDP source ports an AR QP sprays over, 1-64"},
		{"tx_gso", true, "send runs of packets as UDP GSO (bool)"},
		{"wide_segments", true, "wide SEND/WRITE packets with sroce peers (bool)"},
	};
	return table;
}

const Knob *find_knob(std::string_view name)
{
	auto all = knobs();
	auto it = std::find_if(all.begin(), all.end(),
			       [name](const Knob &k) { return k.name == name; });
	return it == all.end() ? nullptr : &*it;
}

std::span<const std::string_view> synopsis()
{
	static constexpr std::string_view lines[] = {
		"sroce [OPTIONS] link add NAME [type sroce] netdev IFNAME",
		"sroce [OPTIONS] link del NAME",
		"sroce [OPTIONS] link show [DEV[/PORT]]",
		"sroce [OPTIONS] show [NAME]",
		"sroce [OPTIONS] show qp|cq|mr|srq [NAME]",
		"sroce [OPTIONS] stat [NAME[/PORT]]",
		"sroce [OPTIONS] set [DEV] KNOB VALUE",
		"sroce --help | --version",
	};
	return lines;
}

std::string short_usage()
{
	std::string out;
	for (std::string_view line : synopsis())
		out += (out.empty() ? "usage: " : "       ") + std::string(line) + "\n";
	return out;
}

std::string usage_text()
{
	std::string out = short_usage();
	out += "\n"
	       "Manage sroce (software RoCEv2) RDMA devices over RDMA netlink and sysfs.\n"
	       "  link add   create device NAME on top of Ethernet netdev IFNAME\n"
	       "             (`rdma link add NAME type sroce netdev IFNAME` works too)\n"
	       "  link del   remove device NAME (also: link delete)\n"
	       "  link show  port state and netdev of each sroce device, as `rdma link`\n"
	       "  show       sroce devices: port 1 state, netdev, MTUs and the GID table\n"
	       "  show qp    QPs (cq: CQs, mr: MRs, srq: SRQs) of device NAME, default\n"
	       "             every sroce device, with sroce's driver attributes (what\n"
	       "             `rdma resource show qp -dd` shows)\n"
	       "  stat       the port's hardware counters (sysfs hw_counters)\n"
	       "  set        write a module knob, or with DEV a device knob:\n";
	for (const auto &k : knobs())
		out += "               " + std::string(k.name) + ": " + std::string(k.help) + "\n";
	out += "\n"
	       "OPTIONS, anywhere on the line as with `rdma`:\n"
	       "  -j, --json     JSON output, keys as `rdma -j` names them\n"
	       "  -p, --pretty   indented JSON\n"
	       "  -d, --details  more details (-dd: accepted; driver attributes are\n"
	       "                 always shown)\n"
	       "  -a, --all      list every RDMA device, not only sroce's\n"
	       "\n"
	       "Exit status: 0 success, 1 failure, 2 usage error.\n";
	return out;
}

}  // namespace sroce::cli
