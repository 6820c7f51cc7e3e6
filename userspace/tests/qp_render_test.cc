// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show qp` output formats; the JSON schema is a stable interface.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qp_render.h"

namespace {

using sroce::QpView;
using sroce::nldev::DriverAttr;

QpView rc_qp()
{
	QpView v;
	v.qp.dev_index = 4;
	v.qp.dev_name = "sroce0";
	v.qp.port = 1;
	v.qp.lqpn = 17;
	v.qp.rqpn = 18;
	v.qp.type = 2;
	v.qp.state = 3;
	v.qp.sq_psn = 100;
	v.qp.rq_psn = 200;
	v.qp.pid = 812;
	v.comm = "python3";
	v.qp.driver = {
		{"qp_state", std::string("RTS")},
		{"sq_flags", std::uint64_t{0x1f}, true},
		{"next_psn", std::uint64_t{148}},
		{"delta", std::int64_t{-2}},
	};
	return v;
}

// A kernel QP that has not been given a port yet: no port, no PSNs, no
// driver table
QpView gsi_qp()
{
	QpView v;
	v.qp.dev_name = "sroce0";
	v.qp.lqpn = 1;
	v.qp.type = 1;
	v.qp.state = 0;
	v.qp.kern_name = "ib_core";
	v.comm = "ib_core";
	return v;
}

TEST(RenderQps, Empty)
{
	EXPECT_EQ(sroce::render_qps_human({}), "");
	EXPECT_EQ(sroce::render_qps_json({}), "[]\n");
}

TEST(RenderQps, HumanOneLinePerQp)
{
	const std::vector<QpView> qps = {gsi_qp(), rc_qp()};
	EXPECT_EQ(sroce::render_qps_human(qps),
		  "sroce0/- qpn 1 type GSI state RESET comm ib_core\n"
		  "sroce0/1 qpn 17 type RC state RTS rqpn 18 sq_psn 100 rq_psn 200 pid 812"
		  " comm python3 qp_state RTS sq_flags 0x1f next_psn 148 delta -2\n");
}

TEST(RenderQps, JsonKeysOfRdma)
{
	const std::vector<QpView> qps = {gsi_qp(), rc_qp()};
	EXPECT_EQ(sroce::render_qps_json(qps),
		  "[{\"ifindex\":0,\"ifname\":\"sroce0\",\"lqpn\":1,\"type\":\"GSI\","
		  "\"state\":\"RESET\",\"comm\":\"ib_core\"},"
		  "{\"ifindex\":4,\"port\":1,\"ifname\":\"sroce0\",\"lqpn\":17,\"rqpn\":18,"
		  "\"type\":\"RC\",\"state\":\"RTS\",\"rq-psn\":200,\"sq-psn\":100,\"pid\":812,"
		  "\"comm\":\"python3\",\"drv_qp_state\":\"RTS\",\"drv_sq_flags\":31,"
		  "\"drv_next_psn\":148,\"drv_delta\":-2}]\n");
}

TEST(RenderQps, JsonLargeUnsignedValue)
{
	QpView v = gsi_qp();
	v.qp.driver = {{"faults", std::uint64_t{18446744073709551615ull}}};
	EXPECT_NE(sroce::render_qps_json({&v, 1}).find("\"drv_faults\":18446744073709551615"),
		  std::string::npos);
}

}  // namespace
