// SPDX-License-Identifier: GPL-2.0
/*
 * sroce QPs: the object, its QPN table and lookups for the receive path.
 * The QP verbs (create, modify, destroy, query) are qp_verbs.c's; what
 * runs a QP's transport is sched.c's.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "trace.h"

#define SROCE_QPN_MIN		16

/* QPNs are unique module-wide: the receive path finds a QP from the BTH
 * alone, then checks the namespace.
 */
static DEFINE_XARRAY_ALLOC(sroce_qp_xa);
static u32 sroce_next_qpn;

/* the scheduler's hooks (sched.c registers them at module init) */
const struct sroce_sched_hooks *sroce_qp_sched __read_mostly;

/**
 * sroce_qp_set_sched() - register the scheduler's hooks
 * @hooks: what sroce_qp_kick() and its siblings call; NULL at module exit
 *
 * Called before any device exists and after the last one is gone.
 */
void sroce_qp_set_sched(const struct sroce_sched_hooks *hooks)
{
	WRITE_ONCE(sroce_qp_sched, hooks);
}

/**
 * sroce_qp_get_net() - find a QP for a received packet
 * @net: namespace of the socket the packet arrived on
 * @qpn: BTH destination QP
 *
 * Any context.
 * Return: the QP with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_get_net(struct net *net, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = sroce_qp_tryget(xa_load(&sroce_qp_xa, qpn));
	rcu_read_unlock();
	if (qp && !net_eq(dev_net(qp->sdev->ndev), net)) {
		sroce_qp_put(qp);
		qp = NULL;
	}
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->h->ref))
		complete(&qp->freed);
}

/**
 * sroce_qp_tryget() - a reference to the QP behind a handle found under RCU
 * @h: the handle, or NULL
 *
 * Context: under rcu_read_lock() (or holding a reference already).
 * Return: the QP with a reference, or NULL when @h is NULL or its QP is
 * being destroyed.
 */
struct sroce_qp *sroce_qp_tryget(struct sroce_qp_handle *h)
{
	return h && refcount_inc_not_zero(&h->ref) ? h->qp : NULL;
}

/**
 * sroce_qp_psns_visible() - may the calling process see @ibqp's PSNs and MSN?
 * @ibqp: the QP
 *
 * They are what a packet injected into the QP's connection must guess (a
 * local user can send UDP to port 4791 from any address of the host): only
 * to a caller with CAP_NET_ADMIN (as the core shows keys) or the QP's own
 * process. A restrack dump runs in the reader's context (netlink sendmsg,
 * then recvmsg).
 *
 * Return: true if the caller is the QP's process or has CAP_NET_ADMIN.
 */
bool sroce_qp_psns_visible(const struct ib_qp *ibqp)
{
	struct task_struct *owner = ibqp->res.task;

	if (owner && same_thread_group(owner, current))
		return true;	/* the owner's own calls: no capability check */
	return ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
}

/* ib_qp pointer for a QPN, for kernel CQ polling */
/*
 * The pointer is the kernel consumer's to use, as with any CQE of a QP it
 * has not destroyed yet. A GSI QP is found through the device; its
 * destroy waits a grace period after unpublishing it.
 */
struct ib_qp *sroce_qp_from_qpn(struct sroce_dev *sdev, u32 qpn)
{
	struct ib_qp *ibqp = NULL;
	struct sroce_qp *qp;

	rcu_read_lock();
	if (qpn == SROCE_GSI_QPN) {
		qp = READ_ONCE(sdev->gsi_qp);
		if (qp && qp->sdev == sdev)
			ibqp = &qp->ibqp;
	} else {
		qp = sroce_qp_tryget(xa_load(&sroce_qp_xa, qpn));
		if (qp) {
			if (qp->sdev == sdev)
				ibqp = &qp->ibqp;
			sroce_qp_put(qp);
		}
	}
	rcu_read_unlock();
	return ibqp;
}

/**
 * sroce_qp_peer_ok() - does a packet come from the RC QP's connected peer?
 * @qp: destination QP
 * @iph: the packet's IP header
 * @v6: @iph is IPv6
 *
 * Also called without qp->lock (sroce_rcv(), before queueing): the path
 * is read word by word, so a modify_qp changing it meanwhile may make the
 * answer stale but never reads torn words; the transport checks again
 * under the lock.
 *
 * Return: true when @iph's IP version and source address are those of the
 * QP's path (its destination).
 */
bool sroce_qp_peer_ok(struct sroce_qp *qp, const u8 *iph, bool v6)
{
	const struct in6_addr *saddr;
	int i;

	if (v6 != READ_ONCE(qp->path.ipv6))
		return false;
	if (!v6)
		return ((const struct iphdr *)iph)->saddr == READ_ONCE(qp->path.daddr4);
	saddr = &((const struct ipv6hdr *)iph)->saddr;
	for (i = 0; i < 4; i++)
		if (saddr->s6_addr32[i] != READ_ONCE(qp->path.daddr6.s6_addr32[i]))
			return false;
	return true;
}

/* May @qp complete to @ibcq? An XRC TGT QP: to the CQ of any XRC SRQ */
static bool sroce_qp_may_complete_to(const struct sroce_qp *qp, const struct ib_cq *ibcq)
{
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		return qp->ibqp.device == ibcq->device;
	return qp->ibqp.send_cq == ibcq || qp->ibqp.recv_cq == ibcq;
}

/*
 * The next published QP at or after *@index that @match accepts (with
 * @arg), with a reference; *@index is set to its QPN. NULL at the end.
 */
static struct sroce_qp *sroce_qp_next_match(bool (*match)(const struct sroce_qp *qp,
							  const void *arg),
					    const void *arg, unsigned long *index)
{
	struct sroce_qp_handle *h;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	xa_for_each_start(&sroce_qp_xa, *index, h, *index) {
		qp = sroce_qp_tryget(h);
		if (qp && match(qp, arg))
			break;
		if (qp)
			sroce_qp_put(qp);
		qp = NULL;
	}
	rcu_read_unlock();
	return qp;
}

static bool sroce_qp_match_cq(const struct sroce_qp *qp, const void *ibcq)
{
	return !ibcq || sroce_qp_may_complete_to(qp, ibcq);
}

/**
 * sroce_qp_next() - iterate over the published QPs
 * @ibcq: only QPs that may complete to this CQ (send or receive; XRC TGT
 *	QPs of its device), or NULL for all
 * @index: QPN to start at; set to the QPN of the QP returned
 *
 * Return: the next QP at or after *@index, with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_next(struct ib_cq *ibcq, unsigned long *index)
{
	return sroce_qp_next_match(sroce_qp_match_cq, ibcq, index);
}

static bool sroce_qp_match_ud_rts(const struct sroce_qp *qp, const void *pd)
{
	return qp->ibqp.qp_type == IB_QPT_UD && qp->ibqp.pd == pd &&
	       READ_ONCE(qp->state) == IB_QPS_RTS;
}

/**
 * sroce_qp_next_ud_rts() - walk the UD QPs of a PD that are in RTS
 * @pd: the PD
 * @index: QPN to start at; set to the QPN of the QP returned
 *
 * Return: the next such QP at or after *@index, with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_next_ud_rts(struct ib_pd *pd, unsigned long *index)
{
	return sroce_qp_next_match(sroce_qp_match_ud_rts, pd, index);
}

/* Raise an affiliated asynchronous event of @qp. */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_qp_set_error() - move the QP to ERR and raise IB_EVENT_QP_FATAL
 * @qp: the QP, its transport running here (qp->lock held)
 *
 * The scheduler flushes the QP's work requests when the round ends.
 */
void sroce_qp_set_error(struct sroce_qp *qp)
{
	unsigned long flags;
	bool changed;

	lockdep_assert_held(&qp->lock);

	spin_lock_irqsave(&qp->state_lock, flags);
	changed = qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET;
	if (changed) {
		trace_sroce_qp_state(qp->ibqp.qp_num, qp->state, IB_QPS_ERR);
		qp->state = IB_QPS_ERR;
		qp->attr.qp_state = IB_QPS_ERR;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (changed)
		sroce_qp_event(qp, IB_EVENT_QP_FATAL);
}

/* A QP state's name, for debug messages */
const char *sroce_qp_state_name(enum ib_qp_state state)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT", [IB_QPS_RTR] = "RTR",
		[IB_QPS_RTS] = "RTS", [IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return (unsigned int)state < ARRAY_SIZE(names) ? names[state] : "(bad state)";
}

/* ---- the QPN table ---------------------------------------------------- */

/*
 * Reserve a QPN >= 16 (lookups find nothing until sroce_qp_publish()),
 * never 0xffffff: the multicast DQPN (IBTA), whose packets go to groups.
 */
int sroce_qp_alloc_qpn(u32 *qpn)
{
	return xa_alloc_cyclic(&sroce_qp_xa, qpn, NULL,
			       XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX - 1),
			       &sroce_next_qpn, GFP_KERNEL_ACCOUNT);
}

/* Publish @qp at its reserved @qpn: the receive path finds it from now on. */
int sroce_qp_publish(struct sroce_qp *qp, u32 qpn)
{
	return xa_err(xa_store(&sroce_qp_xa, qpn, qp->h, GFP_KERNEL_ACCOUNT));
}

/* Release @qpn, reserved or published. */
void sroce_qp_unpublish(u32 qpn)
{
	xa_erase(&sroce_qp_xa, qpn);
}
