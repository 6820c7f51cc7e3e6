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
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "sroce.h"

/**
 * struct sroce_udp - per-network-namespace socket state
 * @sock4: IPv4 socket bound to 4791, NULL while unused
 * @sock6: IPv6-only socket bound to 4791, NULL when IPv6 is unavailable
 * @users: devices of this namespace using the sockets, under sroce_udp_lock
 */
struct sroce_udp {
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
};

static unsigned int sroce_net_id __read_mostly;
static DEFINE_MUTEX(sroce_udp_lock);

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	/* The transport is not wired up yet: consume and drop. */
	kfree_skb(skb);
	return 0;
}

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
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

static void sroce_udp_close(struct sroce_udp *udp)
{
	lockdep_assert_held(&sroce_udp_lock);

	if (udp->sock6)
		udp_tunnel_sock_release(udp->sock6);
	if (udp->sock4)
		udp_tunnel_sock_release(udp->sock4);
	udp->sock4 = NULL;
	udp->sock6 = NULL;
	udp->users = 0;
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
	struct sroce_udp *udp = net_generic(net, sroce_net_id);
	struct socket *sock;

	mutex_lock(&sroce_udp_lock);
	if (udp->users++)
		goto out_unlock;

	sock = sroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		udp->users = 0;
		mutex_unlock(&sroce_udp_lock);
		return ERR_CAST(sock);
	}
	udp->sock4 = sock;
	sock = sroce_udp_open(net, true);
	udp->sock6 = IS_ERR(sock) ? NULL : sock;
out_unlock:
	mutex_unlock(&sroce_udp_lock);
	return udp;
}

/** sroce_udp_put() - drop a reference taken by sroce_udp_get() */
void sroce_udp_put(struct sroce_udp *udp)
{
	mutex_lock(&sroce_udp_lock);
	if (udp->users && !--udp->users)
		sroce_udp_close(udp);
	mutex_unlock(&sroce_udp_lock);
}

static void __net_exit sroce_net_exit_net(struct net *net)
{
	struct sroce_udp *udp = net_generic(net, sroce_net_id);

	/*
	 * Devices of a dying namespace are gone by now (their netdevs were
	 * unregistered first, which waits for our netdev reference), so
	 * nothing should be left; close anyway rather than leak a socket.
	 */
	mutex_lock(&sroce_udp_lock);
	if (udp->sock4 || udp->sock6)
		sroce_udp_close(udp);
	mutex_unlock(&sroce_udp_lock);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_exit_net,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_udp),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
