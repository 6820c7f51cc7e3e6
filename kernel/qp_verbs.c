// SPDX-License-Identifier: GPL-2.0
/*
 * sroce QP verbs: create, modify (the IBTA state machine), destroy and
 * query. They sit above the scheduler and the roles, which they set up and
 * stop; the QP object and its QPN table are qp.c's.
 */
#include <linux/module.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "odp.h"
#include "qp.h"
#include "cntr.h"
#include "qp_verbs.h"
#include "queue.h"
#include "srq.h"
#include "mcast.h"
#include "sroce_psn.h"
#include "trace.h"
#include "sched.h"
#include "ah.h"
#include "ud.h"
#include "responder.h"
#include "completer.h"
#include "dcqcn.h"
#include "recv.h"

/* the access flags modify_qp takes */
#define SROCE_QP_ACCESS		(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |	\
				 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE |	\
				 IB_ACCESS_ON_DEMAND | SROCE_ACCESS_FLUSH_GLOBAL |	\
				 SROCE_ACCESS_FLUSH_PERSISTENT | SROCE_QP_ACCESS_FLUSH_IGNORED)

/* ---- create / destroy ------------------------------------------------ */

/* The send queue's capabilities, as every QP type with an SQ asks them */
static int sroce_qp_check_send_cap(struct sroce_dev *sdev, const struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > SROCE_MAX_QP_WR) {
		sroce_dbg_dev(&sdev->ib_dev, "create_qp: max_send_wr %u > max %d",
			      cap->max_send_wr, SROCE_MAX_QP_WR);
		return -EINVAL;
	}
	if (cap->max_send_sge > SROCE_MAX_SGE) {
		sroce_dbg_dev(&sdev->ib_dev, "create_qp: max_send_sge %u > max %d",
			      cap->max_send_sge, SROCE_MAX_SGE);
		return -EINVAL;
	}
	if (cap->max_inline_data > SROCE_MAX_INLINE) {
		sroce_dbg_dev(&sdev->ib_dev, "create_qp: max_inline_data %u > max %d",
			      cap->max_inline_data, SROCE_MAX_INLINE);
		return -EINVAL;
	}
	return 0;
}

/*
 * XRC QPs: an INI QP only sends (a send CQ, no RQ, no receive CQ, no SRQ);
 * a TGT QP has no queues and no CQs at all, only its XRC domain (the core
 * creates it without a PD and without udata, even for user space, and
 * hands user space a shared handle of its own). An INI QP needs a user
 * ring: a kernel ib_send_wr cannot name the remote XRC SRQ.
 */
static int sroce_qp_check_xrc(struct sroce_dev *sdev, struct ib_qp_init_attr *init,
			      struct ib_udata *udata)
{
	struct ib_device *ibdev = &sdev->ib_dev;
	struct ib_qp_cap *cap = &init->cap;

	/*
	 * A TGT QP has no queues: the capabilities it asks for (perftest asks
	 * for receive ones) are ignored and reported back as 0, as hardware
	 * does. An INI QP that asks for receives is refused.
	 */
	if (init->qp_type == IB_QPT_XRC_TGT) {
		if (init->xrcd)
			return 0;
		sroce_dbg_dev(ibdev, "create_qp: XRC TGT QP without an XRC domain");
		return -EINVAL;
	}
	if (init->srq || init->recv_cq || cap->max_recv_wr || cap->max_recv_sge) {
		sroce_dbg_dev(ibdev,
			      "create_qp: XRC INI QP only sends: srq %s, recv_cq %s, max_recv_wr %u, max_recv_sge %u (all must be none/0)",
			      init->srq ? "set" : "none", init->recv_cq ? "set" : "none",
			      cap->max_recv_wr, cap->max_recv_sge);
		return -EINVAL;
	}
	if (!udata) {
		sroce_dbg_dev(ibdev,
			      "create_qp: XRC INI QP for a kernel consumer (user space only)");
		return -EOPNOTSUPP;
	}
	if (!init->send_cq) {
		sroce_dbg_dev(ibdev, "create_qp: XRC INI QP without a send_cq");
		return -EINVAL;
	}
	return sroce_qp_check_send_cap(sdev, cap);
}

static int sroce_qp_check_init(struct sroce_dev *sdev, struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	struct ib_device *ibdev = &sdev->ib_dev;
	struct ib_qp_cap *cap = &init->cap;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		if (init->create_flags) {
			sroce_dbg_dev(ibdev, "create_qp: create_flags 0x%x not supported",
				      init->create_flags);
			return -EOPNOTSUPP;
		}
		return sroce_qp_check_xrc(sdev, init, udata);
	case IB_QPT_GSI:	/* QP1: ib_mad's, on port 1 */
		if (udata || init->port_num != SROCE_PORT) {
			sroce_dbg_dev(ibdev,
				      "create_qp: GSI QP from %s on port %u (kernel, port %d only)",
				      udata ? "user space" : "the kernel", init->port_num,
				      SROCE_PORT);
			return -EINVAL;
		}
		break;
	default:
		sroce_dbg_dev(ibdev, "create_qp: qp_type %d not supported", init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags) {
		sroce_dbg_dev(ibdev, "create_qp: create_flags 0x%x not supported",
			      init->create_flags);
		return -EOPNOTSUPP;
	}
	if (init->srq && init->qp_type == IB_QPT_GSI) {
		sroce_dbg_dev(ibdev, "create_qp: GSI QP with an SRQ");
		return -EINVAL;
	}
	if (!init->send_cq || !init->recv_cq) {
		sroce_dbg_dev(ibdev, "create_qp: send_cq %s, recv_cq %s (both needed)",
			      init->send_cq ? "set" : "none", init->recv_cq ? "set" : "none");
		return -EINVAL;
	}
	/* 0 WRs: a QP that only receives, or only sends */
	err = sroce_qp_check_send_cap(sdev, cap);
	if (err)
		return err;
	/* with an SRQ the receive capabilities are the SRQ's */
	if (init->srq)
		return 0;
	if (cap->max_recv_wr > SROCE_MAX_QP_WR) {
		sroce_dbg_dev(ibdev, "create_qp: max_recv_wr %u > max %d",
			      cap->max_recv_wr, SROCE_MAX_QP_WR);
		return -EINVAL;
	}
	if (cap->max_recv_sge > SROCE_MAX_SGE) {
		sroce_dbg_dev(ibdev, "create_qp: max_recv_sge %u > max %d",
			      cap->max_recv_sge, SROCE_MAX_SGE);
		return -EINVAL;
	}
	return 0;
}

/*
 * Free what create_qp allocated after the SQ ring (each pointer may be
 * NULL, the dst_cache never initialised): its unwind and destroy_qp.
 */
static void sroce_qp_free_bufs(struct sroce_qp *qp)
{
	dst_cache_destroy(&qp->dst_cache);
	kvfree(qp->resp.atomics);
	kvfree(qp->resp.reads);
	kfree(qp->resp.rqe);
	kvfree(qp->swqe);
	kvfree(qp->sq_shadow);
	sroce_queue_destroy(qp->rq);
}

/*
 * The rings' geometry from what the consumer asked (@init->cap): a queue
 * asked with 0 WRs gets a ring of one entry nobody may post to; with an
 * SRQ the receive side is the SRQ's; an XRC TGT QP has no queues.
 */
static void sroce_qp_set_sizes(struct sroce_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 ssge, rsge;

	if (init->qp_type == IB_QPT_XRC_TGT) {
		/* what it asked for is nothing it can have: no queues */
		memset(cap, 0, sizeof(*cap));
		qp->xrcd = init->xrcd;
	}
	ssge = max(cap->max_send_sge, 1u);
	rsge = max(cap->max_recv_sge, 1u);
	qp->has_sq = cap->max_send_wr;
	qp->has_rq = cap->max_recv_wr && !init->srq;
	qp->sq_entries = roundup_pow_of_two(max(cap->max_send_wr, 1u));
	qp->rq_entries = roundup_pow_of_two(max(cap->max_recv_wr, 1u));
	qp->sq_stride = ALIGN(sizeof(struct sroce_send_wqe) +
			      max_t(u32, ssge * sizeof(struct sroce_sge),
				    cap->max_inline_data), 16);
	qp->rq_stride = ALIGN(sizeof(struct sroce_recv_wqe) +
			      rsge * sizeof(struct sroce_sge), 16);
	if (init->srq) {
		/* an RQ of one entry nobody posts to; receives come from the SRQ */
		qp->srq = sroce_to_srq(init->srq);
		qp->rq_entries = 1;
		qp->rq_stride = qp->srq->stride;
		rsge = qp->srq->max_sge;
	}
	/* XRC TGT: room for a buffer of any XRC SRQ (sroce_recv_take()) */
	if (init->qp_type == IB_QPT_XRC_TGT)
		qp->rq_stride = ALIGN(sizeof(struct sroce_recv_wqe) +
				      SROCE_MAX_SGE * sizeof(struct sroce_sge), 16);
	qp->max_send_sge = ssge;
	qp->max_recv_sge = rsge;
	qp->max_inline = qp->sq_stride - sizeof(struct sroce_send_wqe);
}

/* The SQ and RQ rings (mappable when @udata), both or neither. */
static int sroce_qp_create_rings(struct sroce_qp *qp, struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	int err;

	qp->sq = sroce_queue_create(udata, qp->sq_entries, qp->sq_stride);
	if (IS_ERR(qp->sq)) {
		err = PTR_ERR(qp->sq);
		sroce_dbg_dev(&qp->sdev->ib_dev, "create_qp: SQ ring of %u x %u bytes: error %d",
			      qp->sq_entries, qp->sq_stride, err);
		return err;
	}
	/* an XRC INI QP's RQ is never posted to: not even mappable */
	qp->rq = sroce_queue_create(init->qp_type == IB_QPT_XRC_INI ? NULL : udata,
				    qp->rq_entries, qp->rq_stride);
	if (IS_ERR(qp->rq)) {
		err = PTR_ERR(qp->rq);
		sroce_dbg_dev(&qp->sdev->ib_dev, "create_qp: RQ ring of %u x %u bytes: error %d",
			      qp->rq_entries, qp->rq_stride, err);
		sroce_queue_destroy(qp->sq);
		return err;
	}
	return 0;
}

/*
 * The kernel-side state beside the rings: the SQ's shadow and per-WQE
 * state, the responder's buffers, the route cache. On failure what was
 * allocated stays for sroce_qp_free_bufs().
 */
static int sroce_qp_alloc_bufs(struct sroce_qp *qp, struct ib_qp_init_attr *init)
{
	qp->sq_shadow = kvcalloc(qp->sq_entries, qp->sq_stride, GFP_KERNEL_ACCOUNT);
	qp->swqe = kvcalloc(qp->sq_entries, sizeof(*qp->swqe), GFP_KERNEL_ACCOUNT);
	qp->resp.rqe = kzalloc(qp->rq_stride, GFP_KERNEL_ACCOUNT);
	qp->resp.reads = kvcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*qp->resp.reads),
				  GFP_KERNEL_ACCOUNT);
	qp->resp.atomics = kvcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*qp->resp.atomics),
				    GFP_KERNEL_ACCOUNT);
	/*
	 * An RC QP's one path is routed once; a UD QP's path changes with
	 * every WQE's AH, so its cache stays unset and every lookup misses.
	 */
	if (!qp->sq_shadow || !qp->swqe || !qp->resp.rqe || !qp->resp.reads ||
	    !qp->resp.atomics ||
	    (init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI &&
	     dst_cache_init(&qp->dst_cache, GFP_KERNEL_ACCOUNT))) {
		sroce_dbg_dev(&qp->sdev->ib_dev, "create_qp: out of memory for the QP's state");
		return -ENOMEM;
	}
	return 0;
}

/* A new QP's locks and state: RESET, path MTU 1024, run by the scheduler. */
static void sroce_qp_init_state(struct sroce_qp *qp, struct ib_qp_init_attr *init,
				struct ib_udata *udata)
{
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->mtu = 1024;
	spin_lock_init(&qp->kpost_lock);
	/* XRC TGT QPs come without udata from user space too (above) */
	qp->kernel = !udata && init->qp_type != IB_QPT_XRC_TGT;
	sroce_sched_init_qp(qp, init->qp_type);
	init_completion(&qp->freed);
	INIT_LIST_HEAD(&qp->odp_wait);
	/* the first post must ring the doorbell */
	qp->sq->hdr->flags = SROCE_RING_F_NEED_WAKEUP;
}

/* The handle the QPN table points at; it outlives the QP (RCU). */
static int sroce_qp_alloc_handle(struct sroce_qp *qp)
{
	qp->h = kzalloc(sizeof(*qp->h), GFP_KERNEL_ACCOUNT);
	if (!qp->h) {
		sroce_dbg_dev(&qp->sdev->ib_dev, "create_qp: out of memory for the QP's handle");
		return -ENOMEM;
	}
	refcount_set(&qp->h->ref, 1);
	qp->h->qp = qp;
	return 0;
}

/*
 * A user QP's number is reserved here (lookups find nothing) and
 * published only once nothing can fail any more: the receive path
 * must never find a QP that is about to be freed. QP1 is the GSI QP's.
 */
static int sroce_qp_reserve_qpn(struct sroce_qp *qp, enum ib_qp_type type, u32 *qpn)
{
	int err;

	if (type == IB_QPT_GSI) {
		*qpn = SROCE_GSI_QPN;
		err = sroce_gsi_add(qp);
	} else {
		err = sroce_qp_alloc_qpn(qpn);
	}
	if (err < 0)
		sroce_dbg_dev(&qp->sdev->ib_dev, "create_qp: no QP number (%s): error %d",
			      type == IB_QPT_GSI ? "QP1 taken" : "all in use", err);
	return err;
}

static void sroce_qp_release_qpn(struct sroce_qp *qp, enum ib_qp_type type, u32 qpn)
{
	if (type == IB_QPT_GSI)
		sroce_gsi_del(qp);
	else
		sroce_qp_unpublish(qpn);
}

/*
 * Tell the consumer what it got: the capabilities in @init->cap and, to
 * user space, the rings to map (num_entries 0: no ring to post to).
 */
static int sroce_qp_respond(struct sroce_qp *qp, struct ib_qp_init_attr *init,
			    struct ib_udata *udata, u32 qpn)
{
	struct sroce_create_qp_resp resp = {};
	struct ib_qp_cap *cap = &init->cap;
	int err;

	cap->max_send_wr = qp->has_sq ? qp->sq_entries : 0;
	cap->max_recv_wr = qp->has_rq ? qp->rq_entries : 0;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->has_rq ? qp->max_recv_sge : 0;
	cap->max_inline_data = qp->max_inline;
	if (!udata)
		return 0;
	if (qp->has_sq)
		sroce_queue_info(qp->sq, &resp.sq);
	if (qp->has_rq)
		sroce_queue_info(qp->rq, &resp.rq);
	resp.qpn = qpn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		sroce_dbg_qp(qp, "create_qp: response not writable (%d)", err);
	return err;
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = sroce_to_dev(ibqp->device);
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	u32 qpn;
	int err;

	err = sroce_qp_check_init(sdev, init, udata);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->qp_count) > SROCE_MAX_QP) {
		sroce_dbg_dev(ibqp->device, "create_qp: the device has max_qp %d QPs already",
			      SROCE_MAX_QP);
		err = -ENOMEM;
		goto err_uncount;
	}
	qp->sdev = sdev;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	sroce_qp_set_sizes(qp, init);
	err = sroce_qp_create_rings(qp, init, udata);
	if (err)
		goto err_uncount;
	err = sroce_qp_alloc_bufs(qp, init);
	if (err)
		goto err_free_bufs;
	sroce_qp_init_state(qp, init, udata);
	err = sroce_qp_alloc_handle(qp);
	if (err)
		goto err_free_bufs;
	err = sroce_qp_reserve_qpn(qp, init->qp_type, &qpn);
	if (err < 0)
		goto err_free_handle;
	ibqp->qp_num = qpn;
	err = sroce_qp_respond(qp, init, udata, qpn);
	if (err)
		goto err_release_qpn;
	if (init->qp_type != IB_QPT_GSI) {
		/* publish: a reserved entry reads as NULL until this store */
		err = sroce_qp_publish(qp, qpn);
		if (err)
			goto err_release_qpn;
	}
	return 0;

err_release_qpn:
	sroce_qp_release_qpn(qp, init->qp_type, qpn);
err_free_handle:
	kfree_rcu(qp->h, rcu);	/* never published, or unpublished just now */
err_free_bufs:
	sroce_qp_free_bufs(qp);	/* the RQ ring too */
	sroce_queue_destroy(qp->sq);
err_uncount:
	atomic_dec(&sdev->qp_count);
	return err;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);

	if (ibqp->qp_type == IB_QPT_UD)
		sroce_ud_send_posted(qp);
	spin_lock_irq(&qp->state_lock);
	trace_sroce_qp_state(ibqp->qp_num, qp->state, IB_QPS_RESET);
	qp->state = IB_QPS_RESET;
	spin_unlock_irq(&qp->state_lock);

	if (ibqp->qp_type == IB_QPT_GSI)
		sroce_gsi_del(qp);
	else
		sroce_qp_unpublish(ibqp->qp_num);
	sroce_mc_qp_gone(qp);	/* a kernel consumer may not have detached */
	/*
	 * Lookups under RCU reach the handle, never the QP, except the walk
	 * of the GSI list, which runs through the GSI QPs themselves (one per
	 * device, destroyed with it): wait for that walk to end. References
	 * taken are waited for below; a reader still holding the handle finds
	 * its count at zero.
	 */
	if (ibqp->qp_type == IB_QPT_GSI)
		synchronize_rcu();
	sroce_qp_put(qp);
	sroce_odp_qp_gone(qp);	/* else the ODP wake-up item drops its reference */
	wait_for_completion(&qp->freed);

	sroce_sched_stop_qp(qp);
	sroce_responder_release(qp);
	sroce_cntr_qp_gone(qp);

	sroce_qp_free_bufs(qp);
	sroce_queue_destroy(qp->sq);
	kfree_rcu(qp->h, rcu);
	atomic_dec(&qp->sdev->qp_count);
	return 0;
}

/* ---- modify / query -------------------------------------------------- */

static int sroce_qp_set_path(struct sroce_qp *qp, const struct ib_qp_attr *attr)
{
	struct sroce_path path;
	const char *why;
	int err;

	err = sroce_path_from_ah_attr(&attr->ah_attr, qp->sdev->ndev, &path, &why);
	if (!err)
		qp->path = path;
	else
		sroce_dbg_qp(qp, "modify_qp: ah_attr: %s", why);
	return err;
}

/* A modify_qp attribute above its limit: say which, with the values */
#define sroce_qp_attr_over(qp, mask, bit, name, val, max)			\
	({									\
		bool __over = ((mask) & (bit)) && (val) > (max);		\
										\
		if (__over)							\
			sroce_dbg_qp(qp, "modify_qp: %s %u > max %u", name,	\
				     (unsigned int)(val), (unsigned int)(max));	\
		__over;								\
	})

static int sroce_qp_check_attr(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			       int mask, bool may_priv_qkey)
{
	int port_mtu;

	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT) {
		sroce_dbg_qp(qp, "modify_qp: port_num %u (port %d only)", attr->port_num,
			     SROCE_PORT);
		return -EINVAL;
	}
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index) {
		sroce_dbg_qp(qp, "modify_qp: pkey_index %u (one P_Key, index 0)",
			     attr->pkey_index);
		return -EINVAL;
	}
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)) {
		sroce_dbg_qp(qp, "modify_qp: path_mtu %d is no IB MTU (%d..%d)", attr->path_mtu,
			     IB_MTU_256, IB_MTU_4096);
		return -EINVAL;
	}
	/* no larger than the port's active MTU: such packets would not fit */
	port_mtu = sroce_ib_mtu_from_netdev_mtu(READ_ONCE(qp->sdev->ndev->mtu));
	if ((mask & IB_QP_PATH_MTU) && (!port_mtu || attr->path_mtu > port_mtu)) {
		sroce_dbg_qp(qp,
			     "modify_qp: path_mtu %d > the port's active_mtu %d (netdev mtu %u)",
			     ib_mtu_enum_to_int(attr->path_mtu),
			     port_mtu ? ib_mtu_enum_to_int((enum ib_mtu)port_mtu) : 0,
			     READ_ONCE(qp->sdev->ndev->mtu));
		return -EINVAL;
	}
	if (sroce_qp_attr_over(qp, mask, IB_QP_TIMEOUT, "timeout", attr->timeout, 31) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_RETRY_CNT, "retry_cnt", attr->retry_cnt, 7) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_RNR_RETRY, "rnr_retry", attr->rnr_retry, 7) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_MIN_RNR_TIMER, "min_rnr_timer",
			       attr->min_rnr_timer, 31) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic",
			       attr->max_rd_atomic, SROCE_MAX_RD_ATOMIC) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic",
			       attr->max_dest_rd_atomic, SROCE_MAX_RD_ATOMIC) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_DEST_QPN, "dest_qp_num", attr->dest_qp_num,
			       SROCE_QPN_MAX))
		return -EINVAL;
	/* a controlled Q_Key (high bit set) is for privileged consumers */
	if ((mask & IB_QP_QKEY) && (attr->qkey & SROCE_QKEY_PRIVILEGED) &&
	    !may_priv_qkey) {
		sroce_dbg_qp(qp, "modify_qp: qkey 0x%x is a controlled Q_Key (needs CAP_NET_RAW)",
			     attr->qkey);
		return -EPERM;
	}
	/*
	 * ON_DEMAND is accepted (and means nothing: paging is per MR), as on
	 * NICs; the FLUSH rights are what the CM (6.2+) sets when the device
	 * can flush, and are accepted without meaning where it cannot (6.1)
	 */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SROCE_QP_ACCESS)) {
		sroce_dbg_qp(qp, "modify_qp: qp_access_flags 0x%x: unknown bits 0x%x",
			     attr->qp_access_flags, attr->qp_access_flags & ~SROCE_QP_ACCESS);
		return -EINVAL;
	}
	/* the rings are mmapped: no resize, only what they hold already */
	if (sroce_qp_attr_over(qp, mask, IB_QP_CAP, "cap.max_send_wr", attr->cap.max_send_wr,
			       qp->sq_entries) ||
	    sroce_qp_attr_over(qp, mask, IB_QP_CAP, "cap.max_recv_wr", attr->cap.max_recv_wr,
			       qp->rq_entries))
		return -EINVAL;
	return 0;
}

/*
 * Discard what a ring holds: the consumer jumps to the producer, so the
 * provider sees every slot free without having to reset its own index.
 */
static u32 sroce_queue_discard(struct sroce_queue *q)
{
	u32 prod = READ_ONCE(q->hdr->producer);

	sroce_queue_consumed(q, prod - q->cons);
	return prod;
}

/**
 * sroce_qp_opts_sample() - the device's opt-ins for a connection's lifetime
 * @qp: the QP, entering RTR (@rtr) or reset
 * @rtr: sample them from the device; false clears them
 *
 * ICRC skip (connected QPs), selective repeat (RC), adaptive routing (RC,
 * with its path count), wide segments (RC, when the netdev takes them:
 * path MTU set before) and the transmit burst stay as they were at RTR,
 * whatever the device's knobs do later; whether the peer takes part is
 * learnt from its packets (sroce_qp_icrc_learn()).
 */
static void sroce_qp_opts_sample(struct sroce_qp *qp, bool rtr)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct sroce_dev *sdev = qp->sdev;

	WRITE_ONCE(qp->opt.icrc_skip, rtr && type != IB_QPT_UD && type != IB_QPT_GSI &&
		   READ_ONCE(sdev->icrc_skip));
	qp->opt.icrc_peer = false;
	qp->opt.selrep = rtr && type == IB_QPT_RC && READ_ONCE(sdev->sr);
	qp->opt.selrep_peer = false;
	qp->opt.selrd_peer = false;
	qp->opt.rdprobe_peer = false;
	qp->opt.tx_gso = rtr && READ_ONCE(sdev->tx_gso);
	qp->opt.ar = rtr && type == IB_QPT_RC && READ_ONCE(sdev->ar);
	qp->opt.ar_peer = false;
	qp->opt.ar_paths = clamp_t(u32, READ_ONCE(sdev->ar_paths), SROCE_AR_PATHS_MIN,
				   SROCE_AR_PATHS_MAX);
	qp->opt.ar_next = 0;
	qp->opt.wide = rtr && type == IB_QPT_RC && READ_ONCE(sdev->wide) &&
		       sroce_wide_seg(qp->mtu) &&
		       READ_ONCE(sdev->ndev->mtu) >= sroce_wide_seg(qp->mtu) + SROCE_WIDE_OVERHEAD;
	qp->opt.wide_peer = false;
	qp->opt.wide_ask = false;
	qp->opt.wide_rd_peer = false;
	qp->opt.wide_rd_ask = false;
}

/* Forget all transport state: RESET, or a fresh INIT. */
static void sroce_qp_reset_transport(struct sroce_qp *qp)
{
	u32 idx;

	lockdep_assert_held(&qp->lock);

	memset(&qp->req, 0, sizeof(qp->req));
	idx = sroce_queue_discard(qp->sq);
	qp->req.comp_idx = idx;
	qp->req.send_idx = idx;
	qp->req.started = idx;
	qp->req.fetched = idx;
	sroce_queue_discard(qp->rq);
	sroce_responder_reset(qp);
	/* nothing of the old connection survives: packets, timers, their events */
	sroce_sched_rxq_purge(qp);
	timer_delete(&qp->retrans_timer);
	timer_delete(&qp->rnr_timer);
	timer_delete(&qp->sr_timer);
	/* a kick may be pending from another context: keep it (see sroce_sched_kick()) */
	clear_bit(SROCE_QP_EV_TIMEOUT, &qp->events);
	clear_bit(SROCE_QP_EV_RNR_DONE, &qp->events);
	clear_bit(SROCE_QP_EV_SR_GAP, &qp->events);
	qp->flushed = false;
	qp->sq_drained_sent = false;
	qp->comm_est_sent = false;
	sroce_qp_opts_sample(qp, false);
	sroce_dcqcn_stop(qp);	/* the rate limit goes too */
	qp->sq->hdr->flags = SROCE_RING_F_NEED_WAKEUP;
	qp->rq->hdr->flags = 0;
}

/*
 * IB_QP_RATE_LIMIT: as hardware with packet pacing takes it, on the way to
 * RTS or in RTS (RTR->RTS, RTS->RTS), here for the connected types whose
 * requester the pacer runs; 0 lifts the limit.
 */
static int sroce_qp_check_rate_limit(struct sroce_qp *qp, enum ib_qp_state next, u32 kbps)
{
	if (!sroce_qpt_connected(qp->ibqp.qp_type) || qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		sroce_dbg_qp(qp, "modify_qp: rate_limit on qp_type %d (RC, UC and XRC initiator only)",
			     qp->ibqp.qp_type);
		return -EOPNOTSUPP;
	}
	if (next != IB_QPS_RTS) {
		sroce_dbg_qp(qp, "modify_qp: rate_limit on the way to %s (to or in RTS only)",
			     sroce_qp_state_name(next));
		return -EINVAL;
	}
	if (kbps && (kbps < SROCE_RATE_LIMIT_MIN_KBPS || kbps > SROCE_RATE_LIMIT_MAX_KBPS)) {
		sroce_dbg_qp(qp, "modify_qp: rate_limit %u kbit/s outside %u..%u (or 0 for none)",
			     kbps, SROCE_RATE_LIMIT_MIN_KBPS, SROCE_RATE_LIMIT_MAX_KBPS);
		return -EINVAL;
	}
	return 0;
}

/* What modify_qp refuses before looking at the QP: unknown mask bits, driver data. */
static int sroce_qp_check_modify_args(struct sroce_qp *qp, int mask, struct ib_udata *udata)
{
	if (mask & ~IB_QP_ATTR_STANDARD_BITS) {
		sroce_dbg_qp(qp, "modify_qp: attr_mask 0x%x: unsupported bits 0x%x", mask,
			     mask & ~IB_QP_ATTR_STANDARD_BITS);
		return -EOPNOTSUPP;
	}
	if (udata && udata->inlen) {
		sroce_dbg_qp(qp, "modify_qp: %zu bytes of driver data (takes none)", udata->inlen);
		return -EINVAL;
	}
	return 0;
}

/* Whether @cur -> @next with @mask is a transition the QP may make now. */
static int sroce_qp_check_transition(struct sroce_qp *qp, struct ib_qp_attr *attr, int mask,
				     enum ib_qp_state cur, enum ib_qp_state next,
				     bool may_priv_qkey)
{
	lockdep_assert_held(&qp->state_lock);

	if (cur != qp->state) {
		sroce_dbg_qp(qp, "modify_qp: cur_qp_state %s but the QP is in %s",
			     sroce_qp_state_name(cur), sroce_qp_state_name(qp->state));
		return -EINVAL;
	}
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask)) {
		sroce_dbg_qp(qp,
			     "modify_qp: %s -> %s with attr_mask 0x%x not allowed for qp_type %d (no such transition, or an attribute missing or not allowed in it)",
			     sroce_qp_state_name(cur), sroce_qp_state_name(next), mask,
			     qp->ibqp.qp_type);
		return -EINVAL;
	}
	return sroce_qp_check_attr(qp, attr, mask, may_priv_qkey);
}

/* IB_QP_AV: the new path, its route cache emptied. */
static int sroce_qp_apply_av(struct sroce_qp *qp, struct ib_qp_attr *attr)
{
	int err;

	lockdep_assert_held(&qp->state_lock);

	err = sroce_qp_set_path(qp, attr);
	if (err)
		return err;
	dst_cache_reset(&qp->dst_cache);
	qp->attr.ah_attr = attr->ah_attr;
	/* the core's reference is only good for this call */
	qp->attr.ah_attr.grh.sgid_attr = NULL;
	return 0;
}

/* The attributes of @mask that are only stored, checked already. */
static void sroce_qp_store_attrs(struct sroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	lockdep_assert_held(&qp->state_lock);

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		WRITE_ONCE(qp->attr.qkey, attr->qkey);
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_PATH_MTU) {
		qp->attr.path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->path.sport = htons(sroce_udp_sport(qp->ibqp.qp_num,
						       qp->attr.dest_qp_num));
}

/*
 * RTR -> RTS: the requester starts at the SQ PSN with a fresh window (its
 * bounds in path-MTU packets, counting wide segments once they go; with
 * loss_window=N those of a 1024-byte MTU
 * whatever the path's, the window it always had: 128 PSNs in slow start,
 * up to 1024, never cut) and retry budget.
 */
static void sroce_qp_start_requester(struct sroce_qp *qp)
{
	qp->req.psn = qp->attr.sq_psn;
	qp->req.una_psn = qp->attr.sq_psn;
	qp->req.heard_psn = qp->attr.sq_psn;
	qp->req.hi_psn = qp->attr.sq_psn;
	if (READ_ONCE(sroce_loss_window))
		sroce_cwnd_init(&qp->req.cwnd, qp->mtu,
				qp->opt.wide ? sroce_wide_seg(qp->mtu) : qp->mtu);
	else
		sroce_cwnd_init(&qp->req.cwnd, SROCE_CWND_UNIT_MIN, SROCE_CWND_UNIT_MIN);
	qp->req.sack_valid = false;
	qp->req.probe_due = false;
	qp->req.probing = false;
	qp->req.probe_alone = false;
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->req.backoff = 0;
}

/* Move the QP from @cur to @next, doing what entering @next means. */
static void sroce_qp_enter_state(struct sroce_qp *qp, struct ib_qp_attr *attr, int mask,
				 enum ib_qp_state cur, enum ib_qp_state next)
{
	lockdep_assert_held(&qp->lock);
	lockdep_assert_held(&qp->state_lock);

	switch (next) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
		if (cur == IB_QPS_RESET || next == IB_QPS_RESET)
			sroce_qp_reset_transport(qp);
		break;
	case IB_QPS_RTR:
		qp->resp.psn = qp->attr.rq_psn;
		qp->resp.ack_psn = sroce_psn_add(qp->attr.rq_psn, SROCE_PSN_MASK);
		if (cur != IB_QPS_RTR) {
			sroce_qp_opts_sample(qp, true);
			/* likewise DCQCN (dcqcn.c) */
			sroce_dcqcn_start(qp);
		}
		break;
	case IB_QPS_SQD:
		/*
		 * The SQ Drained event is the consumer's to ask for:
		 * without the flag, count it as sent already.
		 */
		qp->sq_drained_sent = !((mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
					attr->en_sqd_async_notify);
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RTR)
			sroce_qp_start_requester(qp);
		break;
	default:
		break;
	}
	trace_sroce_qp_state(qp->ibqp.qp_num, cur, next);
	qp->state = next;
	qp->attr.qp_state = next;
	qp->attr.cur_qp_state = next;
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	int rate_limit = mask & IB_QP_RATE_LIMIT;
	enum ib_qp_state cur, next;
	bool may_priv_qkey;
	int err;

	/* the core's transition table allows it for RAW_PACKET only: ours */
	mask &= ~IB_QP_RATE_LIMIT;
	err = sroce_qp_check_modify_args(qp, mask, udata);
	if (err)
		return err;
	/* capable() may sleep (audit): ask before taking the locks */
	may_priv_qkey = !qp->ibqp.uobject ||
		!((mask & IB_QP_QKEY) && (attr->qkey & SROCE_QKEY_PRIVILEGED)) ||
		capable(CAP_NET_RAW);

	spin_lock_bh(&qp->lock);
	/* what arrived before the move is handled in the state it arrived in */
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_ERR)
		sroce_sched_settle_rx(qp);
	spin_lock_irq(&qp->state_lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	err = sroce_qp_check_transition(qp, attr, mask, cur, next, may_priv_qkey);
	if (err)
		goto out_unlock;
	if (rate_limit) {
		err = sroce_qp_check_rate_limit(qp, next, attr->rate_limit);
		if (err)
			goto out_unlock;
		sroce_dcqcn_set_rate_limit(qp, attr->rate_limit);
	}
	if (mask & IB_QP_AV) {
		err = sroce_qp_apply_av(qp, attr);
		if (err)
			goto out_unlock;
	}
	sroce_qp_store_attrs(qp, attr, mask);
	if (mask & IB_QP_STATE)
		sroce_qp_enter_state(qp, attr, mask, cur, next);
out_unlock:
	spin_unlock_irq(&qp->state_lock);
	spin_unlock_bh(&qp->lock);
	/* a kick that found us holding the lock (see sroce_sched_kick()) */
	smp_mb();
	if (test_bit(SROCE_QP_EV_KICK, &qp->events) ||
	    (!err && (mask & IB_QP_STATE) && next != cur &&
	     (next == IB_QPS_ERR || next == IB_QPS_RTS || next == IB_QPS_SQD)))
		sroce_sched_queue(qp);
	return err;
}

/**
 * sroce_query_qp() - ib_device_ops.query_qp
 * @ibqp: the QP
 * @attr: filled with its attributes
 * @mask: IB_QP_* the caller asks for (a hint: all are filled but the PSNs)
 * @init: filled with its creation attributes
 *
 * The send and receive PSNs only if @mask asks for them or
 * sroce_qp_psns_visible() allows: the core's restrack dump asks for
 * nothing (0) and shows them to any reader (rdma resource show qp).
 *
 * Return: 0.
 */
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);

	spin_lock_irq(&qp->state_lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	spin_unlock_irq(&qp->state_lock);
	if (!(mask & (IB_QP_SQ_PSN | IB_QP_RQ_PSN)) && !sroce_qp_psns_visible(ibqp)) {
		attr->sq_psn = 0;
		attr->rq_psn = 0;
	}
	attr->rate_limit = READ_ONCE(qp->dcqcn.rl);	/* kept by the pacer */
	attr->cap.max_send_wr = qp->sq_entries;
	attr->cap.max_recv_wr = qp->rq_entries;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->sq_draining = 0;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->xrcd = qp->xrcd;
	return 0;
}

