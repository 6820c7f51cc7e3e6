// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show` output: human-readable text and JSON.
#pragma once

#include <span>
#include <string>

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

}  // namespace sroce
