// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: validating and mmapping a ring the kernel
 * described in a create/resize response.
 */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "ring.h"

/*
 * Write receive WR @wr (its num_sge checked by the caller) into RQ or SRQ
 * ring @r at *@prod and advance *@prod; *@cons is the consumer index last
 * read, read again when the ring looks full. The caller holds the ring's
 * lock and publishes the producer index. Returns 0, or ENOMEM when the
 * ring is full.
 */
int sroce_ring_put_recv(struct sroce_ring *r, uint32_t *prod, uint32_t *cons,
			const struct ibv_recv_wr *wr)
{
	struct sroce_recv_wqe *w;

	if (*prod - *cons >= r->num_entries) {
		*cons = sroce_load_acquire(&r->hdr->consumer);
		if (*prod - *cons >= r->num_entries)
			return ENOMEM;
	}
	w = sroce_ring_slot(r, *prod);
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	if (wr->num_sge)
		memcpy(w->sge, wr->sg_list, wr->num_sge * sizeof(struct sroce_sge));
	(*prod)++;
	return 0;
}

/*
 * Map the ring described by @info on the uverbs fd. Returns 0, or EPROTO
 * when the description is inconsistent (nothing is mapped then), or
 * mmap's errno. The caller initialises r->own from the header.
 */
int sroce_ring_map(struct sroce_ring *r, int cmd_fd,
		   const struct sroce_ring_info *info, size_t min_entry_size)
{
	uint64_t need;
	void *map;

	memset(r, 0, sizeof(*r));
	if (!info->num_entries ||
	    (info->num_entries & (info->num_entries - 1)) ||
	    info->entry_size < min_entry_size || info->entry_size % 16)
		return EPROTO;
	/* both factors are u32: the product fits in u64 */
	need = SROCE_RING_HDR_SIZE +
	       (uint64_t)info->num_entries * info->entry_size;
	if (info->mmap_len < need || info->mmap_len > SIZE_MAX)
		return EPROTO;

	map = mmap(NULL, info->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, info->mmap_offset);
	if (map == MAP_FAILED)
		return errno;

	r->map = map;
	r->map_len = info->mmap_len;
	r->hdr = map;
	r->entries = (uint8_t *)map + SROCE_RING_HDR_SIZE;
	r->num_entries = info->num_entries;
	r->mask = info->num_entries - 1;
	r->entry_size = info->entry_size;
	return 0;
}

void sroce_ring_unmap(struct sroce_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}
