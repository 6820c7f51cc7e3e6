/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce rings: the kernel side of the SQ/RQ/CQ rings of uapi/sroce-abi.h.
 *
 * A ring is one buffer: struct sroce_ring_hdr, then num_entries entries of
 * entry_size bytes at SROCE_RING_HDR_SIZE. Indices are free-running u32
 * counters. The kernel keeps its own side's index privately (@cons for the
 * rings it consumes, @prod for the rings it produces) and only ever reads
 * the other side's index from the shared header, which user space may
 * scribble on at any time: every value read from there is checked before
 * it is used, and entries are always addressed through the mask.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <rdma/ib_verbs.h>

#include "sroce-abi.h"

/*
 * Limits for every ring: entries (a power of two) and total bytes. The
 * largest rings are CQs: SROCE_MAX_CQE (4M - 1, as hardware RoCE NICs
 * offer; libfabric's RDM endpoint sizes its CQ by the job's universe)
 * needs 4M 64-byte entries, 256 MiB, charged to the creator's memory
 * cgroup like every user ring.
 */
#define SROCE_QUEUE_MAX_ENTRIES		(1u << 22)
#define SROCE_QUEUE_MAX_ENTRY_SIZE	4096u
#define SROCE_QUEUE_MAX_BYTES		((256u << 20) + SROCE_RING_HDR_SIZE)

struct sroce_mmap_entry;

/**
 * struct sroce_queue - one ring
 * @hdr: start of the ring buffer (shared with user space for user rings)
 * @entries: first entry, SROCE_RING_HDR_SIZE bytes into the buffer
 * @num_entries: power of two
 * @mask: @num_entries - 1
 * @entry_size: bytes per entry, multiple of 16
 * @buf_size: bytes of the buffer (header and entries)
 * @cons: kernel-private consumer index (rings the kernel consumes)
 * @prod: kernel-private producer index (rings the kernel produces)
 * @mmap: the mmap entry exposing the buffer, NULL for a kernel ring. It
 *	owns the buffer of a user ring: see sroce_mmap_free().
 */
struct sroce_queue {
	struct sroce_ring_hdr *hdr;
	void *entries;
	u32 num_entries;
	u32 mask;
	u32 entry_size;
	size_t buf_size;
	u32 cons;
	u32 prod;
	struct sroce_mmap_entry *mmap;
};

struct sroce_queue *sroce_queue_create(struct ib_udata *udata, u32 num_entries,
				       u32 entry_size);
void sroce_queue_destroy(struct sroce_queue *q);
void sroce_queue_info(const struct sroce_queue *q, struct sroce_ring_info *info);
void sroce_queue_carry(struct sroce_queue *nq, const struct sroce_queue *oq, u32 cons,
		       u32 prod);
void sroce_queue_carry_indices(struct sroce_queue *nq, u32 cons, u32 prod);
void sroce_queue_carry_late(struct sroce_queue *nq, const struct sroce_queue *oq, u32 cons,
			    u32 prod);
u32 sroce_queue_entries_for(u32 requested);
void *sroce_mmap_buf_create(struct ib_ucontext *ibuc, size_t size,
			    struct rdma_user_mmap_entry **entry);
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/**
 * sroce_queue_at() - address of entry @idx
 * @q: the ring
 * @idx: free-running index; masked here, so any value is safe
 *
 * Return: the entry's address in the ring.
 */
static inline void *sroce_queue_at(const struct sroce_queue *q, u32 idx)
{
	return q->entries + (size_t)(idx & q->mask) * q->entry_size;
}

/* ---- consumer side (SQ, RQ; and the kernel consumer of a kernel CQ) ---- */

/**
 * sroce_queue_avail() - entries the producer has published and we have not
 *	consumed yet
 * @q: the ring
 *
 * The producer index is read with acquire ordering, so the entries it
 * covers may be read after this returns. Entries of a user ring may still
 * change under us: copy one out before validating it.
 *
 * Return: the count (0..num_entries), or -EOVERFLOW when the producer index
 * claims more than num_entries outstanding entries (corrupt or hostile
 * index: a fatal error of the queue).
 */
static inline int sroce_queue_avail(const struct sroce_queue *q)
{
	/* acquire: the entries are read after the index that published them */
	u32 n = smp_load_acquire(&q->hdr->producer) - q->cons;

	return n > q->num_entries ? -EOVERFLOW : (int)n;
}

/**
 * sroce_queue_consumed() - release @n consumed entries to the producer
 * @q: the ring
 * @n: entries consumed, at most what sroce_queue_avail() returned
 *
 * Publishes the consumer index with release ordering: our reads of the
 * entries happen before the producer may reuse their slots.
 */
static inline void sroce_queue_consumed(struct sroce_queue *q, u32 n)
{
	q->cons += n;
	/* release: our reads of the entries before the slots' reuse */
	smp_store_release(&q->hdr->consumer, q->cons);
}

/* ---- producer side (CQ) ---- */

/**
 * sroce_queue_free() - free slots for the producer
 * @q: the ring
 *
 * Return: free slots (0..num_entries), or -EOVERFLOW when the consumer
 * index read from the ring is impossible: ahead of the producer, or more
 * than num_entries behind it. Callers treat that as an overflow and never
 * write an entry.
 */
static inline int sroce_queue_free(const struct sroce_queue *q)
{
	/* acquire: the consumer's reads of the slots before we overwrite them */
	u32 used = q->prod - smp_load_acquire(&q->hdr->consumer);

	return used > q->num_entries ? -EOVERFLOW : (int)(q->num_entries - used);
}

/**
 * sroce_recv_wqe_fill() - a kernel consumer's receive WR as a ring entry
 * @w: the entry (in a kernel RQ or SRQ ring)
 * @wr: the WR, its num_sge checked against the queue's max_sge
 */
static inline void sroce_recv_wqe_fill(struct sroce_recv_wqe *w,
				       const struct ib_recv_wr *wr)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		w->sge[i].addr = wr->sg_list[i].addr;
		w->sge[i].length = wr->sg_list[i].length;
		w->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

/* The slot the next produced entry goes to; check sroce_queue_free() first */
static inline void *sroce_queue_producer_at(const struct sroce_queue *q)
{
	return sroce_queue_at(q, q->prod);
}

/**
 * sroce_queue_produce() - publish the entry written at
 *	sroce_queue_producer_at()
 * @q: the ring
 *
 * Release ordering: the entry's contents are visible before the index.
 */
static inline void sroce_queue_produce(struct sroce_queue *q)
{
	q->prod++;
	/* release: the entry is visible before the index */
	smp_store_release(&q->hdr->producer, q->prod);
}

#endif /* SROCE_QUEUE_H */
