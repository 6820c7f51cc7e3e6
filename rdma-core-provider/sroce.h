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
#include "wqe.h"

struct sroce_device {
	struct verbs_device vdev;
};

struct sroce_context {
	struct verbs_context vctx;
	uint32_t caps;		/* SROCE_CAP_* reported by the kernel */
};

/*
 * A PD, or a parent domain: the same kernel PD (its handle) seen through
 * another ibv_pd. Rings are the kernel's, so a parent domain's allocators
 * have nothing to allocate; they are kept, never called.
 */
struct sroce_pd {
	struct ibv_pd ibv_pd;
	struct sroce_pd *parent_of;	/* a parent domain: its PD */
	struct ibv_parent_domain_init_attr pd_attr;
};

/* id: what UD WQEs carry; the kernel checks it belongs to the QP's PD */
struct sroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t id;
};

/* the wc_flags a CQE may carry (libibverbs' values) */
#define SROCE_WC_F_ALL	(SROCE_WC_F_GRH | SROCE_WC_F_WITH_IMM | \
			 SROCE_WC_F_WITH_INV)

struct sroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* poll_cq vs. poll_cq vs. resize_cq */
	struct sroce_ring ring;		/* ring.own: consumer index */
	struct sroce_cqe cur;		/* cq_ex: the entry being read */
};

/* One work queue (SQ or RQ) of a QP. */
struct sroce_wq {
	pthread_spinlock_t lock;	/* post vs. post */
	struct sroce_ring ring;		/* ring.own: producer index */
	uint32_t max_sge;		/* what a WQE may carry */
};

/*
 * A batch of the extended post API (qp_ex.c), built between wr_start and
 * wr_complete/wr_abort under sq.lock; published only by wr_complete.
 */
struct sroce_qpx_batch {
	uint32_t prod;			/* next slot to fill */
	uint32_t cons;			/* cached consumer index */
	struct sroce_send_wqe *cur;	/* WR being built, NULL before the first */
	bool need_ud;			/* cur still lacks wr_set_ud_addr */
	int err;			/* first error: wr_complete returns it */
};

struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_wq sq;
	struct sroce_wq rq;		/* no ring with an SRQ */
	uint32_t max_inline;		/* bytes of SEND_INLINE data */
	struct sroce_qpx_batch batch;
};

/*
 * A shared receive queue: one ring of receive WQEs, posted without
 * syscalls. vsrq.srq_num is an XRC SRQ's number (ibv_get_srq_num()).
 */
struct sroce_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;	/* post vs. post */
	struct sroce_ring ring;		/* ring.own: producer index */
	uint32_t max_sge;
};

/*
 * Device memory, mapped from the kernel (dm.c). Copies stay below @limit:
 * the length asked for, rounded up to a 4-byte word.
 */
struct sroce_dm {
	struct verbs_dm vdm;
	void *buf;
	size_t map_len;
	uint64_t limit;
};

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

/* srq.c */
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);

/* xrc.c */
struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr);
int sroce_close_xrcd(struct ibv_xrcd *ibxrcd);

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, vdev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

/*
 * Why a call was refused, through libibverbs' logger (verbs_err() and
 * verbs_debug() of rdma-core's driver.h): nothing is written unless the
 * application runs with VERBS_LOG_LEVEL (1 errors .. 4 debug) and, with a
 * release build of libibverbs such as the distributions', VERBS_LOG_FILE
 * (a path to append to). Every refusal of the provider's own is an error
 * naming the argument and its values; a full ring (ENOMEM, which an
 * application may meet in normal flow control) and a command the kernel
 * refused (its reason is in the kernel log: dynamic debug, see
 * Documentation/provider.rst) are debug. The newline is added here.
 */
/*
 * verbs_log() is a macro of a system header (-isystem), where the compiler
 * checks no format: the dead call to sroce_log_format() has it check ours.
 */
static inline __attribute__((format(printf, 1, 2))) void sroce_log_format(const char *fmt, ...)
{
	(void)fmt;
}

#define sroce_err(ibctx, fmt, ...)						\
	do {									\
		if (0)								\
			sroce_log_format(fmt, ##__VA_ARGS__);			\
		verbs_err(&to_sctx(ibctx)->vctx, fmt "\n", ##__VA_ARGS__);	\
	} while (0)
#define sroce_dbg(ibctx, fmt, ...)						\
	do {									\
		if (0)								\
			sroce_log_format(fmt, ##__VA_ARGS__);			\
		verbs_debug(&to_sctx(ibctx)->vctx, fmt "\n", ##__VA_ARGS__);	\
	} while (0)
/* the same for a QP's context */
#define sroce_qp_err(sqp, fmt, ...) \
	sroce_err((sqp)->vqp.qp.context, "qp#%u: " fmt, (sqp)->vqp.qp.qp_num, ##__VA_ARGS__)
#define sroce_qp_dbg(sqp, fmt, ...) \
	sroce_dbg((sqp)->vqp.qp.context, "qp#%u: " fmt, (sqp)->vqp.qp.qp_num, ##__VA_ARGS__)

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

static inline struct sroce_qp *qpx_to_sqp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct sroce_qp, vqp.qp_ex);
}

static inline struct sroce_cq *cqx_to_scq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct sroce_cq, vcq.cq_ex);
}

/* verbs.c */
int sroce_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int sroce_query_rt_values(struct ibv_context *ibctx, struct ibv_values_ex *values);
int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);
struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx);
int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
struct ibv_pd *sroce_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr);
int sroce_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sroce_destroy_ah(struct ibv_ah *ibah);

/* cq.c */
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn);
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int sroce_destroy_cq(struct ibv_cq *ibcq);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
struct sroce_cq *sroce_cq_alloc(void);
int sroce_cq_created(struct sroce_cq *cq, struct ibv_context *ibctx, int ret,
		     const struct sroce_ring_info *info, const char *verb, int cqe);
void sroce_cq_free(struct sroce_cq *cq);
int sroce_cq_read(struct sroce_cq *cq, struct sroce_cqe *cqe);
void sroce_cq_release(struct sroce_cq *cq);

/* cq_ex.c */
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);

/* mr.c */
struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int sroce_dereg_mr(struct verbs_mr *vmr);
struct ibv_mr *sroce_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				   uint64_t iova, int fd, int access);
int sroce_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int sroce_dealloc_mw(struct ibv_mw *mw);
int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
#if SROCE_HAVE_DMAH
struct ibv_dmah *sroce_alloc_dmah(struct ibv_context *ibctx, struct ibv_dmah_init_attr *attr);
int sroce_dealloc_dmah(struct ibv_dmah *dmah);
struct ibv_mr *sroce_reg_mr_ex(struct ibv_pd *pd, struct ibv_mr_init_attr *attr);
#endif

/* cntr.c */
#if SROCE_HAVE_COMP_CNTR
struct ibv_comp_cntr *sroce_create_comp_cntr(struct ibv_context *ibctx,
					     struct ibv_comp_cntr_init_attr *attr);
int sroce_destroy_comp_cntr(struct ibv_comp_cntr *cc);
int sroce_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *cc,
			      struct ibv_qp_attach_comp_cntr_attr *attr);
#endif

/* dm.c */
struct ibv_dm *sroce_alloc_dm(struct ibv_context *ibctx,
			      struct ibv_alloc_dm_attr *attr);
int sroce_free_dm(struct ibv_dm *ibdm);
struct ibv_dm *sroce_import_dm(struct ibv_context *ibctx, uint32_t dm_handle);
void sroce_unimport_dm(struct ibv_dm *ibdm);
struct ibv_mr *sroce_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			       uint64_t dm_offset, size_t length,
			       unsigned int access);

/* import.c */
struct ibv_pd *sroce_import_pd(struct ibv_context *ibctx, uint32_t pd_handle);
void sroce_unimport_pd(struct ibv_pd *ibpd);
struct ibv_mr *sroce_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void sroce_unimport_mr(struct ibv_mr *ibmr);

/* qp.c */
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_modify_qp_rate_limit(struct ibv_qp *ibqp, struct ibv_qp_rate_limit_attr *attr);
int sroce_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx, struct ibv_qp_open_attr *attr);
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int sroce_sq_check_postable(const struct sroce_qp *qp);
bool sroce_sq_publish(struct sroce_qp *qp, uint32_t prod);
int sroce_sq_kick(struct sroce_qp *qp, bool published);

/* qp_ex.c */
int sroce_qpx_check(struct ibv_context *ibctx, enum ibv_qp_type type,
		    uint64_t send_ops_flags);
void sroce_qpx_init(struct sroce_qp *qp, uint64_t send_ops_flags);

#endif /* SROCE_PROVIDER_H */
