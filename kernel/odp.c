// SPDX-License-Identifier: GPL-2.0
/*
 * sroce on-demand paging (ODP).
 *
 * An ODP MR pins nothing: the core's ib_umem_odp tracks the process' pages
 * with an MMU interval notifier and keeps, per page, its kernel address
 * (sroce uses virtual DMA) tagged with the read/write rights it was faulted
 * in with. Transfers run with BH disabled and cannot fault, so a copy that
 * meets a page not present fails with -EAGAIN after queueing the MR's fault
 * work, and its QP waits:
 *
 * - the responder answers the request with an RNR NAK; the requester sends
 *   it again after the RNR timer, by when the page is usually there;
 * - the requester (gathering a SEND or WRITE) and the responder (sending a
 *   READ response) stop and are kicked once the fault work is done;
 * - a READ response or ATOMIC ACK that cannot be placed is dropped; the
 *   requester asks again (local ACK timeout).
 *
 * Each MR has its own fault work item, queued on sroce_odp_wq, which is
 * not ordered: a fault that never completes (a FUSE mapping whose read
 * is never answered, an NFS hard mount gone away: the kworker sleeps in
 * the MM, uninterruptibly, for as long as that takes) holds one kworker
 * and its own MR, never another MR's fault. A QP waits for the run of
 * the fault work that serves its miss, not for the workqueue: the miss
 * leaves a ticket (the MR and that run's number) in a per-CPU slot, and
 * sroce_odp_wait(), which follows it in the same BH-disabled section of
 * the QP's round, takes it and puts the QP on the MR's waiters, or kicks
 * it at once if that run has already ended. Each run ends by kicking
 * the MR's waiters; deregistration kicks them too.
 *
 * Nothing waits for a fault: the fault work holds a reference on the
 * MR, one on its umem (odp->users) and one on the module, and whoever
 * lets go of the last umem reference (sroce_dereg_mr() or the fault
 * work, when the MM finally returns) frees the umem. So dereg_mr,
 * destroy_qp and the process' exit return at once; rmmod is refused
 * (EBUSY) while a fault is stuck instead of hanging in it. No lock that
 * anyone else takes is held across a fault. sroce faults the pages in
 * itself (sroce_odp_fault_in(): hmm_range_fault() under the owner's
 * mmap_lock, without FAULT_FLAG_ALLOW_RETRY) and then maps what is
 * present, on every kernel, so every fault handler completes or fails the
 * fault and none asks for it again: a file read that failed (the FUSE
 * server went) or a userfaultfd range nobody serves is SIGBUS, and the
 * fault fails at once (its transfers complete in error). Only races with
 * invalidation are tried again, for at most a second; the MR being
 * deregistered stops the fault between 2 MiB pieces. (Linux 7.x's
 * ib_umem_odp_map_dma_and_lock() faults with ALLOW_RETRY but never
 * FAULT_FLAG_TRIED: from a kworker it waited on a userfaultfd, and read a
 * failed FUSE page again for ever, keeping the module.) The fault itself
 * has no bound sroce can set: it runs in a kworker, which no signal
 * reaches, and sleeps until the MM returns (the FUSE server answers or
 * goes); meanwhile it holds the owner's mmap_lock for reading, so only
 * the owner's own mmap/munmap wait too.
 *
 * Copies hold mr->lock for reading while they use the page addresses; the
 * invalidation callback unmaps pages with it held for writing, so no copy
 * ever touches a page the MM is taking away.
 *
 * An implicit MR (addr 0, length SIZE_MAX: the whole address space) has a
 * root umem without pages and a child umem, with its own notifier, per
 * SROCE_ODP_CHILD_SIZE of addresses where pages were mapped. A copy finds
 * the child by address under RCU (none: a miss, as a page not present); the
 * fault work or a prefetch makes it. A child is published only once pages
 * are mapped in it, so addresses that cannot be faulted in cost nothing,
 * and children live as long as the root umem (the last odp->users).
 */
#include <linux/hmm.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "odp.h"
#include "qp.h"
#include "trace.h"
#include "mr.h"
#include "mr_copy.h"

static struct sroce_mr *sroce_odp_to_mr(struct sroce_odp *odp)
{
	return container_of(odp, struct sroce_mr, odp);
}

/* the MMU notifier: pages of [range->start, range->end) go away */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp, notifier);
	struct sroce_mr *mr;
	u64 start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&umem->umem_mutex);
	mr = umem->private;
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	if (mr) {
		write_lock_bh(&mr->lock);
		sroce_odp_unmap_pages(umem, start, end);
		write_unlock_bh(&mr->lock);
	} else {
		/* not published yet: nobody copies */
		sroce_odp_unmap_pages(umem, start, end);
	}
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * The most sroce_odp_map() faults in at once: a prefetch of a whole large
 * MR checks between such pieces whether the MR was deregistered meanwhile.
 */
#define SROCE_ODP_MAP_CHUNK	SZ_2M

/*
 * An implicit MR's children: one per 2 MiB of user addresses, so a piece
 * that sroce_odp_map() faults in lies in one child. At most
 * SROCE_ODP_MAX_CHILDREN: an implicit MR maps at most max_mr_size of the
 * address space, the page lists an explicit MR of that size would have.
 */
#define SROCE_ODP_CHILD_SHIFT	21
#define SROCE_ODP_CHILD_SIZE	BIT_ULL(SROCE_ODP_CHILD_SHIFT)
#define SROCE_ODP_MAX_CHILDREN	(SROCE_MAX_MR_SIZE >> SROCE_ODP_CHILD_SHIFT)
#define SROCE_ODP_CHILD_PAGES	(SROCE_ODP_CHILD_SIZE >> PAGE_SHIFT)
static_assert(SROCE_ODP_MAP_CHUNK == SROCE_ODP_CHILD_SIZE);

/*
 * The pages all ODP umems span, module-wide: the core keeps two words per
 * page of an ODP umem (its pfn and DMA lists, kvcalloc()ed, charged to no
 * one) however few pages are mapped, so registering an ODP range costs
 * kernel memory by its length alone (1 GiB of lists per 256 GiB). An
 * explicit MR's range is charged before the core allocates its lists, an
 * implicit MR's child (SROCE_ODP_CHILD_SIZE) before it is made; both are
 * refused (-ENOMEM) past sroce_odp_budget(), never over it even for a
 * moment (a registration that will be refused does not make another one
 * fail). Module-wide, not per device: a stuck fault frees its umem after
 * the device may have gone, never after the module. sroce_odp_frees
 * counts the uncharges: a range whose fault the budget refused is tried
 * again once something was freed (struct sroce_odp, @bad_gen).
 */
static atomic_long_t sroce_odp_pages = ATOMIC_LONG_INIT(0);
static atomic_long_t sroce_odp_frees = ATOMIC_LONG_INIT(0);

/* ODP ranges may span at most this many times the pages of RAM */
#define SROCE_ODP_RAM_FACTOR	4

static unsigned long sroce_odp_budget(void)
{
	return totalram_pages() * SROCE_ODP_RAM_FACTOR;
}

/* Charge @npages to sroce_odp_pages. Return: 0, or -ENOMEM past the budget. */
static int sroce_odp_charge(unsigned long npages)
{
	unsigned long budget = sroce_odp_budget();
	long cur = atomic_long_read(&sroce_odp_pages);

	do {
		/* negative: an uncharge without its charge (a bug): refuse */
		if (WARN_ON_ONCE(cur < 0) || npages > budget || cur > budget - npages)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&sroce_odp_pages, &cur, cur + npages));
	return 0;
}

static void sroce_odp_uncharge(unsigned long npages)
{
	if (!npages)
		return;
	atomic_long_sub(npages, &sroce_odp_pages);
	atomic_long_inc(&sroce_odp_frees);
}

/*
 * The pages the core's lists for an explicit ODP MR of [@start, @start +
 * @length) have: its range rounded out to its page size (huge pages with
 * IB_ACCESS_HUGETLB), counted in base pages. The caller checked 1 <=
 * @length <= max_mr_size and that @start + @length does not wrap.
 * Return: 0, or -EOVERFLOW if rounding up wraps (the core refuses it too).
 */
static int sroce_odp_range_pages(u64 start, u64 length, int access, u64 *npages)
{
	u64 ps = PAGE_SIZE, end;

#ifdef CONFIG_HUGETLB_PAGE
	if (access & IB_ACCESS_HUGETLB)
		ps = HPAGE_SIZE;
#endif
	end = ALIGN(start + length, ps);
	if (end < start + length)
		return -EOVERFLOW;
	*npages = (end - ALIGN_DOWN(start, ps)) >> PAGE_SHIFT;
	return 0;
}

/* the end of what an implicit MR can map: user addresses */
static u64 sroce_odp_user_end(void)
{
	return TASK_SIZE_MAX;
}

/* the end of the user addresses @mr covers */
static u64 sroce_odp_end(struct sroce_mr *mr)
{
	return mr->odp.implicit ? sroce_odp_user_end() : ib_umem_end(mr->odp.umem);
}

/*
 * How long sroce_odp_fault_in() tries again while invalidations keep
 * racing with its fault (-EBUSY): as long as the core's own loop.
 */
#define SROCE_ODP_FAULT_RETRY_MS	HMM_RANGE_DEFAULT_TIMEOUT

/*
 * Fault [@uva, @uva + @n) of @umem into its owner's page tables, present
 * for reading and, if @write, writing. sroce faults itself, with
 * hmm_range_fault() under the owner's mmap_lock, and only then maps what
 * is present (ib_umem_odp_map_dma_and_lock() without fault), because
 * hmm_range_fault() passes no FAULT_FLAG_ALLOW_RETRY: every fault handler
 * completes or fails the fault, none drops the lock and asks again. So a
 * file read that failed (a FUSE server gone) and a userfaultfd range
 * nobody serves are SIGBUS: -EFAULT, at once. (Linux 7.x's
 * ib_umem_odp_map_dma_and_lock() faults with ALLOW_RETRY and never
 * FAULT_FLAG_TRIED: in a kworker it waited on the userfaultfd, and tried
 * the failed FUSE read again for ever.) Tries again only while
 * invalidations race (-EBUSY), for at most SROCE_ODP_FAULT_RETRY_MS.
 * Context: process; sleeps as long as the MM does (a FUSE read not yet
 * answered).
 * Return: 0; -EFAULT if the owner's address space is gone or the range is
 * not mapped; -EINTR if the caller was killed; else hmm_range_fault()'s.
 */
static int sroce_odp_fault_in(struct ib_umem_odp *umem, u64 uva, u64 n, bool write)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(SROCE_ODP_FAULT_RETRY_MS);
	struct mm_struct *mm = umem->umem.owning_mm;
	struct hmm_range range = {
		.notifier = &umem->notifier,
		.start = ALIGN_DOWN(uva, PAGE_SIZE),
		.end = ALIGN(uva + n, PAGE_SIZE),
		.default_flags = HMM_PFN_REQ_FAULT | (write ? HMM_PFN_REQ_WRITE : 0),
	};
	int ret;

	if (uva < ib_umem_start(umem) || n > ib_umem_end(umem) - uva)
		return -EFAULT;
	range.hmm_pfns = kvcalloc((range.end - range.start) >> PAGE_SHIFT,
				  sizeof(*range.hmm_pfns), GFP_KERNEL);
	if (!range.hmm_pfns)
		return -ENOMEM;
	ret = -EFAULT;		/* the owner's address space is gone */
	if (!mmget_not_zero(mm))
		goto out;
	do {
		range.notifier_seq = mmu_interval_read_begin(range.notifier);
		ret = mmap_read_lock_killable(mm);
		if (ret)
			break;
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
	} while (ret == -EBUSY && time_before(jiffies, deadline));
	mmput(mm);
out:
	kvfree(range.hmm_pfns);
	return ret;
}

/*
 * Map [@uva, @uva + @n) of @umem (see sroce_odp_map()), faulted in first
 * if @fault (sroce_odp_fault_in()); *@mapped, if @mapped is given: a page
 * of that range is mapped now. Not umem->npages: the HMM kernels
 * (compat.h) no longer count. Caller holds a reference on odp->users.
 */
static int sroce_odp_map_umem(struct ib_umem_odp *umem, u64 uva, u64 n, bool fault,
			      bool *mapped)
{
	u64 mask = SROCE_ODP_MAP_READ, end = uva + n, room;
	int ret;

	if (umem->umem.writable)
		mask |= SROCE_ODP_MAP_WRITE;
	if (fault) {
		ret = sroce_odp_fault_in(umem, uva, n, umem->umem.writable);
		if (ret)
			return ret;
	}
	ret = ib_umem_odp_map_dma_and_lock(umem, uva, n, mask, false);
	if (ret < 0)
		return ret;
	if (mapped) {
		*mapped = false;
		for (; !*mapped && uva < end; uva = ALIGN_DOWN(uva, PAGE_SIZE) + PAGE_SIZE)
			*mapped = sroce_odp_page_va(umem, uva, false, &room);
	}
	mutex_unlock(&umem->umem_mutex);
	return 0;
}

/*
 * Implicit @mr: map [@uva, @uva + @n), which lies in one child's range,
 * into that child, made first if there is none. A new child is published
 * (copies find it) only if pages are mapped in it, and no other was
 * published meanwhile (a prefetch beside the fault work); else it is
 * freed. odp->child_lock guards the count and the publication only, never
 * a fault, which may take for ever (a FUSE read never answered): a
 * restrack dump (sroce_odp_usage()) must not wait for it.
 * Caller holds a reference on odp->users and saw the MR alive.
 */
static int sroce_odp_map_child(struct sroce_mr *mr, u64 uva, u64 n, bool fault)
{
	unsigned long idx = uva >> SROCE_ODP_CHILD_SHIFT;
	struct sroce_odp *odp = &mr->odp;
	struct mm_struct *mm = odp->umem->umem.owning_mm;
	struct ib_umem_odp *child;
	bool mapped = false;
	int ret;

	if (uva >= sroce_odp_user_end() || n > sroce_odp_user_end() - uva)
		return -EFAULT;
	child = xa_load(&odp->children, idx);
	if (child)
		return sroce_odp_map_umem(child, uva, n, fault, NULL);

	mutex_lock(&odp->child_lock);
	if (odp->nchildren >= SROCE_ODP_MAX_CHILDREN) {
		mutex_unlock(&odp->child_lock);
		sroce_dbg_mr_rl(mr, "implicit ODP: %lu children (max_mr_size mapped): 0x%llx refused",
				odp->nchildren, uva);
		return -EFAULT;
	}
	ret = sroce_odp_charge(SROCE_ODP_CHILD_PAGES);
	if (ret) {
		mutex_unlock(&odp->child_lock);
		sroce_dbg_mr_rl(mr, "implicit ODP: ODP ranges span %ld pages (%d x RAM): 0x%llx refused",
				atomic_long_read(&sroce_odp_pages), SROCE_ODP_RAM_FACTOR, uva);
		return ret;
	}
	odp->nchildren++;	/* reserved, and charged, while the child is made */
	mutex_unlock(&odp->child_lock);
	/* a notifier on an mm whose users are gone is a BUG: keep it alive */
	ret = -EFAULT;
	if (!mmget_not_zero(mm))
		goto out_unreserve;
	child = ib_umem_odp_alloc_child(odp->umem, idx << SROCE_ODP_CHILD_SHIFT,
					SROCE_ODP_CHILD_SIZE, &sroce_odp_ops);
	if (IS_ERR(child)) {
		ret = PTR_ERR(child);
		mmput(mm);
		goto out_unreserve;
	}
	mutex_lock(&child->umem_mutex);
	child->private = mr;
	mutex_unlock(&child->umem_mutex);
	ret = sroce_odp_map_umem(child, uva, n, fault, &mapped);
	mutex_lock(&odp->child_lock);
	if (!ret && mapped && !xa_load(&odp->children, idx)) {
		ret = xa_err(xa_store(&odp->children, idx, child, GFP_KERNEL_ACCOUNT));
		if (!ret)
			child = NULL;	/* published: it keeps its reservation */
	}
	if (child)
		odp->nchildren--;
	mutex_unlock(&odp->child_lock);
	if (child) {
		ib_umem_odp_release(child);
		sroce_odp_uncharge(SROCE_ODP_CHILD_PAGES);
	}
	mmput(mm);
	return ret;

out_unreserve:
	mutex_lock(&odp->child_lock);
	odp->nchildren--;
	sroce_odp_uncharge(SROCE_ODP_CHILD_PAGES);
	mutex_unlock(&odp->child_lock);
	return ret;
}

/**
 * sroce_odp_map() - fault in (or, !@fault, map what is present of) @len
 *	bytes at user address @uva, for reading and, if the MR is writable,
 *	writing
 * @mr: the ODP MR, referenced by the caller
 * @uva: first user address
 * @len: bytes
 * @fault: fault pages in (else only map those present)
 *
 * The caller's reference on odp->users keeps the umem (page lists,
 * notifier, children) however long the MM takes; sroce_dereg_mr() does not
 * wait for it. A piece (at most SROCE_ODP_MAP_CHUNK bytes) that starts
 * after the MR was marked dead is not faulted in.
 *
 * Context: process; sleeps, as long as the MM does.
 * Return: 0; -ENOENT if the MR is being deregistered; -EINTR if the
 * caller was killed; or the error of sroce_odp_fault_in() or
 * ib_umem_odp_map_dma_and_lock().
 */
static int sroce_odp_map(struct sroce_mr *mr, u64 uva, u64 len, bool fault)
{
	int ret = 0;

	while (len && !ret) {
		u64 n = min_t(u64, len, SROCE_ODP_MAP_CHUNK - (uva & (SROCE_ODP_MAP_CHUNK - 1)));

		if (fatal_signal_pending(current))
			return -EINTR;
		if (READ_ONCE(mr->dead))
			ret = -ENOENT;
		else if (mr->odp.implicit)
			ret = sroce_odp_map_child(mr, uva, n, fault);
		else
			ret = sroce_odp_map_umem(mr->odp.umem, uva, n, fault, NULL);
		uva += n;
		len -= n;
		cond_resched();
	}
	return ret;
}

/*
 * How far past a miss the fault work maps: a transfer that misses one
 * page goes on to the next ones, and every miss costs a dropped packet
 * and a retry (a cold 1 MiB READ took ~3 faults a page, one at a time).
 */
#define SROCE_ODP_AHEAD	SZ_256K

/*
 * Fault in [@start, @end) of @mr and the SROCE_ODP_AHEAD bytes after it
 * (within the MR). If that window fails (a hole, a read-only mapping past
 * the miss), fault in just [@start, @end): the pages the transfer needs
 * now must not be marked bad for what lies beyond them.
 * Return: 0, or why [@start, @end) could not be faulted in (-ENOMEM: an
 * implicit MR's child refused by the budget).
 */
static int sroce_odp_fault(struct sroce_mr *mr, u64 start, u64 end)
{
	u64 limit = sroce_odp_end(mr);
	u64 ahead = end < limit - SROCE_ODP_AHEAD ? end + SROCE_ODP_AHEAD : limit;

	if (ahead > end && !sroce_odp_map(mr, start, ahead - start, true))
		return 0;
	return sroce_odp_map(mr, start, end - start, true);
}

/* An implicit MR that nothing copies into or maps any more: free its children. */
static void sroce_odp_release_children(struct sroce_mr *mr)
{
	struct ib_umem_odp *child;
	unsigned long idx;

	xa_for_each(&mr->odp.children, idx, child)
		ib_umem_odp_release(child);
	xa_destroy(&mr->odp.children);
	sroce_odp_uncharge(mr->odp.nchildren * SROCE_ODP_CHILD_PAGES);
	mr->odp.nchildren = 0;
}

/*
 * Drop a reference on @mr's umem (odp->users): the last one (the
 * registration's, or a fault's or a prefetch's that outlived it) frees the
 * umem and its children. Context: process; sleeps.
 */
static void sroce_odp_put(struct sroce_mr *mr)
{
	struct ib_device *ibdev = mr->odp.umem->umem.ibdev;

	if (!refcount_dec_and_test(&mr->odp.users))
		return;
	sroce_odp_release_children(mr);
	ib_umem_odp_release(mr->odp.umem);
	sroce_odp_uncharge(mr->odp.npages);
	put_device(&ibdev->dev);	/* sroce_odp_setup()'s */
}

/* every MR's fault work; not ordered, one MR's fault never waits for another's */
static struct workqueue_struct *sroce_odp_wq;

/*
 * Protects every MR's odp->waiters and each QP's odp_wait and odp_waiting;
 * with odp->lock (taken first) odp->done and odp->stopped. One for all
 * devices: the fault work reaches the waiters through the MR alone, whose
 * device may be gone once the MR is stopped.
 */
static DEFINE_SPINLOCK(sroce_odp_wait_lock);

/**
 * struct sroce_odp_ticket - the fault a miss on this CPU queued last
 * @mr: its MR, referenced; NULL: none
 * @run: the fault work run that serves the miss
 *
 * Left by sroce_odp_miss() and taken by the sroce_odp_wait() that follows
 * it in the same BH-disabled section (the QP's round, under qp->lock). A
 * miss no wait follows (an RC responder's: RNR NAK) leaves its ticket to
 * be replaced by the next one.
 */
struct sroce_odp_ticket {
	struct sroce_mr *mr;
	u64 run;
};

static DEFINE_PER_CPU(struct sroce_odp_ticket, sroce_odp_ticket);

/*
 * Kick the QPs on @woken, taken off an MR's waiters. Each leaves the list
 * (and may wait again) under sroce_odp_wait_lock: sroce_odp_wait() and
 * sroce_odp_qp_gone() see it either waiting and linked or neither. The
 * reference each holds keeps it, and so its device, until it is kicked.
 */
static void sroce_odp_kick(struct list_head *woken)
{
	struct sroce_qp *qp;

	spin_lock_bh(&sroce_odp_wait_lock);
	while (!list_empty(woken)) {
		qp = list_first_entry(woken, struct sroce_qp, odp_wait);
		list_del_init(&qp->odp_wait);
		qp->odp_waiting = false;
		spin_unlock_bh(&sroce_odp_wait_lock);
		sroce_qp_kick(qp);
		sroce_qp_put(qp);
		spin_lock_bh(&sroce_odp_wait_lock);
	}
	spin_unlock_bh(&sroce_odp_wait_lock);
}

/*
 * Run @run of @mr's fault work ended, @nfailed of its ranges not mapped:
 * count those and kick the QPs that wait. Not if the MR was stopped
 * meanwhile: sroce_odp_mr_stop() kicked them, and the device may be gone.
 */
static void sroce_odp_run_done(struct sroce_mr *mr, u64 run, unsigned int nfailed)
{
	struct sroce_odp *odp = &mr->odp;
	LIST_HEAD(woken);

	spin_lock_bh(&odp->lock);
	if (!odp->stopped) {
		if (nfailed)
			sroce_stat_add(sroce_to_dev(mr->ibmr.device),
				       SROCE_STAT_ODP_FAULT_ERRS, nfailed);
		spin_lock(&sroce_odp_wait_lock);
		odp->done = run;
		list_splice_init(&odp->waiters, &woken);
		spin_unlock(&sroce_odp_wait_lock);
	}
	spin_unlock_bh(&odp->lock);
	sroce_odp_kick(&woken);
}

/*
 * An MR's fault work: fault in the ranges transfers missed, then kick the
 * QPs waiting for them. It may sleep in the MM for ever (a FUSE read never
 * answered): it holds the MR, its umem and the module, so nobody waits
 * for it, and lets go of them whenever it returns.
 */
static void sroce_odp_fault_work(struct work_struct *w)
{
	struct sroce_odp *odp = container_of(w, struct sroce_odp, fault_work);
	struct sroce_mr *mr = sroce_odp_to_mr(odp);
	struct sroce_odp_range todo[SROCE_ODP_PENDING];
	unsigned int i, n, nfailed = 0;
	u64 run;

	spin_lock_bh(&odp->lock);
	n = odp->npending;
	memcpy(todo, odp->pending, n * sizeof(todo[0]));
	odp->npending = 0;
	run = ++odp->runs;
	spin_unlock_bh(&odp->lock);
	for (i = 0; i < n && !READ_ONCE(mr->dead); i++) {
		u64 start = todo[i].start, end = todo[i].end;
		long gen = atomic_long_read(&sroce_odp_frees);
		int err = sroce_odp_fault(mr, start, end);
		bool failed = err;

		/*
		 * Not mapped in the process (or not writable): the transfers
		 * that wait for it fail the next time they miss there. Refused
		 * by the budget: until something is freed.
		 */
		spin_lock_bh(&odp->lock);
		if (failed) {
			odp->bad_start = start;
			odp->bad_end = end;
			odp->bad_budget = err == -ENOMEM;
			odp->bad_gen = gen;
			odp->fault_errs++;
		} else if (start < odp->bad_end && odp->bad_start < end) {
			odp->bad_start = odp->bad_end = 0;
		}
		spin_unlock_bh(&odp->lock);
		trace_sroce_odp_fault_done(mr->ibmr.lkey, start, end, failed);
		nfailed += failed;
	}
	sroce_odp_run_done(mr, run, nfailed);
	/* what sroce_odp_miss() took; sroce_odp_exit_module() drains the queue */
	sroce_odp_put(mr);
	sroce_mr_put(mr);
	module_put(THIS_MODULE);
}

/*
 * Add [@start, @end) to @odp's pending ranges: into one it overlaps or
 * touches, else into a free slot, else (all taken) into the last. Never
 * across a gap while a slot is free: the gap may be a hole in the mapping.
 * Caller holds odp->lock.
 */
static void sroce_odp_add_pending(struct sroce_odp *odp, u64 start, u64 end)
{
	struct sroce_odp_range *r;
	unsigned int i;

	lockdep_assert_held(&odp->lock);
	for (i = 0; i < odp->npending; i++) {
		r = &odp->pending[i];
		if (start <= r->end && r->start <= end)
			goto widen;
	}
	if (odp->npending < SROCE_ODP_PENDING) {
		r = &odp->pending[odp->npending++];
		r->start = start;
		r->end = end;
		return;
	}
	r = &odp->pending[SROCE_ODP_PENDING - 1];
widen:
	r->start = min(r->start, start);
	r->end = max(r->end, end);
}

/*
 * Leave the ticket of the miss just queued, served by fault work run @run
 * of @mr, for the sroce_odp_wait() that follows it on this CPU.
 */
static void sroce_odp_ticket_set(struct sroce_mr *mr, u64 run)
{
	struct sroce_odp_ticket *t = this_cpu_ptr(&sroce_odp_ticket);
	struct sroce_mr *old = t->mr;

	lockdep_assert_in_softirq();
	refcount_inc(&mr->ref);
	t->mr = mr;
	t->run = run;
	if (old)
		sroce_mr_put(old);
}

/*
 * A copy missed [@uva, @uva + @len): queue the fault work (while queued it
 * holds the MR, its umem and the module), leave the miss's ticket for
 * sroce_odp_wait() and return -EAGAIN, or -EFAULT if @uva is where a fault
 * failed. Caller is in an RCU read-side section with BH disabled and saw
 * the MR alive, so sroce_odp_mr_stop() cannot have run yet; its user
 * context holds the module.
 */
static int sroce_odp_miss(struct sroce_mr *mr, u64 uva, u64 len)
{
	struct sroce_odp *odp = &mr->odp;
	u64 run;

	spin_lock_bh(&odp->lock);
	/* the budget refused the bad range, but ODP pages were freed since */
	if (odp->bad_budget && atomic_long_read(&sroce_odp_frees) != odp->bad_gen) {
		odp->bad_start = 0;
		odp->bad_end = 0;
		odp->bad_budget = false;
	}
	if ((uva >= odp->bad_start && uva < odp->bad_end) ||
	    (odp->implicit && uva >= sroce_odp_user_end())) {
		spin_unlock_bh(&odp->lock);
		trace_sroce_odp_fault(mr->ibmr.lkey, uva, len, -EFAULT);
		return -EFAULT;		/* faulting it in failed already */
	}
	sroce_odp_add_pending(odp, uva, uva + len);
	odp->faults++;
	run = odp->runs + 1;	/* the next run takes the pending ranges */
	spin_unlock_bh(&odp->lock);
	refcount_inc(&mr->ref);
	refcount_inc(&odp->users);
	__module_get(THIS_MODULE);
	if (!queue_work(sroce_odp_wq, &odp->fault_work)) {
		/* already queued: it takes the new range too; never the last */
		module_put(THIS_MODULE);
		refcount_dec(&odp->users);
		refcount_dec(&mr->ref);
	}
	sroce_odp_ticket_set(mr, run);
	sroce_stat_inc(sroce_to_dev(mr->ibmr.device), SROCE_STAT_ODP_FAULTS);
	trace_sroce_odp_fault(mr->ibmr.lkey, uva, len, -EAGAIN);
	return -EAGAIN;
}

/* The ODP state of @mr, whose umem (or root umem) is @umem. */
static void sroce_odp_setup(struct sroce_mr *mr, struct ib_umem_odp *umem)
{
	mr->odp.umem = umem;
	mr->umem = &umem->umem;
	xa_init(&mr->odp.children);
	mutex_init(&mr->odp.child_lock);
	INIT_WORK(&mr->odp.fault_work, sroce_odp_fault_work);
	refcount_set(&mr->odp.users, 1);	/* the registration's */
	INIT_LIST_HEAD(&mr->odp.waiters);
	mr->odp.runs = 0;
	mr->odp.done = 0;
	mr->odp.stopped = false;
	spin_lock_init(&mr->odp.lock);
	mr->odp.npending = 0;
	mr->odp.bad_start = 0;
	mr->odp.bad_end = 0;
	mr->odp.bad_budget = false;
	mr->odp.faults = 0;
	mr->odp.fault_errs = 0;
	mutex_lock(&umem->umem_mutex);
	umem->private = mr;
	mutex_unlock(&umem->umem_mutex);
	/*
	 * The core's calls on the umem (a stuck fault's mapping, its release,
	 * an invalidation) read the ib_device after the fault work returns,
	 * which may be after the device was unregistered: its memory stays
	 * until the last sroce_odp_put().
	 */
	get_device(&umem->umem.ibdev->dev);
}

/**
 * sroce_odp_mr_init() - make @mr an ODP MR of [@start, @start + @length)
 * @mr: the MR being created (not published)
 * @ibdev: its device
 * @start: user address
 * @length: bytes
 * @access: IB_ACCESS_* with IB_ACCESS_ON_DEMAND
 *
 * The pages of the range are charged to sroce_odp_pages first.
 *
 * Return: 0; -ENOMEM past sroce_odp_budget(); or a negative errno from
 * ib_umem_odp_get().
 */
int sroce_odp_mr_init(struct sroce_mr *mr, struct ib_device *ibdev, u64 start, u64 length,
		      int access)
{
	struct ib_umem_odp *umem;
	u64 npages;
	int err;

	err = sroce_odp_range_pages(start, length, access, &npages);
	if (err)
		return err;
	err = sroce_odp_charge(npages);
	if (err) {
		sroce_dbg_dev(ibdev, "ODP: %llu pages more, ranges span %ld pages (%d x RAM's)",
			      npages, atomic_long_read(&sroce_odp_pages), SROCE_ODP_RAM_FACTOR);
		return err;
	}
	umem = ib_umem_odp_get(ibdev, start, length, access, &sroce_odp_ops);
	if (IS_ERR(umem)) {
		sroce_odp_uncharge(npages);
		return PTR_ERR(umem);
	}
	sroce_odp_setup(mr, umem);
	mr->odp.npages = npages;
	return 0;
}

/**
 * sroce_odp_mr_init_implicit() - make @mr an implicit ODP MR: the whole
 *	address space of the calling process
 * @mr: the MR being created (not published)
 * @ibdev: its device
 * @access: IB_ACCESS_* with IB_ACCESS_ON_DEMAND
 *
 * Return: 0 or a negative errno from ib_umem_odp_alloc_implicit().
 */
int sroce_odp_mr_init_implicit(struct sroce_mr *mr, struct ib_device *ibdev, int access)
{
	struct ib_umem_odp *root;

	root = ib_umem_odp_alloc_implicit(ibdev, access);
	if (IS_ERR(root))
		return PTR_ERR(root);
	mr->odp.implicit = true;
	sroce_odp_setup(mr, root);
	return 0;
}

/**
 * sroce_odp_mr_free() - free the umem of @mr, an ODP MR never published
 * @mr: made by sroce_odp_mr_init() or sroce_odp_mr_init_implicit(); no
 *	copy, fault or prefetch ever saw it
 *
 * Its range (or its children, none yet) is uncharged from the ODP budget.
 */
void sroce_odp_mr_free(struct sroce_mr *mr)
{
	sroce_odp_put(mr);
}

/**
 * sroce_odp_usage() - the pages @mr's range spans and those mapped now
 * @mr: an ODP MR; of an implicit one, its children's pages
 * @npages: pages of the range (of an implicit MR: of its children)
 * @mapped: pages mapped now (a snapshot)
 *
 * Context: process; the MR is not being deregistered.
 */
void sroce_odp_usage(struct sroce_mr *mr, u64 *npages, u64 *mapped)
{
	struct ib_umem_odp *child;
	unsigned long idx;

	if (!mr->odp.implicit) {
		*npages = ib_umem_odp_num_pages(mr->odp.umem);
		*mapped = sroce_odp_mapped_pages(mr->odp.umem);
		return;
	}
	*npages = 0;
	*mapped = 0;
	mutex_lock(&mr->odp.child_lock);
	xa_for_each(&mr->odp.children, idx, child) {
		*npages += ib_umem_odp_num_pages(child);
		*mapped += sroce_odp_mapped_pages(child);
	}
	mutex_unlock(&mr->odp.child_lock);
}

/**
 * sroce_odp_mr_stop() - a deregistered MR: nobody waits on it, no copy
 *	uses its pages, its umem goes with its last user
 * @mr: the MR, marked dead and out of the MR table
 *
 * After the grace period no copy can queue the fault work or still use a
 * page (they run under RCU and check mr->dead). The QPs waiting on the MR
 * are kicked (their next try fails on the dead MR) and no QP waits on it
 * any more. A fault under way is not waited for: it holds the MR, the umem
 * and the module, sees the MR dead between pieces, touches nothing of the
 * device once stopped, and frees the umem if the registration's reference,
 * dropped here, was not the last.
 *
 * Context: process; sleeps for an RCU grace period, never for a fault.
 */
void sroce_odp_mr_stop(struct sroce_mr *mr)
{
	struct sroce_odp *odp = &mr->odp;
	LIST_HEAD(woken);

	synchronize_rcu();
	spin_lock_bh(&odp->lock);
	spin_lock(&sroce_odp_wait_lock);
	odp->stopped = true;
	list_splice_init(&odp->waiters, &woken);
	spin_unlock(&sroce_odp_wait_lock);
	spin_unlock_bh(&odp->lock);
	sroce_odp_kick(&woken);
	sroce_odp_put(mr);
}

/* the user address of @iova */
static u64 sroce_odp_uva(const struct sroce_mr *mr, u64 iova)
{
	return mr->umem->address + (iova - mr->iova);
}

/*
 * The kernel address of @uva if its page is mapped for reading and, if
 * @write, writing; else NULL. Caller holds mr->lock for reading.
 */
static void *sroce_odp_va(struct sroce_mr *mr, u64 uva, bool write, u64 *room)
{
	struct ib_umem_odp *umem = mr->odp.umem;

	if (mr->odp.implicit) {
		/* a child is freed only after the MR's last copy */
		umem = xa_load(&mr->odp.children, uva >> SROCE_ODP_CHILD_SHIFT);
		if (!umem)
			return NULL;
	}
	return sroce_odp_page_va(umem, uva, write, room);
}

/**
 * sroce_odp_copy() - copy between an ODP MR and a kernel buffer
 * @mr: the MR, referenced, in bounds checked by the caller
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: direction
 *
 * Context: any, under rcu_read_lock() with the MR seen alive.
 * Return: 0, -EAGAIN when a page is not present (its fault is queued;
 * nothing was copied past it), -EFAULT when it cannot be faulted in.
 */
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len, bool to_mr)
{
	u64 uva = sroce_odp_uva(mr, iova), room;
	int err = 0;

	read_lock(&mr->lock);
	while (len) {
		void *va = sroce_odp_va(mr, uva, to_mr, &room);
		u32 n;

		if (!va) {
			err = -EAGAIN;
			break;
		}
		n = min_t(u64, len, room);
		if (to_mr)
			sroce_place(va, buf, n);
		else
			sroce_copy(buf, va, n);
		uva += n;
		buf += n;
		len -= n;
	}
	read_unlock(&mr->lock);
	if (err)
		err = sroce_odp_miss(mr, uva, len);
	return err;
}

/**
 * sroce_odp_atomic() - an 8-byte atomic on a word of an ODP MR
 * @mr: the MR, referenced, in bounds checked by the caller
 * @iova: the word
 * @op: CMP_SWAP, FETCH_ADD or WRITE (sroce_mr_atomic())
 * @compare: CMP_SWAP's compare value
 * @swap_add: the swap value, the addend or the value to write
 * @orig: the value found
 *
 * Context: as sroce_odp_copy().
 * Return: 0, -EINVAL if the user address of @iova is not 8-byte aligned,
 * -EAGAIN when the page is not present (its fault is queued), -EFAULT
 * when it cannot be faulted in.
 */
int sroce_odp_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op, u64 compare,
		     u64 swap_add, u64 *orig)
{
	u64 uva = sroce_odp_uva(mr, iova), room;
	void *va;

	if (uva & 7)
		return -EINVAL;
	read_lock(&mr->lock);
	va = sroce_odp_va(mr, uva, true, &room);
	if (va)
		*orig = sroce_atomic_word(va, op, compare, swap_add);
	read_unlock(&mr->lock);
	return va ? 0 : sroce_odp_miss(mr, uva, 8);
}

/**
 * sroce_odp_wait() - @qp waits for the fault its transfer just queued
 * @qp: the QP whose transfer met a missing page (sroce_odp_copy() or
 *      sroce_odp_atomic() returned -EAGAIN), in its round
 *
 * Takes the ticket that miss left on this CPU and puts @qp (one reference
 * held meanwhile) on the MR's waiters until the fault work run that serves
 * the miss ends; that run, or the MR's deregistration, kicks it. If the
 * run has ended already, the MR is stopped or there is no ticket, @qp is
 * kicked now and tries again. A QP already waiting goes on waiting: the
 * kick that ends it makes it try everything again.
 */
void sroce_odp_wait(struct sroce_qp *qp)
{
	struct sroce_odp_ticket *t = this_cpu_ptr(&sroce_odp_ticket);
	struct sroce_mr *mr = t->mr;
	bool kick = true;

	lockdep_assert_held(&qp->lock);
	t->mr = NULL;
	spin_lock_bh(&sroce_odp_wait_lock);
	if (qp->odp_waiting) {
		kick = false;
	} else if (mr && mr->ibmr.device == &qp->sdev->ib_dev && !mr->odp.stopped &&
		   mr->odp.done < t->run) {
		kick = false;	/* a QP being destroyed needs no kick */
		if (sroce_qp_tryget(qp->h)) {
			qp->odp_waiting = true;
			list_add_tail(&qp->odp_wait, &mr->odp.waiters);
		}
	}
	spin_unlock_bh(&sroce_odp_wait_lock);
	if (mr)
		sroce_mr_put(mr);
	if (kick)
		sroce_qp_kick(qp);
}

int sroce_odp_init_module(void)
{
	sroce_odp_wq = alloc_workqueue("sroce_odp", WQ_UNBOUND, WQ_MAX_ACTIVE);
	return sroce_odp_wq ? 0 : -ENOMEM;
}

/* No fault work is left (each holds the module); tickets may be. */
void sroce_odp_exit_module(void)
{
	struct sroce_odp_ticket *t;
	int cpu;

	destroy_workqueue(sroce_odp_wq);
	for_each_possible_cpu(cpu) {
		t = per_cpu_ptr(&sroce_odp_ticket, cpu);
		if (t->mr)
			sroce_mr_put(t->mr);
		t->mr = NULL;
	}
}

/* @qp is being destroyed: it waits for nothing any more */
void sroce_odp_qp_gone(struct sroce_qp *qp)
{
	bool put = false;

	spin_lock_bh(&sroce_odp_wait_lock);
	if (qp->odp_waiting) {
		qp->odp_waiting = false;
		list_del_init(&qp->odp_wait);
		put = true;
	}
	spin_unlock_bh(&sroce_odp_wait_lock);
	if (put)
		sroce_qp_put(qp);
}

/*
 * advise_mr's prefetch of [@iova, @iova + @len) of @mr (sroce_odp_map()),
 * holding the umem meanwhile: a deregistration does not wait for it. The
 * user address is read from mr->umem only under that reference: a
 * concurrent dereg frees the umem when the last one goes.
 */
static int sroce_odp_prefetch(struct sroce_mr *mr, u64 iova, u32 len, bool fault)
{
	int err = -ENOENT;	/* deregistered meanwhile */

	if (refcount_inc_not_zero(&mr->odp.users)) {
		err = sroce_odp_map(mr, sroce_odp_uva(mr, iova), len, fault);
		sroce_odp_put(mr);
	}
	return err;
}

/**
 * sroce_advise_mr() - ib_device_ops.advise_mr: prefetch ODP MR pages
 * @pd: the PD the MRs must be in
 * @advice: PREFETCH (read), PREFETCH_WRITE, or PREFETCH_NO_FAULT (map only
 *          what is present)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH or 0; sroce always prefetches
 *         before returning (allowed for both)
 * @sg_list: ranges, by lkey
 * @num_sge: their number
 * @attrs: unused
 *
 * Return: 0; -EINVAL for a bad lkey, range or advice, an MR of another PD,
 * one that is not ODP or one deregistered meanwhile; -EFAULT if pages
 * could not be faulted in; -EINTR if the caller was killed.
 */
int sroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice, u32 flags,
		    struct ib_sge *sg_list, u32 num_sge, struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = sroce_to_dev(pd->device);
	int need;
	u32 i;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		need = 0;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		need = IB_ACCESS_LOCAL_WRITE;
		break;
	default:
		sroce_dbg_dev(pd->device, "advise_mr: advice %d not supported", advice);
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH) {
		sroce_dbg_dev(pd->device, "advise_mr: flags 0x%x: unknown bits 0x%x", flags,
			      flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < num_sge; i++) {
		struct sroce_mr *mr;
		u32 gen;
		int err;

		mr = sroce_mr_lookup(sdev, sg_list[i].lkey, pd, need, sg_list[i].addr,
				     sg_list[i].length, &gen);
		if (IS_ERR(mr)) {
			sroce_dbg_dev(pd->device,
				      "advise_mr: sge %u: lkey 0x%x: no MR of this PD%s covering [0x%llx, +%u) (error %ld)",
				      i, sg_list[i].lkey, need ? " with LOCAL_WRITE" : "",
				      sg_list[i].addr, sg_list[i].length, PTR_ERR(mr));
			return -EINVAL;
		}
		err = !mr->odp.umem ? -EINVAL :
		      !sg_list[i].length ? 0 :
		      sroce_odp_prefetch(mr, sg_list[i].addr, sg_list[i].length,
					 advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT);
		if (err)
			sroce_dbg_mr(mr, "advise_mr: sge %u [0x%llx, +%u): %s (error %d)", i,
				     sg_list[i].addr, sg_list[i].length,
				     !mr->odp.umem ? "not an ODP MR" :
				     err == -ENOENT ? "deregistered meanwhile" :
				     err == -EINTR ? "killed" : "faulting the pages in failed",
				     err);
		sroce_mr_put(mr);
		/* -ENOENT: deregistered meanwhile, a bad lkey */
		if (err == -EINTR || err == -EINVAL || err == -ENOENT)
			return err == -EINTR ? err : -EINVAL;
		if (err)
			return -EFAULT;
	}
	return 0;
}
