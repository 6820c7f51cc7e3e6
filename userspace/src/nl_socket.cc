// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "nl_socket.h"

#include <cerrno>
#include <cstdlib>

#include <linux/netlink.h>
#include <netlink/errno.h>

namespace sroce::nl {

namespace {

struct CbDeleter {
	void operator()(nl_cb *cb) const noexcept { nl_cb_put(cb); }
};

struct TransactState {
	const ReplyHandler *handler;
	bool done = false;
	int kernel_err = 0;   // errno from NLMSG_ERROR / NLMSG_DONE
	int handler_err = 0;  // first errno a handler returned
};

int on_valid(nl_msg *msg, void *arg)
{
	auto *st = static_cast<TransactState *>(arg);
	if (st->handler && *st->handler) {
		int err = (*st->handler)(*nlmsg_hdr(msg));
		if (err && !st->handler_err)
			st->handler_err = err;
	}
	return NL_OK;
}

int on_finish(nl_msg *msg, void *arg)
{
	auto *st = static_cast<TransactState *>(arg);
	const nlmsghdr *nlh = nlmsg_hdr(msg);
	// A dump that failed midway ends with a negative errno in NLMSG_DONE.
	if (nlmsg_datalen(nlh) >= static_cast<int>(sizeof(int))) {
		int err = *static_cast<const int *>(nlmsg_data(nlh));
		if (err < 0)
			st->kernel_err = -err;
	}
	st->done = true;
	return NL_STOP;
}

int on_ack(nl_msg *, void *arg)
{
	static_cast<TransactState *>(arg)->done = true;
	return NL_STOP;
}

int on_error(sockaddr_nl *, nlmsgerr *e, void *arg)
{
	auto *st = static_cast<TransactState *>(arg);
	st->kernel_err = e->error < 0 ? -e->error : e->error;
	st->done = true;
	return NL_STOP;
}

}  // namespace

int nle_to_errno(int nle)
{
	switch (std::abs(nle)) {
	case NLE_SUCCESS: return 0;
	case NLE_INTR: return EINTR;
	case NLE_BAD_SOCK: return EBADF;
	case NLE_AGAIN: return EAGAIN;
	case NLE_NOMEM: return ENOMEM;
	case NLE_EXIST: return EEXIST;
	case NLE_INVAL: return EINVAL;
	case NLE_RANGE: return ERANGE;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_NOATTR: return ENOENT;
	case NLE_MISSING_ATTR: return EINVAL;
	case NLE_SEQ_MISMATCH: return EPROTO;
	case NLE_MSG_OVERFLOW: return EOVERFLOW;
	case NLE_MSG_TRUNC: return EMSGSIZE;
	case NLE_NOADDR: return EADDRNOTAVAIL;
	case NLE_MSG_TOOSHORT: return EPROTO;
	case NLE_MSGTYPE_NOSUPPORT: return EOPNOTSUPP;
	case NLE_BUSY: return EBUSY;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_NOACCESS: return EACCES;
	case NLE_PERM: return EPERM;
	case NLE_NODEV: return ENODEV;
	case NLE_DUMP_INTR: return EINTR;
	case NLE_ATTRSIZE: return ERANGE;
	default: return EIO;
	}
}

Result<Socket> Socket::open_rdma()
{
	return open(NETLINK_RDMA);
}

Result<Socket> Socket::open(int protocol)
{
	nl_sock *raw = nl_socket_alloc();
	if (!raw)
		return Errno{ENOMEM};
	Socket sock(raw);
	errno = 0;
	int err = nl_connect(raw, protocol);
	if (err < 0) {
		int e = errno;
		// libnl folds errno into NLE codes; prefer the real errno.
		return Errno{e > 0 ? e : nle_to_errno(err)};
	}
	return sock;
}

int Socket::transact(nl_msg *msg, const ReplyHandler &on_reply)
{
	std::unique_ptr<nl_cb, CbDeleter> cb(nl_cb_alloc(NL_CB_DEFAULT));
	if (!cb)
		return ENOMEM;
	TransactState st{&on_reply};
	nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &st);
	nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &st);
	nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_ack, &st);
	nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &st);

	int err = nl_send_auto(sk_.get(), msg);
	if (err < 0)
		return nle_to_errno(err);
	while (!st.done) {
		err = nl_recvmsgs(sk_.get(), cb.get());
		if (err < 0 && !st.kernel_err)
			return nle_to_errno(err);
		if (err < 0)
			break;
	}
	if (st.kernel_err)
		return st.kernel_err;
	return st.handler_err;
}

}  // namespace sroce::nl
