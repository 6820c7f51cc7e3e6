// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Running the parsed `sroce` commands. Each returns the process exit code
// and reports errors on `err` as "sroce: <what>: <strerror>".
#pragma once

#include <filesystem>
#include <ostream>

#include "cli_args.h"

namespace sroce::cli {

struct Streams {
	std::ostream &out;
	std::ostream &err;
};

// Where the commands find sysfs and procfs; the tests point them at fake
// trees.
struct Roots {
	std::filesystem::path sys = "/sys";
	std::filesystem::path proc = "/proc";
};

int run_link_add(const LinkAdd &cmd, Streams io);
int run_link_del(const LinkDel &cmd, Streams io);
int run_link_show(const LinkShow &cmd, const Options &opts, Streams io, const Roots &roots = {});
int run_show(const Show &cmd, const Options &opts, Streams io, const Roots &roots = {});
int run_show_res(const ShowRes &cmd, const Options &opts, Streams io, const Roots &roots = {});
int run_stat(const Stat &cmd, const Options &opts, Streams io, const Roots &roots = {});
int run_set(const Set &cmd, Streams io, const Roots &roots = {});

int run(const Invocation &inv, Streams io);

}  // namespace sroce::cli
