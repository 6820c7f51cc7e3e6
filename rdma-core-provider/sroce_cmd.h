/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * uverbs command wrappers carrying sroce's driver-specific udata.
 *
 * The udata layouts live in the kernel uapi header (kernel/uapi/sroce-abi.h).
 * The build runs rdma-core's make_abi_structs.py over it to produce
 * <kernel-abi/sroce-abi.h>, which DECLARE_DRV_CMD() needs to splice the
 * driver payload behind the core command/response.
 *
 * DECLARE_DRV_CMD(x, ...) defines struct x and struct x_resp, so the names
 * must not collide with the uapi's sroce_*_resp: those use "usroce_".
 */
#ifndef SROCE_CMD_H
#define SROCE_CMD_H

#include <infiniband/kern-abi.h>
#include <sroce-abi.h>
#include <kernel-abi/sroce-abi.h>

DECLARE_DRV_CMD(sroce_get_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, sroce_alloc_ucontext_resp);
DECLARE_DRV_CMD(usroce_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		empty, sroce_create_cq_resp);
DECLARE_DRV_CMD(usroce_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		empty, sroce_create_cq_resp);
DECLARE_DRV_CMD(usroce_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, sroce_resize_cq_resp);
DECLARE_DRV_CMD(usroce_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		empty, sroce_create_qp_resp);
DECLARE_DRV_CMD(usroce_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		empty, sroce_create_srq_resp);
DECLARE_DRV_CMD(usroce_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		sroce_modify_srq, empty);
DECLARE_DRV_CMD(usroce_create_xsrq, IB_USER_VERBS_CMD_CREATE_XSRQ,
		empty, sroce_create_srq_resp);
DECLARE_DRV_CMD(usroce_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, sroce_create_ah_resp);

#endif /* SROCE_CMD_H */
