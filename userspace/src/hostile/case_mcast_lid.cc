// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// --case mcast-lid: one UD QP attached twice to the same multicast group
// with two different LIDs, then detached (and destroyed), and again
// attached twice and left to the process's exit.
//
// uverbs keeps an attachment per (GID, LID) and calls the driver for each;
// the core counts every successful attach in the QP's usecnt and every
// successful detach out of it, and refuses to destroy a QP whose count is
// not zero. On RoCE the LID means nothing, so the driver sees the same
// group twice: a driver that takes the second attach as a no-op but fails
// the second detach leaves the count at 1 for good: the QP cannot be
// destroyed, not even when the process exits (WARNING in
// uverbs_destroy_ufile_hw, the QP and its rings leaked). Passes when both
// detaches succeed and the QP can then be destroyed; the second half is
// judged by the kernel log and the leftover objects (the selftest).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cases.h"
#include "child.h"
#include "device.h"

namespace sroce::hostile {

namespace {

constexpr std::uint16_t kLids[] = {0, 0xc001};

// ::ffff:239.1.2.3 (@v6: ff0e::1:2:3)
ibv_gid mcast_gid(bool v6)
{
	ibv_gid g{};
	if (v6) {
		g.raw[0] = 0xff;
		g.raw[1] = 0x0e;
	} else {
		g.raw[10] = g.raw[11] = 0xff;
		g.raw[12] = 239;
	}
	g.raw[13] = 1;
	g.raw[14] = 2;
	g.raw[15] = 3;
	return g;
}

struct Ud {
	Device dev;
	PdPtr pd;
	CqPtr cq;
	QpPtr qp;
};

bool make_ud(const Options &o, Ud &u)
{
	if (!open_device(o.dev, o.gid_index, u.dev))
		return false;
	u.pd.reset(ibv_alloc_pd(u.dev.ctx.get()));
	u.cq.reset(u.pd ? ibv_create_cq(u.dev.ctx.get(), 16, nullptr, nullptr, 0) : nullptr);
	if (u.cq)
		u.qp = create_qp(u.pd.get(), IBV_QPT_UD, u.cq.get(), u.cq.get(), nullptr, QpCaps{});
	if (!u.qp) {
		std::printf("PD/CQ/UD QP: %s\n", std::strerror(errno));
		return false;
	}
	if (const int err = qp_init(u.qp.get())) {
		std::printf("modify_qp INIT: %s\n", std::strerror(err));
		return false;
	}
	return true;
}

bool attach_twice(ibv_qp *qp, const ibv_gid &g)
{
	for (const std::uint16_t lid : kLids)
		if (const int err = ibv_attach_mcast(qp, &g, lid)) {
			std::printf("attach_mcast lid 0x%x: %s\n", lid, std::strerror(err));
			return false;
		}
	return true;
}

// attach, attach, detach, detach, destroy: every step must succeed
int detach_then_destroy(const Options &o, bool v6)
{
	Ud u;
	if (!make_ud(o, u))
		return 1;
	const ibv_gid g = mcast_gid(v6);
	if (!attach_twice(u.qp.get(), g))
		return 1;
	int bad = 0;
	for (const std::uint16_t lid : kLids)
		if (const int err = ibv_detach_mcast(u.qp.get(), &g, lid)) {
			std::printf("FAILED: detach_mcast lid 0x%x: %s\n", lid, std::strerror(err));
			bad = 1;
		}
	if (const int err = ibv_destroy_qp(u.qp.get())) {
		std::printf("FAILED: destroy_qp after both detaches: %s (the QP is stuck)\n",
			    std::strerror(err));
		(void)u.qp.release();  // left to the exit, which cannot free it either
		return 1;
	}
	(void)u.qp.release();
	std::printf("%s group: attached with LIDs 0 and 0x%x, both detached, QP destroyed\n",
		    v6 ? "IPv6" : "IPv4", kLids[1]);
	return bad;
}

// attach, attach, exit: the exit's cleanup detaches both and destroys
int attach_then_exit(const Options &o, bool v6)
{
	Ud u;
	if (!make_ud(o, u))
		return 1;
	if (!attach_twice(u.qp.get(), mcast_gid(v6)))
		return 1;
	std::printf("%s group: attached with LIDs 0 and 0x%x, left to the exit\n",
		    v6 ? "IPv6" : "IPv4", kLids[1]);
	std::fflush(stdout);
	// the objects stay: _exit closes the device file with them
	(void)u.qp.release();
	(void)u.cq.release();
	(void)u.pd.release();
	(void)u.dev.ctx.release();
	_exit(0);
}

}  // namespace

int case_mcast_lid(const Options &o)
{
	int rc = 0;
	for (const bool v6 : {false, true}) {
		rc |= run_bounded([&] { return detach_then_destroy(o, v6); }, o.case_secs,
				  "mcast-lid detach");
		rc |= run_bounded([&] { return attach_then_exit(o, v6); }, o.case_secs,
				  "mcast-lid exit");
	}
	return rc;
}

}  // namespace sroce::hostile
