// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: control-path verbs. All of them are thin
 * wrappers around libibverbs' ibv_cmd_*() helpers; the kernel does the work.
 */
#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sroce.h"

/*
 * What alloc_parent_domain takes. A confidential-computing guest's parent
 * domain may allow buffers in unprotected (shared) memory, which a device
 * that DMAs needs; sroce's "device" is the kernel's CPU copying to and from
 * the process's own pages, so private memory serves it and the permission
 * changes nothing (ibv_alloc_buf() keeps libibverbs' page-aligned
 * allocation; IBV_DEVICE_CC_DMA_BOUNCE is not reported).
 */
#if SROCE_HAVE_CC_ALLOC
#define SROCE_PD_INIT_ATTR_CC IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC
#else
#define SROCE_PD_INIT_ATTR_CC 0
#endif
#define SROCE_PD_INIT_ATTR_MASK (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
				 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT | \
				 SROCE_PD_INIT_ATTR_CC)

int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* per-QP rate limits (the kernel's pacer), sroce-abi.h */
	if (attr_size >= offsetof(struct ibv_device_attr_ex, packet_pacing_caps) +
			 sizeof(attr->packet_pacing_caps)) {
		attr->packet_pacing_caps.qp_rate_limit_min = SROCE_RATE_LIMIT_MIN_KBPS;
		attr->packet_pacing_caps.qp_rate_limit_max = SROCE_RATE_LIMIT_MAX_KBPS;
		attr->packet_pacing_caps.supported_qpts = 1U << IBV_QPT_RC | 1U << IBV_QPT_UC |
							  1U << IBV_QPT_XRC_SEND;
	}
	/* The kernel reports fw_ver as major.minor.sub in 16-bit fields. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

/*
 * ibv_query_rt_values_ex(): the device clock is CLOCK_MONOTONIC in ns (a
 * 1 GHz hca_core_clock), the clock the kernel stamps CQEs with; as raw
 * clocks go, its value is in raw_clock.tv_nsec, tv_sec 0. No system call.
 */
int sroce_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values)
{
	struct timespec now;
	uint32_t want = values->comp_mask;

	if (want & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK) {
		sroce_err(ibctx, "query_rt_values: comp_mask 0x%x: unknown bits 0x%x", want,
			  want & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK);
		return EINVAL;
	}
	values->comp_mask = 0;	/* what was filled in */
	if (want & IBV_VALUES_MASK_RAW_CLOCK) {
		if (clock_gettime(CLOCK_MONOTONIC, &now))
			return errno;
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = now.tv_sec * 1000000000L + now.tv_nsec;
		values->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}

int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		sroce_dbg(ibctx, "alloc_pd: the kernel refused: %s", strerror(ret));
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * A parent domain: an ibv_pd with the PD's handle, so every command that
 * names it names the PD. Thread domains are not supported (EOPNOTSUPP).
 */
struct ibv_pd *sroce_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr)
{
	struct sroce_pd *pd;

	if (ibv_check_alloc_parent_domain(attr)) {
		sroce_err(ibctx, "alloc_parent_domain: refused by libibverbs' checks: %s",
			  strerror(errno));
		return NULL;	/* errno set */
	}
	if (attr->pd->context != ibctx) {
		sroce_err(ibctx, "alloc_parent_domain: the PD is of another context");
		errno = EINVAL;
		return NULL;
	}
	if (attr->td) {
		sroce_err(ibctx, "alloc_parent_domain: thread domains not supported");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & ~SROCE_PD_INIT_ATTR_MASK) {
		sroce_err(ibctx, "alloc_parent_domain: comp_mask 0x%x: unsupported bits 0x%x",
			  attr->comp_mask, attr->comp_mask & ~SROCE_PD_INIT_ATTR_MASK);
		errno = EOPNOTSUPP;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->parent_of = to_spd(attr->pd);
	pd->pd_attr = *attr;
	ibv_initialize_parent_domain(&pd->ibv_pd, attr->pd);
	return &pd->ibv_pd;
}

int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);
	int ret;

	if (pd->parent_of) {	/* nothing in the kernel: the PD stays */
		free(pd);
		return 0;
	}
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret) {
		sroce_dbg(ibpd->context, "dealloc_pd: the kernel refused: %s", strerror(ret));
		return ret;
	}
	free(pd);
	return 0;
}

struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct usroce_create_ah_resp resp;
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		sroce_dbg(pd->context, "create_ah: the kernel refused (is_global %u, sgid_index %u, port %u): %s",
			  attr->is_global, attr->grh.sgid_index, attr->port_num, strerror(ret));
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->id = resp.ah_id;
	return &ah->ibv_ah;
}

int sroce_destroy_ah(struct ibv_ah *ibah)
{
	struct sroce_ah *ah = to_sah(ibah);
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(ah);
	return 0;
}
