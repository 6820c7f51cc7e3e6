// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show` output: human-readable text and JSON.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "device_view.h"

namespace sroce {

// One block per device, `rdma link show` style; empty for no devices.
std::string render_human(std::span<const DeviceView> devices);

// A JSON array (one line, newline-terminated) of objects with the keys
// ifname, ifindex (as `rdma -j` names them), node_guid, port, state,
// physical_state, netdev, netdev_index, netdev_mtu, active_mtu, gids:
// [{index, gid, type, ipv4}]. Absent values are null; keys are always
// present.
std::string render_json(std::span<const DeviceView> devices);

// `sroce link show`, one line per port as `rdma link show` prints it:
// "IDX/PORT: DEV/PORT: state S physical_state P netdev N" (netdev_index I
// too with `details`; no netdev part when there is none).
std::string render_links_human(std::span<const DeviceView> devices, bool details);
// `rdma -j link show`'s objects: ifindex, ifname, port, state,
// physical_state, netdev and netdev_index (those two when known).
std::string render_links_json(std::span<const DeviceView> devices);

// One port's hardware counters, by name.
struct StatView {
	std::uint32_t index = 0;  // RDMA device index
	std::string name;
	std::uint32_t port = 1;
	std::vector<std::pair<std::string, std::uint64_t>> counters;
};
// "link DEV/PORT NAME VALUE ..." per port, as `rdma statistic show`.
std::string render_stats_human(std::span<const StatView> stats);
// `rdma -j statistic show`'s objects: ifname, port, then each counter.
std::string render_stats_json(std::span<const StatView> stats);

}  // namespace sroce
