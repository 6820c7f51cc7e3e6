// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RAII wrappers around libnl-3: messages and a NETLINK_RDMA socket.
#pragma once

#include <functional>
#include <memory>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "result.h"

namespace sroce::nl {

struct MsgDeleter {
	void operator()(nl_msg *m) const noexcept { nlmsg_free(m); }
};
using Message = std::unique_ptr<nl_msg, MsgDeleter>;

// Called for each data message of a reply; returns 0, or a positive errno
// that becomes the result of the request (the rest of the reply is still
// read so the socket stays in sync).
using ReplyHandler = std::function<int(const nlmsghdr &)>;

// A libnl error code (NLE_*, either sign) as the closest errno.
int nle_to_errno(int nle);

class Socket {
public:
	// Connects a NETLINK_RDMA socket. Fails with EPROTONOSUPPORT when the
	// kernel has no RDMA netlink (ib_core not loaded).
	static Result<Socket> open_rdma();
	// Connects a socket of any netlink protocol (NETLINK_*).
	static Result<Socket> open(int protocol);

	// Sends `msg` and reads the reply until its end: the ACK (or error) of
	// a request sent with NLM_F_ACK, or NLMSG_DONE of a dump. Data messages
	// go to `on_reply`. Returns 0 or a positive errno; a kernel error is
	// returned as the errno the kernel reported.
	int transact(nl_msg *msg, const ReplyHandler &on_reply = {});

private:
	struct SockDeleter {
		void operator()(nl_sock *s) const noexcept { nl_socket_free(s); }
	};
	explicit Socket(nl_sock *s) : sk_(s) {}

	std::unique_ptr<nl_sock, SockDeleter> sk_;
};

}  // namespace sroce::nl
