/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_copy.c: moving bytes in and out of MRs (buffers, skbs, SGE lists),
 * the atomics executed on MR memory, and MR pages lent to skbs as
 * fragments. The MR objects, their keys and lookup are mr.h's.
 */
#ifndef SROCE_MR_COPY_H
#define SROCE_MR_COPY_H

#include "mr.h"

/* sroce_mr_copy() directions */
enum sroce_copy_dir {
	SROCE_COPY_TO_MR,	/* buf -> MR (receive, RDMA write, read response) */
	SROCE_COPY_FROM_MR,	/* MR -> buf (send, RDMA read response source) */
};

int sroce_mr_copy(struct sroce_mr *mr, u32 gen, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
u64 sroce_atomic_word(u64 *word, enum sroce_atomic_op op, u64 compare, u64 swap_add);
int sroce_mr_atomic(struct sroce_mr *mr, u32 gen, u64 iova, enum sroce_atomic_op op,
		    u64 compare, u64 swap_add, u64 *orig);
int sroce_sgl_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct sroce_sge *sge, u32 num_sge, u32 off,
		   void *buf, u32 len, enum sroce_copy_dir dir);
int sroce_mr_copy_skb(struct sroce_mr *mr, u32 gen, u64 iova, const struct sk_buff *skb,
		      u32 off, u32 len);
int sroce_mr_frags(struct sroce_mr *mr, u64 iova, u32 len, struct sk_buff *skb);
int sroce_sgl_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
		       const struct sroce_sge *sge, u32 num_sge, u32 off,
		       const struct sk_buff *skb, u32 skb_off, u32 len);
int sroce_sgl_frags(struct sroce_dev *sdev, struct ib_pd *pd,
		    const struct sroce_sge *sge, u32 num_sge, u32 off,
		    struct sk_buff *skb, u32 len);

#endif /* SROCE_MR_COPY_H */
