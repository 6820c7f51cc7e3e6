// SPDX-License-Identifier: GPL-2.0
/*
 * sroce - software RoCEv2 RDMA device.
 *
 * Module entry: `rdma link add NAME type sroce netdev IF` creates a device
 * bound to an Ethernet netdev, `rdma link delete NAME` removes it. A netdev
 * notifier keeps the port state in step with the netdev and removes the
 * device when its netdev goes away. The RoCE GID table itself is kept by
 * the RDMA core from the netdev's addresses (ib_device_set_netdev()).
 *
 * Device lifetime: every device sits on sroce_dev_list from newlink until it
 * is reaped, and the list holds a reference on its struct device. The RDMA
 * core calls sroce_dealloc_driver() exactly once, after unregistration (or a
 * failed registration); that is the single place that releases the netdev
 * and the socket, and it marks the entry dead. Dead entries are reaped
 * (reference dropped) only after ib_unregister_device() on them returned:
 * the core serialises unregistration, so that call is a fence against a
 * concurrent unregistration still running our dealloc_driver. Module unload
 * reaps every entry that way, so no sroce code can run after it.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "crc.h"
#include "mw.h"
#include "sched.h"
#include "debugfs.h"
#include "dcqcn.h"
#include "ah.h"
#include "main.h"
#include "mr.h"
#include "net.h"
#include "xmit.h"
#include "verbs.h"

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("sroce: software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");

static LIST_HEAD(sroce_dev_list);
static DEFINE_MUTEX(sroce_dev_lock);

/* a new device's sysfs selective_repeat (sr.c; negotiated per RC QP) */
static bool sroce_sr_default = true;
module_param_named(sr_default, sroce_sr_default, bool, 0644);
MODULE_PARM_DESC(sr_default,
		 "selective repeat allowed on devices created afterwards (their sysfs selective_repeat; default Y)");

/*
 * a new device's sysfs tx_gso (xmit.c): transmit bursts where its netdev
 * has the stack segment them before the driver (sroce_txb_segmented())
 */
static bool sroce_tx_gso_default = true;
module_param_named(tx_gso_default, sroce_tx_gso_default, bool, 0644);
MODULE_PARM_DESC(tx_gso_default,
		 "transmit bursts on devices created afterwards whose netdev has them segmented just before its driver: virtio-net, physical NICs (their sysfs tx_gso; default Y)");

/* a new device's sysfs wide_segments (negotiated per RC QP: requester.c) */
static bool sroce_wide_default = true;
module_param_named(wide_segments_default, sroce_wide_default, bool, 0644);
MODULE_PARM_DESC(wide_segments_default,
		 "wide SEND/WRITE segments between sroce peers on devices created afterwards (their sysfs wide_segments; default Y)");

static struct sroce_dev *sroce_find_by_ndev(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_dev_lock);

	list_for_each_entry(sdev, &sroce_dev_list, list)
		if (!sdev->dead && sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/**
 * sroce_dealloc_driver() - release what a device holds
 * @ibdev: the device
 *
 * Called by the RDMA core exactly once: after unregistration (`rdma link
 * delete`, netdev removal, module unload) or from ib_dealloc_device() when
 * registration failed or never happened. The core frees the memory when the
 * last device reference is gone; ours is dropped when the entry is reaped.
 */
void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);

	sroce_mr_cleanup_dev(sdev);
	sroce_mw_cleanup_dev(sdev);
	sroce_ah_cleanup_dev(sdev);
	if (sdev->udp)
		sroce_udp_put(sdev->udp);
	sdev->udp = NULL;
	if (sdev->ndev)
		netdev_put(sdev->ndev, &sdev->ndev_tracker);
	/* no QP is left to count: the core destroyed them before this call */
	free_percpu(sdev->stats);
	sdev->stats = NULL;
	percpu_counter_destroy(&sdev->rxq_bytes);	/* nothing queued: no QP */

	mutex_lock(&sroce_dev_lock);
	sdev->ndev = NULL;
	sdev->dead = true;
	mutex_unlock(&sroce_dev_lock);
}

/*
 * Reap entries: @all for module unload, otherwise only dead ones. See the
 * lifetime comment at the top of this file.
 */
static void sroce_reap(bool all)
{
	struct sroce_dev *sdev, *tmp;
	LIST_HEAD(reap);

	mutex_lock(&sroce_dev_lock);
	list_for_each_entry_safe(sdev, tmp, &sroce_dev_list, list)
		if (all || sdev->dead)
			list_move_tail(&sdev->list, &reap);
	mutex_unlock(&sroce_dev_lock);

	list_for_each_entry_safe(sdev, tmp, &reap, list) {
		list_del_init(&sdev->list);
		ib_unregister_device(&sdev->ib_dev);
		put_device(&sdev->ib_dev.dev);
	}
}

static void sroce_port_event(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	struct ib_event ev = {
		.device = &sdev->ib_dev,
		.element.port_num = SROCE_PORT,
	};

	ASSERT_RTNL();
	/* a new speed comes with a link renegotiation: carrier or up/down */
	if (sdev->last_mbps) {
		u32 mbps = sroce_link_mbps(sdev->ndev);

		if (mbps != sdev->last_mbps) {
			sdev->last_mbps = mbps;
			sroce_speed_change_event(&sdev->ib_dev, SROCE_PORT);
		}
	}
	if (state == sdev->last_port_state)
		return;
	sdev->last_port_state = state;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/**
 * sroce_set_rdma_net() - register the device in its netdev's namespace when
 *	the RDMA core isolates namespaces
 * @sdev: the device, not registered yet
 * @net: the namespace of its netdev (and of the ``rdma link add`` caller)
 *
 * In exclusive mode (``rdma system set netns exclusive``, ib_core
 * ``netns_mode=0``) a device is visible in one namespace only: the one it
 * was registered in, or moved to by ``rdma dev set DEV netns NS``. The core
 * registers every new device in init_net, so a device a container adds for
 * its own netdev would be invisible in the container and visible outside
 * it. Registered in @net instead, it is the container's: its sysfs
 * directory, its uverbs device for libibverbs, rdma_cm and kernel ULPs
 * there; when the namespace goes away the core moves it back to init_net
 * (where the removal of its netdev then removes it), as for a moved device.
 *
 * A new device is in init_net, so the core's own test of whether a
 * namespace may use it tells the mode: only a shared core lets @net use
 * a device of init_net. In shared mode nothing changes.
 */
static void sroce_set_rdma_net(struct sroce_dev *sdev, struct net *net)
{
	if (net_eq(net, &init_net) || rdma_dev_access_netns(&sdev->ib_dev, net))
		return;
	write_pnet(&sdev->ib_dev.coredev.rdma_net, net);
}

/* What rdma link add refuses before looking for a device: not Ethernet, a taken name. */
static int sroce_newlink_check(const char *ibdev_name, struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		netdev_dbg(ndev,
			   "rdma link add %s: link type %u, address length %u: not Ethernet\n",
			   ibdev_name, ndev->type, ndev->addr_len);
		return -EINVAL;
	}
	/*
	 * The core would refuse a taken name with -ENFILE ("Too many open
	 * files in system"); say what is wrong instead. Racing adds of one
	 * name, and kernels where sroce cannot look the name up
	 * (sroce_ib_name_taken()), get the same answer from
	 * ib_register_device() below.
	 */
	if (sroce_ib_name_taken(ibdev_name)) {
		netdev_dbg(ndev, "rdma link add %s: an RDMA device has that name\n", ibdev_name);
		return -EEXIST;
	}
	return 0;
}

/*
 * A new device for @ndev, on the device list (one per netdev): from here
 * on, ib_dealloc_device() unwinds it through dealloc_driver.
 */
static struct sroce_dev *sroce_dev_create(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;

	mutex_lock(&sroce_dev_lock);
	if (sroce_find_by_ndev(ndev)) {
		mutex_unlock(&sroce_dev_lock);
		netdev_dbg(ndev, "rdma link add %s: the netdev has a sroce device already\n",
			   ibdev_name);
		return ERR_PTR(-EEXIST);
	}
	sdev = ib_alloc_device(sroce_dev, ib_dev);
	if (!sdev) {
		mutex_unlock(&sroce_dev_lock);
		return ERR_PTR(-ENOMEM);
	}
	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sroce_init_ib_dev(sdev);
	sroce_dcqcn_dev_init(sdev);
	sdev->ar_paths = SROCE_AR_PATHS_DEFAULT;
	sdev->sr = READ_ONCE(sroce_sr_default);
	sdev->wide = READ_ONCE(sroce_wide_default);
	sdev->tx_gso = READ_ONCE(sroce_tx_gso_default) && sroce_txb_segmented(ndev);
	sdev->last_port_state = sroce_port_state(sdev);
	get_device(&sdev->ib_dev.dev);
	list_add_tail(&sdev->list, &sroce_dev_list);
	mutex_unlock(&sroce_dev_lock);
	return sdev;
}

/*
 * What the device needs before it is registered: its statistics, the UDP
 * socket of its netdev's namespace, the netdev as its port, its namespace.
 */
static int sroce_dev_setup(struct sroce_dev *sdev, const char *ibdev_name)
{
	struct net_device *ndev = sdev->ndev;
	struct sroce_udp *udp;
	int err;

	sdev->stats = alloc_percpu(struct sroce_dev_stats);
	if (!sdev->stats || percpu_counter_init(&sdev->rxq_bytes, 0, GFP_KERNEL))
		return -ENOMEM;
	udp = sroce_udp_get(dev_net(ndev));
	if (IS_ERR(udp)) {
		err = PTR_ERR(udp);
		netdev_dbg(ndev,
			   "rdma link add %s: UDP port 4791 of the netdev's namespace: error %d%s\n",
			   ibdev_name, err, err == -EADDRINUSE ? " (rdma_rxe there?)" : "");
		return err;
	}
	sdev->udp = udp;
	err = ib_device_set_netdev(&sdev->ib_dev, ndev, SROCE_PORT);
	if (err)
		return err;
	sroce_set_rdma_net(sdev, dev_net(ndev));
	return 0;
}

/*
 * The netdev may have started unregistering while we registered; the
 * notifier could not unregister a device that was not registered yet,
 * so it left us a flag. Return: -ENODEV when it is gone (the device is
 * queued for unregistering), else 0.
 */
static int sroce_dev_check_gone(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	bool gone;

	rtnl_lock();
	mutex_lock(&sroce_dev_lock);
	gone = sdev->ndev_gone || ndev->reg_state != NETREG_REGISTERED;
	if (!gone)	/* from here on a change raises an event */
		sdev->last_mbps = sroce_link_mbps(ndev);
	mutex_unlock(&sroce_dev_lock);
	if (gone)
		ib_unregister_device_queued(&sdev->ib_dev);
	rtnl_unlock();
	return gone ? -ENODEV : 0;
}

static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	err = sroce_newlink_check(ibdev_name, ndev);
	if (err)
		return err;
	sroce_reap(false);
	sdev = sroce_dev_create(ibdev_name, ndev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	err = sroce_dev_setup(sdev, ibdev_name);
	if (err)
		goto err_dealloc_dev;
	err = ib_register_device(&sdev->ib_dev, ibdev_name, NULL);
	if (err == -ENFILE)
		err = -EEXIST;	/* the name is taken */
	if (err) {
		netdev_dbg(ndev, "rdma link add %s: registering the device: error %d\n",
			   ibdev_name, err);
		goto err_dealloc_dev;
	}
	return sroce_dev_check_gone(sdev);

err_dealloc_dev:
	ib_dealloc_device(&sdev->ib_dev);
	return err;
}

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_DRV_NAME,
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	mutex_lock(&sroce_dev_lock);
	sdev = sroce_find_by_ndev(ndev);
	if (!sdev)
		goto out_unlock;
	if (!ib_device_try_get(&sdev->ib_dev)) {
		/* still registering, or already on its way out */
		if (event == NETDEV_UNREGISTER)
			sdev->ndev_gone = true;
		goto out_unlock;
	}

	switch (event) {
	case NETDEV_UNREGISTER:
		/* we hold rtnl: let the core unregister from a work item */
		ib_unregister_device_queued(&sdev->ib_dev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_port_event(sdev);
		break;
	default:
		/* the MTU is read live; the core tracks addresses (GIDs) */
		break;
	}
	ib_device_put(&sdev->ib_dev);
out_unlock:
	mutex_unlock(&sroce_dev_lock);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static int __init sroce_init(void)
{
	int err;

	sroce_crc_init_module();
	err = sroce_sched_init_module();
	if (err)
		goto err_crc_exit;
	err = sroce_odp_init_module();
	if (err)
		goto err_sched_exit;
	sroce_debugfs_init();
	err = sroce_net_init();
	if (err)
		goto err_odp_exit;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		goto err_net_exit;
	rdma_link_register(&sroce_link_ops);
	return 0;

err_net_exit:
	sroce_net_exit();
err_odp_exit:
	sroce_debugfs_exit();
	sroce_odp_exit_module();
err_sched_exit:
	sroce_sched_exit_module();
err_crc_exit:
	sroce_crc_exit_module();
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_reap(true);
	sroce_net_exit();
	sroce_debugfs_exit();
	sroce_odp_exit_module();
	sroce_sched_exit_module();
	sroce_crc_exit_module();
}

module_init(sroce_init);
module_exit(sroce_exit);
MODULE_ALIAS_RDMA_LINK("sroce");
