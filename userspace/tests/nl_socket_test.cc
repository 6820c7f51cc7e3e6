// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// nl::Socket::transact() against the host kernel's rtnetlink: the request/
// ACK, dump/DONE and kernel-error paths are the same for NETLINK_RDMA,
// which the host cannot offer (the VM selftests cover that).
#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/errno.h>

#include "nl_socket.h"

namespace {

using sroce::nl::Message;
using sroce::nl::Socket;

Message getlink(int flags, int ifindex)
{
	Message msg(nlmsg_alloc_simple(RTM_GETLINK, flags));
	ifinfomsg ifi{};
	ifi.ifi_family = AF_UNSPEC;
	ifi.ifi_index = ifindex;
	EXPECT_EQ(nlmsg_append(msg.get(), &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	return msg;
}

std::string ifname_of(const nlmsghdr &nlh)
{
	nlattr *tb[IFLA_MAX + 1] = {};
	if (nlmsg_parse(const_cast<nlmsghdr *>(&nlh), sizeof(ifinfomsg), tb, IFLA_MAX, nullptr) <
		    0 ||
	    !tb[IFLA_IFNAME])
		return {};
	return nla_get_string(tb[IFLA_IFNAME]);
}

class RtnlSocket : public ::testing::Test {
protected:
	void SetUp() override
	{
		auto s = Socket::open(NETLINK_ROUTE);
		if (!s)
			GTEST_SKIP() << "no rtnetlink: " << s.error();
		sock_.emplace(std::move(s).value());
	}
	std::optional<Socket> sock_;
};

TEST_F(RtnlSocket, DumpEndsAtDone)
{
	std::vector<std::string> names;
	int err = sock_->transact(getlink(NLM_F_REQUEST | NLM_F_DUMP, 0).get(),
				  [&names](const nlmsghdr &nlh) {
					  names.push_back(ifname_of(nlh));
					  return 0;
				  });
	EXPECT_EQ(err, 0);
	EXPECT_FALSE(names.empty());
	// The socket is still in sync: a second request works.
	int count = 0;
	EXPECT_EQ(sock_->transact(getlink(NLM_F_REQUEST | NLM_F_DUMP, 0).get(),
				  [&count](const nlmsghdr &) { return ++count, 0; }),
		  0);
	EXPECT_EQ(count, static_cast<int>(names.size()));
}

TEST_F(RtnlSocket, RequestWithReplyAndAck)
{
	const unsigned lo = if_nametoindex("lo");
	if (!lo)
		GTEST_SKIP() << "no loopback device";
	std::string name;
	int err = sock_->transact(getlink(NLM_F_REQUEST | NLM_F_ACK, static_cast<int>(lo)).get(),
				  [&name](const nlmsghdr &nlh) {
					  name = ifname_of(nlh);
					  return 0;
				  });
	EXPECT_EQ(err, 0);
	EXPECT_EQ(name, "lo");
}

TEST_F(RtnlSocket, KernelErrorBecomesErrno)
{
	bool called = false;
	int err = sock_->transact(getlink(NLM_F_REQUEST | NLM_F_ACK, 0x7ffffff0).get(),
				  [&called](const nlmsghdr &) { return called = true, 0; });
	EXPECT_EQ(err, ENODEV);
	EXPECT_FALSE(called);
	// And the next request still works.
	EXPECT_EQ(sock_->transact(getlink(NLM_F_REQUEST | NLM_F_DUMP, 0).get()), 0);
}

TEST_F(RtnlSocket, HandlerErrorIsReportedAfterDrainingTheReply)
{
	int calls = 0;
	int err = sock_->transact(getlink(NLM_F_REQUEST | NLM_F_DUMP, 0).get(),
				  [&calls](const nlmsghdr &) { return ++calls, EBADMSG; });
	EXPECT_EQ(err, EBADMSG);
	EXPECT_GE(calls, 1);
	EXPECT_EQ(sock_->transact(getlink(NLM_F_REQUEST | NLM_F_DUMP, 0).get()), 0);
}

TEST(RdmaSocket, OpensOrFailsWithErrno)
{
	auto s = Socket::open_rdma();
	if (!s) {
		EXPECT_EQ(s.error(), EPROTONOSUPPORT);	// host kernel without ib_core
	}
}

TEST(NleToErrno, Mapping)
{
	EXPECT_EQ(sroce::nl::nle_to_errno(0), 0);
	EXPECT_EQ(sroce::nl::nle_to_errno(-NLE_PERM), EPERM);
	EXPECT_EQ(sroce::nl::nle_to_errno(NLE_PROTO_MISMATCH), EPROTONOSUPPORT);
	EXPECT_EQ(sroce::nl::nle_to_errno(-NLE_NODEV), ENODEV);
	EXPECT_EQ(sroce::nl::nle_to_errno(-9999), EIO);
}

}  // namespace
