/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce - software RoCEv2 device: shared driver definitions.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "sroce_proto.h"
#include "sroce-abi.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_PORT		1
#define SROCE_GID_TBL_LEN	256
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI: software device */
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_MSG_SZ	0x80000000u	/* 2 GiB, IBTA maximum */

struct sroce_udp;

/**
 * struct sroce_dev - one sroce RDMA device, bound to one Ethernet netdev
 * @ib_dev: the RDMA core device; must be first (ib_alloc_device)
 * @list: entry in sroce_dev_list, under sroce_dev_lock; the list owns a
 *	reference on @ib_dev.dev until the entry is reaped
 * @ndev: the netdev carrying our RoCEv2 traffic, held by @ndev_tracker;
 *	NULL once released
 * @udp: the UDP 4791 socket(s) of @ndev's network namespace, or NULL
 * @dead: dealloc_driver ran: only the list reference remains
 * @ndev_gone: the netdev began unregistering while we were registering
 * @last_port_state: the port state last reported with an ib_event
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct list_head list;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct sroce_udp *udp;
	bool dead;
	bool ndev_gone;
	enum ib_port_state last_port_state;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

/* main.c */
void sroce_dealloc_driver(struct ib_device *ibdev);

/* verbs.c */
extern const struct ib_device_ops sroce_dev_ops;
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);
void sroce_init_ib_dev(struct sroce_dev *sdev);

/* net.c */
struct sroce_udp *sroce_udp_get(struct net *net);
void sroce_udp_put(struct sroce_udp *udp);
int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* SROCE_H */
