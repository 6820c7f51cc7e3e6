/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: the one place where the supported kernels (Debian's 6.1 and 6.12)
 * differ in the APIs the driver uses. Nothing outside this header tests
 * LINUX_VERSION_CODE.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * ib_device_ops.create_cq: 6.11 replaced the trailing struct ib_udata with
 * the uverbs attribute bundle that carries it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define SROCE_CREATE_CQ_ARG	struct uverbs_attr_bundle
static inline struct ib_udata *sroce_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define SROCE_CREATE_CQ_ARG	struct ib_udata
static inline struct ib_udata *sroce_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * ib_device_ops.reg_user_mr_dmabuf: 6.12 (the mlx5 data-direct series)
 * replaced the trailing struct ib_udata with the uverbs attribute bundle.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define SROCE_REG_DMABUF_ARG	struct uverbs_attr_bundle
#else
#define SROCE_REG_DMABUF_ARG	struct ib_udata
#endif

/*
 * 6.2 moved dma_buf_vmap()'s locking to the caller (the buffer's
 * reservation lock); the _unlocked variants take it. 6.1's dma_buf_vmap()
 * locks by itself.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static inline int sroce_dma_buf_vmap(struct dma_buf *buf, struct iosys_map *map)
{
	return dma_buf_vmap_unlocked(buf, map);
}

static inline void sroce_dma_buf_vunmap(struct dma_buf *buf, struct iosys_map *map)
{
	dma_buf_vunmap_unlocked(buf, map);
}
#else
static inline int sroce_dma_buf_vmap(struct dma_buf *buf, struct iosys_map *map)
{
	return dma_buf_vmap(buf, map);
}

static inline void sroce_dma_buf_vunmap(struct dma_buf *buf, struct iosys_map *map)
{
	dma_buf_vunmap(buf, map);
}
#endif

/* 6.3 made vma->vm_flags read-only behind vm_flags_set() */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void sroce_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}
#else
static inline void sroce_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * IBTA 1.5 ATOMIC WRITE and FLUSH: 6.2 named the device capabilities and the
 * FLUSH MR access flags. On 6.1 the core passes the ATOMIC WRITE capability
 * bit through to user space by value (its uverbs ABI value), but refuses
 * the FLUSH access flags on an MR, so FLUSH is not offered there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define SROCE_HAVE_FLUSH		1
#define SROCE_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#define SROCE_DEVICE_FLUSH_GLOBAL	IB_DEVICE_FLUSH_GLOBAL
#define SROCE_ACCESS_FLUSH_GLOBAL	IB_ACCESS_FLUSH_GLOBAL
#define SROCE_ACCESS_FLUSH_PERSISTENT	IB_ACCESS_FLUSH_PERSISTENT
#else
#define SROCE_HAVE_FLUSH		0
#define SROCE_DEVICE_ATOMIC_WRITE	(1ULL << 40)
#define SROCE_DEVICE_FLUSH_GLOBAL	0ULL
#define SROCE_ACCESS_FLUSH_GLOBAL	0
#define SROCE_ACCESS_FLUSH_PERSISTENT	0
#endif

#endif /* SROCE_COMPAT_H */
