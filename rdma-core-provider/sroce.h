/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce userspace provider: private types shared by the provider's files.
 *
 * The provider wraps every libibverbs object in a sroce_* struct so that
 * per-object state (rings, doorbells, ...) can be added later without
 * touching the callers. Each wrapper embeds the libibverbs object first-class
 * and has a to_s*() accessor built on container_of().
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "sroce_cmd.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
	uint32_t caps;		/* SROCE_CAP_* reported by the kernel */
};

struct sroce_pd {
	struct ibv_pd ibv_pd;
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibv_pd);
}

/* verbs.c */
int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);
struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_dealloc_pd(struct ibv_pd *ibpd);

#endif /* SROCE_PROVIDER_H */
