// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show cq|mr|srq` output: one line per object, or a JSON array.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "nldev_res.h"

namespace sroce {

struct ResView {
	nldev::ResEntry res;
	std::optional<std::string> comm;  // kernel owner, or /proc/PID/comm
};

// One line per object: "DEV KEY VALUE..." with the core's fields (an
// SRQ's lqpn as "1,2,3"), [pid N] [comm C], then every driver attribute
// as "NAME VALUE"; empty for none.
std::string render_res_human(std::span<const ResView> objs);

// A JSON array (one line, newline-terminated) of objects with the keys of
// `rdma -j -dd resource show cq|mr|srq`: ifindex, ifname, the core's
// fields (lqpn an array), pid, comm, then drv_NAME for every driver
// attribute; keys the kernel did not report are left out.
std::string render_res_json(std::span<const ResView> objs);

}  // namespace sroce
