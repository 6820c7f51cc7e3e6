// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: queue pairs.
 *
 * The SQ and RQ are kernel-allocated rings mmapped at create time. Posting
 * writes WQEs into the slots and publishes them with one release store of
 * the producer index per call. A system call (a post_send or post_recv
 * with no WRs, the "doorbell") is made only when the kernel asked for one
 * with SROCE_RING_F_NEED_WAKEUP in the ring's flags: on the SQ when the
 * send worker has gone to sleep, on the RQ only while the QP is in ERR
 * (new RQEs must be flushed). In normal operation the RQ never takes one.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "sroce.h"

/* The ABI reuses libibverbs' values and layouts; keep them in step. */
static_assert(sizeof(struct ibv_sge) == sizeof(struct sroce_sge), "sge");
static_assert(offsetof(struct ibv_sge, addr) ==
	      offsetof(struct sroce_sge, addr), "sge.addr");
static_assert(offsetof(struct ibv_sge, length) ==
	      offsetof(struct sroce_sge, length), "sge.length");
static_assert(offsetof(struct ibv_sge, lkey) ==
	      offsetof(struct sroce_sge, lkey), "sge.lkey");
static_assert((int)IBV_WR_SEND_WITH_INV == (int)IB_UVERBS_WR_SEND_WITH_INV,
	      "opcode");
static_assert((int)IBV_WR_ATOMIC_FETCH_AND_ADD ==
	      (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, "opcode");

/* what create_qp_ex takes; create_flags must be 0 */
#define SROCE_QP_INIT_ATTR_MASK (IBV_QP_INIT_ATTR_PD | \
				 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | \
				 IBV_QP_INIT_ATTR_XRCD)

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Map one work queue. num_entries 0 means the queue has no ring (the RQ of
 * a QP with an SRQ, or a queue created with zero WRs); posting to it fails
 * with EINVAL.
 */
static int sroce_wq_map(struct sroce_wq *wq, int cmd_fd,
			const struct sroce_ring_info *info, size_t hdr_size)
{
	int ret;

	if (!info->num_entries)
		return 0;
	ret = sroce_ring_map(&wq->ring, cmd_fd, info, hdr_size);
	if (ret)
		return ret;
	wq->ring.own = sroce_load_acquire(&wq->ring.hdr->producer);
	return 0;
}

static void sroce_qp_free(struct sroce_qp *qp)
{
	sroce_ring_unmap(&qp->sq.ring);
	sroce_ring_unmap(&qp->rq.ring);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
}

/* A zeroed QP with its two ring locks (sroce_qp_free() undoes it) */
static struct sroce_qp *sroce_qp_alloc(void)
{
	struct sroce_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	if (pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE)) {
		free(qp);
		return NULL;
	}
	if (pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE)) {
		pthread_spin_destroy(&qp->sq.lock);
		free(qp);
		return NULL;
	}
	return qp;
}

/* The QP types create_qp_ex takes, each with what it must not ask: an errno or 0 */
static int sroce_qp_check_type(struct ibv_context *ibctx,
			       const struct ibv_qp_init_attr_ex *attr)
{
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		return 0;
	case IBV_QPT_XRC_SEND:
		/*
		 * An XRC INI QP only sends: no RQ, no SRQ (a receive CQ is
		 * ignored, as libibverbs and the kernel do).
		 */
		if (attr->srq || attr->cap.max_recv_wr || attr->cap.max_recv_sge) {
			sroce_err(ibctx, "create_qp: an XRC send QP has no receive side: srq %s, max_recv_wr %u, max_recv_sge %u",
				  attr->srq ? "set" : "none", attr->cap.max_recv_wr,
				  attr->cap.max_recv_sge);
			return EINVAL;
		}
		return 0;
	case IBV_QPT_XRC_RECV:
		/* an XRC TGT QP: no queues, nothing to post, no ops to offer */
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd) {
			sroce_err(ibctx, "create_qp: an XRC receive QP without an XRC domain");
			return EINVAL;
		}
		if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
			sroce_err(ibctx, "create_qp: send_ops_flags on an XRC receive QP (it has no SQ)");
			return EINVAL;
		}
		return 0;
	default:
		sroce_err(ibctx, "create_qp: qp_type %d not supported (RC, UC, UD, XRC)",
			  attr->qp_type);
		return EOPNOTSUPP;
	}
}

/* What create_qp_ex refuses before asking the kernel: an errno or 0 */
static int sroce_qp_check_init(struct ibv_context *ibctx,
			       const struct ibv_qp_init_attr_ex *attr)
{
	int ret;

	if (attr->comp_mask & ~SROCE_QP_INIT_ATTR_MASK) {
		sroce_err(ibctx, "create_qp: comp_mask 0x%x: unsupported bits 0x%x",
			  attr->comp_mask, attr->comp_mask & ~SROCE_QP_INIT_ATTR_MASK);
		return EOPNOTSUPP;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags) {
		sroce_err(ibctx, "create_qp: create_flags 0x%x not supported",
			  attr->create_flags);
		return EOPNOTSUPP;
	}
	ret = sroce_qp_check_type(ibctx, attr);
	if (ret)
		return ret;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		return sroce_qpx_check(ibctx, attr->qp_type, attr->send_ops_flags);
	return 0;
}

/* The kernel's create_qp, with create_flags (0, checked) not passed on */
static int sroce_qp_cmd_create(struct ibv_context *ibctx, struct sroce_qp *qp,
			       struct ibv_qp_init_attr_ex *attr,
			       struct usroce_create_qp_resp *resp)
{
	struct usroce_create_qp cmd;
	uint32_t comp_mask;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	memset(resp, 0, sizeof(*resp));
	comp_mask = attr->comp_mask;
	attr->comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp->ibv_resp, sizeof(*resp));
	attr->comp_mask = comp_mask;
	if (ret)
		sroce_dbg(ibctx, "create_qp: the kernel refused: %s", strerror(ret));
	return ret;
}

/* Map the rings the kernel described (an SRQ QP has none for receives) */
static int sroce_qp_map_rings(struct ibv_context *ibctx, struct sroce_qp *qp,
			      const struct ibv_qp_init_attr_ex *attr,
			      const struct usroce_create_qp_resp *resp)
{
	int ret;

	ret = sroce_wq_map(&qp->sq, ibctx->cmd_fd, &resp->sq,
			   sizeof(struct sroce_send_wqe));
	if (!ret && attr->srq && resp->rq.num_entries)
		ret = EPROTO;	/* an SRQ QP has no RQ ring */
	if (!ret)
		ret = sroce_wq_map(&qp->rq, ibctx->cmd_fd, &resp->rq,
				   sizeof(struct sroce_recv_wqe));
	if (ret)
		sroce_err(ibctx, "create_qp: mapping the rings the kernel described: %s",
			  strerror(ret));
	return ret;
}

/*
 * What a slot can hold bounds what the kernel granted; report the
 * effective limits back to the caller.
 */
static void sroce_qp_set_limits(struct sroce_qp *qp, struct ibv_qp_init_attr_ex *attr)
{
	uint32_t room;

	if (qp->sq.ring.map) {
		room = qp->sq.ring.entry_size - sizeof(struct sroce_send_wqe);
		qp->sq.max_sge = min_u32(attr->cap.max_send_sge,
					 room / sizeof(struct sroce_sge));
		qp->max_inline = min_u32(attr->cap.max_inline_data, room);
		attr->cap.max_send_sge = qp->sq.max_sge;
		attr->cap.max_inline_data = qp->max_inline;
	}
	if (qp->rq.ring.map) {
		room = qp->rq.ring.entry_size - sizeof(struct sroce_recv_wqe);
		qp->rq.max_sge = min_u32(attr->cap.max_recv_sge,
					 room / sizeof(struct sroce_sge));
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}
}

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct usroce_create_qp_resp resp;
	struct sroce_qp *qp;
	int ret;

	ret = sroce_qp_check_init(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = sroce_qp_alloc();
	if (!qp)
		return NULL;
	ret = sroce_qp_cmd_create(ibctx, qp, attr, &resp);
	if (ret)
		goto err_free;
	ret = sroce_qp_map_rings(ibctx, qp, attr, &resp);
	if (ret)
		goto err_destroy;
	sroce_qp_set_limits(qp, attr);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		sroce_qpx_init(qp, attr->send_ops_flags);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	sroce_qp_free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex;
	struct ibv_qp *qp;

	/* ibv_qp_init_attr is the leading part of ibv_qp_init_attr_ex */
	memset(&attr_ex, 0, sizeof(attr_ex));
	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd;
	qp = sroce_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/*
 * Going to RESET empties the queues. We are the only writer of the
 * producer indices, so re-reading them is a no-op unless the kernel
 * rewound the ring, in which case we follow it.
 */
static void sroce_wq_resync(struct sroce_wq *wq)
{
	pthread_spin_lock(&wq->lock);
	if (wq->ring.map)
		wq->ring.own = sroce_load_acquire(&wq->ring.hdr->producer);
	pthread_spin_unlock(&wq->lock);
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ib_uverbs_ex_modify_qp_resp resp_ex;
	struct sroce_qp *qp = to_sqp(ibqp);
	struct ibv_modify_qp_ex cmd_ex;
	struct ibv_modify_qp cmd;
	int ret;

	/* the rate limit travels in the extended command only */
	if (attr_mask & IBV_QP_RATE_LIMIT) {
		memset(&cmd_ex, 0, sizeof(cmd_ex));
		ret = ibv_cmd_modify_qp_ex(ibqp, attr, attr_mask, &cmd_ex, sizeof(cmd_ex),
					   &resp_ex, sizeof(resp_ex));
	} else {
		ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	}
	if (ret) {
		sroce_qp_dbg(qp, "modify_qp: the kernel refused attr_mask 0x%x: %s", attr_mask,
			     strerror(ret));
		return ret;
	}
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
		sroce_wq_resync(&qp->sq);
		sroce_wq_resync(&qp->rq);
		/* no completion of the QP's past survives the reset */
		if (ibqp->send_cq)
			sroce_cq_clean(to_scq(ibqp->send_cq), ibqp->qp_num);
		if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
			sroce_cq_clean(to_scq(ibqp->recv_cq), ibqp->qp_num);
	}
	return 0;
}

/*
 * ibv_open_qp(): another process's (or context's) XRC TGT QP, found by its
 * number in an XRC domain both share. A TGT QP has no rings: the opened
 * handle is for modify, query and events only (posting to it fails with
 * EINVAL, as on the QP it opens); ibv_destroy_qp() closes the handle.
 */
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx, struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ibv_open_qp cmd;
	struct sroce_qp *qp;
	int ret;

	qp = sroce_qp_alloc();
	if (!qp)
		return NULL;
	ret = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd, sizeof(cmd),
			      &resp, sizeof(resp));
	if (ret) {
		sroce_dbg(ibctx, "open_qp: the kernel refused qp_num %u: %s", attr->qp_num,
			  strerror(ret));
		sroce_qp_free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret) {
		sroce_qp_dbg(qp, "destroy_qp: the kernel refused: %s", strerror(ret));
		return ret;
	}
	sroce_qp_free(qp);
	return 0;
}

/* --- post_send ----------------------------------------------------------- */

/*
 * Posting to a QP in RESET is an error (EINVAL), as is posting to a queue
 * without a ring (an SRQ QP's RQ, a queue of zero WRs). libibverbs tracks
 * the state through modify_qp (and query_qp).
 */
static int sroce_wq_check_postable(const struct sroce_qp *qp,
				   const struct sroce_wq *wq, const char *verb)
{
	if (!wq->ring.map) {
		sroce_qp_err(qp, "%s: the QP has no such queue (created with 0 WRs, an SRQ, or XRC)",
			     verb);
		return EINVAL;
	}
	if (qp->vqp.qp.state == IBV_QPS_RESET) {
		sroce_qp_err(qp, "%s: the QP is in RESET", verb);
		return EINVAL;
	}
	return 0;
}

int sroce_sq_check_postable(const struct sroce_qp *qp)
{
	return sroce_wq_check_postable(qp, &qp->sq, "post_send");
}

/* Everything that can make a WR fail is checked before its slot is touched. */
static int sroce_check_send_wr(const struct sroce_qp *qp,
			       const struct ibv_send_wr *wr)
{
	uint64_t len = 0;
	int i, ret;

	if (!sroce_opcode_ok(qp->vqp.qp.qp_type, wr->opcode)) {
		sroce_qp_err(qp, "post_send: opcode %d not supported on qp_type %d", wr->opcode,
			     qp->vqp.qp.qp_type);
		return EINVAL;
	}
	ret = sroce_check_send_flags(qp, wr->send_flags);
	if (ret)
		return ret;
	if (wr->num_sge < 0) {
		sroce_qp_err(qp, "post_send: num_sge %d", wr->num_sge);
		return EINVAL;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah) {
		sroce_qp_err(qp, "post_send: UD work request without an AH");
		return EINVAL;
	}
	if (wr->opcode == IBV_WR_BIND_MW) {
		if (wr->bind_mw.mw)
			return 0;
		sroce_qp_err(qp, "post_send: BIND_MW without an MW");
		return EINVAL;
	}
	if (sroce_opcode_is_atomic(wr->opcode) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != 8)) {
		sroce_qp_err(qp, "post_send: atomic opcode %d needs one 8-byte SGE (num_sge %d, length %u)",
			     wr->opcode, wr->num_sge, wr->num_sge ? wr->sg_list[0].length : 0);
		return EINVAL;
	}

	if (!(wr->send_flags & IBV_SEND_INLINE))
		return sroce_check_num_sge(qp, wr->num_sge);
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return sroce_check_inline(qp, wr->opcode, len);
}

static void sroce_write_send_wqe(const struct sroce_qp *qp, void *slot,
				 const struct ibv_send_wr *wr)
{
	struct sroce_send_wqe *w;
	int i;

	w = sroce_wqe_init(slot, wr->wr_id, wr->opcode, wr->send_flags);
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w->ex = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		/* bit for bit, as uverbs passes ib_uverbs_send_wr.ex */
		w->ex = (__be32)wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		/* no data: the bind is the whole request */
		sroce_wqe_set_bind(w, wr->bind_mw.mw, wr->bind_mw.rkey,
				   &wr->bind_mw.bind_info);
		return;
	default:
		break;
	}

	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		sroce_wqe_set_xrc(w, wr->qp_type.xrc.remote_srqn);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		sroce_wqe_set_ud(w, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				 wr->wr.ud.remote_qkey);
	else if (sroce_opcode_is_atomic(wr->opcode))
		sroce_wqe_set_atomic(w, wr->wr.atomic.rkey,
				     wr->wr.atomic.remote_addr,
				     wr->wr.atomic.compare_add,
				     wr->wr.atomic.swap);
	else if (wr->opcode == IBV_WR_RDMA_WRITE ||
		 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		 wr->opcode == IBV_WR_RDMA_READ)
		sroce_wqe_set_rdma(w, wr->wr.rdma.rkey,
				   wr->wr.rdma.remote_addr);

	if (wr->send_flags & IBV_SEND_INLINE) {
		sroce_wqe_add_inline(w, NULL, 0);
		for (i = 0; i < wr->num_sge; i++)
			sroce_wqe_add_inline(w,
				(void *)(uintptr_t)wr->sg_list[i].addr,
				wr->sg_list[i].length);
	} else {
		sroce_wqe_set_sges(w, wr->sg_list, wr->num_sge);
	}
}

/*
 * After publishing a producer index: does the kernel want a doorbell?
 * Our producer store must be visible before we look at the flag, and the
 * kernel sets the flag before its last look at the producer: either it
 * sees our entries or we see the flag.
 */
static bool sroce_need_wakeup(struct sroce_ring *r)
{
	atomic_thread_fence(memory_order_seq_cst);
	return sroce_load_relaxed(&r->hdr->flags) & SROCE_RING_F_NEED_WAKEUP;
}

/*
 * The doorbell: a legacy write() of POST_SEND with no WRs on the command
 * fd. (Through libibverbs' ioctl wrapper, an empty post is refused.)
 */
static int sroce_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wr_count = 0;
	cmd.sge_count = 0;
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(ibqp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno;
	return 0;
}

/* The same for the RQ (only used to flush receives posted in ERR). */
static int sroce_rq_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_recv_resp resp;
	struct ibv_post_recv cmd = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	if (write(ibqp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno;
	return 0;
}

/*
 * Publish the entries written up to @prod (the caller holds the ring's
 * lock) and say whether anything was published.
 */
static bool sroce_ring_publish(struct sroce_ring *r, uint32_t prod)
{
	if (prod == r->own)
		return false;
	r->own = prod;
	sroce_store_release(&r->hdr->producer, prod);
	return true;
}

/* After the lock is dropped: ring the doorbell if the kernel asked for one. */
static int sroce_ring_kick(struct ibv_qp *ibqp, struct sroce_ring *r,
			   bool published, int (*doorbell)(struct ibv_qp *))
{
	if (!published || !sroce_need_wakeup(r))
		return 0;
	return doorbell(ibqp);
}

bool sroce_sq_publish(struct sroce_qp *qp, uint32_t prod)
{
	return sroce_ring_publish(&qp->sq.ring, prod);
}

int sroce_sq_kick(struct sroce_qp *qp, bool published)
{
	return sroce_ring_kick(&qp->vqp.qp, &qp->sq.ring, published,
			       sroce_doorbell);
}

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_ring *r = &qp->sq.ring;
	struct ibv_send_wr *first = wr;
	struct sroce_send_wqe *slot;
	bool published = false;
	uint32_t prod, cons;
	int ret, dret;

	pthread_spin_lock(&qp->sq.lock);
	ret = sroce_sq_check_postable(qp);
	if (ret)
		goto out;
	prod = r->own;
	cons = sroce_load_acquire(&r->hdr->consumer);
	for (; wr; wr = wr->next) {
		ret = sroce_check_send_wr(qp, wr);
		if (ret)
			break;
		slot = sroce_sq_slot(r, prod, &cons);
		if (!slot) {
			sroce_qp_dbg(qp, "post_send: SQ full (%u work requests outstanding)",
				     r->num_entries);
			ret = ENOMEM;
			break;
		}
		sroce_write_send_wqe(qp, slot, wr);
		prod++;
	}

	/* publish what was written, even if a later WR failed */
	published = sroce_sq_publish(qp, prod);
out:
	pthread_spin_unlock(&qp->sq.lock);

	/*
	 * Outside the lock: the doorbell only has to follow our own producer
	 * store. If it fails, the WRs are in the ring regardless and run at
	 * the next wake-up; report the failure on the first one.
	 */
	dret = sroce_sq_kick(qp, published);
	if (dret && !ret) {
		sroce_qp_err(qp, "post_send: the doorbell failed: %s", strerror(dret));
		ret = dret;
		wr = first;
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* --- post_recv ----------------------------------------------------------- */

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_ring *r = &qp->rq.ring;
	struct ibv_recv_wr *first = wr;
	bool published = false;
	uint32_t prod, cons;
	int ret = 0, dret;

	pthread_spin_lock(&qp->rq.lock);
	ret = sroce_wq_check_postable(qp, &qp->rq, "post_recv");
	if (ret)
		goto out;
	prod = r->own;
	cons = sroce_load_acquire(&r->hdr->consumer);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_sge) {
			sroce_qp_err(qp, "post_recv: num_sge %d > max_recv_sge %u", wr->num_sge,
				     qp->rq.max_sge);
			ret = EINVAL;
			break;
		}
		ret = sroce_ring_put_recv(r, &prod, &cons, wr);
		if (ret) {
			sroce_qp_dbg(qp, "post_recv: RQ full (%u work requests posted)",
				     r->num_entries);
			break;
		}
	}
	published = sroce_ring_publish(r, prod);
out:
	pthread_spin_unlock(&qp->rq.lock);

	/*
	 * The responder takes RQEs when packets arrive, so normally there is
	 * no doorbell: the kernel sets NEED_WAKEUP on the RQ only in ERR,
	 * where new RQEs are to be flushed.
	 */
	dret = sroce_ring_kick(ibqp, r, published, sroce_rq_doorbell);
	if (dret && !ret) {
		sroce_qp_err(qp, "post_recv: the doorbell failed: %s", strerror(dret));
		ret = dret;
		wr = first;
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * ibv_modify_qp_rate_limit(): the kernel's pacer holds the QP's request
 * packets to rate_limit kbit/s (0 lifts it) in bursts of at most 16 KiB;
 * a burst size of its own is not offered (max_burst_sz must be 0), the
 * typical packet size is a hint it does not need.
 */
int sroce_modify_qp_rate_limit(struct ibv_qp *ibqp, struct ibv_qp_rate_limit_attr *attr)
{
	struct ibv_qp_attr qattr = { .rate_limit = attr->rate_limit };

	if (attr->max_burst_sz) {
		sroce_qp_dbg(to_sqp(ibqp),
			     "modify_qp_rate_limit: max_burst_sz %u (the burst is fixed: 0 only)",
			     attr->max_burst_sz);
		return EOPNOTSUPP;
	}
	return sroce_modify_qp(ibqp, &qattr, IBV_QP_RATE_LIMIT);
}
