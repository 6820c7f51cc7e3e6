/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce: the one place where the supported kernels (Debian's 6.1, 6.12 and
 * the newest, see Documentation/design.rst "Supported kernels") differ in
 * the APIs the driver uses. Every difference is decided by a probe of the
 * target kernel's headers (probe.sh, run by Kbuild, writes sroce_probe.h's
 * SROCE_HAVE_* defines), never by the kernel version: distribution kernels
 * take API changes piecemeal. The versions in the comments say where
 * mainline changed, for orientation only. compat.h is the lowest header:
 * it includes the kernel's and the probe's, no sroce module's (so the
 * completion counters' ops, which need struct sroce_cntr, are cntr.h's).
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/hmm.h>
#include <linux/hrtimer.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/flow.h>
#include <net/inet_dscp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce_probe.h"
#include "sroce_param.h"

/*
 * ib_device_ops.create_cq: 6.11 replaced the trailing struct ib_udata with
 * the uverbs attribute bundle that carries it.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
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
#ifdef SROCE_HAVE_REG_DMABUF_ATTRS
#define SROCE_REG_DMABUF_ARG	struct uverbs_attr_bundle
#else
#define SROCE_REG_DMABUF_ARG	struct ib_udata
#endif

/*
 * 6.2 moved dma_buf_vmap()'s locking to the caller (the buffer's
 * reservation lock); the _unlocked variants take it. 6.1's dma_buf_vmap()
 * locks by itself.
 */
#ifdef SROCE_HAVE_DMA_BUF_VMAP_UNLOCKED
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
#ifdef SROCE_HAVE_VM_FLAGS_SET
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
#ifdef SROCE_HAVE_IB_FLUSH
#define SROCE_HAVE_FLUSH		1
#define SROCE_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#define SROCE_DEVICE_FLUSH_GLOBAL	IB_DEVICE_FLUSH_GLOBAL
#define SROCE_ACCESS_FLUSH_GLOBAL	IB_ACCESS_FLUSH_GLOBAL
#define SROCE_ACCESS_FLUSH_PERSISTENT	IB_ACCESS_FLUSH_PERSISTENT
#define SROCE_QP_ACCESS_FLUSH_IGNORED	0
#else
#define SROCE_HAVE_FLUSH		0
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)
#define SROCE_DEVICE_FLUSH_GLOBAL	0ULL
#define SROCE_ACCESS_FLUSH_GLOBAL	0
#define SROCE_ACCESS_FLUSH_PERSISTENT	0
/*
 * The QP's FLUSH rights by their uverbs values (6.2's
 * IB_UVERBS_ACCESS_FLUSH_GLOBAL and _PERSISTENT), which user space may set
 * whatever the kernel (rdma-core 65's pyverbs suite does on every extended
 * RC QP, as NIC drivers ignore rights they have no use for): accepted on a
 * QP and meaningless, the responder refuses every FLUSH here.
 */
#define SROCE_QP_ACCESS_FLUSH_IGNORED	((1 << 8) | (1 << 9))
#endif

/*
 * ODP of FLUSH and ATOMIC WRITE requests (per-transport capability bits):
 * advertised where the kernel's uAPI names them; elsewhere the bits mean
 * nothing to the core and are not set.
 */
#if defined(SROCE_HAVE_ODP_FLUSH_CAPS) && defined(SROCE_HAVE_IB_FLUSH)
#define SROCE_ODP_FLUSH_CAPS	(IB_ODP_SUPPORT_FLUSH | IB_ODP_SUPPORT_ATOMIC_WRITE)
#else
#define SROCE_ODP_FLUSH_CAPS	0
#endif

/*
 * reg_user_mr() and reg_user_mr_dmabuf() gained a DMA handle (struct
 * ib_dmah, 6.17) before their last argument: SROCE_MR_DMAH_PARAM is that
 * parameter with its comma, or nothing; SROCE_MR_DMAH the handle or NULL.
 * sroce_mr_dmah_cpu(): the CPU of the handle the core attached to an MR,
 * -1 for none.
 */
struct ib_dmah;
#ifdef SROCE_HAVE_MR_DMAH
#define SROCE_MR_DMAH_PARAM	struct ib_dmah *dmah,
#define SROCE_MR_DMAH		dmah
static inline int sroce_mr_dmah_cpu(const struct ib_mr *ibmr)
{
	const struct ib_dmah *d = ibmr->dmah;

	return d && (d->valid_fields & BIT(IB_DMAH_CPU_ID_EXISTS)) ? d->cpu_id : -1;
}
#else
#define SROCE_MR_DMAH_PARAM
#define SROCE_MR_DMAH		NULL
static inline int sroce_mr_dmah_cpu(const struct ib_mr *ibmr)
{
	return -1;
}
#endif

/*
 * DMA handle objects (ib_device_ops.alloc_dmah, ibv_alloc_dmah()): PCIe
 * TLP processing hints for the MRs registered with one (the CPU whose
 * cache the device's writes should reach, the memory type, a processing
 * hint). The core checks the values and keeps them; sroce has nothing to
 * add: its writes into memory are CPU stores in the receive path, with no
 * TLP to carry a hint. SROCE_DMAH_OPS is the ops entries, or nothing.
 */
#ifdef SROCE_HAVE_DMAH_OPS
struct sroce_dmah {
	struct ib_dmah ibdmah;
};

static inline int sroce_alloc_dmah(struct ib_dmah *ibdmah, struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static inline int sroce_dealloc_dmah(struct ib_dmah *ibdmah, struct uverbs_attr_bundle *attrs)
{
	return 0;
}

#define SROCE_DMAH_OPS							\
	.alloc_dmah = sroce_alloc_dmah,					\
	.dealloc_dmah = sroce_dealloc_dmah,				\
	INIT_RDMA_OBJ_SIZE(ib_dmah, sroce_dmah, ibdmah),
#else
#define SROCE_DMAH_OPS
#endif

/*
 * resize_cq became resize_user_cq with an unsigned depth (6.18): the op's
 * member name and the depth's type.
 */
#ifdef SROCE_HAVE_RESIZE_USER_CQ
#define SROCE_RESIZE_CQ_OP	resize_user_cq
typedef unsigned int sroce_cqe_t;
#else
#define SROCE_RESIZE_CQ_OP	resize_cq
typedef int sroce_cqe_t;
#endif

/*
 * ib_device_ops.fill_res_srq_entry (not in 6.1): the driver's attributes
 * of an SRQ in `rdma resource show srq -dd`. SROCE_FILL_RES_SRQ_OP is its
 * initializer with the comma, or nothing where the core has no such op
 * (restrack.c's function is then never called).
 */
#ifdef SROCE_HAVE_FILL_RES_SRQ
#define SROCE_FILL_RES_SRQ_OP	.fill_res_srq_entry = sroce_fill_res_srq_entry,
#else
#define SROCE_FILL_RES_SRQ_OP
#endif

/*
 * ib_device_ops.query_port_speed (ibv_query_port_speed()) and
 * IB_EVENT_DEVICE_SPEED_CHANGE (7.x). Where the core has neither, verbs.c's
 * function is never called and a speed change raises no event.
 */
#ifdef SROCE_HAVE_QUERY_PORT_SPEED
#define SROCE_QUERY_PORT_SPEED_OP	.query_port_speed = sroce_query_port_speed,
#else
#define SROCE_QUERY_PORT_SPEED_OP
#endif

static inline void sroce_speed_change_event(struct ib_device *ibdev, u32 port)
{
#ifdef SROCE_HAVE_DEVICE_SPEED_CHANGE
	struct ib_event ev = {
		.device = ibdev,
		.element.port_num = port,
		.event = IB_EVENT_DEVICE_SPEED_CHANGE,
	};

	ib_dispatch_event(&ev);
#endif
}

/*
 * Is @name taken by an RDMA device? ib_device_get_by_name() left the
 * exported API (6.18); without it sroce cannot ask, and
 * ib_register_device() refuses a taken name with -ENFILE.
 */
static inline bool sroce_ib_name_taken(const char *name)
{
#ifdef SROCE_HAVE_IB_DEVICE_GET_BY_NAME
	struct ib_device *ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);

	if (!ibdev)
		return false;
	ib_device_put(ibdev);
	return true;
#else
	return false;
#endif
}

/* ib_umem_get() is ib_umem_get_va() since 6.19 */
#ifdef SROCE_HAVE_IB_UMEM_GET
#define sroce_ib_umem_get	ib_umem_get
#else
#define sroce_ib_umem_get	ib_umem_get_va
#endif

/*
 * ODP pages: until 6.15 the core DMA-mapped each umem page into
 * umem_odp->dma_list, the access rights in its low bits (for a virtual-DMA
 * device like sroce the "DMA address" is the kernel address); since then
 * umem_odp->map.pfn_list holds hmm_range_fault()'s result, one entry per
 * PAGE_SIZE page (also in a huge-page umem), the rights as HMM_PFN_* flags.
 *
 * SROCE_ODP_MAP_READ/WRITE: the access_mask of
 * ib_umem_odp_map_dma_and_lock() (reading is implied in the HMM version;
 * HMM_PFN_VALID keeps a read-only mask non-zero and is otherwise ignored).
 */
#ifdef SROCE_HAVE_ODP_HMM_MAP
#define SROCE_ODP_MAP_READ	HMM_PFN_VALID
#define SROCE_ODP_MAP_WRITE	HMM_PFN_WRITE

/*
 * sroce_odp_page_va() - the kernel address of user address @uva of @umem
 *	if its page is mapped for reading and, if @write, for writing; else
 *	NULL. *@room: the bytes from @uva to the end of that page.
 * The caller excludes invalidation (sroce_odp_unmap_pages()) while it uses
 * the address.
 */
static inline void *sroce_odp_page_va(struct ib_umem_odp *umem, u64 uva, bool write, u64 *room)
{
	unsigned long pfn, off = uva & ~PAGE_MASK;

	pfn = READ_ONCE(umem->map.pfn_list[(uva - ib_umem_start(umem)) >> PAGE_SHIFT]);
	if (!(pfn & HMM_PFN_VALID))
		return NULL;
	if (write && (!(pfn & HMM_PFN_WRITE) || !umem->umem.writable))
		return NULL;
	*room = PAGE_SIZE - off;
	return page_address(hmm_pfn_to_page(pfn)) + off;
}

/*
 * sroce_odp_unmap_pages() - unmap [@start, @end) of @umem (whole umem
 *	pages), under umem->umem_mutex. The core's unmap steps through the
 *	pfn list by umem page, which in a huge-page umem leaves PAGE_SIZE
 *	entries that sroce_odp_page_va() reads: clear all of them.
 */
static inline void sroce_odp_unmap_pages(struct ib_umem_odp *umem, u64 start, u64 end)
{
	u64 psz = BIT(umem->page_shift), a, b;

	ib_umem_odp_unmap_dma_pages(umem, start, end);
	a = (ALIGN_DOWN(start, psz) - ib_umem_start(umem)) >> PAGE_SHIFT;
	b = (ALIGN(end, psz) - ib_umem_start(umem)) >> PAGE_SHIFT;
	for (; a < b; a++)
		WRITE_ONCE(umem->map.pfn_list[a], umem->map.pfn_list[a] & ~HMM_PFN_FLAGS);
}

/*
 * sroce_odp_mapped_pages() - the umem pages of @umem mapped now (a
 *	snapshot). The HMM kernels no longer count them in umem->npages:
 *	count the valid entries, one per umem page.
 * Context: process; sleeps (a long list yields the CPU).
 */
static inline u64 sroce_odp_mapped_pages(struct ib_umem_odp *umem)
{
	u64 step = BIT(umem->page_shift - PAGE_SHIFT), n = 0, i;
	u64 last = ib_umem_odp_num_pages(umem) * step;

	for (i = 0; i < last; i += step) {
		if (READ_ONCE(umem->map.pfn_list[i]) & HMM_PFN_VALID)
			n++;
		if (!(i & 0xffff))
			cond_resched();
	}
	return n;
}
#else
#define SROCE_ODP_MAP_READ	ODP_READ_ALLOWED_BIT
#define SROCE_ODP_MAP_WRITE	ODP_WRITE_ALLOWED_BIT

static inline void *sroce_odp_page_va(struct ib_umem_odp *umem, u64 uva, bool write, u64 *room)
{
	u64 psz = BIT(umem->page_shift), off = uva & (psz - 1);
	dma_addr_t dma;

	dma = READ_ONCE(umem->dma_list[(uva - ib_umem_start(umem)) >> umem->page_shift]);
	if (!(dma & (write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT)))
		return NULL;
	*room = psz - off;
	return (void *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK) + off;
}

static inline void sroce_odp_unmap_pages(struct ib_umem_odp *umem, u64 start, u64 end)
{
	ib_umem_odp_unmap_dma_pages(umem, start, end);
}

/* the umem pages of @umem mapped now (counted under its mutex: a snapshot) */
static inline u64 sroce_odp_mapped_pages(struct ib_umem_odp *umem)
{
	return READ_ONCE(umem->npages);
}
#endif

/*
 * UDP tunnel sockets: setup_udp_tunnel_sock() (6.17) and, later,
 * udp_tunnel_sock_release() take the struct sock, not the socket.
 * Separate probes: Ubuntu 24.04's HWE 7.0 has the first change only.
 */
static inline void sroce_setup_udp_tunnel_sock(struct net *net, struct socket *sock,
					       struct udp_tunnel_sock_cfg *cfg)
{
#ifdef SROCE_HAVE_UDP_TUNNEL_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void sroce_udp_tunnel_sock_release(struct socket *sock)
{
#ifdef SROCE_HAVE_UDP_TUNNEL_RELEASE_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

/*
 * The TOS member of a struct flowi4 initializer: flowi4_tos became
 * flowi4_dscp (6.15), which holds the DSCP alone.
 */
#ifdef SROCE_HAVE_FLOWI4_DSCP
#define SROCE_FLOWI4_TOS(tos)	.flowi4_dscp = inet_dsfield_to_dscp(tos)
#else
#define SROCE_FLOWI4_TOS(tos)	.flowi4_tos = (tos)
#endif

/* from_timer() is timer_container_of() since 6.16 */
#ifdef SROCE_HAVE_TIMER_CONTAINER_OF
#define sroce_timer_container_of(var, t, field)	timer_container_of(var, t, field)
#else
#define sroce_timer_container_of(var, t, field)	from_timer(var, t, field)
#endif

/* hrtimer_setup() (6.13) replaced hrtimer_init() plus setting .function */
static inline void sroce_hrtimer_setup(struct hrtimer *timer,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
#ifdef SROCE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * A workqueue that is not WQ_UNBOUND says WQ_PERCPU where the flag exists
 * (6.17: alloc_workqueue() WARNs without either, ahead of unbound becoming
 * the default).
 */
#ifdef SROCE_HAVE_WQ_PERCPU
#define SROCE_WQ_PERCPU		WQ_PERCPU
#else
#define SROCE_WQ_PERCPU		0
#endif

/*
 * Symbol namespaces: MODULE_IMPORT_NS() takes a string literal since
 * 6.13; before, it stringified its argument (in two steps, so a macro
 * expanding to the bare name works).
 */
#ifdef SROCE_HAVE_MODULE_IMPORT_NS_STRING
#define SROCE_NS_DMA_BUF	"DMA_BUF"
#else
#define SROCE_NS_DMA_BUF	DMA_BUF
#endif

#endif /* SROCE_COMPAT_H */
