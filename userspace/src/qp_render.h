// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show qp` output: one line per QP, or a JSON array.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "json.h"
#include "nldev_res.h"

namespace sroce {

// What `sroce show qp` prints about one QP: the core's fields from the
// resource dump, the owner's command name and the driver's attributes.
struct QpView {
	nldev::QpEntry qp;
	std::optional<std::string> comm;  // kernel owner, or /proc/PID/comm
};

// One line per QP: "DEV/PORT qpn N type T state S [rqpn N] [sq_psn N]
// [rq_psn N] [pid N] [comm C]" and then every driver attribute as
// "NAME VALUE"; empty for no QPs.
std::string render_qps_human(std::span<const QpView> qps);

// A JSON array (one line, newline-terminated) of objects with the keys of
// `rdma -j -dd resource show qp`: ifindex, port, ifname, lqpn, pdn, rqpn,
// type, state, rq-psn, sq-psn, pid, comm (each left out when the kernel
// did not report it), then the driver attributes as drv_NAME in the
// kernel's order (numbers, hex ones too, and strings).
std::string render_qps_json(std::span<const QpView> qps);

// The driver attributes as `rdma -j -dd` prints them: "drv_NAME": value.
void render_driver_json(JsonWriter &w, std::span<const nldev::DriverAttr> driver);

}  // namespace sroce
