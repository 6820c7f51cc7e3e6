// SPDX-License-Identifier: GPL-2.0
/*
 * sroce rings: allocation, and exposure to user space through mmap(2) on
 * the uverbs file. Index helpers are inline in queue.h.
 *
 * A user ring's buffer is vmalloc()ed memory charged to the caller's
 * memory cgroup, owned by its rdma_user_mmap_entry: destroying the queue
 * removes the entry (no new mmap can find it) and the RDMA core calls
 * sroce_mmap_free() once the entry's last reference is gone, which frees
 * the buffer. A mapping that outlives the object (a process still mapping
 * the rings of a disassociated device, say) stays valid: sroce_mmap()
 * inserts the pages with vm_insert_page(), which holds a page reference
 * per mapped page, so the pages are only returned to the allocator after
 * the last munmap(). Device memory (dm.c) is the same kind of buffer
 * (sroce_mmap_buf_create()).
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "queue.h"

static_assert(sizeof(struct sroce_ring_hdr) == SROCE_RING_HDR_SIZE);
static_assert(sizeof(struct sroce_cqe) == 64);

/**
 * struct sroce_mmap_entry - an mmappable ring buffer
 * @rdma: the core's entry (offset and length for mmap(2))
 * @buf: vmalloc()ed buffer (whole pages), freed by sroce_mmap_free()
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
};

static struct sroce_mmap_entry *sroce_to_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct sroce_mmap_entry, rdma);
}

/**
 * sroce_queue_entries_for() - ring size for a requested depth
 * @requested: entries the caller asked for (0 counts as 1)
 *
 * Return: the smallest power of two >= @requested, or 0 if that exceeds
 * SROCE_QUEUE_MAX_ENTRIES.
 */
u32 sroce_queue_entries_for(u32 requested)
{
	if (requested > SROCE_QUEUE_MAX_ENTRIES)
		return 0;
	return roundup_pow_of_two(max(requested, 1u));
}

/**
 * sroce_queue_create() - allocate a ring
 * @udata: the verb's udata for a ring mmapped by user space, NULL for a
 *	kernel ring
 * @num_entries: power of two, at most SROCE_QUEUE_MAX_ENTRIES
 * @entry_size: non-zero multiple of 16, at most SROCE_QUEUE_MAX_ENTRY_SIZE
 *
 * A user ring is registered with the verb's user context for mmap(2);
 * sroce_queue_info() tells where. Both kinds are zeroed.
 *
 * Context: process context, may sleep.
 * Return: the ring or an ERR_PTR: -EINVAL for bad geometry, -ENOMEM.
 */
struct sroce_queue *sroce_queue_create(struct ib_udata *udata, u32 num_entries,
				       u32 entry_size)
{
	struct rdma_user_mmap_entry *entry;
	struct sroce_ucontext *uctx;
	struct sroce_queue *q;
	size_t size;
	void *buf;
	int err;

	if (!num_entries || !is_power_of_2(num_entries) ||
	    num_entries > SROCE_QUEUE_MAX_ENTRIES ||
	    !entry_size || entry_size % 16 ||
	    entry_size > SROCE_QUEUE_MAX_ENTRY_SIZE)
		return ERR_PTR(-EINVAL);
	if (check_mul_overflow((size_t)num_entries, (size_t)entry_size, &size))
		return ERR_PTR(-EINVAL);
	size = size_add(size, SROCE_RING_HDR_SIZE);
	if (size > SROCE_QUEUE_MAX_BYTES)
		return ERR_PTR(-EINVAL);

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->num_entries = num_entries;
	q->mask = num_entries - 1;
	q->entry_size = entry_size;
	q->buf_size = size;

	if (!udata) {
		q->hdr = kvzalloc(size, GFP_KERNEL);
		if (!q->hdr) {
			err = -ENOMEM;
			goto err_free_queue;
		}
		q->entries = (void *)q->hdr + SROCE_RING_HDR_SIZE;
		return q;
	}

	uctx = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	if (!uctx) {
		err = -EINVAL;
		goto err_free_queue;
	}
	buf = sroce_mmap_buf_create(&uctx->ibuc, size, &entry);
	if (IS_ERR(buf)) {
		err = PTR_ERR(buf);
		goto err_free_queue;
	}
	q->mmap = sroce_to_mmap(entry);
	q->hdr = buf;
	q->entries = buf + SROCE_RING_HDR_SIZE;
	return q;

err_free_queue:
	kfree(q);
	return ERR_PTR(err);
}

/**
 * sroce_mmap_buf_create() - a zeroed buffer user space can mmap
 * @ibuc: the user context whose uverbs fd maps it
 * @size: bytes; the buffer is whole pages, all of them mapped
 * @entry: set to the mmap entry (rdma_user_mmap_get_offset() tells where)
 *
 * The buffer is vmalloc()ed and charged to the caller's memory cgroup. It
 * belongs to the entry: rdma_user_mmap_entry_remove() on it makes the core
 * call sroce_mmap_free() once the entry's last reference is gone, and
 * mappings keep their pages after that.
 *
 * Context: process context, may sleep.
 * Return: the buffer, or an ERR_PTR (-ENOMEM, the core's insert error).
 */
void *sroce_mmap_buf_create(struct ib_ucontext *ibuc, size_t size,
			    struct rdma_user_mmap_entry **entry)
{
	struct sroce_mmap_entry *me;
	int err;

	me = kzalloc(sizeof(*me), GFP_KERNEL_ACCOUNT);
	if (!me)
		return ERR_PTR(-ENOMEM);
	me->buf = __vmalloc(PAGE_ALIGN(size), GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!me->buf) {
		err = -ENOMEM;
		goto err_free_entry;
	}
	err = rdma_user_mmap_entry_insert(ibuc, &me->rdma, PAGE_ALIGN(size));
	if (err)
		goto err_free_buf;
	*entry = &me->rdma;
	return me->buf;

err_free_buf:
	vfree(me->buf);
err_free_entry:
	kfree(me);
	return ERR_PTR(err);
}

/**
 * sroce_queue_destroy() - free a ring
 * @q: the ring, or NULL
 *
 * A user ring's buffer is freed by sroce_mmap_free() when the core drops
 * the last reference to its mmap entry; existing mappings keep their pages.
 */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (!q)
		return;
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		kvfree(q->hdr);
	kfree(q);
}

/* Entries [@from, @to) of @oq into @nq, at the same indices */
static void sroce_queue_copy(struct sroce_queue *nq, const struct sroce_queue *oq, u32 from,
			     u32 to)
{
	for (; from != to; from++)
		memcpy(sroce_queue_at(nq, from), sroce_queue_at(oq, from), oq->entry_size);
}

/**
 * sroce_queue_carry() - a resize's move: entries and indices to a new ring
 * @nq: the new ring, at least @prod - @cons entries, same entry size
 * @oq: the old ring
 * @cons: the consumer index the entries start at
 * @prod: the producer index they end at (checked by the caller)
 *
 * The entries keep their free-running indices, so both sides carry on
 * with their own index; the new header publishes both.
 */
void sroce_queue_carry(struct sroce_queue *nq, const struct sroce_queue *oq, u32 cons,
		       u32 prod)
{
	sroce_queue_copy(nq, oq, cons, prod);
	sroce_queue_carry_indices(nq, cons, prod);
}

/**
 * sroce_queue_carry_indices() - sroce_queue_carry()'s indices alone
 * @nq: the new ring
 * @cons: the consumer index the entries start at
 * @prod: the producer index they end at
 *
 * For a move whose entries are copied after the switch
 * (sroce_queue_carry_late()).
 */
void sroce_queue_carry_indices(struct sroce_queue *nq, u32 cons, u32 prod)
{
	nq->cons = cons;
	nq->prod = prod;
	nq->hdr->consumer = cons;
	/* release: the entries copied are visible before the index */
	smp_store_release(&nq->hdr->producer, prod);
}

/* Entries per pause of sroce_queue_carry_late(): 256 KiB of 64-byte CQEs */
#define SROCE_QUEUE_CARRY_CHUNK	4096u

/**
 * sroce_queue_carry_late() - copy a user ring's entries after the switch
 * @nq: the new ring, its indices carried (sroce_queue_carry_indices())
 * @oq: the old ring, no longer written
 * @cons: the consumer index the entries start at
 * @prod: the producer index they end at
 *
 * The consumer index came from user space: up to all of a 4M-entry ring
 * (256 MiB) may be asked for, which under the ring's lock, interrupts
 * off, would stall everyone on this CPU. Only the user's own poller can
 * read the new ring before its resize returns, and entries produced
 * meanwhile go at @prod on.
 *
 * Context: process, no lock held.
 */
void sroce_queue_carry_late(struct sroce_queue *nq, const struct sroce_queue *oq, u32 cons,
			    u32 prod)
{
	u32 n;

	might_sleep();
	while (cons != prod) {
		n = min(prod - cons, SROCE_QUEUE_CARRY_CHUNK);
		sroce_queue_copy(nq, oq, cons, cons + n);
		cons += n;
		cond_resched();
	}
}

/**
 * sroce_queue_info() - describe a user ring for a create response
 * @q: the ring
 * @info: filled in; mmap_offset and mmap_len are 0 for a kernel ring
 */
void sroce_queue_info(const struct sroce_queue *q, struct sroce_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	if (q->mmap) {
		info->mmap_offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
		info->mmap_len = q->mmap->rdma.npages << PAGE_SHIFT;
	}
	info->num_entries = q->num_entries;
	info->entry_size = q->entry_size;
}

/**
 * sroce_mmap() - ib_device_ops.mmap: map a ring into user space
 * @ibuc: the user context the ring was created in
 * @vma: the mapping; offset and length must be exactly a ring's
 *	(sroce_ring_info), and it must be MAP_SHARED
 *
 * Return: 0, -EINVAL for an unknown offset, a wrong length or a private
 * mapping, or vm_insert_page()'s error.
 */
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	unsigned long off;
	void *buf;
	int err = 0;

	/* a private (copy-on-write) mapping would never see the kernel's writes */
	if (!(vma->vm_flags & VM_SHARED)) {
		sroce_dbg_dev(ibuc->device,
			      "mmap: offset 0x%lx: MAP_PRIVATE (rings are MAP_SHARED)",
			      vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	/* checks that the length is the entry's (whole pages of the buffer) */
	e = rdma_user_mmap_entry_get(ibuc, vma);
	if (!e) {
		sroce_dbg_dev(ibuc->device,
			      "mmap: offset 0x%lx length %lu: no ring or DM of this context there, or not its whole length",
			      vma->vm_pgoff << PAGE_SHIFT, vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	buf = sroce_to_mmap(e)->buf;
	for (off = 0; off < vma->vm_end - vma->vm_start && !err; off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off, vmalloc_to_page(buf + off));
	if (!err)
		sroce_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	else
		sroce_dbg_dev(ibuc->device, "mmap: offset 0x%lx: inserting page at 0x%lx: error %d",
			      vma->vm_pgoff << PAGE_SHIFT, off - PAGE_SIZE, err);
	rdma_user_mmap_entry_put(e);
	return err;
}

/**
 * sroce_mmap_free() - ib_device_ops.mmap_free: the entry's last reference
 *	is gone
 * @rdma_entry: the entry
 */
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct sroce_mmap_entry *me = sroce_to_mmap(rdma_entry);

	vfree(me->buf);
	kfree(me);
}
