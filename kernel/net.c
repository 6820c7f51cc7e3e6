// SPDX-License-Identifier: GPL-2.0
/*
 * sroce network layer: the RoCEv2 UDP sockets (port 4791).
 *
 * Each network namespace that holds at least one sroce device owns one
 * IPv4 and one IPv6 UDP socket bound to 4791. They are opened with the
 * first device of the namespace and closed with its last. Devices of
 * different namespaces (two ends of a veth pair) therefore never share a
 * socket, and traffic stays inside the namespace it belongs to.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/ip6_checksum.h>
#include <net/udp_tunnel.h>
#include <net/inet_ecn.h>

#include "sroce.h"
#include "recv.h"
#include "net.h"

/**
 * struct sroce_udp - per-network-namespace socket state
 * @sock4: IPv4 socket bound to 4791, NULL while unused
 * @sock6: IPv6-only socket bound to 4791, NULL when IPv6 is unavailable
 * @users: devices using the sockets, under sroce_udp_lock; the last one
 *	frees the structure
 * @slot: the namespace's pointer to this structure, NULL once the
 *	namespace's exit method detached it
 *
 * Allocated apart from the namespace's generic data: a device of a dying
 * namespace may be unregistered (from a work item) after the namespace's
 * exit method ran and its data was freed. The exit method closes the
 * sockets and detaches this structure; the devices' puts free it.
 */
struct sroce_udp {
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
	struct sroce_udp **slot;
};

static unsigned int sroce_net_id __read_mostly;
static DEFINE_MUTEX(sroce_udp_lock);

static struct socket *sroce_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
	} else {
		cfg.family = AF_INET;
	}
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	sroce_setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

static void sroce_udp_close(struct sroce_udp *udp)
{
	lockdep_assert_held(&sroce_udp_lock);

	if (udp->sock6)
		sroce_udp_tunnel_sock_release(udp->sock6);
	if (udp->sock4)
		sroce_udp_tunnel_sock_release(udp->sock4);
	udp->sock4 = NULL;
	udp->sock6 = NULL;
}

/* The namespace's slot for its struct sroce_udp pointer. */
static struct sroce_udp **sroce_udp_slot(struct net *net)
{
	return net_generic(net, sroce_net_id);
}

/**
 * sroce_udp_get() - take a reference on @net's RoCEv2 sockets
 * @net: the network namespace of the device's netdev
 *
 * Opens the sockets on first use. IPv6 is optional (the kernel may run
 * with ipv6.disable=1); IPv4 is required.
 *
 * Return: the namespace's socket state, or an ERR_PTR.
 */
struct sroce_udp *sroce_udp_get(struct net *net)
{
	struct sroce_udp **slot = sroce_udp_slot(net);
	struct sroce_udp *udp;
	struct socket *sock;

	mutex_lock(&sroce_udp_lock);
	udp = *slot;
	if (udp) {
		udp->users++;
		goto out_unlock;
	}
	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp) {
		udp = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	sock = sroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		kfree(udp);
		udp = ERR_CAST(sock);
		goto out_unlock;
	}
	udp->sock4 = sock;
	sock = sroce_udp_open(net, true);
	udp->sock6 = IS_ERR(sock) ? NULL : sock;
	udp->users = 1;
	udp->slot = slot;
	*slot = udp;
out_unlock:
	mutex_unlock(&sroce_udp_lock);
	return udp;
}

/**
 * sroce_udp_put() - drop a reference taken by sroce_udp_get()
 * @udp: the state; its namespace may be gone already
 */
void sroce_udp_put(struct sroce_udp *udp)
{
	mutex_lock(&sroce_udp_lock);
	if (--udp->users == 0) {
		sroce_udp_close(udp);
		/* still attached: the namespace lives (see sroce_net_exit_net()) */
		if (udp->slot)
			*udp->slot = NULL;
		kfree(udp);
	}
	mutex_unlock(&sroce_udp_lock);
}

static void __net_exit sroce_net_exit_net(struct net *net)
{
	struct sroce_udp **slot = sroce_udp_slot(net);

	/*
	 * Devices of a dying namespace may still be queued for
	 * unregistration: close the sockets now and leave the structure to
	 * their puts, which no longer find it here.
	 */
	mutex_lock(&sroce_udp_lock);
	if (*slot) {
		sroce_udp_close(*slot);
		(*slot)->slot = NULL;
		*slot = NULL;
	}
	mutex_unlock(&sroce_udp_lock);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_exit_net,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_udp *),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
