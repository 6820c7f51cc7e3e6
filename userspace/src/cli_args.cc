// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli_args.h"

#include "nldev.h"

namespace sroce::cli {

namespace {

UsageError err(std::string msg) { return UsageError{std::move(msg)}; }

std::variant<Command, UsageError> parse_link(std::span<const std::string_view> a)
{
	if (a.empty())
		return err("link: missing subcommand (add, del)");
	if (a[0] == "add") {
		if (a.size() != 4 || a[2] != "netdev")
			return err("usage: sroce link add NAME netdev IFNAME");
		if (a[1].empty() || a[1].size() > nldev::kDevNameMax)
			return err("link add: device name must be 1-" +
				   std::to_string(nldev::kDevNameMax) + " characters");
		if (a[3].empty() || a[3].size() > nldev::kNetdevNameMax)
			return err("link add: netdev name must be 1-" +
				   std::to_string(nldev::kNetdevNameMax) + " characters");
		return Command{LinkAdd{std::string(a[1]), std::string(a[3])}};
	}
	if (a[0] == "del" || a[0] == "delete") {
		if (a.size() != 2 || a[1].empty())
			return err("usage: sroce link del NAME");
		return Command{LinkDel{std::string(a[1])}};
	}
	return err("link: unknown subcommand '" + std::string(a[0]) + "'");
}

std::variant<Command, UsageError> parse_show_qp(std::span<const std::string_view> a)
{
	ShowQp s;
	for (std::string_view arg : a) {
		if (arg == "--json" || arg == "-j")
			s.json = true;
		else if (arg.starts_with("-"))
			return err("show qp: unknown option '" + std::string(arg) + "'");
		else if (s.name)
			return err("show qp: more than one device name");
		else
			s.name = std::string(arg);
	}
	return Command{s};
}

std::variant<Command, UsageError> parse_show(std::span<const std::string_view> a)
{
	if (!a.empty() && a[0] == "qp")
		return parse_show_qp(a.subspan(1));
	Show s;
	for (std::string_view arg : a) {
		if (arg == "--json" || arg == "-j")
			s.json = true;
		else if (arg == "--all" || arg == "-a")
			s.all = true;
		else if (arg.starts_with("-"))
			return err("show: unknown option '" + std::string(arg) + "'");
		else if (s.name)
			return err("show: more than one device name");
		else
			s.name = std::string(arg);
	}
	return Command{s};
}

}  // namespace

std::variant<Command, UsageError> parse_args(std::span<const std::string_view> args)
{
	if (args.empty())
		return err("missing command");
	std::string_view cmd = args[0];
	auto rest = args.subspan(1);
	if (cmd == "-h" || cmd == "--help" || cmd == "help")
		return Command{Help{}};
	if (cmd == "-V" || cmd == "--version" || cmd == "version")
		return Command{Version{}};
	if (cmd == "link")
		return parse_link(rest);
	if (cmd == "show")
		return parse_show(rest);
	return err("unknown command '" + std::string(cmd) + "'");
}

std::string_view usage_text()
{
	return "usage: sroce link add NAME netdev IFNAME\n"
	       "       sroce link del NAME\n"
	       "       sroce show [NAME] [--json|-j] [--all|-a]\n"
	       "       sroce show qp [NAME] [--json|-j]\n"
	       "       sroce --help | --version\n"
	       "\n"
	       "Manage sroce (software RoCEv2) RDMA devices over RDMA netlink.\n"
	       "  link add   create device NAME on top of Ethernet netdev IFNAME\n"
	       "  link del   remove device NAME\n"
	       "  show       list sroce devices (--all: every RDMA device), port 1\n"
	       "             state, netdev, MTUs and the GID table\n"
	       "  show qp    the QPs of device NAME (default: every sroce device), one\n"
	       "             line each: type, state, PSNs, owner and the driver's\n"
	       "             transport state (what `rdma resource show qp -dd` shows)\n"
	       "\n"
	       "Exit status: 0 success, 1 failure, 2 usage error.\n";
}

}  // namespace sroce::cli
