// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Opening the device and connecting QPs on it to each other (loopback
// through its own RoCEv2 GID).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "verbs_ptr.h"

namespace sroce::hostile {

struct Device {
	ContextPtr ctx;
	ibv_gid gid{};
	int gid_index = 1;
	ibv_mtu mtu = IBV_MTU_1024;
	bool odp = false;	    // explicit ODP MRs on RC
	bool odp_implicit = false;  // and implicit ones (the whole address space)
};

// Opens @name (the first device if empty); prints why on failure.
bool open_device(const std::string &name, int gid_index, Device &dev);

struct QpCaps {
	std::uint32_t send_wr = 16;
	std::uint32_t recv_wr = 16;
	std::uint32_t sge = 2;
	std::uint32_t inline_data = 64;
};

QpPtr create_qp(ibv_pd *pd, ibv_qp_type type, ibv_cq *scq, ibv_cq *rcq, ibv_srq *srq,
		const QpCaps &caps);

constexpr int kAllAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
constexpr std::uint32_t kQkey = 0x11111111;

// RESET -> INIT (RC/UC: access flags; UD: qkey). 0 or an errno.
int qp_init(ibv_qp *qp);
// INIT -> RTR towards @dest_qpn on the device's own GID.
int qp_rtr(ibv_qp *qp, const Device &dev, std::uint32_t dest_qpn, std::uint32_t rq_psn);
// RTR -> RTS. @timeout: the IBTA exponent (4.096 us << timeout).
int qp_rts(ibv_qp *qp, std::uint32_t sq_psn, std::uint8_t timeout = 14, std::uint8_t retry = 7);
// All three.
int qp_connect(ibv_qp *qp, const Device &dev, std::uint32_t dest_qpn);

ibv_qp_state qp_state(ibv_qp *qp);
const char *qp_state_name(ibv_qp_state s);

}  // namespace sroce::hostile
