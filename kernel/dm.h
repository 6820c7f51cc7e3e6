/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce device memory (ibv_alloc_dm): see dm.c.
 */
#ifndef SROCE_DM_H
#define SROCE_DM_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* DM memory one device hands out at a time, in pages (64 MiB) */
#define SROCE_DM_DEV_PAGES	((64UL << 20) >> PAGE_SHIFT)

extern const struct uapi_definition sroce_dm_uapi_defs[];

struct ib_dm *sroce_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *ibuc,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs);
int sroce_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct page *sroce_dm_page(struct ib_dm *ibdm, unsigned long idx);

#endif /* SROCE_DM_H */
