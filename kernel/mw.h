/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce memory windows (IBTA 10.6.7): types 1 and 2B.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include "sroce.h"
#include "mr_copy.h"

/*
 * An MW's key index has this bit set; MR indices never reach it
 * (SROCE_MAX_MR), so an rkey names an MR or an MW by its index alone.
 */
#define SROCE_MW_INDEX_BIT	0x800000u

static inline bool sroce_key_is_mw(u32 key)
{
	return (key >> 8) & SROCE_MW_INDEX_BIT;
}

struct sroce_win;

/**
 * struct sroce_mw - memory window
 * @ibmw: the core's MW; must be first for INIT_RDMA_OBJ_SIZE
 * @win: its table entry, which may outlive the core's object (RCU)
 */
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_win *win;
};

/**
 * struct sroce_bind - an MW bind work request, as the transport sees it
 * @mw_key: the MW's rkey when the bind was posted (names the MW)
 * @new_key: the rkey after the bind (same index, new 8-bit key)
 * @mr_key: lkey of the MR to bind to (0: unbind, with @len 0)
 * @va: first byte of the window
 * @len: bytes in the window
 * @access: IB_ACCESS_* for the window
 */
struct sroce_bind {
	u32 mw_key;
	u32 new_key;
	u32 mr_key;
	u64 va;
	u64 len;
	int access;
};

void sroce_mw_init_dev(struct sroce_dev *sdev);
void sroce_mw_cleanup_dev(struct sroce_dev *sdev);
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
int sroce_mw_bind(struct sroce_dev *sdev, struct ib_qp *ibqp, const struct sroce_bind *b);
int sroce_key_invalidate(struct sroce_dev *sdev, struct ib_pd *pd, u32 qpn, u32 key);
struct sroce_mr *sroce_rkey_lookup(struct sroce_dev *sdev, u32 key, struct ib_pd *pd,
				   u32 qpn, int need_access, u64 iova, u64 len, u32 *gen);
int sroce_mw_copy_skb(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr, u32 gen,
		      u64 iova, const struct sk_buff *skb, u32 off, u32 len);

/**
 * sroce_rkey_copy_skb() - sroce_mr_copy_skb() for the next packet of a
 *	WRITE that began through @key (an MR's or a window's: only while the
 *	window stays bound as it was, sroce_mw_copy_skb())
 * @sdev: the device
 * @key: the rkey its first packet named
 * @mr: the MR sroce_rkey_lookup() gave it
 * @gen: the generation it gave
 * @iova: where the bytes go
 * @skb: the packet
 * @off: offset of the payload in @skb
 * @len: payload bytes
 *
 * Return: 0, -EACCES when the window's binding is gone, or the copy's error.
 */
static inline int sroce_rkey_copy_skb(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr,
				      u32 gen, u64 iova, const struct sk_buff *skb, u32 off,
				      u32 len)
{
	if (likely(!sroce_key_is_mw(key)))
		return sroce_mr_copy_skb(mr, gen, iova, skb, off, len);
	return sroce_mw_copy_skb(sdev, key, mr, gen, iova, skb, off, len);
}

/*
 * May a transfer that began through @key at @gen, holding @mr, go on
 * (sroce_mw_copy_skb())?
 */
static inline bool sroce_rkey_still(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr,
				    u32 gen)
{
	return likely(!sroce_key_is_mw(key)) ||
	       !sroce_mw_copy_skb(sdev, key, mr, gen, 0, NULL, 0, 0);
}

#endif /* SROCE_MW_H */
