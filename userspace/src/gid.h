// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// GID and GUID text forms, as the kernel's sysfs and `rdma` print them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sroce {

using Gid = std::array<std::uint8_t, 16>;

// "fe80:0000:0000:0000:5054:00ff:fe12:3456" (8 groups of 4 lower-case hex
// digits, the form of /sys/class/infiniband/<dev>/ports/<p>/gids/<i>).
std::string format_gid(std::span<const std::uint8_t, 16> gid);

// Parses the sysfs form above (a trailing newline is accepted).
std::optional<Gid> parse_gid(std::string_view text);

bool is_zero_gid(std::span<const std::uint8_t, 16> gid);

// For an IPv4-mapped GID (::ffff:a.b.c.d, how RoCEv2 carries IPv4
// addresses) the dotted quad; otherwise nothing.
std::optional<std::string> gid_ipv4(std::span<const std::uint8_t, 16> gid);

// A GUID as `rdma dev` prints it: "5054:00ff:fe12:3456". The value is the
// one RDMA_NLDEV_ATTR_NODE_GUID carries (the GUID's big-endian bytes read
// as a number).
std::string format_guid(std::uint64_t guid);

}  // namespace sroce
