/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr.c: MR objects, their registration in five kinds, keys and lookup,
 * fast registration and invalidation; copying through an MR is
 * mr_copy.h's
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/overflow.h>

#include "sroce.h"
#include "odp.h"

/**
 * struct sroce_mr - memory region
 * @ibmr: the core's MR (driver-allocated)
 * @ref: one reference for the registration plus one per sroce_mr_lookup();
 *	the last one frees the structure
 * @dead: deregistered: copies fail, the pages are (being) unpinned
 * @rcu: frees the MR after RCU readers of the MR table are gone
 * @umem: pinned user memory, NULL for a DMA or DM MR
 * @pages: @npages pages covering [start, start + length) of a user MR, or
 *	the pages of a DM MR's range of its DM (dm.c)
 * @npages: entries in @pages
 * @offset: byte offset of the MR's first byte in @pages[0]
 * @access: IB_ACCESS_* granted
 * @iova: a user MR's first address; our copy: the core rewrites
 *	ibmr.iova (rereg without IB_MR_REREG_TRANS hands it 0). A FR MR's:
 *	the registered one, taken from the REG_MR work request
 * @len: the MR's length (our copy, as @iova)
 * @key: the key lookups accept: the lkey/rkey given at creation, or the
 *	last fast registration's (the core's ibmr.lkey/rkey belong to the
 *	consumer, who changes them before posting IB_WR_REG_MR)
 * @dm: a DM MR (reg_dm_mr): zero-based, on @pages of a DM the core keeps
 *	alive while the MR exists
 * @dmabuf: a dma-buf MR (reg_user_mr_dmabuf): @pages are the buffer's,
 *	kept mapped by this import until deregistration (dmabuf.c)
 * @frmr: a fast-registration MR (ib_alloc_mr): memory given by map_mr_sg,
 *	made accessible by IB_WR_REG_MR, revoked by (remote) invalidation
 * @valid: FR: registered and not invalidated
 * @gen: FR: bumped by every invalidation and by a REG_MR over a valid
 *	registration; a holder's copies must match the generation its lookup
 *	saw
 * @lock: FR: copies (read side) against registration, invalidation and
 *	map_mr_sg (write side)
 * @pbl: FR: kernel virtual address of each registered page (the device
 *	uses virtual DMA: DMA addresses are kernel virtual addresses)
 * @npbl: FR: pages registered
 * @fr_shift: FR: log2 of the registered pages' size
 * @stage: FR: the pages map_mr_sg gave, registered by the next REG_MR
 *	(a consumer maps the next registration's pages while the MR is
 *	still valid under the last one's key: the key must not reach them)
 * @nstage: FR: pages in @stage
 * @stage_shift: FR: log2 of the size of @stage's pages (ib_mr.page_size
 *	when they were mapped)
 * @staged: FR: @stage holds a list no REG_MR has taken yet
 * @max_pbl: FR: entries in @pbl and in @stage
 * @odp: with odp.umem set, an ODP MR (odp.c)
 */
struct sroce_mr {
	struct ib_mr ibmr;
	refcount_t ref;
	bool dead;
	struct rcu_head rcu;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int offset;
	int access;
	u64 iova;
	u64 len;
	u32 key;
	bool dm;
	struct sroce_dmabuf *dmabuf;
	bool frmr;
	bool valid;
	u32 gen;
	rwlock_t lock;
	u64 *pbl;
	u32 npbl;
	unsigned int fr_shift;
	u64 *stage;
	u32 nstage;
	unsigned int stage_shift;
	bool staged;
	u32 max_pbl;
	struct sroce_odp odp;
};

static inline struct sroce_mr *sroce_to_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

void sroce_mr_init_dev(struct sroce_dev *sdev);
void sroce_mr_cleanup_dev(struct sroce_dev *sdev);
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, SROCE_MR_DMAH_PARAM
				struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs);
struct ib_mr *sroce_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
				       u64 iova, int fd, int access, SROCE_MR_DMAH_PARAM
				       SROCE_REG_DMABUF_ARG *arg);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start, u64 length,
				  u64 iova, int access, struct ib_pd *pd,
				  struct ib_udata *udata);
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key,
				 struct ib_pd *pd, int need_access, u64 iova,
				 u64 len, u32 *gen);
void sroce_mr_put(struct sroce_mr *mr);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type, u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
/*
 * An IB_WR_REG_MR as posted: ib_reg_wr's key and access, the MR's range
 * (its page size is the page list's, recorded by map_mr_sg)
 */
struct sroce_fr_reg {
	u32 key;
	int access;
	u64 iova;
	u64 length;
};

int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, const struct sroce_fr_reg *r);
int sroce_mr_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 key);

/* A DMA MR (get_dma_mr): kernel virtual addresses, no page array */
static inline bool sroce_mr_is_dma(const struct sroce_mr *mr)
{
	return !mr->umem && !mr->dm && !mr->dmabuf && !mr->frmr;
}

/* [@iova, @iova + @len) inside @mr, without wrapping */
static inline bool sroce_mr_in_bounds(const struct sroce_mr *mr, u64 iova, u64 len)
{
	u64 end;

	if (check_add_overflow(iova, len, &end))
		return false;
	if (sroce_mr_is_dma(mr))
		return true;	/* DMA MR: all kernel memory */
	/* a FR MR's range changes with REG_MR: the caller holds mr->lock */
	return iova >= mr->iova && end <= mr->iova + mr->len;
}

#endif
