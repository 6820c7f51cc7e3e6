// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The sysfs attributes `sroce show` reads. Every function takes the sysfs
// mount point so the unit tests can point it at a fake tree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gid.h"
#include "result.h"

namespace sroce::sysfs {

inline const std::filesystem::path kRoot = "/sys";

// What sroce.ko writes to /sys/class/infiniband/<dev>/hca_type.
inline constexpr std::string_view kHcaType = "sroce";

// Contents of a sysfs attribute, trailing newlines removed. Errors carry
// the errno of open()/read() (e.g. EINVAL for an empty GID type entry).
Result<std::string> read_attr(const std::filesystem::path &path);

// /sys/class/infiniband/<dev>/hca_type, if readable.
std::optional<std::string> hca_type(const std::filesystem::path &root, std::string_view dev);
bool is_sroce_device(const std::filesystem::path &root, std::string_view dev);

// /sys/class/net/<ifname>/mtu.
Result<unsigned> netdev_mtu(const std::filesystem::path &root, std::string_view ifname);

struct GidEntry {
	unsigned index = 0;
	Gid gid{};
	std::optional<std::string> type;  // "RoCE v2", "IB/RoCE v1"; none if unreadable
};

// The non-zero entries of /sys/class/infiniband/<dev>/ports/<port>/gids/,
// by index, with their gid_attrs/types/<i>. Entries that cannot be read
// (the kernel returns EINVAL for empty ones) are skipped; a missing table
// gives an empty list.
std::vector<GidEntry> gid_table(const std::filesystem::path &root, std::string_view dev,
				unsigned port);

// /sys/class/infiniband/<dev>/ports/<port>/hw_counters/: every counter
// (not `lifespan`, the refresh interval), sorted by name. The errno of
// opening the directory (ENOENT: no such port or no counters); a counter
// that cannot be read or is not a number is skipped.
Result<std::vector<std::pair<std::string, std::uint64_t>>>
hw_counters(const std::filesystem::path &root, std::string_view dev, unsigned port);

// Where `sroce set` writes a knob: /sys/module/sroce/parameters/<knob>,
// or for a device /sys/class/infiniband/<dev>/<knob>.
std::filesystem::path knob_path(const std::filesystem::path &root,
				const std::optional<std::string> &dev, std::string_view knob);

// Writes `value` and a newline to the attribute in one write(); 0 or the
// errno of open()/write() (the kernel's answer to a refused value).
int write_attr(const std::filesystem::path &path, std::string_view value);

}  // namespace sroce::sysfs
