// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: memory regions and memory windows. The kernel
 * pins the pages and hands out the keys; the provider only keeps the
 * verbs_mr / ibv_mw. A window is bound by a BIND_MW entry in the SQ, which
 * the kernel executes in order with the QP's other work requests.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_dbg(pd->context, "reg_mr: the kernel refused addr %p length %zu iova 0x%llx access 0x%x: %s",
			  addr, length, (unsigned long long)hca_va, access, strerror(ret));
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * ibv_reg_dmabuf_mr: an MR on the pages of a CPU-mappable dma-buf (the
 * kernel imports it; see Documentation/design.rst). @iova is the address
 * work requests use; libibverbs sets ibv_mr.addr to @offset.
 */
struct ibv_mr *sroce_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				   uint64_t iova, int fd, int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr, NULL);
	if (ret) {
		sroce_dbg(pd->context, "reg_dmabuf_mr: the kernel refused fd %d offset %llu length %zu access 0x%x: %s",
			  fd, (unsigned long long)offset, length, access, strerror(ret));
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

#if SROCE_HAVE_DMAH
/*
 * ibv_alloc_dmah: a DMA handle, whose hints (CPU, TPH memory type,
 * processing hint) the kernel checks and keeps for the MRs registered with
 * it (ibv_reg_mr_ex). A kernel without DMA handles refuses (EOPNOTSUPP).
 */
struct ibv_dmah *sroce_alloc_dmah(struct ibv_context *ibctx, struct ibv_dmah_init_attr *attr)
{
	struct verbs_dmah *vdmah = calloc(1, sizeof(*vdmah));
	int ret;

	if (!vdmah)
		return NULL;
	ret = ibv_cmd_alloc_dmah(ibctx, vdmah, attr);
	if (ret) {
		sroce_dbg(ibctx, "alloc_dmah: the kernel refused comp_mask 0x%x cpu %u ph %u mem_type %u: %s",
			  attr->comp_mask, attr->cpu_id, attr->ph, attr->tph_mem_type,
			  strerror(ret));
		free(vdmah);
		errno = ret;
		return NULL;
	}
	return &vdmah->dmah;
}

int sroce_dealloc_dmah(struct ibv_dmah *dmah)
{
	struct verbs_dmah *vdmah = verbs_get_dmah(dmah);
	int ret = ibv_cmd_free_dmah(vdmah);

	if (ret) {
		sroce_dbg(dmah->context, "dealloc_dmah: the kernel refused: %s", strerror(ret));
		return ret;
	}
	free(vdmah);
	return 0;
}

/*
 * ibv_reg_mr_ex: with a DMA handle through the kernel's REG_MR method
 * (7.x); else as ibv_reg_dmabuf_mr (an fd) or ibv_reg_mr (an address),
 * which every kernel sroce supports.
 */
struct ibv_mr *sroce_reg_mr_ex(struct ibv_pd *pd, struct ibv_mr_init_attr *attr)
{
	const uint64_t mask = attr->comp_mask;
	struct verbs_mr *vmr;
	int ret;

	if (mask & ~(uint64_t)(IBV_REG_MR_MASK_IOVA | IBV_REG_MR_MASK_ADDR |
			       IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			       IBV_REG_MR_MASK_DMAH)) {
		sroce_dbg(pd->context, "reg_mr_ex: comp_mask 0x%llx: unknown bits",
			  (unsigned long long)mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(mask & IBV_REG_MR_MASK_DMAH)) {
		if (!(mask & IBV_REG_MR_MASK_FD)) {
			if (!(mask & IBV_REG_MR_MASK_ADDR) || (mask & IBV_REG_MR_MASK_FD_OFFSET)) {
				errno = EINVAL;
				return NULL;
			}
			return sroce_reg_mr(pd, attr->addr, attr->length,
					    (mask & IBV_REG_MR_MASK_IOVA) ? attr->iova
									   : (uintptr_t)attr->addr,
					    attr->access);
		}
		/* a dma-buf: its offset and the iova are needed, no address */
		if ((mask & IBV_REG_MR_MASK_ADDR) || !(mask & IBV_REG_MR_MASK_FD_OFFSET) ||
		    !(mask & IBV_REG_MR_MASK_IOVA)) {
			errno = EINVAL;
			return NULL;
		}
		return sroce_reg_dmabuf_mr(pd, attr->fd_offset, attr->length, attr->iova,
					   attr->fd, attr->access);
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr_ex(pd, vmr, attr);
	if (ret) {
		sroce_dbg(pd->context, "reg_mr_ex: the kernel refused comp_mask 0x%llx length %zu access 0x%x: %s",
			  (unsigned long long)mask, attr->length, attr->access, strerror(ret));
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}
#endif

/*
 * Prefetch (or, NO_FAULT, map what is present of) ODP MR ranges; the
 * kernel faults them in before it returns, whatever @flags say.
 */
int sroce_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	int ret = ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);

	if (ret)
		sroce_dbg(pd->context, "advise_mr: the kernel refused advice %d flags 0x%x on %u SGEs: %s",
			  advice, flags, num_sge, strerror(ret));
	return ret;
}

int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret) {
		sroce_dbg(vmr->ibv_mr.context, "dereg_mr: the kernel refused: %s", strerror(ret));
		return ret;
	}
	free(vmr);
	return 0;
}

/*
 * The kernel replaces the MR (new keys; a new pinning for a new address or
 * more access), so any change is allowed.
 */
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int ret;

	ret = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr, access, pd,
			       &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		sroce_dbg(vmr->ibv_mr.context, "rereg_mr: the kernel refused flags 0x%x addr %p length %zu access 0x%x: %s",
			  flags, addr, length, access, strerror(ret));
	return ret;
}

struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		sroce_dbg(pd->context, "alloc_mw: the kernel refused type %d: %s", type,
			  strerror(ret));
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw() (type 1; libibverbs checked the type and the PDs): a
 * BIND_MW work request with the next rkey, which the MW takes once the
 * request is posted (the kernel executes it before anything posted later).
 */
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int ret;

	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = sroce_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
