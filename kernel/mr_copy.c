// SPDX-License-Identifier: GPL-2.0
/*
 * Moving bytes in and out of sroce memory regions: copies to and from
 * buffers and skbs, 8-byte atomics, MR pages as skb fragments (zero-copy
 * transmit), and the same over a work request's SGE list. Every copy
 * runs in an RCU read-side section and checks that the MR is still
 * alive (see mr.c) and that the range is in bounds.
 */
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "mr.h"
#include "mr_copy.h"
#include "odp.h"

/*
 * The kernel address of @iova in a FR MR's registered pages and the bytes
 * left in its page, or NULL past them (an @iova below the first page
 * wraps to past them). The caller holds mr->lock and checked the range
 * against the registration's (sroce_mr_in_bounds()).
 */
static void *sroce_frmr_va(const struct sroce_mr *mr, u64 iova, u32 *room)
{
	u64 ps = 1ULL << mr->fr_shift, off, idx;

	off = iova - (mr->iova & ~(ps - 1));
	idx = off >> mr->fr_shift;
	if (idx >= mr->npbl)
		return NULL;
	*room = ps - (off & (ps - 1));
	return (void *)(uintptr_t)(mr->pbl[idx] + (off & (ps - 1)));
}

/*
 * Copy for a FR MR, under the read side of its lock: the registration the
 * holder looked up (@gen) must still be the valid one.
 */
static int sroce_frmr_copy(struct sroce_mr *mr, u32 gen, u64 iova, void *buf,
			   u32 len, enum sroce_copy_dir dir)
{
	int err = 0;

	read_lock(&mr->lock);
	if (!mr->valid || mr->gen != gen ||
	    (dir == SROCE_COPY_TO_MR && !ib_access_writable(mr->access))) {
		err = -EACCES;
		goto out_unlock;
	}
	if (!sroce_mr_in_bounds(mr, iova, len)) {
		err = -EINVAL;
		goto out_unlock;
	}
	while (len) {
		u32 room, n;
		void *va = sroce_frmr_va(mr, iova, &room);

		if (!va) {
			err = -EINVAL;
			break;
		}
		n = min(len, room);
		if (dir == SROCE_COPY_TO_MR)
			sroce_place(va, buf, n);
		else
			sroce_copy(buf, va, n);
		iova += n;
		buf += n;
		len -= n;
	}
out_unlock:
	read_unlock(&mr->lock);
	return err;
}

/**
 * sroce_mr_copy() - copy between an MR and a kernel buffer
 * @mr: the MR, referenced
 * @gen: the generation sroce_mr_lookup() returned
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_COPY_TO_MR or SROCE_COPY_FROM_MR
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL if the range is outside the MR, -EACCES when writing
 * to an MR whose memory was pinned read-only, or when the MR was
 * deregistered (or, FR, invalidated) since the caller looked it up,
 * -EAGAIN when a page of an ODP MR is not present (its fault is queued:
 * the caller waits, sroce_odp_wait(), and tries again).
 */
int sroce_mr_copy(struct sroce_mr *mr, u32 gen, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir)
{
	int err = 0;
	u64 pos;

	/* a FR MR's range and rights change with REG_MR: sroce_frmr_copy() */
	if (!mr->frmr) {
		if (!sroce_mr_in_bounds(mr, iova, len))
			return -EINVAL;
		if (dir == SROCE_COPY_TO_MR && !ib_access_writable(mr->access))
			return -EACCES;
	}

	/* sroce_dereg_mr() unpins the pages one grace period after the mark */
	rcu_read_lock();
	if (READ_ONCE(mr->dead)) {
		err = -EACCES;
		goto out_unlock;
	}
	if (mr->frmr) {
		err = sroce_frmr_copy(mr, gen, iova, buf, len, dir);
		goto out_unlock;
	}
	if (sroce_mr_is_dma(mr)) {
		void *va = (void *)(uintptr_t)iova;

		if (dir == SROCE_COPY_TO_MR)
			sroce_place(va, buf, len);
		else
			sroce_copy(buf, va, len);
		goto out_unlock;
	}

	if (mr->odp.umem) {
		err = sroce_odp_copy(mr, iova, buf, len, dir == SROCE_COPY_TO_MR);
		goto out_unlock;
	}

	pos = iova - mr->iova + mr->offset;
	while (len) {
		unsigned int off = pos & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		void *va = kmap_local_page(mr->pages[pos >> PAGE_SHIFT]);

		if (dir == SROCE_COPY_TO_MR)
			sroce_place(va + off, buf, n);
		else
			sroce_copy(buf, va + off, n);
		kunmap_local(va);
		pos += n;
		buf += n;
		len -= n;
	}
out_unlock:
	rcu_read_unlock();
	return err;
}

/* @op on one aligned word; returns the value found */
u64 sroce_atomic_word(u64 *word, enum sroce_atomic_op op, u64 compare, u64 swap_add)
{
	u64 old = READ_ONCE(*word), new;

	do {
		switch (op) {
		case SROCE_ATOMIC_FETCH_ADD:
			new = old + swap_add;
			break;
		case SROCE_ATOMIC_CMP_SWAP:
			new = old == compare ? swap_add : old;
			break;
		default:	/* SROCE_ATOMIC_WRITE */
			new = swap_add;
			break;
		}
	} while (!try_cmpxchg64(word, &old, new));
	return old;
}

/**
 * sroce_mr_atomic() - execute an 8-byte atomic on MR memory
 * @mr: the MR, referenced
 * @gen: the generation sroce_mr_lookup() returned
 * @iova: the target, 8-byte aligned
 * @op: CMP_SWAP, FETCH_ADD (add @swap_add) or WRITE (store @swap_add)
 * @compare: CMP_SWAP's compare value
 * @swap_add: the swap value, the addend or the value to write
 * @orig: the value found (the ATOMIC ACK's original remote data)
 *
 * An aligned 8-byte target never crosses a page. The update is a CPU
 * compare-and-exchange on the pinned page, so it is atomic against other
 * atomics of every sroce QP (and against CPU atomics on the same word).
 * Context: any; does not sleep.
 * Return: 0, -EINVAL (misaligned, out of bounds), -EACCES (read-only
 * pages, deregistered MR).
 */
int sroce_mr_atomic(struct sroce_mr *mr, u32 gen, u64 iova, enum sroce_atomic_op op,
		    u64 compare, u64 swap_add, u64 *orig)
{
	u32 room;
	u64 *word;
	void *va;
	int err = 0;

	/* a FR MR's range and rights change with REG_MR: checked under its lock */
	if ((iova & 7) || (!mr->frmr && !sroce_mr_in_bounds(mr, iova, 8)))
		return -EINVAL;
	if (!mr->frmr && !ib_access_writable(mr->access))
		return -EACCES;

	rcu_read_lock();
	if (READ_ONCE(mr->dead)) {
		err = -EACCES;
	} else if (mr->frmr) {
		read_lock(&mr->lock);
		word = mr->valid && mr->gen == gen && ib_access_writable(mr->access) &&
		       sroce_mr_in_bounds(mr, iova, 8) ? sroce_frmr_va(mr, iova, &room) : NULL;
		if (word && room >= 8 && !((uintptr_t)word & 7))
			*orig = sroce_atomic_word(word, op, compare, swap_add);
		else
			err = -EACCES;
		read_unlock(&mr->lock);
	} else if (mr->odp.umem) {
		err = sroce_odp_atomic(mr, iova, op, compare, swap_add, orig);
	} else if (!sroce_mr_is_dma(mr)) {	/* user or DM MR: its pages */
		u64 pos = iova - mr->iova + mr->offset;

		if (pos & 7) {		/* the MR's pages start misaligned */
			err = -EINVAL;
		} else {
			va = kmap_local_page(mr->pages[pos >> PAGE_SHIFT]);
			*orig = sroce_atomic_word(va + (pos & ~PAGE_MASK), op,
						  compare, swap_add);
			kunmap_local(va);
		}
	} else {
		*orig = sroce_atomic_word((u64 *)(uintptr_t)iova, op, compare, swap_add);
	}
	rcu_read_unlock();
	return err;
}

/**
 * sroce_mr_copy_skb() - copy received payload from an skb into an MR
 * @mr: the MR, referenced
 * @gen: the generation sroce_mr_lookup() returned
 * @iova: first byte in the MR
 * @skb: the packet (linear or not: fragments, a fragment list)
 * @off: offset of the first byte in @skb, from skb->data
 * @len: bytes
 *
 * Context: any; does not sleep.
 * Return: as sroce_mr_copy() with SROCE_COPY_TO_MR; -EFAULT when @skb
 * holds fewer than @off + @len bytes.
 */
int sroce_mr_copy_skb(struct sroce_mr *mr, u32 gen, u64 iova, const struct sk_buff *skb,
		      u32 off, u32 len)
{
	struct skb_seq_state st;
	const u8 *p;
	u32 done = 0, n;
	int err = 0;

	if (off + len <= skb_headlen(skb))
		return sroce_mr_copy(mr, gen, iova, skb->data + off, len, SROCE_COPY_TO_MR);
	if (off + len > skb->len)
		return -EFAULT;
	/* the reader only reads: the cast drops no guarantee */
	skb_prepare_seq_read((struct sk_buff *)skb, off, off + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &p, &st);
		if (!n) {
			err = -EFAULT;
			break;
		}
		n = min(n, len - done);
		err = sroce_mr_copy(mr, gen, iova + done, (void *)p, n, SROCE_COPY_TO_MR);
		if (err)
			break;
		done += n;
	}
	skb_abort_seq_read(&st);
	return err;
}

/* Is @mr's memory pinned user pages, which a packet may carry as they are? */
static bool sroce_mr_pages_shareable(const struct sroce_mr *mr)
{
	return mr->umem && mr->pages && !mr->odp.umem && !mr->frmr;
}

/**
 * sroce_mr_frags() - append MR bytes to an skb as page fragments
 * @mr: the MR, referenced
 * @iova: first byte in the MR
 * @len: bytes
 * @skb: the packet; one fragment slot stays free for its trailer
 *
 * Zero-copy transmit: the packet refers to the MR's pinned pages instead
 * of a copy, and holds a page reference of its own on each, so the pages
 * outlive a deregistration (which only unpins them) until the packet is
 * freed. The data is read when the packet is, as a NIC's DMA reads it;
 * callers use this only where the verbs' semantics allow it (the send
 * buffer of an RC request completes on its acknowledgment, which comes
 * after the responder placed the data).
 *
 * Context: any; does not sleep.
 * Return: 0; -EOPNOTSUPP when the MR's memory is not pinned user pages or
 * @skb has too few fragment slots (the caller copies instead; fragments
 * appended before are the caller's to trim); -EINVAL out of bounds;
 * -EACCES when the MR was deregistered.
 */
int sroce_mr_frags(struct sroce_mr *mr, u64 iova, u32 len, struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u64 pos, first, last;

	if (!sroce_mr_pages_shareable(mr))
		return -EOPNOTSUPP;
	if (!sroce_mr_in_bounds(mr, iova, len))
		return -EINVAL;
	if (!len)
		return 0;
	pos = iova - mr->iova + mr->offset;
	first = pos >> PAGE_SHIFT;
	last = (pos + len - 1) >> PAGE_SHIFT;
	if (shinfo->nr_frags + (last - first + 1) > MAX_SKB_FRAGS - 1)
		return -EOPNOTSUPP;

	/* as sroce_mr_copy(): the pages stay pinned while the mark is clear */
	rcu_read_lock();
	if (READ_ONCE(mr->dead)) {
		rcu_read_unlock();
		return -EACCES;
	}
	while (len) {
		unsigned int off = pos & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page = mr->pages[pos >> PAGE_SHIFT];

		get_page(page);
		skb_add_rx_frag(skb, shinfo->nr_frags, page, off, n, n);
		pos += n;
		len -= n;
	}
	rcu_read_unlock();
	/* the bytes may change under the packet: whoever must not see that copies */
	shinfo->flags |= SKBFL_SHARED_FRAG;
	return 0;
}

/* What sroce_sgl_walk() does with each MR piece: @n bytes at @iova, @done before it */
typedef int (*sroce_sgl_fn)(struct sroce_mr *mr, u32 gen, u64 iova, u32 done, u32 n,
			    void *ctx);

/*
 * @fn on each piece of the @len bytes at message offset @off of a local
 * SGE list, its MR looked up (for @access) around the call. Return: 0;
 * -EMSGSIZE when the list holds fewer than @off + @len bytes; the lookup
 * error, or @fn's, of the SGE that failed.
 */
static int sroce_sgl_walk(struct sroce_dev *sdev, struct ib_pd *pd,
			  const struct sroce_sge *sge, u32 num_sge, u32 off, u32 len,
			  int access, sroce_sgl_fn fn, void *ctx)
{
	struct sroce_mr *mr;
	u32 i, n, gen, done = 0;
	int err;

	for (i = 0; i < num_sge && done < len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len - done, sge[i].length - off);
		mr = sroce_mr_lookup(sdev, sge[i].lkey, pd, access, sge[i].addr + off, n, &gen);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = fn(mr, gen, sge[i].addr + off, done, n, ctx);
		sroce_mr_put(mr);
		if (err)
			return err;
		done += n;
		off = 0;
	}
	return done < len ? -EMSGSIZE : 0;
}

struct sroce_sgl_buf {
	u8 *buf;
	enum sroce_copy_dir dir;
};

static int sroce_sgl_buf_fn(struct sroce_mr *mr, u32 gen, u64 iova, u32 done, u32 n,
			    void *ctx)
{
	struct sroce_sgl_buf *b = ctx;

	return sroce_mr_copy(mr, gen, iova, b->buf + done, n, b->dir);
}

/**
 * sroce_sgl_copy() - copy between a buffer and a local SGE list
 * @sdev: the device
 * @pd: the PD the SGEs' lkeys must belong to
 * @sge: the list (a kernel copy: callers copy it out of user rings first)
 * @num_sge: entries in @sge
 * @off: byte offset into the message the list describes
 * @buf: the other side of the copy
 * @len: bytes
 * @dir: SROCE_COPY_TO_MR (needs LOCAL_WRITE) or SROCE_COPY_FROM_MR
 *
 * Return: 0; -EMSGSIZE when the list holds fewer than @off + @len bytes;
 * the lookup or copy error of the SGE that failed (a protection error).
 */
int sroce_sgl_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct sroce_sge *sge, u32 num_sge, u32 off,
		   void *buf, u32 len, enum sroce_copy_dir dir)
{
	struct sroce_sgl_buf b = { .buf = buf, .dir = dir };

	return sroce_sgl_walk(sdev, pd, sge, num_sge, off, len,
			      dir == SROCE_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0,
			      sroce_sgl_buf_fn, &b);
}

struct sroce_sgl_skb {
	const struct sk_buff *skb;
	u32 off;
};

static int sroce_sgl_skb_fn(struct sroce_mr *mr, u32 gen, u64 iova, u32 done, u32 n,
			    void *ctx)
{
	struct sroce_sgl_skb *s = ctx;

	return sroce_mr_copy_skb(mr, gen, iova, s->skb, s->off + done, n);
}

/**
 * sroce_sgl_copy_skb() - place received payload into a local SGE list
 * @sdev: the device
 * @pd: the PD the SGEs' lkeys must belong to
 * @sge: the list (a kernel copy)
 * @num_sge: entries in @sge
 * @off: byte offset into the message the list describes
 * @skb: the packet
 * @skb_off: offset of the payload in @skb, from skb->data
 * @len: bytes
 *
 * Return: as sroce_sgl_copy() with SROCE_COPY_TO_MR.
 */
int sroce_sgl_copy_skb(struct sroce_dev *sdev, struct ib_pd *pd,
		       const struct sroce_sge *sge, u32 num_sge, u32 off,
		       const struct sk_buff *skb, u32 skb_off, u32 len)
{
	struct sroce_sgl_skb s = { .skb = skb, .off = skb_off };

	return sroce_sgl_walk(sdev, pd, sge, num_sge, off, len, IB_ACCESS_LOCAL_WRITE,
			      sroce_sgl_skb_fn, &s);
}

static int sroce_sgl_frags_fn(struct sroce_mr *mr, u32 gen, u64 iova, u32 done, u32 n,
			      void *ctx)
{
	return sroce_mr_frags(mr, iova, n, ctx);
}

/**
 * sroce_sgl_frags() - append bytes of a local SGE list as page fragments
 * @sdev: the device
 * @pd: the PD the SGEs' lkeys must belong to
 * @sge: the list (a kernel copy)
 * @num_sge: entries in @sge
 * @off: byte offset into the message the list describes
 * @skb: the packet
 * @len: bytes
 *
 * Return: 0; -EOPNOTSUPP when a piece cannot be carried by reference
 * (see sroce_mr_frags(); the caller trims @skb and copies); otherwise as
 * sroce_sgl_copy() with SROCE_COPY_FROM_MR.
 */
int sroce_sgl_frags(struct sroce_dev *sdev, struct ib_pd *pd,
		    const struct sroce_sge *sge, u32 num_sge, u32 off,
		    struct sk_buff *skb, u32 len)
{
	return sroce_sgl_walk(sdev, pd, sge, num_sge, off, len, 0, sroce_sgl_frags_fn, skb);
}
