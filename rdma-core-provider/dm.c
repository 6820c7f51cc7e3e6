// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: device memory (ibv_alloc_dm and friends).
 *
 * A sroce DM is zeroed kernel memory owned by the user context. The kernel
 * says where to mmap it on the uverbs fd (driver attributes of
 * UVERBS_METHOD_DM_ALLOC, or SROCE_METHOD_DM_QUERY for an imported DM), so
 * ibv_memcpy_to_dm() and ibv_memcpy_from_dm() are plain memcpy on the
 * mapping. Copies take offsets and lengths in whole 4-byte words within the
 * DM's length rounded up to a word, the access granularity device memory
 * has on RDMA NICs; anything else fails with EINVAL.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/cmd_ioctl.h>

#include "sroce.h"

#define SROCE_DM_WORD	4u

static struct sroce_dm *to_sdm(struct ibv_dm *ibdm)
{
	return container_of(ibdm, struct sroce_dm, vdm.dm);
}

/* EINVAL unless [@off, @off + @len) is whole words inside @dm */
static int sroce_dm_check(const struct sroce_dm *dm, const char *verb, uint64_t off,
			  size_t len)
{
	uint64_t end;

	if ((off | len) & (SROCE_DM_WORD - 1)) {
		sroce_err(dm->vdm.dm.context, "%s: offset %llu length %zu: not whole %u-byte words",
			  verb, (unsigned long long)off, len, SROCE_DM_WORD);
		return EINVAL;
	}
	if (__builtin_add_overflow(off, (uint64_t)len, &end) || end > dm->limit) {
		sroce_err(dm->vdm.dm.context, "%s: offset %llu + length %zu past the DM's %llu bytes",
			  verb, (unsigned long long)off, len, (unsigned long long)dm->limit);
		return EINVAL;
	}
	return 0;
}

static int sroce_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			      const void *host_addr, size_t length)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	int ret = sroce_dm_check(dm, "memcpy_to_dm", dm_offset, length);

	if (ret)
		return ret;
	memcpy((char *)dm->buf + dm_offset, host_addr, length);
	return 0;
}

static int sroce_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
				uint64_t dm_offset, size_t length)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	int ret = sroce_dm_check(dm, "memcpy_from_dm", dm_offset, length);

	if (ret)
		return ret;
	memcpy(host_addr, (char *)dm->buf + dm_offset, length);
	return 0;
}

/*
 * Map the DM the kernel described: @map_len bytes at @offset on the
 * uverbs fd, covering @length. Returns 0 or an errno value.
 */
static int sroce_dm_map(struct sroce_dm *dm, struct ibv_context *ibctx,
			uint64_t offset, uint64_t map_len, uint64_t length)
{
	uint64_t limit = (length + SROCE_DM_WORD - 1) & ~(uint64_t)(SROCE_DM_WORD - 1);
	void *buf;

	if (!length || limit < length || map_len < limit || map_len > SIZE_MAX) {
		/* not what this provider's kernel says */
		sroce_err(ibctx, "DM: the kernel described length %llu mapped in %llu bytes: inconsistent",
			  (unsigned long long)length, (unsigned long long)map_len);
		return EPROTO;
	}
	buf = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, offset);
	if (buf == MAP_FAILED) {
		sroce_err(ibctx, "DM: mmap of %llu bytes: %s", (unsigned long long)map_len,
			  strerror(errno));
		return errno;
	}
	dm->buf = buf;
	dm->map_len = map_len;
	dm->limit = limit;
	dm->vdm.dm.memcpy_to_dm = sroce_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = sroce_memcpy_from_dm;
	return 0;
}

struct ibv_dm *sroce_alloc_dm(struct ibv_context *ibctx,
			      struct ibv_alloc_dm_attr *attr)
{
	DECLARE_COMMAND_BUFFER(link, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 2);
	uint64_t offset = 0, map_len = 0;
	struct sroce_dm *dm;
	int ret;

	if (attr->comp_mask) {
		sroce_err(ibctx, "alloc_dm: comp_mask 0x%x (none known)", attr->comp_mask);
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	fill_attr_out_ptr(link, SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET, &offset);
	fill_attr_out_ptr(link, SROCE_ATTR_ALLOC_DM_RESP_MMAP_LEN, &map_len);
	ret = ibv_cmd_alloc_dm(ibctx, attr, &dm->vdm, link);
	if (ret) {
		sroce_dbg(ibctx, "alloc_dm: the kernel refused length %llu log_align_req %u: %s",
			  (unsigned long long)attr->length, attr->log_align_req, strerror(ret));
		goto err_free;
	}
	ret = sroce_dm_map(dm, ibctx, offset, map_len, attr->length);
	if (ret)
		goto err_free_dm;
	return &dm->vdm.dm;

err_free_dm:
	ibv_cmd_free_dm(&dm->vdm);
err_free:
	free(dm);
	errno = ret;
	return NULL;
}

/* The kernel refuses (EBUSY) while an MR is registered on the DM. */
int sroce_free_dm(struct ibv_dm *ibdm)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	int ret;

	ret = ibv_cmd_free_dm(&dm->vdm);
	if (ret) {
		sroce_dbg(ibdm->context, "free_dm: the kernel refused: %s%s", strerror(ret),
			  ret == EBUSY ? " (an MR is registered on it)" : "");
		return ret;
	}
	munmap(dm->buf, dm->map_len);
	free(dm);
	return 0;
}

/* A DM of this context's kernel context, allocated through another ibv_context */
struct ibv_dm *sroce_import_dm(struct ibv_context *ibctx, uint32_t dm_handle)
{
	DECLARE_COMMAND_BUFFER(cmdb, UVERBS_OBJECT_DM, SROCE_METHOD_DM_QUERY, 4);
	uint64_t offset = 0, map_len = 0, length = 0;
	struct sroce_dm *dm;
	int ret;

	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	fill_attr_in_obj(cmdb, SROCE_ATTR_QUERY_DM_HANDLE, dm_handle);
	fill_attr_out_ptr(cmdb, SROCE_ATTR_QUERY_DM_RESP_MMAP_OFFSET, &offset);
	fill_attr_out_ptr(cmdb, SROCE_ATTR_QUERY_DM_RESP_MMAP_LEN, &map_len);
	fill_attr_out_ptr(cmdb, SROCE_ATTR_QUERY_DM_RESP_LENGTH, &length);
	ret = execute_ioctl(ibctx, cmdb);
	if (ret) {
		ret = errno;
		sroce_dbg(ibctx, "import_dm: the kernel refused handle %u: %s", dm_handle,
			  strerror(ret));
		goto err_free;
	}
	ret = sroce_dm_map(dm, ibctx, offset, map_len, length);
	if (ret)
		goto err_free;
	dm->vdm.handle = dm_handle;
	dm->vdm.dm.handle = dm_handle;
	dm->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->vdm.dm.context = ibctx;
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = ret;
	return NULL;
}

/* Forget an imported DM; the kernel object stays with its owner. */
void sroce_unimport_dm(struct ibv_dm *ibdm)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	munmap(dm->buf, dm->map_len);
	free(dm);
}

/* ibv_reg_dm_mr: zero-based (libibverbs and the kernel insist) */
struct ibv_mr *sroce_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			       uint64_t dm_offset, size_t length,
			       unsigned int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dm_mr(pd, &to_sdm(ibdm)->vdm, dm_offset, length,
				access, vmr, NULL);
	if (ret) {
		sroce_dbg(pd->context, "reg_dm_mr: the kernel refused offset %llu length %zu access 0x%x: %s",
			  (unsigned long long)dm_offset, length, access, strerror(ret));
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}
