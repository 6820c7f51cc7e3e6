/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce shared receive queues: one receive ring that many QPs take their
 * receive buffers from.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

struct sroce_queue;
struct sroce_dev;

/**
 * struct sroce_srq - a shared receive queue
 * @ibsrq: the core's object
 * @rq: the ring (struct sroce_recv_wqe entries); mmapped for a user SRQ.
 *	Replaced by a resize under both locks.
 * @lock: the consumer side of @rq, taken by every QP of the SRQ, and @limit
 * @kpost_lock: the producer side of a kernel SRQ's ring
 * @stride: entry size
 * @max_sge: SGEs per entry
 * @max_wr: @rq's entries, readable without the locks
 * @user: a user SRQ (its ring is mmapped)
 * @limit: IB_EVENT_SRQ_LIMIT_REACHED fires (once) when fewer than this
 *	remain posted; 0: not armed
 * @ref: XRC SRQ: one reference for its number (srq.c) plus one per
 *	responder executing a packet into it
 * @freed: XRC SRQ: the last reference is gone
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_queue *rq;
	spinlock_t lock;	/* the consumer side of @rq, and @limit */
	spinlock_t kpost_lock;	/* a kernel SRQ's producer side */
	u32 stride;
	u32 max_sge;
	u32 max_wr;
	bool user;
	u32 limit;
	refcount_t ref;
	struct completion freed;
};

static inline struct sroce_srq *sroce_to_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int sroce_srq_take(struct sroce_srq *srq, void *rqe);

/* XRC SRQ numbers, module-wide (srq.c; the XRC TGT QP's lookup: xrc.c) */
int sroce_xrc_srq_reserve(struct sroce_srq *srq);
void sroce_xrc_srq_publish(struct sroce_srq *srq);
void sroce_xrc_srq_remove(struct sroce_srq *srq);
struct sroce_srq *sroce_xrc_srq_get(struct sroce_dev *sdev, struct ib_xrcd *xrcd,
				    u32 srqn, int *err);
void sroce_xrc_srq_put(struct sroce_srq *srq);

struct sroce_qp;
struct sroce_recv_wqe;
int sroce_recv_take(struct sroce_qp *qp, struct sroce_recv_wqe *rqe);
void sroce_recv_done(struct sroce_qp *qp);

#endif /* SROCE_SRQ_H */
