// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// `sroce show cq|mr|srq` output formats: rdma's keys in the JSON.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "res_render.h"

namespace {

using sroce::ResView;
using sroce::nldev::ResField;

ResView user_cq()
{
	ResView v;
	v.res.dev_index = 4;
	v.res.dev_name = "sroce0";
	v.res.id = 2;
	v.res.fields = {{"cqn", std::uint64_t{2}},
			{"cqe", std::uint64_t{63}},
			{"users", std::uint64_t{1}},
			{"poll-ctx", std::string("DIRECT")}};
	v.res.pid = 812;
	v.comm = "python3";
	v.res.driver = {{"cq_entries", std::uint64_t{64}}, {"armed", std::string("no")}};
	return v;
}

ResView srq()
{
	ResView v;
	v.res.dev_name = "sroce0";
	v.res.fields = {{"srqn", std::uint64_t{1}},
			{"type", std::string("BASIC")},
			{"lqpn", std::vector<std::uint32_t>{17, 18}},
			{"pdn", std::uint64_t{3}}};
	v.res.kern_name = "nvmet_rdma";
	v.comm = "nvmet_rdma";
	return v;
}

TEST(RenderRes, Empty)
{
	EXPECT_EQ(sroce::render_res_human({}), "");
	EXPECT_EQ(sroce::render_res_json({}), "[]\n");
}

TEST(RenderRes, HumanOneLineEach)
{
	const std::vector<ResView> v = {user_cq(), srq()};
	EXPECT_EQ(sroce::render_res_human(v),
		  "sroce0 cqn 2 cqe 63 users 1 poll-ctx DIRECT pid 812 comm python3"
		  " cq_entries 64 armed no\n"
		  "sroce0 srqn 1 type BASIC lqpn 17,18 pdn 3 comm nvmet_rdma\n");
}

TEST(RenderRes, JsonKeysOfRdma)
{
	const std::vector<ResView> v = {user_cq(), srq()};
	EXPECT_EQ(sroce::render_res_json(v),
		  "[{\"ifindex\":4,\"ifname\":\"sroce0\",\"cqn\":2,\"cqe\":63,\"users\":1,"
		  "\"poll-ctx\":\"DIRECT\",\"pid\":812,\"comm\":\"python3\","
		  "\"drv_cq_entries\":64,\"drv_armed\":\"no\"},"
		  "{\"ifindex\":0,\"ifname\":\"sroce0\",\"srqn\":1,\"type\":\"BASIC\","
		  "\"lqpn\":[17,18],\"pdn\":3,\"comm\":\"nvmet_rdma\"}]\n");
}

}  // namespace
