/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mr.c (registration, keys, lookup) and mr_copy.c (moving bytes in
 * and out of MRs) share
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/overflow.h>

#include "sroce.h"

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
	if (mr->frmr)	/* ib_sg_to_pages() set the range */
		return iova >= mr->ibmr.iova && end <= mr->ibmr.iova + mr->ibmr.length;
	return iova >= mr->iova && end <= mr->iova + mr->len;
}

#endif
