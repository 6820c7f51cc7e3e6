/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce on-demand paging: MRs whose pages are faulted in when a transfer
 * needs them (ib_umem_odp), never pinned.
 */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

struct sroce_mr;
struct sroce_qp;
struct ib_pd;
struct ib_device;
struct ib_sge;
struct ib_umem_odp;
struct uverbs_attr_bundle;
enum ib_uverbs_advise_mr_advice;

/* the missed ranges an MR's fault work takes at once */
#define SROCE_ODP_PENDING	4

struct sroce_odp_range {
	u64 start;
	u64 end;
};

/**
 * struct sroce_odp - the ODP part of an MR
 * @umem: the core's ODP umem (also the MR's umem); of an implicit MR the
 *        root umem, which holds no pages
 * @implicit: the MR covers the whole address space (addr 0, length
 *            SIZE_MAX): its pages live in @children
 * @children: implicit MR: child umems (ib_umem_odp_alloc_child()), each
 *            over SROCE_ODP_CHILD_SIZE bytes of user addresses, indexed by
 *            address >> SROCE_ODP_CHILD_SHIFT; made when a fault or a
 *            prefetch first maps pages there, freed with the MR
 * @child_lock: guards @nchildren and publishing a child in @children; never
 *              held across a fault
 * @nchildren: their number and those being made, at most
 *             SROCE_ODP_MAX_CHILDREN; each is charged to the module's
 *             ODP page budget while it exists
 * @npages: explicit MR: the pages of its range, charged to the module's
 *          ODP page budget until @umem is freed; implicit: 0
 * @fault_work: faults in the @pending ranges, then kicks the QPs in
 *              @waiters; queued on sroce_odp_wq (not ordered: one MR's
 *              fault never waits for another's)
 * @users: the registration, each queued or running @fault_work and each
 *         advise_mr prefetch under way; the last one frees @umem and
 *         @children (sroce_odp_put()), so sroce_odp_mr_stop() waits for
 *         no fault, whatever the MM does with it
 * @waiters: QPs that met a page of this MR not present and wait for the
 *           fault work run that maps it (qp->odp_wait, sroce_odp_wait())
 * @runs: fault work runs started; a miss is served by run @runs + 1
 * @done: the last fault work run that ended; QPs waiting for a run up to
 *        it have been kicked
 * @stopped: the MR is deregistered: nobody waits on it any more, and the
 *           fault work touches nothing of sroce's device (it may be
 *           unregistered; its memory stays until the last user goes)
 * @lock: protects @pending, @npending, the bad range, the counts and
 *        @runs; with sroce_odp_wait_lock (odp.c) @done and @stopped
 * @pending: the ranges of user addresses transfers missed, for the fault
 *           work; a miss that overlaps or touches one widens it, another
 *           takes a free slot, so a hole between two misses is not
 *           faulted in (its failure would fail both)
 * @npending: ranges in @pending
 * @bad_start: first address of the last range that could not be faulted in
 * @bad_end: its end (equal to @bad_start: none); transfers that miss in it
 *           fail with -EFAULT instead of waiting for ever
 * @bad_budget: the bad range is one the ODP page budget refused (an
 *              implicit MR's child): forgotten once any ODP pages were
 *              freed after @bad_gen
 * @bad_gen: the module's count of ODP uncharges when that fault began
 * @faults: transfers that missed a page and queued the fault work
 * @fault_errs: fault work runs that could not map their range
 */
struct sroce_odp {
	struct ib_umem_odp *umem;
	bool implicit;
	struct xarray children;
	struct mutex child_lock;	/* @nchildren, publishing a child */
	unsigned long nchildren;
	unsigned long npages;
	struct work_struct fault_work;
	refcount_t users;
	struct list_head waiters;
	u64 runs;
	u64 done;
	bool stopped;
	spinlock_t lock;	/* @pending, the bad range, the counts, @runs */
	struct sroce_odp_range pending[SROCE_ODP_PENDING];
	unsigned int npending;
	u64 bad_start;
	u64 bad_end;
	bool bad_budget;
	long bad_gen;
	u64 faults;
	u64 fault_errs;
};

int sroce_odp_mr_init(struct sroce_mr *mr, struct ib_device *ibdev, u64 start, u64 length,
		      int access);
int sroce_odp_mr_init_implicit(struct sroce_mr *mr, struct ib_device *ibdev, int access);
void sroce_odp_mr_free(struct sroce_mr *mr);
void sroce_odp_usage(struct sroce_mr *mr, u64 *npages, u64 *mapped);
void sroce_odp_mr_stop(struct sroce_mr *mr);
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len, bool to_mr);
void sroce_odp_wait(struct sroce_qp *qp);
int sroce_odp_init_module(void);
void sroce_odp_exit_module(void);
void sroce_odp_qp_gone(struct sroce_qp *qp);
int sroce_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice, u32 flags,
		    struct ib_sge *sg_list, u32 num_sge, struct uverbs_attr_bundle *attrs);

/* an atomic on an ODP MR (mr_copy.c executes it through this) */
int sroce_odp_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op, u64 compare,
		     u64 swap_add, u64 *orig);

#endif /* SROCE_ODP_H */
