// SPDX-License-Identifier: GPL-2.0
/*
 * sroce memory regions.
 *
 * A user MR pins its memory with ib_umem_get() and keeps an array of the
 * pinned pages, so translating an iova is one subtraction and one index; a
 * DM MR does the same with the pages of its device memory (dm.c), a
 * dma-buf MR with the pages of another driver's buffer (dmabuf.c). A
 * DMA MR (get_dma_mr, kernel users only) covers all kernel memory: the
 * device has no dma_device, so ib_uses_virt_dma() holds and the "DMA
 * addresses" kernel ULPs put in their SGEs are kernel virtual addresses.
 *
 * Keys: lkey == rkey == (index << 8) | 8-bit key, the index allocated
 * cyclically from the per-device MR table (never 0, so key 0 is never
 * valid). The transport finds an MR with sroce_mr_lookup(), which takes a
 * reference under RCU, and may keep it across packets (the responder holds
 * the MR of a WRITE from FIRST to LAST, and of a READ until its last
 * response). Deregistration never waits for those holders, which a remote
 * peer controls: it marks the MR dead and removes it from the table, waits
 * one RCU grace period for copies already under way (every copy runs in an
 * RCU read-side section and checks the mark first), then unpins the pages.
 * A holder's next copy fails with -EACCES; its final sroce_mr_put() frees
 * the structure.
 */
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "mr.h"
#include "dm.h"
#include "dmabuf.h"

#define SROCE_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND | SROCE_ACCESS_FLUSH_GLOBAL | \
			 IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB)

/**
 * sroce_mr_init_dev() - initialise a device's MR table
 * @sdev: the device, before registration
 */
void sroce_mr_init_dev(struct sroce_dev *sdev)
{
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC);
	sdev->mr_next = 1;
}

/**
 * sroce_mr_cleanup_dev() - release a device's MR table
 * @sdev: the device; the core has destroyed every MR
 */
void sroce_mr_cleanup_dev(struct sroce_dev *sdev)
{
	WARN_ON_ONCE(!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->mr_xa);
}

/*
 * Access flags: unknown bits -EINVAL, known but unsupported ones
 * (zero-based, on-demand paging, ...) -EOPNOTSUPP; optional hints
 * (relaxed ordering) are ignored. Remote write and atomic require local
 * write (IBTA o10-36.2.1).
 */
static int sroce_mr_check_access(int access, const char **why)
{
	if (access & ~IB_ACCESS_SUPPORTED) {
		*why = "unknown bits";
		return -EINVAL;
	}
	if (access & ~(SROCE_MR_ACCESS | IB_ACCESS_OPTIONAL)) {
		*why = "a right sroce does not offer (zero-based, flush persistent, ...)";
		return -EOPNOTSUPP;
	}
	/* huge pages only say something about an ODP MR's page size */
	if ((access & IB_ACCESS_HUGETLB) && !(access & IB_ACCESS_ON_DEMAND)) {
		*why = "HUGETLB without ON_DEMAND";
		return -EOPNOTSUPP;
	}
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE)) {
		*why = "REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE";
		return -EINVAL;
	}
	return 0;
}

/* Publish @mr in the MR table: choose its keys, make it findable. */
static int sroce_mr_add(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	u32 idx, key;
	int err;

	refcount_set(&mr->ref, 1);
	/* reserve the index first: the keys depend on it */
	err = xa_alloc_cyclic(&sdev->mr_xa, &idx, NULL, XA_LIMIT(1, SROCE_MAX_MR),
			      &sdev->mr_next, GFP_KERNEL_ACCOUNT);
	if (err < 0) {
		sroce_dbg_dev(&sdev->ib_dev, "MR registration: no MR index (max_mr %d): error %d",
			      SROCE_MAX_MR, err);
		return err == -EBUSY ? -ENOMEM : err;
	}
	key = (idx << 8) | (get_random_u32() & 0xff);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->key = key;
	/* a reserved entry reads as NULL; this store publishes the MR */
	err = xa_err(xa_store(&sdev->mr_xa, idx, mr, GFP_KERNEL_ACCOUNT));
	if (err)
		xa_erase(&sdev->mr_xa, idx);
	return err;
}

/**
 * sroce_get_dma_mr() - ib_device_ops.get_dma_mr
 * @ibpd: the PD
 * @access: IB_ACCESS_* for all of kernel memory
 *
 * Return: the MR or an ERR_PTR (-EINVAL/-EOPNOTSUPP for bad access flags,
 * -ENOMEM).
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr;
	const char *why;
	int err;

	err = sroce_mr_check_access(access, &why);
	if (err) {
		sroce_dbg_dev(ibpd->device, "get_dma_mr: access 0x%x: %s", access, why);
		return ERR_PTR(err);
	}
	if (access & IB_ACCESS_ON_DEMAND) {
		sroce_dbg_dev(ibpd->device, "get_dma_mr: access 0x%x: ON_DEMAND", access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/*
	 * A DMA MR spans all kernel memory: remote access to it would let any
	 * peer that learns the rkey read or write the whole kernel. Local
	 * access only (IB_PD_UNSAFE_GLOBAL_RKEY users get -EOPNOTSUPP).
	 */
	if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
		      IB_ACCESS_REMOTE_ATOMIC)) {
		sroce_dbg_dev(ibpd->device,
			      "get_dma_mr: access 0x%x: remote rights on all of kernel memory",
			      access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->access = access;
	err = sroce_mr_add(sroce_to_dev(ibpd->device), mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/*
 * Fill mr->pages from the pinned umem. ib_umem_get() pins whole pages from
 * the one containing @start, in order.
 */
/*
 * The geometry of a new user MR (pinned, ODP or dma-buf): its rights, the
 * first byte's offset in its first page, its iova and length.
 */
static void sroce_mr_set_range(struct sroce_mr *mr, int access, u64 offset, u64 iova,
			       u64 length, unsigned int page_size)
{
	mr->access = access;
	mr->offset = offset;
	mr->ibmr.iova = iova;
	mr->iova = iova;
	mr->len = length;
	mr->ibmr.length = length;
	mr->ibmr.page_size = page_size;
}

static int sroce_mr_fill_pages(struct sroce_mr *mr)
{
	struct sg_page_iter iter;
	unsigned long i = 0;

	mr->npages = PAGE_ALIGN(mr->offset + mr->ibmr.length) >> PAGE_SHIFT;
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (i == mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	return i == mr->npages ? 0 : -EFAULT;
}

/*
 * A user MR's range (for @verb): a length of 1..max_mr_size, address and
 * iova ranges that do not wrap. Return: 0 or -EINVAL.
 */
static int sroce_mr_check_range(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				const char *verb)
{
	u64 end;

	if (!length || length > SROCE_MAX_MR_SIZE) {
		sroce_dbg_dev(ibpd->device, "%s: length %llu outside 1..max_mr_size %llu", verb,
			      length, SROCE_MAX_MR_SIZE);
		return -EINVAL;
	}
	if (check_add_overflow(start, length, &end)) {
		sroce_dbg_dev(ibpd->device, "%s: addr 0x%llx + length %llu wraps", verb, start,
			      length);
		return -EINVAL;
	}
	if (check_add_overflow(iova, length, &end)) {
		sroce_dbg_dev(ibpd->device, "%s: iova 0x%llx + length %llu wraps", verb, iova,
			      length);
		return -EINVAL;
	}
	return 0;
}

/*
 * A user MR, pinned and translated, not in the MR table yet (for @verb);
 * @dmah: the DMA handle it is registered with, or NULL.
 */
static struct sroce_mr *sroce_user_mr_create(struct ib_pd *ibpd, u64 start, u64 length,
					     u64 iova, int access, struct ib_dmah *dmah,
					     const char *verb)
{
	struct sroce_dev *sdev = sroce_to_dev(ibpd->device);
	struct sroce_mr *mr;
	struct ib_umem *umem;
	const char *why;
	bool implicit;
	int err;

	/* a DMA handle's hints describe pages that stay; ODP pages come and go */
	if (dmah && (access & IB_ACCESS_ON_DEMAND)) {
		sroce_dbg_dev(ibpd->device, "%s: access 0x%x: ON_DEMAND with a DMA handle", verb,
			      access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* implicit ODP: the whole address space, at iova 0 (odp.c) */
	implicit = (access & IB_ACCESS_ON_DEMAND) && !start && length == U64_MAX;
	if (implicit && iova) {
		sroce_dbg_dev(ibpd->device, "%s: implicit ODP at iova 0x%llx (0 only)", verb, iova);
		return ERR_PTR(-EINVAL);
	}
	err = implicit ? 0 : sroce_mr_check_range(ibpd, start, length, iova, verb);
	if (err)
		return ERR_PTR(err);
	err = sroce_mr_check_access(access, &why);
	if (err) {
		sroce_dbg_dev(ibpd->device, "%s: access 0x%x: %s", verb, access, why);
		return ERR_PTR(err);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	if (access & IB_ACCESS_ON_DEMAND) {
		/* nothing pinned: pages come and go (odp.c) */
		err = implicit ? sroce_odp_mr_init_implicit(mr, &sdev->ib_dev, access) :
		      sroce_odp_mr_init(mr, &sdev->ib_dev, start, length, access);
		if (err) {
			sroce_dbg_dev(ibpd->device,
				      "%s: ODP range addr 0x%llx length %llu%s: error %d",
				      verb, start, length, implicit ? " (implicit)" : "", err);
			goto err_free_mr;
		}
		rwlock_init(&mr->lock);
		sroce_mr_set_range(mr, access, ib_umem_offset(mr->umem), iova, length,
				   BIT(mr->odp.umem->page_shift));
		mr->ibmr.pd = ibpd;
		return mr;
	}
	umem = sroce_ib_umem_get(&sdev->ib_dev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		sroce_dbg_dev(ibpd->device, "%s: pinning addr 0x%llx length %llu%s: error %d",
			      verb, start, length, ib_access_writable(access) ? " writable" : "",
			      err);
		goto err_free_mr;
	}
	mr->umem = umem;
	sroce_mr_set_range(mr, access, ib_umem_offset(umem), iova, length, PAGE_SIZE);
	err = sroce_mr_fill_pages(mr);
	if (err) {
		sroce_dbg_dev(ibpd->device, "%s: page array of addr 0x%llx length %llu: error %d",
			      verb, start, length, err);
		goto err_release_umem;
	}
	mr->ibmr.pd = ibpd;
	return mr;

err_release_umem:
	kvfree(mr->pages);
	ib_umem_release(umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static void sroce_user_mr_free(struct sroce_mr *mr)
{
	if (mr->odp.umem)
		sroce_odp_mr_free(mr);
	else
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr);
}

/**
 * sroce_reg_user_mr() - ib_device_ops.reg_user_mr
 * @ibpd: the PD
 * @start: user virtual address of the memory
 * @length: bytes, > 0
 * @iova: the address the MR is accessed at (any value; the core makes its
 *	page offset equal @start's)
 * @access: IB_ACCESS_*
 * @udata: unused
 *
 * On kernels with DMA handles, a handle (or NULL) comes before @udata.
 *
 * Return: the MR or an ERR_PTR: -EINVAL for a zero or too large length, an
 * address range that wraps, or bad access flags (-EOPNOTSUPP for
 * unsupported ones, and for ON_DEMAND with a DMA handle); ib_umem_get()'s
 * -EFAULT (unmapped memory), -ENOMEM (also: MR table full), -EPERM.
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, SROCE_MR_DMAH_PARAM
				struct ib_udata *udata)
{
	struct sroce_mr *mr = sroce_user_mr_create(ibpd, start, length, iova, access,
						   SROCE_MR_DMAH, "reg_mr");
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_add(sroce_to_dev(ibpd->device), mr);
	if (err) {
		sroce_user_mr_free(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_reg_dm_mr() - ib_device_ops.reg_dm_mr: an MR on device memory
 * @ibpd: the PD
 * @ibdm: the DM; the core keeps it from being freed while the MR exists
 * @attr: offset and length in the DM (the core checked them against the
 *	DM's length; checked again here), access flags with IB_ZERO_BASED
 * @attrs: unused
 *
 * Zero-based: iova 0 is the DM's byte @attr->offset. Otherwise an ordinary
 * MR on the DM's pages: local SGEs, remote WRITE, READ and atomics. A
 * zero-length MR is valid (only zero-length accesses fit in it).
 *
 * Return: the MR or an ERR_PTR: -EINVAL without IB_ZERO_BASED, for a range
 * past the DM (or wrapping) or bad access flags; -EOPNOTSUPP for
 * unsupported access flags (memory windows bind to user MRs only);
 * -ENOMEM (also: MR table full).
 */
struct ib_mr *sroce_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs)
{
	int access = attr->access_flags & ~IB_ZERO_BASED;
	unsigned long first, i;
	struct sroce_mr *mr;
	const char *why;
	u64 end;
	int err;

	if (!(attr->access_flags & IB_ZERO_BASED)) {
		sroce_dbg_dev(ibpd->device, "reg_dm_mr: access 0x%x without IB_ZERO_BASED",
			      attr->access_flags);
		return ERR_PTR(-EINVAL);
	}
	if (check_add_overflow(attr->offset, attr->length, &end) || end > ibdm->length) {
		sroce_dbg_dev(ibpd->device,
			      "reg_dm_mr: offset %llu + length %llu past the DM's %u bytes",
			      attr->offset, attr->length, ibdm->length);
		return ERR_PTR(-EINVAL);
	}
	err = sroce_mr_check_access(access, &why);
	if (err) {
		sroce_dbg_dev(ibpd->device, "reg_dm_mr: access 0x%x: %s", access, why);
		return ERR_PTR(err);
	}
	/* device memory is never paged: no on-demand paging, no huge pages */
	if (access & (IB_ACCESS_MW_BIND | IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB)) {
		sroce_dbg_dev(ibpd->device,
			      "reg_dm_mr: access 0x%x: MW_BIND, ON_DEMAND or HUGETLB on device memory",
			      access);
		return ERR_PTR(-EOPNOTSUPP);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dm = true;
	mr->access = access;
	mr->offset = offset_in_page(attr->offset);
	mr->len = attr->length;
	mr->ibmr.length = attr->length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->npages = PAGE_ALIGN(mr->offset + attr->length) >> PAGE_SHIFT;
	if (mr->npages) {
		mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
					   GFP_KERNEL_ACCOUNT);
		if (!mr->pages) {
			err = -ENOMEM;
			goto err_free_mr;
		}
	}
	first = attr->offset >> PAGE_SHIFT;
	for (i = 0; i < mr->npages; i++) {
		mr->pages[i] = sroce_dm_page(ibdm, first + i);
		if (!mr->pages[i]) {
			sroce_dbg_dev(ibpd->device, "reg_dm_mr: page %lu past the DM", first + i);
			err = -EINVAL;
			goto err_free_pages;
		}
	}
	err = sroce_mr_add(sroce_to_dev(ibpd->device), mr);
	if (err)
		goto err_free_pages;
	return &mr->ibmr;

err_free_pages:
	kvfree(mr->pages);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sroce_reg_user_mr_dmabuf() - ib_device_ops.reg_user_mr_dmabuf
 * @ibpd: the PD
 * @offset: first byte of the MR in the dma-buf
 * @length: bytes, > 0
 * @iova: the address the MR is accessed at (any value)
 * @fd: the dma-buf's file descriptor; the MR keeps its own reference
 * @access: IB_ACCESS_*: local and remote access, no on-demand paging
 * @arg: unused (udata on 6.1, the attribute bundle on 6.12)
 *
 * An ordinary MR on the pages of a CPU-mappable dma-buf, pinned until
 * deregistration (dmabuf.c). Memory windows do not bind to it and it is
 * not re-registered (-EOPNOTSUPP from rereg_user_mr).
 *
 * Return: the MR or an ERR_PTR: -EBADF (@fd not open), -EINVAL (@fd not
 * a dma-buf, zero or too large length, range past the buffer's end or
 * wrapping, iova range wrapping, bad access flags), -EACCES (write access
 * through an fd opened read-only), -EOPNOTSUPP
 * (unsupported access flags: on-demand paging, memory-window binding;
 * a buffer the CPU cannot map), -ENOMEM (also: MR table full).
 */
struct ib_mr *sroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
				       u64 iova, int fd, int access, SROCE_MR_DMAH_PARAM
				       SROCE_REG_DMABUF_ARG *arg)
{
	struct sroce_dmabuf *sdb;
	struct sroce_mr *mr;
	const char *why;
	u64 end;
	int err;

	err = sroce_mr_check_access(access, &why);
	if (err) {
		sroce_dbg_dev(ibpd->device, "reg_dmabuf_mr: access 0x%x: %s", access, why);
		return ERR_PTR(err);
	}
	/* pinned for the MR's life: no dynamic (ODP-like) import */
	if (access & (IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB | IB_ACCESS_MW_BIND)) {
		sroce_dbg_dev(ibpd->device,
			      "reg_dmabuf_mr: access 0x%x: ON_DEMAND, HUGETLB or MW_BIND on a dma-buf",
			      access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* a zero length is refused after the fd: the NCCL probe gets -EBADF */
	if (length > SROCE_MAX_MR_SIZE) {
		sroce_dbg_dev(ibpd->device, "reg_dmabuf_mr: length %llu > max_mr_size %llu",
			      length, SROCE_MAX_MR_SIZE);
		return ERR_PTR(-EINVAL);
	}
	if (check_add_overflow(iova, length, &end)) {
		sroce_dbg_dev(ibpd->device, "reg_dmabuf_mr: iova 0x%llx + length %llu wraps", iova,
			      length);
		return ERR_PTR(-EINVAL);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sdb = sroce_dmabuf_get(ibpd->device, fd, offset, length, ib_access_writable(access),
			       &mr->pages, &mr->npages);
	if (IS_ERR(sdb)) {
		err = PTR_ERR(sdb);
		goto err_free_mr;
	}
	mr->dmabuf = sdb;
	sroce_mr_set_range(mr, access, offset_in_page(offset), iova, length, PAGE_SIZE);
	err = sroce_mr_add(sroce_to_dev(ibpd->device), mr);
	if (err)
		goto err_put_dmabuf;
	return &mr->ibmr;

err_put_dmabuf:
	kvfree(mr->pages);
	sroce_dmabuf_put(sdb);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sroce_rereg_user_mr() - ib_device_ops.rereg_user_mr
 * @ibmr: the user MR
 * @flags: IB_MR_REREG_TRANS, _PD, _ACCESS
 * @start: new user address (with IB_MR_REREG_TRANS)
 * @length: new length (with IB_MR_REREG_TRANS)
 * @iova: new iova (with IB_MR_REREG_TRANS)
 * @access: new access flags (with IB_MR_REREG_ACCESS)
 * @pd: the PD (the new one with IB_MR_REREG_PD, else the MR's)
 * @udata: unused
 *
 * A new MR with the old one's keys (peers keep using the rkey they were
 * given, as on hardware that keeps its keys): it is pinned first, so a
 * failure leaves the old MR as it was, then takes the old one's place in
 * the MR table. The core deregisters the old one, whose holders fail from
 * then on (sroce_dereg_mr() leaves the new entry alone).
 *
 * Return: the new MR, or an ERR_PTR (as sroce_reg_user_mr(); -EOPNOTSUPP
 * for a DMA, DM, dma-buf or fast-registration MR).
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start, u64 length,
				  u64 iova, int access, struct ib_pd *pd,
				  struct ib_udata *udata)
{
	struct sroce_mr *mr = sroce_to_mr(ibmr), *nmr, *old;

	/* ODP MRs are registered anew, not re-registered */
	if (!mr->umem || mr->odp.umem) {
		sroce_dbg_mr(mr,
			     "rereg_mr: only a pinned user MR is re-registered (not DMA, DM, dma-buf, FR or ODP)");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (flags & ~IB_MR_REREG_SUPPORTED) {
		sroce_dbg_mr(mr, "rereg_mr: flags 0x%x: unknown bits 0x%x", flags,
			     flags & ~IB_MR_REREG_SUPPORTED);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if ((flags & IB_MR_REREG_ACCESS) && (access & IB_ACCESS_ON_DEMAND)) {
		sroce_dbg_mr(mr, "rereg_mr: access 0x%x: ON_DEMAND (register an ODP MR anew)",
			     access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->len;
		iova = mr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	nmr = sroce_user_mr_create(pd, start, length, iova, access, NULL, "rereg_mr");
	if (IS_ERR(nmr))
		return ERR_CAST(nmr);
	refcount_set(&nmr->ref, 1);
	nmr->ibmr.lkey = ibmr->lkey;
	nmr->ibmr.rkey = ibmr->rkey;
	nmr->key = mr->key;
	old = xa_cmpxchg(&sroce_to_dev(ibmr->device)->mr_xa, mr->key >> 8, mr, nmr, GFP_KERNEL);
	if (old != mr) {
		sroce_dbg_mr(mr, "rereg_mr: %s", xa_is_err(old) ? "no memory for the MR table" :
			     "the MR left the table meanwhile");
		sroce_user_mr_free(nmr);
		return ERR_PTR(xa_is_err(old) ? xa_err(old) : -EINVAL);
	}
	return &nmr->ibmr;
}

/**
 * sroce_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: the MR
 * @udata: unused
 *
 * New lookups fail as soon as the MR leaves the table. Holders of a
 * reference (a WRITE between FIRST and LAST, queued READ responses) are
 * not waited for: their next copy fails once the MR is dead, and copies
 * already under way finish within the RCU grace period waited here before
 * the pages are unpinned. Bounded whatever the peer does.
 *
 * Context: may sleep.
 * Return: 0.
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = sroce_to_mr(ibmr);
	struct ib_umem *umem = mr->umem;
	struct sroce_dmabuf *sdb = mr->dmabuf;
	struct page **pages = mr->pages;
	u64 *pbl = mr->pbl, *stage = mr->stage;

	WRITE_ONCE(mr->dead, true);
	/* a rereg may have put its successor (same keys) in our slot */
	xa_cmpxchg(&sroce_to_dev(ibmr->device)->mr_xa, mr->key >> 8, mr, NULL, 0);
	if (mr->odp.umem) {
		/* no copy from here on; the umem goes with the last fault */
		sroce_odp_mr_stop(mr);
		umem = NULL;
	}
	/*
	 * Our reference was the last one: nobody can copy any more (lookups
	 * fail on a zero count). Otherwise a holder may be copying right now.
	 */
	if (!refcount_dec_and_test(&mr->ref)) {
		synchronize_rcu();
		mr = NULL;	/* the last holder's sroce_mr_put() frees it */
	}
	kvfree(pages);
	kfree(pbl);
	kfree(stage);
	ib_umem_release(umem);
	if (sdb)
		sroce_dmabuf_put(sdb);
	if (mr)
		kfree_rcu(mr, rcu);	/* a lookup may still be looking at it */
	return 0;
}

/**
 * sroce_alloc_mr() - ib_device_ops.alloc_mr: a fast-registration MR
 * @ibpd: the PD
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages map_mr_sg may map, at most SROCE_MAX_FR_PAGES
 *
 * Invalid (no lookup finds it) until an IB_WR_REG_MR registers it.
 * Return: the MR or an ERR_PTR (-EOPNOTSUPP, -EINVAL, -ENOMEM).
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg)
{
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG) {
		sroce_dbg_dev(ibpd->device, "alloc_mr: mr_type %d (MEM_REG only)", type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!max_num_sg || max_num_sg > SROCE_MAX_FR_PAGES) {
		sroce_dbg_dev(ibpd->device, "alloc_mr: max_num_sg %u outside 1..%d", max_num_sg,
			      SROCE_MAX_FR_PAGES);
		return ERR_PTR(-EINVAL);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pbl = kcalloc(max_num_sg, sizeof(*mr->pbl), GFP_KERNEL);
	mr->stage = kcalloc(max_num_sg, sizeof(*mr->stage), GFP_KERNEL);
	if (!mr->pbl || !mr->stage) {
		err = -ENOMEM;
		goto err_free_lists;
	}
	mr->frmr = true;
	mr->max_pbl = max_num_sg;
	rwlock_init(&mr->lock);
	err = sroce_mr_add(sroce_to_dev(ibpd->device), mr);
	if (err)
		goto err_free_lists;
	return &mr->ibmr;

err_free_lists:
	kfree(mr->stage);
	kfree(mr->pbl);
	kfree(mr);
	return ERR_PTR(err);
}

static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = sroce_to_mr(ibmr);

	lockdep_assert_held_write(&mr->lock);
	if (mr->nstage == mr->max_pbl)
		return -ENOMEM;
	mr->stage[mr->nstage++] = addr;
	return 0;
}

/**
 * sroce_map_mr_sg() - ib_device_ops.map_mr_sg: the pages of a FR MR
 * @ibmr: the MR (from sroce_alloc_mr())
 * @sg: DMA-mapped list (virtual DMA: addresses are kernel addresses)
 * @sg_nents: entries
 * @sg_offset: offset into the first entry
 *
 * The pages are staged: the MR's registration, valid or not, keeps its
 * own until the next IB_WR_REG_MR takes them (sroce_mr_fast_reg()), as a
 * RoCE NIC reads a REG_MR's page list when it executes the work request.
 *
 * Return: entries mapped (ib_sg_to_pages()).
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = sroce_to_mr(ibmr);
	int n;

	if (!mr->frmr) {
		sroce_dbg_mr(mr, "map_mr_sg: not a fast-registration MR (alloc_mr)");
		return -EINVAL;
	}
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K) {
		sroce_dbg_mr(mr, "map_mr_sg: page size %u: not a power of 2 of at least 4 KiB",
			     ibmr->page_size);
		return -EINVAL;
	}
	/*
	 * A REG_MR executing meanwhile takes a whole list, never half one.
	 * A failed map leaves an empty list staged: the next REG_MR fails
	 * rather than registering the last pages again.
	 */
	write_lock_bh(&mr->lock);
	mr->nstage = 0;
	mr->stage_shift = ilog2(ibmr->page_size);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_mr_set_page);
	if (n <= 0)
		mr->nstage = 0;
	mr->staged = true;
	write_unlock_bh(&mr->lock);
	return n;
}

/* A FR MR by key index, referenced; NULL if none (or not a FR MR of @pd). */
static struct sroce_mr *sroce_frmr_get(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (mr && (!mr->frmr || mr->ibmr.pd != pd)) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/*
 * Can @r register the @npages pages of @mr's list (the staged one or, with
 * none staged, the registered one), mapped with pages of 1 << @shift
 * bytes? The range starts in the first page and ends in the last, without
 * wrapping.
 */
static const char *sroce_fr_reg_bad(const struct sroce_fr_reg *r, u32 npages,
				    unsigned int shift)
{
	u64 ps = 1ULL << shift, end;

	if (!npages)
		return "no pages mapped (map_mr_sg)";
	if (check_add_overflow(r->iova, r->length, &end))
		return "iova + length wraps";
	if ((r->iova & (ps - 1)) + r->length > (u64)npages << shift)
		return "length past the pages mapped";
	return NULL;
}

/* Take the staged page list, if any, and @r's range; under mr->lock */
static void sroce_fr_install(struct sroce_mr *mr, const struct sroce_fr_reg *r)
{
	lockdep_assert_held_write(&mr->lock);
	if (mr->staged) {
		swap(mr->pbl, mr->stage);
		mr->npbl = mr->nstage;
		mr->fr_shift = mr->stage_shift;
		mr->nstage = 0;
		mr->staged = false;
	}
	if (mr->valid)
		mr->gen++;
	mr->iova = r->iova;
	mr->len = r->length;
	WRITE_ONCE(mr->key, r->key);
	mr->access = r->access;
	mr->valid = true;
}

/**
 * sroce_mr_fast_reg() - execute an IB_WR_REG_MR
 * @sdev: the device
 * @pd: the posting QP's PD
 * @r: the work request: new lkey/rkey (index bits: the MR's), access, and
 *	the MR's iova and length when it was posted
 *
 * Registers the pages map_mr_sg staged since the last REG_MR (none
 * staged: the registered ones again, under the new key). A registration
 * over a valid one replaces it (as if invalidated first: the old
 * registration's holders fail from now on).
 *
 * Context: transport (BH disabled).
 * Return: 0, or -EINVAL (no such FR MR of @pd, nothing mapped, a range
 * the pages do not hold, bad access flags).
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, const struct sroce_fr_reg *r)
{
	struct sroce_mr *mr = sroce_frmr_get(sdev, pd, r->key);
	const char *why;
	int err = 0;

	if (!mr) {
		sroce_dbg_dev_rl(&sdev->ib_dev, "REG_MR: key 0x%x names no FR MR of the QP's PD",
				 r->key);
		return -EINVAL;
	}
	if (sroce_mr_check_access(r->access, &why)) {
		sroce_dbg_mr_rl(mr, "REG_MR: access 0x%x: %s", r->access, why);
		sroce_mr_put(mr);
		return -EINVAL;
	}
	write_lock(&mr->lock);
	why = mr->staged ? sroce_fr_reg_bad(r, mr->nstage, mr->stage_shift) :
			   sroce_fr_reg_bad(r, mr->npbl, mr->fr_shift);
	if (why) {
		sroce_dbg_mr_rl(mr, "REG_MR: iova 0x%llx length %llu: %s",
				r->iova, r->length, why);
		err = -EINVAL;
	} else {
		sroce_fr_install(mr, r);
	}
	write_unlock(&mr->lock);
	sroce_mr_put(mr);
	return err;
}

/**
 * sroce_mr_invalidate() - local or remote invalidation of a FR MR
 * @sdev: the device
 * @pd: the PD of the QP asking
 * @key: the key to invalidate (must be the registered one)
 *
 * No copy under the old registration runs once this returns: copies hold
 * the read side of mr->lock and check the generation.
 *
 * Context: transport (BH disabled).
 * Return: 0, or -EINVAL.
 */
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key)
{
	struct sroce_mr *mr = sroce_frmr_get(sdev, pd, key);
	int err = 0;

	if (!mr) {
		sroce_dbg_dev_rl(&sdev->ib_dev,
				 "invalidate: key 0x%x names no FR MR of the QP's PD",
				 key);
		return -EINVAL;
	}
	write_lock(&mr->lock);
	if (!mr->valid || mr->key != key) {
		sroce_dbg_mr_rl(mr, "invalidate: key 0x%x %s", key,
				mr->valid ? "is not the registered key" : "is not registered");
		err = -EINVAL;
	} else {
		mr->valid = false;
		mr->gen++;
	}
	write_unlock(&mr->lock);
	sroce_mr_put(mr);
	return err;
}

/* May a QP of @mr's PD access [@iova, @iova + @len) with @need_access? */
static int sroce_mr_check(const struct sroce_mr *mr, int need_access, u64 iova, u64 len)
{
	if (need_access & ~mr->access)
		return -EACCES;
	return sroce_mr_in_bounds(mr, iova, len) ? 0 : -EINVAL;
}

/**
 * sroce_mr_lookup() - find an MR by key for a transfer and take a reference
 * @sdev: the device
 * @key: lkey or rkey (they are equal)
 * @pd: the PD of the QP doing the access; must be the MR's
 * @need_access: IB_ACCESS_* the access needs (0 for a local read)
 * @iova: first byte accessed
 * @len: bytes accessed
 * @gen: the MR's generation, for sroce_mr_copy() (a FR MR's copies fail
 *	once it is invalidated, even if registered again meanwhile)
 *
 * Context: any; does not sleep. A FR MR's lock is taken only for its own
 * PD's QPs: a kernel consumer's, with BHs disabled.
 * Return: the MR, to be released with sroce_mr_put(), or an ERR_PTR:
 * -ENOENT no such key (or being deregistered, or an invalid FR MR),
 * -EACCES wrong PD or missing access right, -EINVAL range outside the MR
 * (or wrapping).
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key,
				 struct ib_pd *pd, int need_access, u64 iova,
				 u64 len, u32 *gen)
{
	struct sroce_mr *mr;
	int err = 0;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (!mr || READ_ONCE(mr->key) != key || !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return ERR_PTR(-ENOENT);

	/*
	 * The PD never changes: refuse another PD's MR before its lock. A FR
	 * MR is a kernel consumer's, whose lock is taken with BHs off; a user
	 * naming its key from process context (advise_mr) must not take it.
	 */
	if (mr->ibmr.pd != pd) {
		sroce_mr_put(mr);
		return ERR_PTR(-EACCES);
	}
	if (mr->frmr) {
		/* registration and invalidation change these under the lock */
		read_lock(&mr->lock);
		err = mr->valid && mr->key == key ?
		      sroce_mr_check(mr, need_access, iova, len) : -ENOENT;
		*gen = mr->gen;
		read_unlock(&mr->lock);
	} else {
		err = sroce_mr_check(mr, need_access, iova, len);
		*gen = 0;
	}
	if (err) {
		sroce_mr_put(mr);
		return ERR_PTR(err);
	}
	return mr;
}

/**
 * sroce_mr_put() - drop a reference taken by sroce_mr_lookup()
 * @mr: the MR
 *
 * The last reference of a deregistered MR frees it (its pages are already
 * unpinned by sroce_dereg_mr()).
 */
void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		kfree_rcu(mr, rcu);
}
