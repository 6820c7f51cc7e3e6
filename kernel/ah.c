// SPDX-License-Identifier: GPL-2.0
/*
 * sroce address handles, and the address vector -> path resolution shared
 * with RC QPs (modify_qp to RTR).
 *
 * An AH is the destination of UD sends: a RoCEv2 source GID and a
 * destination GID, both IPv4-mapped or both IPv6, resolved once into a
 * struct sroce_path (addresses, traffic class, hop limit, flow label). The
 * route itself is looked up per packet by xmit.c, as for RC.
 *
 * Every AH gets a small id in the device's AH table. A UD WQE names its AH
 * by that id (user space cannot hand the kernel a pointer), and the send
 * path resolves it with sroce_ah_path(), which only accepts an AH of the
 * QP's own PD: an id guessed or copied from another context is refused.
 * The path lives in a separately allocated, RCU-freed block, so a lookup
 * racing destroy_ah (which may run in atomic context) never touches freed
 * memory.
 */
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "ah.h"

/* The AH id a kernel WQE carries (kpost.c) */
u32 sroce_ah_id(struct ib_ah *ibah)
{
	return sroce_to_ah(ibah)->id;
}

void sroce_ah_init_dev(struct sroce_dev *sdev)
{
	/* destroy_ah may come from atomic context, with interrupts off */
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sdev->ah_next = 1;
}

void sroce_ah_cleanup_dev(struct sroce_dev *sdev)
{
	/* the core destroyed every AH before dealloc_driver */
	WARN_ON_ONCE(!xa_empty(&sdev->ah_xa));
	xa_destroy(&sdev->ah_xa);
}

/**
 * sroce_path_from_ah_attr() - resolve an address vector into a path
 * @ah: the address vector (QP AV or AH attributes); must carry a GRH whose
 *	source GID is a RoCEv2 GID of port 1 on @ndev
 * @ndev: the device's netdev, the only one sroce sends on
 * @path: filled in on success; the UDP source port is left 0
 * @why: on error, set to what is wrong (for the caller's debug message)
 *
 * The core's GID table also holds the addresses of the netdev's upper
 * devices (a VLAN, in any network namespace): sroce would send their
 * packets untagged, on its own netdev, from an address that is not its
 * own (another namespace's, for IPv6 not even checked by the route), so
 * a source GID of another netdev is refused.
 *
 * Return: 0, or -EINVAL for no GRH, another port, a non-RoCEv2 source GID,
 * a source GID of another netdev or mixed IPv4/IPv6 GIDs.
 */
int sroce_path_from_ah_attr(const struct rdma_ah_attr *ah, const struct net_device *ndev,
			    struct sroce_path *path, const char **why)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid;
	const struct net_device *gid_ndev;
	const union ib_gid *dgid;

	memset(path, 0, sizeof(*path));
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH)) {
		*why = "no GRH (is_global 0; RoCE needs one)";
		return -EINVAL;
	}
	if (rdma_ah_get_port_num(ah) != SROCE_PORT) {
		*why = "port_num is not 1";
		return -EINVAL;
	}
	grh = rdma_ah_read_grh(ah);
	sgid = grh->sgid_attr;
	if (!sgid || sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		*why = "sgid_index does not name a RoCE v2 GID";
		return -EINVAL;
	}
	rcu_read_lock();
	gid_ndev = rdma_read_gid_attr_ndev_rcu(sgid);
	rcu_read_unlock();	/* compared only, never used */
	if (IS_ERR(gid_ndev)) {
		*why = "sgid_index names a GID whose netdev is gone";
		return -EINVAL;
	}
	if (gid_ndev != ndev) {
		*why = "sgid_index names a GID of another netdev (an upper device: a VLAN)";
		return -EINVAL;
	}
	dgid = &grh->dgid;
	path->ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)sgid->gid.raw);
	if (path->ipv6 == ipv6_addr_v4mapped((const struct in6_addr *)dgid->raw)) {
		*why = path->ipv6 ? "IPv6 source GID, IPv4-mapped destination GID" :
				    "IPv4-mapped source GID, IPv6 destination GID";
		return -EINVAL;
	}
	if (path->ipv6) {
		memcpy(&path->saddr6, sgid->gid.raw, sizeof(path->saddr6));
		memcpy(&path->daddr6, dgid->raw, sizeof(path->daddr6));
	} else {
		memcpy(&path->saddr4, sgid->gid.raw + 12, 4);
		memcpy(&path->daddr4, dgid->raw + 12, 4);
	}
	path->tos = grh->traffic_class;
	path->ttl = grh->hop_limit ? grh->hop_limit : 64;
	path->flow_label = grh->flow_label & 0xfffff;
	return 0;
}

/**
 * sroce_create_ah() - ib_device_ops.create_ah and create_user_ah
 * @ibah: the AH (core-allocated)
 * @init: attributes; init->flags has RDMA_CREATE_AH_SLEEPABLE when we may
 *	sleep
 * @udata: user AH: receives struct sroce_create_ah_resp (the id); input
 *	must be empty
 *
 * Return: 0, -EINVAL for an unusable address vector or udata, -ENOMEM when
 * out of memory or ids, -EFAULT.
 */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	gfp_t gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL : GFP_ATOMIC;
	struct sroce_dev *sdev = sroce_to_dev(ibah->device);
	struct sroce_create_ah_resp resp = {};
	struct sroce_ah *ah = sroce_to_ah(ibah);
	struct sroce_ah_info *info;
	unsigned long flags;
	const char *why;
	u32 id;
	int err;

	if (udata) {
		if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
			sroce_dbg_dev(ibah->device,
				      "create_ah: %zu bytes of driver data not zero (takes none)",
				      udata->inlen);
			return -EINVAL;
		}
		if (udata->outlen < sizeof(resp)) {
			sroce_dbg_dev(ibah->device, "create_ah: response %zu bytes < %zu",
				      udata->outlen, sizeof(resp));
			return -EINVAL;
		}
	}
	/* a user AH is charged to its creator's memory cgroup */
	if (udata)
		gfp |= __GFP_ACCOUNT;
	info = kzalloc(sizeof(*info), gfp);
	if (!info)
		return -ENOMEM;
	err = sroce_path_from_ah_attr(init->ah_attr, sdev->ndev, &info->path, &why);
	if (err) {
		sroce_dbg_dev(ibah->device, "create_ah: address vector: %s", why);
		goto err_free_info;
	}
	info->pd = ibah->pd;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	err = __xa_alloc_cyclic(&sdev->ah_xa, &id, info,
				XA_LIMIT(1, SROCE_MAX_AH), &sdev->ah_next,
				GFP_ATOMIC | (udata ? __GFP_ACCOUNT : 0));
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	if (err < 0) {
		sroce_dbg_dev(ibah->device,
			      "create_ah: no AH id (the device has max_ah %d): error %d",
			      SROCE_MAX_AH, err);
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_free_info;
	}
	ah->id = id;
	ah->info = info;

	if (udata) {
		resp.ah_id = id;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_dbg_dev(ibah->device, "create_ah: response not writable (%d)", err);
			goto err_erase_id;
		}
	}
	return 0;

err_erase_id:
	xa_lock_irqsave(&sdev->ah_xa, flags);
	__xa_erase(&sdev->ah_xa, id);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
err_free_info:
	/* may have been visible to lookups (err_erase_id) */
	kfree_rcu(info, rcu);
	return err;
}

/**
 * sroce_destroy_ah() - the AH object goes
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0 (maybe atomic); we never sleep
 *
 * The device op is sroce_ud_destroy_ah(): when the caller may sleep (user
 * AHs), it first sends the datagrams already posted on the PD's UD QPs, as
 * a NIC has read their address at the doorbell (sroce_ud_send_posted_pd()).
 * WQEs that still name the id and are sent after this fail their lookup
 * and complete in error.
 *
 * Return: 0.
 */
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = sroce_to_dev(ibah->device);
	struct sroce_ah *ah = sroce_to_ah(ibah);
	unsigned long irqflags;

	xa_lock_irqsave(&sdev->ah_xa, irqflags);
	__xa_erase(&sdev->ah_xa, ah->id);
	xa_unlock_irqrestore(&sdev->ah_xa, irqflags);
	kfree_rcu(ah->info, rcu);
	ah->info = NULL;
	return 0;
}

/**
 * sroce_ah_path() - resolve a WQE's AH id for a QP
 * @sdev: the device
 * @pd: the sending QP's PD
 * @id: the id from the WQE (hostile for a user QP)
 * @path: the AH's path on success
 *
 * Context: any.
 * Return: true if @id names a live AH of @pd.
 */
bool sroce_ah_path(struct sroce_dev *sdev, struct ib_pd *pd, u32 id,
		   struct sroce_path *path)
{
	struct sroce_ah_info *info;
	bool ok = false;

	rcu_read_lock();
	info = xa_load(&sdev->ah_xa, id);
	if (info && info->pd == pd) {
		*path = info->path;
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}
