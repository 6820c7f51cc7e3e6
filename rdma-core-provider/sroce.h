/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce userspace provider: private types shared by the provider's files.
 *
 * The provider wraps every libibverbs object in a sroce_* struct so that
 * per-object state (rings, locks) lives next to it. Each wrapper embeds the libibverbs object first-class
 * and has a to_s*() accessor built on container_of().
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "sroce_cmd.h"
#include "ring.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
	uint32_t caps;		/* SROCE_CAP_* reported by the kernel */
};

struct sroce_pd {
	struct ibv_pd ibv_pd;
};

/* id: what UD WQEs carry; the kernel checks it belongs to the QP's PD */
struct sroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t id;
};

struct sroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* poll_cq vs. poll_cq vs. resize_cq */
	struct sroce_ring ring;		/* ring.own: consumer index */
};

/* One work queue (SQ or RQ) of a QP. */
struct sroce_wq {
	pthread_spinlock_t lock;	/* post vs. post */
	struct sroce_ring ring;		/* ring.own: producer index */
	uint32_t max_sge;		/* what a WQE may carry */
};

struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_wq sq;
	struct sroce_wq rq;		/* no ring with an SRQ */
	uint32_t max_inline;		/* bytes of SEND_INLINE data */
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibv_pd);
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

/* verbs.c */
int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);
struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

/* cq.c */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int sroce_destroy_cq(struct ibv_cq *ibcq);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);

/* mr.c */
struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);

/* qp.c */
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_destroy_qp(struct ibv_qp *ibqp);
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

#endif /* SROCE_PROVIDER_H */
