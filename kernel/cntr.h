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

#include "qp.h"

struct ib_device;
struct ib_qp;
struct sroce_qp;

int sroce_cntr_create(struct ib_device *ibdev, struct sroce_cntr *c);
int sroce_cntr_destroy(struct ib_device *ibdev, struct sroce_cntr *c);
int sroce_cntr_modify(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u32 op,
		      u64 value);
int sroce_cntr_read(struct ib_device *ibdev, struct sroce_cntr *c, u32 entry, u64 *value);
int sroce_cntr_attach(struct ib_qp *ibqp, struct sroce_cntr *c, u32 op_mask);
void sroce_cntr_wr_done(struct sroce_qp *qp, u32 opcode, bool err);
void sroce_cntr_qp_gone(struct sroce_qp *qp);

/*
 * Completion counters (ib_device_ops.create_comp_cntr and friends,
 * UVERBS_OBJECT_COMP_CNTR, ibv_create_comp_cntr()): the core allocates the
 * object (struct sroce_comp_cntr, its ib_comp_cntr first) and keeps which
 * counters a QP has; the counting is cntr.c's, which builds on every
 * kernel. SROCE_COMP_CNTR_OPS is the ops entries, or nothing. The one
 * kernel difference whose glue is not in compat.h: it needs struct
 * sroce_cntr, and compat.h, the lowest header, includes no sroce module.
 */
#ifdef SROCE_HAVE_COMP_CNTR
struct sroce_comp_cntr {
	struct ib_comp_cntr ibcc;
	struct sroce_cntr c;
};

static inline struct sroce_cntr *sroce_to_cntr(struct ib_comp_cntr *ibcc)
{
	return &container_of(ibcc, struct sroce_comp_cntr, ibcc)->c;
}

static inline int sroce_create_comp_cntr(struct ib_comp_cntr *ibcc,
					 struct uverbs_attr_bundle *attrs)
{
	return sroce_cntr_create(ibcc->device, sroce_to_cntr(ibcc));
}

static inline int sroce_destroy_comp_cntr(struct ib_comp_cntr *ibcc)
{
	return sroce_cntr_destroy(ibcc->device, sroce_to_cntr(ibcc));
}

static inline int sroce_modify_comp_cntr(struct ib_comp_cntr *ibcc,
					 enum ib_comp_cntr_entry entry,
					 enum ib_comp_cntr_modify_op op, u64 value)
{
	return sroce_cntr_modify(ibcc->device, sroce_to_cntr(ibcc), entry, op, value);
}

static inline int sroce_read_comp_cntr(struct ib_comp_cntr *ibcc,
				       enum ib_comp_cntr_entry entry, u64 *value)
{
	return sroce_cntr_read(ibcc->device, sroce_to_cntr(ibcc), entry, value);
}

static inline int sroce_query_comp_cntr_caps(struct ib_device *ibdev,
					     struct ib_comp_cntr_caps *caps,
					     struct uverbs_attr_bundle *attrs)
{
	caps->max_counters = SROCE_MAX_COMP_CNTR;
	caps->max_value = U64_MAX;	/* and wraps to 0 */
	caps->supported_qp_attach_ops = SROCE_CNTR_ALL_OPS;
	return 0;
}

static inline int sroce_qp_attach_comp_cntr(struct ib_qp *ibqp, struct ib_comp_cntr *ibcc,
					    struct ib_qp_attach_comp_cntr_attr *attr)
{
	return sroce_cntr_attach(ibqp, sroce_to_cntr(ibcc), attr->op_mask);
}

#define SROCE_COMP_CNTR_OPS						\
	.create_comp_cntr = sroce_create_comp_cntr,			\
	.destroy_comp_cntr = sroce_destroy_comp_cntr,			\
	.modify_comp_cntr = sroce_modify_comp_cntr,			\
	.read_comp_cntr = sroce_read_comp_cntr,				\
	.query_comp_cntr_caps = sroce_query_comp_cntr_caps,		\
	.qp_attach_comp_cntr = sroce_qp_attach_comp_cntr,		\
	INIT_RDMA_OBJ_SIZE(ib_comp_cntr, sroce_comp_cntr, ibcc),
#else
#define SROCE_COMP_CNTR_OPS
#endif

#endif /* SROCE_CNTR_H */
