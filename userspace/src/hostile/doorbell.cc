// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "doorbell.h"

#include <rdma/ib_user_verbs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace sroce::hostile {

namespace {

struct PostSendCmd {
	ib_uverbs_cmd_hdr hdr;
	ib_uverbs_post_send body;
};

struct PostRecvCmd {
	ib_uverbs_cmd_hdr hdr;
	ib_uverbs_post_recv body;
};

template <typename Cmd, typename Resp>
int write_cmd(ibv_qp *qp, Cmd &cmd, Resp &resp, std::uint32_t wqe_size)
{
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.body.response = reinterpret_cast<std::uintptr_t>(&resp);
	cmd.body.qp_handle = qp->handle;
	cmd.body.wqe_size = wqe_size;
	if (write(qp->context->cmd_fd, &cmd, sizeof(cmd)) != static_cast<ssize_t>(sizeof(cmd)))
		return errno;
	return 0;
}

}  // namespace

int sq_doorbell(ibv_qp *qp)
{
	PostSendCmd cmd{};
	ib_uverbs_post_send_resp resp{};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	return write_cmd(qp, cmd, resp, sizeof(ib_uverbs_send_wr));
}

int rq_doorbell(ibv_qp *qp)
{
	PostRecvCmd cmd{};
	ib_uverbs_post_recv_resp resp{};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	return write_cmd(qp, cmd, resp, sizeof(ib_uverbs_recv_wr));
}

}  // namespace sroce::hostile
