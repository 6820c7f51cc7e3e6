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

int run_link_add(const LinkAdd &cmd, Streams io);
int run_link_del(const LinkDel &cmd, Streams io);
int run_show(const Show &cmd, Streams io,
	     const std::filesystem::path &sysfs_root = "/sys");
int run_show_qp(const ShowQp &cmd, Streams io,
		const std::filesystem::path &sysfs_root = "/sys",
		const std::filesystem::path &proc_root = "/proc");

int run(const Command &cmd, Streams io);

}  // namespace sroce::cli
