// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce: manage sroce software RoCEv2 devices over RDMA netlink.
#include <iostream>
#include <string_view>
#include <vector>

#include "cli_args.h"
#include "commands.h"

int main(int argc, char **argv)
{
	using namespace sroce::cli;

	std::vector<std::string_view> args(argv + 1, argv + argc);
	auto parsed = parse_args(args);
	if (auto *usage = std::get_if<UsageError>(&parsed)) {
		std::cerr << "sroce: " << usage->message << "\n"
			  << short_usage() << "Run 'sroce --help' for the commands and options.\n";
		return kExitUsage;
	}
	return run(std::get<Invocation>(parsed), Streams{std::cout, std::cerr});
}
