// SPDX-License-Identifier: GPL-2.0
/*
 * sroce driver attributes for RDMA netlink resource dumps: what
 * `rdma resource show qp|cq|mr|srq -dd` prints after the core's fields
 * (Documentation/cli.rst, "Driver attributes in rdma resource").
 *
 * The core calls these from a RES_*_GET dump in process context, holding
 * a restrack reference: destruction waits for it before the driver's
 * destroy runs, so the object and its rings are alive. Each callback
 * takes a snapshot under the lock that the data path holds for those
 * fields, then writes the attributes with no lock held. Every value is
 * a plain copy: nothing here trusts, follows or changes what user space
 * wrote into a mapped ring.
 */
#include <rdma/restrack.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"
#include "restrack.h"
#include "cq.h"
#include "mr.h"
#include "odp.h"

/*
 * Writing one RDMA_NLDEV_ATTR_DRIVER table: sroce_res_begin(), the
 * attributes, sroce_res_end(). The first failure (a full message) makes
 * the rest no-ops and the end cancels the table.
 */
struct sroce_res_w {
	struct sk_buff *msg;
	struct nlattr *table;
	int err;
};

static void sroce_res_begin(struct sroce_res_w *w, struct sk_buff *msg)
{
	w->msg = msg;
	w->table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	w->err = w->table ? 0 : -EMSGSIZE;
}

static void sroce_res_u32(struct sroce_res_w *w, const char *name, u32 v)
{
	if (!w->err)
		w->err = rdma_nl_put_driver_u32(w->msg, name, v);
}

static void sroce_res_x32(struct sroce_res_w *w, const char *name, u32 v)
{
	if (!w->err)
		w->err = rdma_nl_put_driver_u32_hex(w->msg, name, v);
}

static void sroce_res_u64(struct sroce_res_w *w, const char *name, u64 v)
{
	if (!w->err)
		w->err = rdma_nl_put_driver_u64(w->msg, name, v);
}

static void sroce_res_str(struct sroce_res_w *w, const char *name, const char *s)
{
	if (!w->err)
		w->err = rdma_nl_put_driver_string(w->msg, name, s);
}

/*
 * Return: 0, or -EMSGSIZE when the message is full: the core then ends
 * this dump message before the entry and retries it in the next one.
 */
static int sroce_res_end(struct sroce_res_w *w)
{
	if (w->err) {
		if (w->table)
			nla_nest_cancel(w->msg, w->table);
		return -EMSGSIZE;
	}
	nla_nest_end(w->msg, w->table);
	return 0;
}

static const char *sroce_res_qp_state(enum ib_qp_state s)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return (unsigned int)s < ARRAY_SIZE(names) && names[s] ? names[s] : "UNKNOWN";
}

/* A ring's producer, written by user space for a user QP: a plain copy */
static u32 sroce_res_ring_prod(const struct sroce_queue *q)
{
	return READ_ONCE(q->hdr->producer);
}

/*
 * A QP's state and transport, copied under qp->lock (the state under
 * qp->state_lock too, taken in the order sroce_modify_qp() takes them)
 */
struct sroce_res_qp {
	enum ib_qp_state state;
	u32 sq_prod, sq_cons, sq_flags, rq_prod, rq_cons;
	u32 next_psn, una_psn, epsn, msn;
	u32 rd_out, rd_answer;
	u32 retry_left, rnr_left, backoff;
	bool rnr_wait, need_retry;
	u32 cwnd;
	bool selrep, selrep_peer;
	u32 sr_held;
	bool wide, wide_peer, wide_rd_peer;
	bool dcqcn;
	u32 dcqcn_rc, dcqcn_rt, dcqcn_alpha;
	bool dcqcn_limited;
	u32 rate_limit;
};

static void sroce_res_qp_snap(struct sroce_qp *qp, struct sroce_res_qp *s)
{
	const struct sroce_req *req = &qp->req;

	spin_lock_bh(&qp->lock);
	spin_lock_irq(&qp->state_lock);
	s->state = qp->state;
	spin_unlock_irq(&qp->state_lock);
	s->sq_prod = sroce_res_ring_prod(qp->sq);
	s->sq_cons = qp->sq->cons;
	s->sq_flags = READ_ONCE(qp->sq->hdr->flags);
	s->rq_prod = sroce_res_ring_prod(qp->rq);
	s->rq_cons = qp->rq->cons;
	s->next_psn = req->psn;
	s->una_psn = req->una_psn;
	s->epsn = qp->resp.psn;
	s->msn = qp->resp.msn;
	s->rd_out = req->rd_outstanding;
	s->rd_answer = qp->resp.rd_tail - qp->resp.rd_head;
	s->retry_left = req->retry_left;
	s->rnr_left = req->rnr_left;
	s->backoff = req->backoff;
	s->rnr_wait = req->rnr_wait;
	s->need_retry = req->need_retry;
	s->cwnd = req->cwnd.cwnd;
	s->selrep = qp->opt.selrep;
	s->selrep_peer = qp->opt.selrep_peer;
	s->sr_held = qp->resp.sr_held;
	s->wide = qp->opt.wide;
	s->wide_peer = qp->opt.wide_peer;
	s->wide_rd_peer = qp->opt.wide_rd_peer;
	s->dcqcn = qp->dcqcn.on;
	s->dcqcn_rc = qp->dcqcn.rp.rc;
	s->dcqcn_rt = qp->dcqcn.rp.rt;
	s->dcqcn_alpha = qp->dcqcn.rp.alpha;
	s->dcqcn_limited = qp->dcqcn.rp.limited;
	s->rate_limit = qp->dcqcn.rl;
	spin_unlock_bh(&qp->lock);
}

/* An opt-in: not offered, offered (waiting for the peer's), on */
static const char *sroce_res_opt(bool offered, bool peer)
{
	if (!offered)
		return "off";
	return peer ? "on" : "offered";
}

/**
 * sroce_fill_res_qp_entry() - ib_device_ops.fill_res_qp_entry
 * @msg: the dump message
 * @ibqp: the QP (alive: the core holds its restrack entry)
 *
 * Every QP: its state and ring indices. Connected QPs add the requester
 * (next PSN, last acknowledged PSN; RC and XRC INI: READs outstanding,
 * retry budgets left, the loss window), the responder (expected PSN, MSN,
 * READs being answered), selective repeat, wide segments and, when on,
 * DCQCN. The PSNs
 * and the MSN only to a reader sroce_qp_psns_visible() allows.
 *
 * Return: 0 or -EMSGSIZE.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	enum ib_qp_type type = ibqp->qp_type;
	struct sroce_res_qp s;
	struct sroce_res_w w;
	bool psns;

	sroce_res_qp_snap(qp, &s);
	psns = sroce_qp_psns_visible(ibqp);
	sroce_res_begin(&w, msg);
	sroce_res_str(&w, "qp_state", sroce_res_qp_state(s.state));
	if (qp->has_sq) {
		sroce_res_u32(&w, "sq_prod", s.sq_prod);
		sroce_res_u32(&w, "sq_cons", s.sq_cons);
		sroce_res_x32(&w, "sq_flags", s.sq_flags);
	}
	if (qp->has_rq) {
		sroce_res_u32(&w, "rq_prod", s.rq_prod);
		sroce_res_u32(&w, "rq_cons", s.rq_cons);
	}
	if (!sroce_qpt_connected(type))
		return sroce_res_end(&w);

	if (type != IB_QPT_XRC_TGT && psns) {
		sroce_res_u32(&w, "next_psn", s.next_psn);
		sroce_res_u32(&w, "last_acked_psn", sroce_psn_add(s.una_psn, SROCE_PSN_MASK));
	}
	if (type == IB_QPT_RC || type == IB_QPT_XRC_INI) {
		sroce_res_u32(&w, "rd_outstanding", s.rd_out);
		sroce_res_u32(&w, "retry_left", s.retry_left);
		sroce_res_u32(&w, "rnr_retry_left", s.rnr_left);
		sroce_res_u32(&w, "backoff", s.backoff);
		sroce_res_u32(&w, "rnr_wait", s.rnr_wait);
		sroce_res_u32(&w, "go_back", s.need_retry);
		sroce_res_u32(&w, "cwnd", s.cwnd);
	}
	if (type != IB_QPT_XRC_INI && psns) {
		sroce_res_u32(&w, "expected_psn", s.epsn);
		sroce_res_u32(&w, "msn", s.msn);
	}
	if (type == IB_QPT_RC || type == IB_QPT_XRC_TGT)
		sroce_res_u32(&w, "rd_answering", s.rd_answer);
	if (type == IB_QPT_RC) {
		sroce_res_str(&w, "sr", sroce_res_opt(s.selrep, s.selrep_peer));
		if (s.selrep && s.selrep_peer)
			sroce_res_u32(&w, "sr_held", s.sr_held);
		sroce_res_str(&w, "wide", sroce_res_opt(s.wide, s.wide_peer));
		sroce_res_str(&w, "wide_rd", sroce_res_opt(s.wide, s.wide_rd_peer));
	}
	if (s.dcqcn) {
		sroce_res_u32(&w, "dcqcn_rate_kbps", s.dcqcn_rc);
		sroce_res_u32(&w, "dcqcn_target_kbps", s.dcqcn_rt);
		sroce_res_u32(&w, "dcqcn_alpha", s.dcqcn_alpha);
		sroce_res_u32(&w, "dcqcn_limited", s.dcqcn_limited);
	}
	if (s.rate_limit)
		sroce_res_u32(&w, "rate_limit_kbps", s.rate_limit);
	return sroce_res_end(&w);
}

static const char *sroce_res_cq_arm(u8 notify)
{
	switch (notify) {
	case IB_CQ_NEXT_COMP:
		return "next";
	case IB_CQ_SOLICITED:
		return "solicited";
	default:
		return "no";
	}
}

/**
 * sroce_fill_res_cq_entry() - ib_device_ops.fill_res_cq_entry
 * @msg: the dump message
 * @ibcq: the CQ
 *
 * The ring (entries; head: where the transport writes the next CQE;
 * tail: the consumer's index, user space's for a user CQ; the CQEs
 * between them), the arming, the overflow state and the completions the
 * CQ lost to it.
 *
 * Return: 0 or -EMSGSIZE.
 */
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = sroce_to_cq(ibcq);
	u32 entries, head, tail, overflows;
	struct sroce_res_w w;
	unsigned long flags;
	bool overflow;
	u8 notify;

	spin_lock_irqsave(&cq->lock, flags);
	entries = cq->queue->num_entries;
	head = cq->queue->prod;
	tail = cq->user ? READ_ONCE(cq->queue->hdr->consumer) : cq->queue->cons;
	notify = cq->notify;
	overflow = cq->overflow;
	overflows = cq->overflows;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_res_begin(&w, msg);
	sroce_res_u32(&w, "cq_entries", entries);
	sroce_res_u32(&w, "cq_head", head);
	sroce_res_u32(&w, "cq_tail", tail);
	/* from a user tail: any value, a plain difference */
	sroce_res_u32(&w, "cq_pending", head - tail);
	sroce_res_str(&w, "armed", sroce_res_cq_arm(notify));
	sroce_res_u32(&w, "overflow", overflow);
	sroce_res_u32(&w, "overflows", overflows);
	return sroce_res_end(&w);
}

static const char *sroce_res_mr_type(const struct sroce_mr *mr)
{
	if (mr->odp.umem)
		return mr->odp.implicit ? "odp_implicit" : "odp";
	if (mr->dmabuf)
		return "dmabuf";
	if (mr->umem)
		return "user";
	if (mr->dm)
		return "dm";
	if (mr->frmr)
		return "fast_reg";
	return "dma";
}

/**
 * sroce_fill_res_mr_entry() - ib_device_ops.fill_res_mr_entry
 * @msg: the dump message
 * @ibmr: the MR
 *
 * Its kind (user, odp, dmabuf, dm, fast_reg, dma) and pages: those a
 * user, dma-buf or DM MR spans; of an ODP MR the pages of its range,
 * those mapped now, and the faults it took (and those that failed); of a
 * fast-registration MR the pages the last REG_MR registered, its
 * capacity and whether it is registered (valid).
 *
 * Return: 0 or -EMSGSIZE.
 */
int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct sroce_mr *mr = sroce_to_mr(ibmr);
	struct sroce_odp *odp = &mr->odp;
	struct sroce_res_w w;
	u64 faults, errs, npages, odp_mapped;
	u32 mapped;
	bool valid;

	sroce_res_begin(&w, msg);
	sroce_res_str(&w, "mr_type", sroce_res_mr_type(mr));
	if (odp->umem) {
		spin_lock_bh(&odp->lock);
		faults = odp->faults;
		errs = odp->fault_errs;
		spin_unlock_bh(&odp->lock);
		sroce_odp_usage(mr, &npages, &odp_mapped);
		sroce_res_u64(&w, "npages", npages);
		sroce_res_u64(&w, "odp_mapped", odp_mapped);
		if (odp->implicit)
			sroce_res_u64(&w, "odp_children", READ_ONCE(odp->nchildren));
		sroce_res_u64(&w, "odp_faults", faults);
		sroce_res_u64(&w, "odp_fault_errs", errs);
	} else if (mr->frmr) {
		read_lock_bh(&mr->lock);
		mapped = mr->npbl;
		valid = mr->valid;
		read_unlock_bh(&mr->lock);
		sroce_res_u64(&w, "npages", mapped);
		sroce_res_u32(&w, "max_pages", mr->max_pbl);
		sroce_res_u32(&w, "valid", valid);
	} else {
		/* set at registration, never changed (rereg makes a new MR) */
		sroce_res_u64(&w, "npages", mr->npages);
	}
	if (sroce_mr_dmah_cpu(ibmr) >= 0)
		sroce_res_u32(&w, "dmah_cpu", sroce_mr_dmah_cpu(ibmr));
	return sroce_res_end(&w);
}

/**
 * sroce_fill_res_srq_entry() - ib_device_ops.fill_res_srq_entry, where
 *	the core has it (compat.h)
 * @msg: the dump message
 * @ibsrq: the SRQ
 *
 * The ring (entries, producer and consumer indices, receives posted and
 * not taken yet) and the limit (0: not armed).
 *
 * Return: 0 or -EMSGSIZE.
 */
int sroce_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	struct sroce_srq *srq = sroce_to_srq(ibsrq);
	u32 entries, prod, cons, limit;
	struct sroce_res_w w;

	spin_lock_bh(&srq->lock);
	entries = srq->rq->num_entries;
	prod = sroce_res_ring_prod(srq->rq);
	cons = srq->rq->cons;
	limit = srq->limit;
	spin_unlock_bh(&srq->lock);

	sroce_res_begin(&w, msg);
	sroce_res_u32(&w, "srq_entries", entries);
	sroce_res_u32(&w, "srq_prod", prod);
	sroce_res_u32(&w, "srq_cons", cons);
	sroce_res_u32(&w, "srq_posted", prod - cons);
	sroce_res_u32(&w, "srq_limit", limit);
	return sroce_res_end(&w);
}
