// SPDX-License-Identifier: GPL-2.0
/*
 * sroce device memory: ibv_alloc_dm(), ibv_free_dm(), ibv_import_dm().
 *
 * A software device has no memory of its own: a DM is zeroed kernel memory
 * of whole pages, vmalloc()ed and charged to the allocating process's
 * memory cgroup, owned by the user context. The provider maps it through
 * the uverbs fd, so ibv_memcpy_to_dm() and ibv_memcpy_from_dm() are plain
 * memcpy: the buffer is an mmap entry like a ring's (queue.c), and two
 * driver attributes of UVERBS_METHOD_DM_ALLOC say where it is
 * (sroce-abi.h). SROCE_METHOD_DM_QUERY tells the same of an existing DM,
 * for a context that imports it.
 *
 * A DM MR (sroce_reg_dm_mr() in mr.c) is an ordinary page-backed MR on the
 * DM's pages. The core counts the MRs of a DM (ib_dm.usecnt) and refuses
 * to free a DM that still has one (-EBUSY, also while a context is torn
 * down: its MRs go first), so the pages outlive every MR on them. Freeing
 * the DM removes the mmap entry; the pages are returned once the core is
 * done with the entry and the last mapping of them is gone.
 *
 * Limits: SROCE_MAX_DM_SIZE bytes per DM (the advertised max_dm_size),
 * SROCE_DM_DEV_PAGES pages of DM allocated per device. The device total
 * counts live DMs; pages a process still maps after freeing its DM stay
 * charged to its memory cgroup until it unmaps them.
 */
#define UVERBS_MODULE_NAME sroce_ib
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include "sroce.h"
#include "queue.h"
#include "dm.h"

/**
 * struct sroce_dm - device memory
 * @ibdm: the core's DM (driver-allocated); its length is the one asked for
 * @sdev: the device, whose dm_pages count @npages
 * @entry: the mmap entry owning @buf
 * @buf: @npages zeroed pages
 * @npages: pages of @buf
 */
struct sroce_dm {
	struct ib_dm ibdm;
	struct sroce_dev *sdev;
	struct rdma_user_mmap_entry *entry;
	void *buf;
	unsigned long npages;
};

static struct sroce_dm *sroce_to_dm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct sroce_dm, ibdm);
}

/* Copy @val to the optional u64 output attribute @id, if it is there. */
static int sroce_dm_put_u64(struct uverbs_attr_bundle *attrs, u16 id, u64 val)
{
	if (!uverbs_attr_is_valid(attrs, id))
		return 0;
	return uverbs_copy_to(attrs, id, &val, sizeof(val));
}

/**
 * sroce_alloc_dm() - ib_device_ops.alloc_dm
 * @ibdev: the device
 * @ibuc: the user context that owns the DM and may map it
 * @attr: length in bytes (1..SROCE_MAX_DM_SIZE), log2 of the alignment
 *	asked for (at most PAGE_SHIFT: a DM starts on a page)
 * @attrs: the uverbs bundle; SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET and _LEN
 *	are answered when present
 *
 * Return: the DM, or an ERR_PTR: -EINVAL for a zero or too large length,
 * or an alignment beyond a page; -ENOMEM when the device's DM memory is
 * used up or allocation fails; -EFAULT when the outputs cannot be written.
 */
struct ib_dm *sroce_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *ibuc,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);
	unsigned long npages;
	struct sroce_dm *dm;
	u64 off;
	int err;

	if (!ibuc) {
		sroce_dbg_dev(ibdev, "alloc_dm: no user context (user space only)");
		return ERR_PTR(-EINVAL);
	}
	if (!attr->length || attr->length > SROCE_MAX_DM_SIZE) {
		sroce_dbg_dev(ibdev, "alloc_dm: length %llu outside 1..max_dm_size %lu",
			      attr->length, (unsigned long)SROCE_MAX_DM_SIZE);
		return ERR_PTR(-EINVAL);
	}
	if (attr->alignment > PAGE_SHIFT) {
		sroce_dbg_dev(ibdev, "alloc_dm: log_align_req %u > %d (a DM starts on a page)",
			      attr->alignment, PAGE_SHIFT);
		return ERR_PTR(-EINVAL);
	}
	npages = PAGE_ALIGN(attr->length) >> PAGE_SHIFT;
	if (atomic_long_add_return(npages, &sdev->dm_pages) > SROCE_DM_DEV_PAGES) {
		sroce_dbg_dev(ibdev, "alloc_dm: %lu pages more than the device's %lu pages of DM",
			      npages, (unsigned long)SROCE_DM_DEV_PAGES);
		err = -ENOMEM;
		goto err_unaccount;
	}
	dm = kzalloc(sizeof(*dm), GFP_KERNEL_ACCOUNT);
	if (!dm) {
		err = -ENOMEM;
		goto err_unaccount;
	}
	dm->sdev = sdev;
	dm->npages = npages;
	dm->buf = sroce_mmap_buf_create(ibuc, npages << PAGE_SHIFT, &dm->entry);
	if (IS_ERR(dm->buf)) {
		err = PTR_ERR(dm->buf);
		sroce_dbg_dev(ibdev, "alloc_dm: buffer of %lu pages: error %d", npages, err);
		goto err_free_dm;
	}
	off = rdma_user_mmap_get_offset(dm->entry);
	err = sroce_dm_put_u64(attrs, SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET, off);
	if (!err)
		err = sroce_dm_put_u64(attrs, SROCE_ATTR_ALLOC_DM_RESP_MMAP_LEN,
				       (u64)npages << PAGE_SHIFT);
	if (err) {
		sroce_dbg_dev(ibdev, "alloc_dm: mmap offset and length not writable (%d)", err);
		goto err_remove_entry;
	}
	return &dm->ibdm;

err_remove_entry:
	rdma_user_mmap_entry_remove(dm->entry);	/* frees the buffer */
err_free_dm:
	kfree(dm);
err_unaccount:
	atomic_long_sub(npages, &sdev->dm_pages);
	return ERR_PTR(err);
}

/**
 * sroce_dealloc_dm() - ib_device_ops.dealloc_dm
 * @ibdm: the DM; the core made sure no MR uses it
 * @attrs: unused
 *
 * Mappings the process still has keep their pages.
 * Return: 0.
 */
int sroce_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm = sroce_to_dm(ibdm);

	rdma_user_mmap_entry_remove(dm->entry);
	atomic_long_sub(dm->npages, &dm->sdev->dm_pages);
	kfree(dm);
	return 0;
}

/**
 * sroce_dm_page() - a page of a DM
 * @ibdm: the DM
 * @idx: page index
 *
 * Return: the page, or NULL when @idx is past the DM.
 */
struct page *sroce_dm_page(struct ib_dm *ibdm, unsigned long idx)
{
	struct sroce_dm *dm = sroce_to_dm(ibdm);

	if (idx >= dm->npages)
		return NULL;
	return vmalloc_to_page(dm->buf + (idx << PAGE_SHIFT));
}

/* SROCE_METHOD_DM_QUERY: where an existing DM is mapped (ibv_import_dm) */
static int UVERBS_HANDLER(SROCE_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs, SROCE_ATTR_QUERY_DM_HANDLE);
	struct sroce_dm *dm;
	int err;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = sroce_to_dm(ibdm);
	err = sroce_dm_put_u64(attrs, SROCE_ATTR_QUERY_DM_RESP_MMAP_OFFSET,
			       rdma_user_mmap_get_offset(dm->entry));
	if (!err)
		err = sroce_dm_put_u64(attrs, SROCE_ATTR_QUERY_DM_RESP_MMAP_LEN,
				       (u64)dm->npages << PAGE_SHIFT);
	if (!err)
		err = sroce_dm_put_u64(attrs, SROCE_ATTR_QUERY_DM_RESP_LENGTH,
				       ibdm->length);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(
	SROCE_METHOD_DM_QUERY,
	UVERBS_ATTR_IDR(SROCE_ATTR_QUERY_DM_HANDLE, UVERBS_OBJECT_DM,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_DM_RESP_MMAP_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_DM_RESP_MMAP_LEN,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_DM_RESP_LENGTH,
			    UVERBS_ATTR_TYPE(u64), UA_MANDATORY));

ADD_UVERBS_METHODS(sroce_dm_methods, UVERBS_OBJECT_DM,
		   &UVERBS_METHOD(SROCE_METHOD_DM_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	sroce_dm_alloc_attrs, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC,
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET,
			    UVERBS_ATTR_TYPE(u64), UA_OPTIONAL),
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_ALLOC_DM_RESP_MMAP_LEN,
			    UVERBS_ATTR_TYPE(u64), UA_OPTIONAL));

/* the device's driver_def: sroce's additions to the uverbs ioctl API */
const struct uapi_definition sroce_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &sroce_dm_alloc_attrs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &sroce_dm_methods),
	{}
};
