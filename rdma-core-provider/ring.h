/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce userspace provider: the kernel-allocated, mmapped rings (SQ, RQ,
 * CQ) described in kernel/uapi/sroce-abi.h ("Rings").
 *
 * A mapping is a struct sroce_ring_hdr followed, at SROCE_RING_HDR_SIZE, by
 * num_entries slots of entry_size bytes. Producer and consumer are
 * free-running u32 counters; the side that owns an index publishes it with
 * a release store and the other side reads it with an acquire load.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <sroce-abi.h>

struct sroce_ring {
	void *map;			/* NULL: no ring */
	size_t map_len;
	struct sroce_ring_hdr *hdr;
	uint8_t *entries;
	uint32_t num_entries;		/* power of two */
	uint32_t mask;			/* num_entries - 1 */
	uint32_t entry_size;
	/*
	 * Private copy of the index this side owns (CQ: consumer, SQ/RQ:
	 * producer). Never re-read from the shared page, which the other
	 * side (or a buggy application) could have scribbled on.
	 */
	uint32_t own;
};

static inline uint32_t sroce_load_acquire(const __u32 *p)
{
	return atomic_load_explicit((_Atomic(uint32_t) *)p,
				    memory_order_acquire);
}

static inline uint32_t sroce_load_relaxed(const __u32 *p)
{
	return atomic_load_explicit((_Atomic(uint32_t) *)p,
				    memory_order_relaxed);
}

static inline void sroce_store_release(__u32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, v, memory_order_release);
}

static inline void *sroce_ring_slot(const struct sroce_ring *r, uint32_t idx)
{
	return r->entries + (size_t)(idx & r->mask) * r->entry_size;
}

struct ibv_recv_wr;

/* ring.c */
int sroce_ring_put_recv(struct sroce_ring *r, uint32_t *prod, uint32_t *cons,
			const struct ibv_recv_wr *wr);
int sroce_ring_map(struct sroce_ring *r, int cmd_fd,
		   const struct sroce_ring_info *info, size_t min_entry_size);
void sroce_ring_unmap(struct sroce_ring *r);

#endif /* SROCE_RING_H */
