// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// What `sroce show` prints about one device, gathered from nldev replies
// and sysfs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nldev.h"

namespace sroce {

struct GidView {
	unsigned index = 0;
	std::string gid;		  // sysfs form
	std::optional<std::string> type;  // "RoCE v2", ...
	std::optional<std::string> ipv4;  // for IPv4-mapped GIDs
};

struct DeviceView {
	std::string name;
	std::uint32_t index = 0;  // RDMA device index
	std::string node_guid;	  // "5054:00ff:fe12:3456"
	std::uint32_t port = 1;
	std::string state;	     // "ACTIVE", ...
	std::string physical_state;  // "LINK_UP", ...
	std::optional<std::string> netdev;
	std::optional<std::uint32_t> netdev_index;
	std::optional<unsigned> netdev_mtu;
	std::optional<unsigned> active_mtu;  // bytes; none if no IB MTU fits
	std::vector<GidView> gids;
};

// Active IB MTU in bytes for a netdev MTU, via the shared protocol core
// (sroce_ib_mtu_from_netdev_mtu); none when not even 256 bytes fit.
std::optional<unsigned> active_mtu_bytes(unsigned netdev_mtu);

DeviceView make_device_view(const nldev::Device &dev, const nldev::Port &port,
			    const std::filesystem::path &sysfs_root);

}  // namespace sroce
