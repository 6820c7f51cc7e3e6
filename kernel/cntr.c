// SPDX-License-Identifier: GPL-2.0
/*
 * sroce completion counters: a pair of 64-bit counts (completions, and
 * completions in error) that QPs add to as their work requests complete,
 * per operation class they were attached for, instead of (or besides)
 * writing CQEs. User space creates one (ibv_create_comp_cntr()), sets,
 * increments and reads it through the core's UVERBS_OBJECT_COMP_CNTR
 * methods, and attaches it to a QP in RESET or INIT for a set of classes
 * (ibv_qp_attach_comp_cntr()); there is no detach: destroying the QP
 * detaches it. The core refuses to destroy a counter still attached, and
 * so does sroce_cntr_destroy() on its own count, so a QP never points at
 * a freed counter.
 *
 * What is counted, per work request or message (never per packet),
 * whether or not it was signaled:
 *  - SEND, RDMA_READ, RDMA_WRITE: a send queue work request of that kind
 *    (SEND with immediate or invalidate, WRITE with immediate included)
 *    completing, successfully or in error (flushed included); atomics
 *    and the memory window and registration work requests are of no class;
 *  - RECV: a receive work request completing, also one a WRITE with
 *    immediate consumed, or one flushed;
 *  - REMOTE_RDMA_WRITE: a WRITE message of the peer placed in our memory
 *    (counted at its last packet), or refused (rkey or access rights);
 *  - REMOTE_RDMA_READ: a READ request of the peer accepted for answering
 *    (a retransmitted one is not counted again), or refused (rkey or
 *    access rights).
 *
 * Only the ops entries are kernel specific (compat.h): this file builds
 * everywhere, and on kernels without the verbs nothing is ever attached.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "qp.h"
#include "cntr.h"

/* the uverbs entries (enum ib_uverbs_comp_cntr_entry and _modify_op) */
#define SROCE_CNTR_ENTRY_ERR	1
#define SROCE_CNTR_OP_SET	0
#define SROCE_CNTR_OP_INC	1

int sroce_cntr_create(struct ib_device *ibdev, struct sroce_cntr *c)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);

	if (atomic_inc_return(&sdev->cntr_count) > SROCE_MAX_COMP_CNTR) {
		atomic_dec(&sdev->cntr_count);
		sroce_dbg_dev(ibdev, "create_comp_cntr: the device has max_counters %d counters already",
			      SROCE_MAX_COMP_CNTR);
		return -ENOMEM;
	}
	atomic64_set(&c->val[0], 0);
	atomic64_set(&c->val[1], 0);
	atomic_set(&c->qps, 0);
	return 0;
}

int sroce_cntr_destroy(struct ib_device *ibdev, struct sroce_cntr *c)
{
	if (atomic_read(&c->qps)) {
		sroce_dbg_dev(ibdev, "destroy_comp_cntr: still attached to QPs (%d op classes)",
			      atomic_read(&c->qps));
		return -EBUSY;
	}
	atomic_dec(&sroce_to_dev(ibdev)->cntr_count);
	return 0;
}

int sroce_cntr_modify(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u32 op,
		      u64 value)
{
	if (entry > SROCE_CNTR_ENTRY_ERR || op > SROCE_CNTR_OP_INC) {
		sroce_dbg_dev(ibdev, "modify_comp_cntr: entry %u op %u: unknown", entry, op);
		return -EINVAL;
	}
	if (op == SROCE_CNTR_OP_SET)
		atomic64_set(&c->val[entry], value);
	else
		atomic64_add(value, &c->val[entry]);	/* wraps modulo 2^64 */
	return 0;
}

int sroce_cntr_read(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u64 *value)
{
	if (entry > SROCE_CNTR_ENTRY_ERR) {
		sroce_dbg_dev(ibdev, "read_comp_cntr: entry %u: unknown", entry);
		return -EINVAL;
	}
	*value = atomic64_read(&c->val[entry]);
	return 0;
}

/**
 * sroce_cntr_attach() - count @ibqp's completions of the classes in @op_mask
 * @ibqp: a user QP; the core holds it exclusively (no other verb runs on
 *	it meanwhile) and has checked that no class in @op_mask has a counter
 * @c: the counter; the core holds it, so it is not destroyed meanwhile
 * @op_mask: classes, bit n for enum sroce_cntr_op n, not 0
 *
 * Return: 0, -EINVAL (the QP is past INIT, an unknown class) or -EBUSY (a
 *	class has a counter already).
 */
int sroce_cntr_attach(struct ib_qp *ibqp, struct sroce_cntr *c, u32 op_mask)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	enum ib_qp_state state;
	int op;

	spin_lock_irq(&qp->state_lock);
	state = qp->state;
	spin_unlock_irq(&qp->state_lock);
	if (state != IB_QPS_RESET && state != IB_QPS_INIT) {
		sroce_dbg_qp(qp, "attach_comp_cntr: the QP is in %s, not RESET or INIT",
			     sroce_qp_state_name(state));
		return -EINVAL;
	}
	if (!op_mask || (op_mask & ~SROCE_CNTR_ALL_OPS)) {
		sroce_dbg_qp(qp, "attach_comp_cntr: op_mask 0x%x: unknown classes", op_mask);
		return -EINVAL;
	}
	if (op_mask & qp->cntr_ops) {
		sroce_dbg_qp(qp, "attach_comp_cntr: op_mask 0x%x: classes 0x%x have a counter",
			     op_mask, op_mask & qp->cntr_ops);
		return -EBUSY;
	}
	/* pointers first: the mask only says a look at them may pay */
	for (op = 0; op < SROCE_CNTR_NOPS; op++) {
		if (!(op_mask & BIT(op)))
			continue;
		atomic_inc(&c->qps);
		WRITE_ONCE(qp->cntr[op], c);
	}
	smp_wmb();	/* the hooks test the pointer anyway: ordering is a courtesy */
	WRITE_ONCE(qp->cntr_ops, qp->cntr_ops | op_mask);
	return 0;
}

/* A send queue work request of uverbs opcode @opcode completed. */
void sroce_cntr_wr_done(struct sroce_qp *qp, u32 opcode, bool err)
{
	switch (opcode) {
	case IB_UVERBS_WR_SEND:
	case IB_UVERBS_WR_SEND_WITH_IMM:
	case IB_UVERBS_WR_SEND_WITH_INV:
		sroce_qp_count(qp, SROCE_CNTR_SEND, err);
		break;
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		sroce_qp_count(qp, SROCE_CNTR_RDMA_WRITE, err);
		break;
	case IB_UVERBS_WR_RDMA_READ:
		sroce_qp_count(qp, SROCE_CNTR_RDMA_READ, err);
		break;
	default:
		break;
	}
}

/*
 * @qp is being destroyed and its transport has stopped for good: its
 * counters may go once the core lets them.
 */
void sroce_cntr_qp_gone(struct sroce_qp *qp)
{
	int op;

	for (op = 0; op < SROCE_CNTR_NOPS; op++) {
		if (qp->cntr[op])
			atomic_dec(&qp->cntr[op]->qps);
		qp->cntr[op] = NULL;
	}
	qp->cntr_ops = 0;
}
