/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cq.c: completion queues and their rings
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include "sroce.h"

struct sroce_queue;

/**
 * struct sroce_cq - completion queue
 * @ibcq: the core's CQ; must be first for INIT_RDMA_OBJ_SIZE
 * @lock: serialises producers (the transport, many QPs per CQ), kernel
 *	pollers, arming and resize; taken with irqsave
 * @resize_mutex: one resize at a time, from before the switch to after the
 *	old ring is freed: the core lets resize_cq calls on one CQ run
 *	together, and a second one would free the ring the first still
 *	copies into
 * @queue: the CQE ring (struct sroce_cqe entries); replaced by resize
 * @notify: armed state: 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 * @overflow: the ring overflowed (or its consumer index was corrupt): the
 *	CQ is in error, IB_EVENT_CQ_ERR was raised, posts fail
 * @overflows: completions lost to the overflow (for resource dumps)
 * @user: the ring is mmapped by user space (polled there, not by poll_cq)
 * @timestamp: stamp CQEs (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* serialises the producers (see @lock) */
	struct mutex resize_mutex;
	struct sroce_queue *queue;
	u8 notify;
	bool overflow;
	bool user;
	bool timestamp;
	u32 overflows;
};

static inline struct sroce_cq *sroce_to_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG *arg);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, sroce_cqe_t cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);

#endif /* SROCE_CQ_H */
