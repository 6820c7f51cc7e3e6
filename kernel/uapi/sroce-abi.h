/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce user/kernel ABI: udata structures exchanged through uverbs and the
 * layout of the mmapped rings. Shared verbatim by sroce.ko and the rdma-core
 * provider (rdma-core-provider/).
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/* uverbs ABI version; the provider accepts exactly this one */
#define SROCE_UVERBS_ABI_VERSION	1

/* Device name prefix the provider matches (sroce0, sroce1, ...) */
#define SROCE_DEVICE_NAME_PREFIX	"sroce"

/*
 * Capability bits in sroce_alloc_ucontext_resp.caps. None are defined yet:
 * later kernels set bits here as features (mmapped rings, doorbell
 * suppression) land, and a provider must treat unknown bits as absent.
 */

/* alloc_ucontext response: what this kernel build supports */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 caps;		/* SROCE_CAP_* */
	__aligned_u64 reserved;
};

#endif /* SROCE_ABI_USER_H */
