/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cntr.c: completion counters (ibv_create_comp_cntr(), on kernels whose
 * RDMA core has them, see compat.h)
 */
#ifndef SROCE_CNTR_H
#define SROCE_CNTR_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/types.h>

struct ib_device;
struct ib_qp;
struct sroce_qp;

/*
 * The operation classes a counter is attached for, one per bit of the
 * uverbs op_mask (enum ib_uverbs_qp_attach_comp_cntr_op, bit n: class n).
 */
enum sroce_cntr_op {
	SROCE_CNTR_SEND,		/* SEND work requests completed */
	SROCE_CNTR_RECV,		/* receive work requests completed */
	SROCE_CNTR_RDMA_READ,		/* RDMA READ work requests completed */
	SROCE_CNTR_REMOTE_RDMA_READ,	/* READ requests of the peer served */
	SROCE_CNTR_RDMA_WRITE,		/* RDMA WRITE work requests completed */
	SROCE_CNTR_REMOTE_RDMA_WRITE,	/* WRITE messages of the peer placed */
	SROCE_CNTR_NOPS
};

#define SROCE_CNTR_ALL_OPS	(BIT(SROCE_CNTR_NOPS) - 1)

/**
 * struct sroce_cntr - the values of a completion counter
 * @val: [0] completions without error, [1] completions in error (the
 *	uverbs entries IB_UVERBS_COMP_CNTR_ENTRY_COMP and _ERR); modulo 2^64
 * @qps: the QP op classes pointing here (sroce_qp.cntr[]): the counter
 *	is not destroyed while any is left, whatever the core counts
 */
struct sroce_cntr {
	atomic64_t val[2];
	atomic_t qps;
};

int sroce_cntr_create(struct ib_device *ibdev, struct sroce_cntr *c);
int sroce_cntr_destroy(struct ib_device *ibdev, struct sroce_cntr *c);
int sroce_cntr_modify(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u32 op,
		      u64 value);
int sroce_cntr_read(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u64 *value);
int sroce_cntr_attach(struct ib_qp *ibqp, struct sroce_cntr *c, u32 op_mask);
void sroce_cntr_wr_done(struct sroce_qp *qp, u32 opcode, bool err);
void sroce_cntr_qp_gone(struct sroce_qp *qp);

#endif /* SROCE_CNTR_H */
