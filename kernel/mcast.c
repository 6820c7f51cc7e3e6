// SPDX-License-Identifier: GPL-2.0
/*
 * sroce UD multicast (IBTA 10.5, Annex A17: RoCEv2 multicast is IP
 * multicast).
 *
 * attach_mcast adds a UD QP to a group named by its multicast GID (an
 * IPv4-mapped 224.0.0.0/4 address or an IPv6 ff00::/8 one) and, for the
 * first QP of a group on a device, joins the IP group on the device's
 * netdev so the network stack delivers the group's datagrams to our UDP
 * socket (and loops back the ones we send). A datagram for destination
 * QPN 0xFFFFFF is then handed to every QP of the device attached to the
 * group it was sent to (recv.c). Attachments are one module-wide list,
 * read under RCU on receive, changed under sroce_mc_mutex.
 *
 * Every successful attach is undone by exactly one successful detach: the
 * core counts both in the QP's usecnt and refuses to destroy a QP whose
 * count is not back to zero, also when the process exits. uverbs keeps one
 * attachment per (GID, LID) and calls us for each, and on RoCE the LID
 * means nothing: attaching a QP to a group it is in already (another LID)
 * takes a reference on its attachment, and detaching drops one.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "qp.h"
#include "mcast.h"

/**
 * struct sroce_mc_att - one QP attached to one group
 * @node: entry in sroce_mc_list
 * @rcu: freed after the receive path's readers
 * @sdev: the QP's device
 * @mgid: the group
 * @h: the QP's handle (sroce_qp_tryget()); destroy_qp detaches the QP
 *	before it frees the handle, a grace period after this
 * @refs: successful attaches not detached yet (under sroce_mc_mutex)
 */
struct sroce_mc_att {
	struct list_head node;
	struct rcu_head rcu;
	struct sroce_dev *sdev;
	union ib_gid mgid;
	struct sroce_qp_handle *h;
	unsigned int refs;
};

static LIST_HEAD(sroce_mc_list);
static DEFINE_MUTEX(sroce_mc_mutex);

static bool sroce_mgid_v4(const union ib_gid *mgid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw);
}

/* @qp's attachment to @mgid, or NULL; under the mutex. */
static struct sroce_mc_att *sroce_mc_find(struct sroce_qp *qp, const union ib_gid *mgid)
{
	struct sroce_mc_att *a;

	lockdep_assert_held(&sroce_mc_mutex);
	list_for_each_entry(a, &sroce_mc_list, node)
		if (a->h == qp->h && !memcmp(&a->mgid, mgid, sizeof(*mgid)))
			return a;
	return NULL;
}

/* Attachments of @sdev (to @mgid, or to any group), under the mutex. */
static int sroce_mc_count(struct sroce_dev *sdev, const union ib_gid *mgid)
{
	struct sroce_mc_att *a;
	int n = 0;

	lockdep_assert_held(&sroce_mc_mutex);
	list_for_each_entry(a, &sroce_mc_list, node)
		if (a->sdev == sdev && (!mgid || !memcmp(&a->mgid, mgid, sizeof(*mgid))))
			n++;
	return n;
}

/* Join (@join) or leave the IP group @mgid on @sdev's netdev. */
static int sroce_mc_ip(struct sroce_dev *sdev, const union ib_gid *mgid, bool join)
{
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	int err = 0;

	if (!ndev)
		return -ENODEV;
	/* both IP layers change a device's groups under RTNL only */
	rtnl_lock();
	if (!sroce_mgid_v4(mgid)) {
		err = join ? ipv6_dev_mc_inc(ndev, (const struct in6_addr *)mgid->raw) :
			     ipv6_dev_mc_dec(ndev, (const struct in6_addr *)mgid->raw);
		goto out_unlock;
	}
	in_dev = __in_dev_get_rtnl(ndev);
	if (!in_dev)
		err = -ENODEV;
	else if (join)
		ip_mc_inc_group(in_dev, *(__be32 *)(mgid->raw + 12));
	else
		ip_mc_dec_group(in_dev, *(__be32 *)(mgid->raw + 12));
out_unlock:
	rtnl_unlock();
	return err;
}

/**
 * sroce_attach_mcast() - ib_device_ops.attach_mcast
 * @ibqp: a UD QP (the core checked the type and that @gid is multicast)
 * @gid: the group
 * @lid: unused on RoCE
 *
 * Return: 0 (also when already attached: one more reference, one more
 * detach to leave), -ENOMEM past the device's limits, or the IP layer's
 * error joining the group.
 */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = sroce_to_qp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mc_att *a, *old;
	int in_grp, err = 0;

	if (ibqp->qp_type != IB_QPT_UD) {
		sroce_dbg_qp(qp, "attach_mcast: qp_type %d (UD only)", ibqp->qp_type);
		return -EINVAL;
	}
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;
	a->sdev = sdev;
	a->mgid = *gid;
	a->h = qp->h;
	a->refs = 1;

	mutex_lock(&sroce_mc_mutex);
	old = sroce_mc_find(qp, gid);
	if (old) {
		/* IBTA: attaching twice is no error; uverbs: another LID */
		if (old->refs == UINT_MAX) {
			sroce_dbg_qp(qp, "attach_mcast: %pI6: attached %u times already", gid->raw,
				     old->refs);
			err = -ENOMEM;
		} else {
			old->refs++;
		}
		goto out_free;
	}
	in_grp = sroce_mc_count(sdev, gid);
	if (in_grp >= SROCE_MAX_MCAST_QP_ATTACH) {
		sroce_dbg_qp(qp, "attach_mcast: %pI6 has max_mcast_qp_attach %d QPs already",
			     gid->raw, SROCE_MAX_MCAST_QP_ATTACH);
		err = -ENOMEM;
		goto out_free;
	}
	if (sroce_mc_count(sdev, NULL) >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH) {
		sroce_dbg_qp(qp,
			     "attach_mcast: the device has max_total_mcast_qp_attach %d attachments already",
			     SROCE_MAX_TOTAL_MCAST_QP_ATTACH);
		err = -ENOMEM;
		goto out_free;
	}
	if (!in_grp) {
		err = sroce_mc_ip(sdev, gid, true);
		if (err) {
			sroce_dbg_qp(qp, "attach_mcast: joining the IP group of %pI6: error %d",
				     gid->raw, err);
			goto out_free;
		}
	}
	list_add_tail_rcu(&a->node, &sroce_mc_list);
	mutex_unlock(&sroce_mc_mutex);
	return 0;

out_free:
	mutex_unlock(&sroce_mc_mutex);
	kfree(a);
	return err;
}

/* Unlink attachment @a; leave its IP group if it was the last one. */
static void sroce_mc_remove(struct sroce_mc_att *a)
{
	lockdep_assert_held(&sroce_mc_mutex);
	list_del_rcu(&a->node);
	if (!sroce_mc_count(a->sdev, &a->mgid))
		sroce_mc_ip(a->sdev, &a->mgid, false);
	kfree_rcu(a, rcu);
}

/**
 * sroce_detach_mcast() - ib_device_ops.detach_mcast
 * @ibqp: the QP
 * @gid: the group
 * @lid: unused on RoCE
 *
 * Drops one reference; the last one leaves the group.
 *
 * Return: 0, or -EINVAL when @ibqp is not attached to @gid.
 */
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_mc_att *a;
	int err = 0;

	mutex_lock(&sroce_mc_mutex);
	a = sroce_mc_find(sroce_to_qp(ibqp), gid);
	if (!a) {
		sroce_dbg_qp(sroce_to_qp(ibqp), "detach_mcast: %pI6: not attached", gid->raw);
		err = -EINVAL;
	} else if (!--a->refs) {
		sroce_mc_remove(a);
	}
	mutex_unlock(&sroce_mc_mutex);
	return err;
}

/**
 * sroce_mc_qp_gone() - detach a QP being destroyed from every group
 * @qp: the QP, unpublished; an RCU grace period follows before it is freed
 *
 * Normally there is none left: the core refuses to destroy a QP whose
 * attaches were not all undone (and detaches a user QP's at close).
 */
void sroce_mc_qp_gone(struct sroce_qp *qp)
{
	struct sroce_mc_att *a, *tmp;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	mutex_lock(&sroce_mc_mutex);
	list_for_each_entry_safe(a, tmp, &sroce_mc_list, node)
		if (a->h == qp->h)
			sroce_mc_remove(a);
	mutex_unlock(&sroce_mc_mutex);
}

/**
 * sroce_mc_get_qps() - the QPs a multicast datagram goes to
 * @ndev: the netdev it arrived on (a looped-back one: the one it left by)
 * @mgid: its destination address as a GID
 * @qps: filled with referenced QPs (sroce_qp_put() each)
 * @max: room in @qps
 *
 * Context: softirq.
 * Return: the number of QPs.
 */
int sroce_mc_get_qps(const struct net_device *ndev, const union ib_gid *mgid,
		     struct sroce_qp **qps, int max)
{
	struct sroce_mc_att *a;
	int n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &sroce_mc_list, node) {
		if (n == max)
			break;
		if (READ_ONCE(a->sdev->ndev) != ndev || memcmp(&a->mgid, mgid, sizeof(*mgid)))
			continue;
		qps[n] = sroce_qp_tryget(a->h);
		if (qps[n])
			n++;
	}
	rcu_read_unlock();
	return n;
}
