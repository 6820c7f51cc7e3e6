// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "device.h"

#include <cstdio>
#include <cstring>

namespace sroce::hostile {

bool open_device(const std::string &name, int gid_index, Device &dev)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);

	if (!list) {
		std::printf("no RDMA devices (%s)\n", std::strerror(errno));
		return false;
	}
	ibv_device *pick = nullptr;
	for (int i = 0; i < n && !pick; i++)
		if (name.empty() || name == ibv_get_device_name(list[i]))
			pick = list[i];
	if (pick)
		dev.ctx.reset(ibv_open_device(pick));
	ibv_free_device_list(list);
	if (!dev.ctx) {
		std::printf("cannot open device '%s'\n", name.c_str());
		return false;
	}
	dev.gid_index = gid_index;
	if (ibv_query_gid(dev.ctx.get(), 1, gid_index, &dev.gid)) {
		std::printf("no GID %d on port 1\n", gid_index);
		return false;
	}
	ibv_port_attr port{};
	if (!ibv_query_port(dev.ctx.get(), 1, &port))
		dev.mtu = port.active_mtu < IBV_MTU_1024 ? port.active_mtu : IBV_MTU_1024;
	ibv_device_attr_ex attr{};
	if (!ibv_query_device_ex(dev.ctx.get(), nullptr, &attr)) {
		dev.odp = (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
			  (attr.odp_caps.per_transport_caps.rc_odp_caps & IBV_ODP_SUPPORT_WRITE);
		dev.odp_implicit =
			dev.odp && (attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT);
	}
	return true;
}

QpPtr create_qp(ibv_pd *pd, ibv_qp_type type, ibv_cq *scq, ibv_cq *rcq, ibv_srq *srq,
		const QpCaps &caps)
{
	ibv_qp_init_attr a{};
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.srq = srq;
	a.qp_type = type;
	a.cap.max_send_wr = caps.send_wr;
	a.cap.max_recv_wr = srq ? 0 : caps.recv_wr;
	a.cap.max_send_sge = caps.sge;
	a.cap.max_recv_sge = srq ? 0 : caps.sge;
	a.cap.max_inline_data = caps.inline_data;
	return QpPtr(ibv_create_qp(pd, &a));
}

int qp_init(ibv_qp *qp)
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = kQkey;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = kAllAccess;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int qp_rtr(ibv_qp *qp, const Device &dev, std::uint32_t dest_qpn, std::uint32_t rq_psn)
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE;

	a.qp_state = IBV_QPS_RTR;
	if (qp->qp_type != IBV_QPT_UD) {
		a.path_mtu = dev.mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = dev.gid;
		a.ah_attr.grh.sgid_index = dev.gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	}
	if (qp->qp_type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int qp_rts(ibv_qp *qp, std::uint32_t sq_psn, std::uint8_t timeout, std::uint8_t retry)
{
	ibv_qp_attr a{};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = timeout;
		a.retry_cnt = retry;
		a.rnr_retry = retry;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int qp_connect(ibv_qp *qp, const Device &dev, std::uint32_t dest_qpn)
{
	int err = qp_init(qp);
	if (!err)
		err = qp_rtr(qp, dev, dest_qpn, 0);
	if (!err)
		err = qp_rts(qp, 0);
	return err;
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

const char *qp_state_name(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

}  // namespace sroce::hostile
