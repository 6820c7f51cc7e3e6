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
#include "mcast.h"
#include "qp.h"
#include "sroce_icrc.h"
#include "sroce_wire.h"
#include "trace.h"

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

/*
 * Bytes of a received datagram made linear before parsing: the UDP header,
 * the largest transport header and the largest thing after it that is
 * read as a header (a SACK block, a CNP's reserved bytes).
 */
#define SROCE_RX_PULL	(sizeof(struct udphdr) + SROCE_HDR_MAX_LEN + SROCE_SACK_BLOCK_LEN)

static unsigned int sroce_net_id __read_mostly;
static DEFINE_MUTEX(sroce_udp_lock);

atomic64_t sroce_rx_drops[SROCE_DROP_MAX];

/**
 * sroce_drop_count() - count (and trace) a received packet dropped
 * @why: the reason
 * @qpn: the destination QP, SROCE_DROP_NO_QPN when not known
 *
 * Every drop of a received packet is counted here, whoever frees it.
 */
void sroce_drop_count(enum sroce_drop why, u32 qpn)
{
	atomic64_inc(&sroce_rx_drops[why]);
	trace_sroce_drop(qpn, why);
}

/* Drop a received packet: the receive path's one exit for them. */
static void sroce_rx_drop(struct sk_buff *skb, u32 qpn, enum sroce_drop why)
{
	sroce_drop_count(why, qpn);
	kfree_skb(skb);
}

/**
 * sroce_mc_rcv() - hand a multicast UD datagram to every QP attached to its
 *	group on the device it arrived on
 * @skb: the datagram (consumed)
 * @hdr: its parsed transport header (UD, DQPN 0xFFFFFF)
 * @iph: its IP header
 * @v6: @iph is IPv6
 *
 * Each QP checks the packet as a unicast one (sroce_ud_check()) and gets a
 * clone. Context: softirq. Return: 0.
 */
static int sroce_mc_rcv(struct sk_buff *skb, const struct sroce_pkt_hdr *hdr,
			const u8 *iph, bool v6)
{
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	enum sroce_drop why = SROCE_DROP_NO_QP;
	union ib_gid mgid;
	struct sk_buff *c;
	int i, n;

	if (v6)
		memcpy(mgid.raw, &((const struct ipv6hdr *)iph)->daddr, sizeof(mgid.raw));
	else
		ipv6_addr_set_v4mapped(((const struct iphdr *)iph)->daddr,
				       (struct in6_addr *)mgid.raw);
	n = sroce_mc_get_qps(skb->dev, &mgid, qps, ARRAY_SIZE(qps));
	for (i = 0; i < n; i++) {
		why = sroce_ud_check(qps[i], hdr);
		if (why == SROCE_DROP_MAX) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (c)
				sroce_sched_rx(qps[i], c);
		} else {
			sroce_drop_count(why, qps[i]->ibqp.qp_num);
		}
		sroce_qp_put(qps[i]);
	}
	if (!n)
		sroce_drop_count(why, SROCE_MCAST_QPN);
	kfree_skb(skb);
	return 0;
}

/*
 * RC and UC packets go to QPs of their type; XRC requests to XRC TGT QPs,
 * XRC responses and acknowledges to XRC INI QPs.
 */
static bool sroce_rcv_type_ok(const struct sroce_qp *qp, u32 flags)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return flags & SROCE_OPF_RC;
	case IB_QPT_UC:
		return flags & SROCE_OPF_UC;
	case IB_QPT_XRC_TGT:
		return (flags & SROCE_OPF_XRC) && (flags & SROCE_OPF_REQ);
	case IB_QPT_XRC_INI:
		return (flags & SROCE_OPF_XRC) && (flags & (SROCE_OPF_RESP | SROCE_OPF_ACK));
	default:
		return false;
	}
}

/**
 * sroce_skb_icrc() - the ICRC of a packet, linear or not
 * @skb: the packet; its UDP header and BTH in the linear part
 * @off: offset of the UDP header from skb->data
 * @len: bytes from there, the ICRC excluded
 * @iph: the IP header
 * @iph_len: its length
 * @icrc: receives the value
 *
 * Return: 0, or a negative enum sroce_icrc_err (or -EFAULT: @skb holds
 * fewer bytes).
 */
static int sroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, const u8 *iph,
			  unsigned int iph_len, u32 *icrc)
{
	u32 head = min(skb_headlen(skb) - off, len), done, n;
	struct skb_seq_state st;
	const u8 *p;
	u32 crc;
	int err;

	if (head == len)
		return sroce_icrc_compute(icrc, iph, iph_len, skb->data + off, len);
	err = sroce_icrc_start(&crc, iph, iph_len, skb->data + off, head);
	if (err)
		return err;
	skb_prepare_seq_read((struct sk_buff *)skb, off + head, off + len, &st);
	for (done = head; done < len; done += n) {
		n = skb_seq_read(done - head, &p, &st);
		if (!n)
			break;
		n = min(n, len - done);
		crc = sroce_icrc_update(crc, p, n);
	}
	skb_abort_seq_read(&st);
	if (done < len)
		return -EFAULT;
	*icrc = sroce_icrc_final(crc);
	return 0;
}

/* Is the ICRC of @skb (data at the UDP header) right? */
static bool sroce_rcv_icrc_ok(const struct sk_buff *skb, const u8 *iph, bool v6)
{
	unsigned int iph_len = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	u8 buf[SROCE_ICRC_LEN];
	const u8 *trailer;
	u32 icrc;

	if (!skb_is_nonlinear(skb))
		return sroce_icrc_verify(iph, iph_len, skb->data, skb->len);
	if (skb->len < sizeof(struct udphdr) + SROCE_BTH_LEN + SROCE_ICRC_LEN ||
	    sroce_skb_icrc(skb, 0, skb->len - SROCE_ICRC_LEN, iph, iph_len, &icrc))
		return false;
	trailer = skb_header_pointer(skb, skb->len - SROCE_ICRC_LEN, SROCE_ICRC_LEN, buf);
	return trailer && sroce_icrc_get(trailer) == icrc;
}

/*
 * Queue @skb to @qp (@why SROCE_DROP_MAX) or drop it for @why, and drop
 * the lookup's reference on @qp. Return: 0, the skb is consumed.
 */
static int sroce_rcv_finish(struct sroce_qp *qp, struct sk_buff *skb, enum sroce_drop why)
{
	if (why == SROCE_DROP_MAX)
		sroce_sched_rx(qp, skb);
	else
		sroce_rx_drop(skb, qp->ibqp.qp_num, why);
	sroce_qp_put(qp);
	return 0;
}

/**
 * sroce_cnp_rcv() - a Congestion Notification Packet arrived
 * @net: the namespace it arrived in
 * @skb: the packet, data at the UDP header
 * @iph: its IP header
 * @v6: @iph is IPv6
 * @unchecked: its ICRC was not checked yet (see sroce_rcv())
 *
 * Hostile input like any packet: a CNP that is malformed, for no QP, or
 * for a QP that does not do DCQCN (dcqcn.c) or is not connected is counted
 * (rx_drop_cnp) and dropped, and so is one from another address than the
 * QP's peer. The rest is queued to its QP, whose transport checks the
 * sender's address again and cuts the rate (sroce_dcqcn_cnp_rx()).
 *
 * Context: softirq, or BH disabled. Return: 0, the skb is consumed.
 */
static int sroce_cnp_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6,
			 bool unchecked)
{
	enum ib_qp_state state;
	struct sroce_qp *qp;
	enum sroce_drop why;
	u32 dqpn;

	qp = sroce_cnp_parse(skb->data + sizeof(struct udphdr),
			     skb->len - sizeof(struct udphdr), &dqpn) ?
	     NULL : sroce_qp_get_net(net, dqpn);
	if (!qp) {
		why = unchecked && !sroce_rcv_icrc_ok(skb, iph, v6) ?
		      SROCE_DROP_ICRC : SROCE_DROP_CNP;
		sroce_rx_drop(skb, SROCE_DROP_NO_QPN, why);
		return 0;
	}
	if (unchecked && !READ_ONCE(qp->icrc_skip) && !sroce_rcv_icrc_ok(skb, iph, v6)) {
		why = SROCE_DROP_ICRC;
		goto drop_put;
	}
	state = READ_ONCE(qp->state);
	why = SROCE_DROP_CNP;
	if (!sroce_qpt_connected(qp->ibqp.qp_type) || !READ_ONCE(qp->dcqcn.on) ||
	    (state != IB_QPS_RTR && state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    !sroce_qp_peer_ok(qp, iph, v6) || sroce_rxq_full(qp, skb))
		goto drop_put;
	why = SROCE_DROP_MAX;
drop_put:
	return sroce_rcv_finish(qp, skb, why);
}

/**
 * sroce_rcv() - hand a checked RoCEv2 datagram to its QP
 * @net: the namespace it arrived in
 * @skb: the datagram, data at the UDP header, ICRC checked (or never on a
 *	wire: see sroce_xmit_local())
 * @iph: its IP header, without options or extension headers
 * @v6: @iph is IPv6
 * @unchecked: the sender marked the packet as carrying no ICRC
 *	(SROCE_BTH_ICRC_NONE) and it was not checked yet: it is accepted so
 *	only by a connected QP that opted in to the ICRC skip, and checked
 *	like any other packet everywhere else
 *
 * Parses the transport headers, finds the destination QP and checks the
 * RC peer's address, queues the packet to the QP and runs the QP's
 * transport right here unless another context is running it. Every
 * failure is counted and the packet dropped.
 *
 * Context: softirq, or BH disabled. Return: 0, the skb is consumed.
 */
static int sroce_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6,
		     bool unchecked)
{
	struct sroce_pkt_hdr hdr;
	enum ib_qp_state state;
	enum sroce_drop why;
	struct sroce_qp *qp;
	int err;

	err = sroce_pkt_parse(skb->data + sizeof(struct udphdr),
			      skb->len - sizeof(struct udphdr), &hdr);
	if (err) {
		/* not a transport opcode: a CNP is the one other packet we know */
		if (err == SROCE_PKT_EOPCODE &&
		    skb->data[sizeof(struct udphdr)] == SROCE_OP_CNP)
			return sroce_cnp_rcv(net, skb, iph, v6, unchecked);
		if (unchecked && !sroce_rcv_icrc_ok(skb, iph, v6)) {
			sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_ICRC);
			return 0;
		}
		net_dbg_ratelimited("sroce: dropped a packet: %s\n",
				    sroce_pkt_strerror(err));
		sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_HDR);
		return 0;
	}
	/* UD never skips the ICRC */
	if (unchecked && (hdr.info->flags & SROCE_OPF_UD)) {
		if (!sroce_rcv_icrc_ok(skb, iph, v6)) {
			sroce_rx_drop(skb, hdr.bth.dqpn, SROCE_DROP_ICRC);
			return 0;
		}
		unchecked = false;
	}
	if ((hdr.info->flags & SROCE_OPF_UD) && hdr.bth.dqpn == SROCE_MCAST_QPN)
		return sroce_mc_rcv(skb, &hdr, iph, v6);
	if (hdr.info->flags & SROCE_OPF_UD) {
		qp = sroce_ud_accept(net, skb, &hdr, iph, v6);
		if (qp)
			goto queue;
		return 0;
	}

	qp = sroce_qp_get_net(net, hdr.bth.dqpn);
	if (!qp) {
		sroce_rx_drop(skb, hdr.bth.dqpn,
			      unchecked && !sroce_rcv_icrc_ok(skb, iph, v6) ?
			      SROCE_DROP_ICRC : SROCE_DROP_NO_QP);
		return 0;
	}
	if (unchecked) {
		if (READ_ONCE(qp->icrc_skip)) {
			sroce_stat_inc(qp->sdev, SROCE_STAT_ICRC_SKIP_RX);
		} else if (!sroce_rcv_icrc_ok(skb, iph, v6)) {
			why = SROCE_DROP_ICRC;
			goto drop_put;
		}
	}
	if (!sroce_rcv_type_ok(qp, hdr.info->flags)) {
		why = SROCE_DROP_HDR;
		goto drop_put;
	}
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_ERR) {
		why = SROCE_DROP_QP_STATE;
		goto drop_put;
	}
	/*
	 * not from the connected peer: never queued (the transport checks
	 * again under the QP lock, as modify_qp may change the path)
	 */
	if (!sroce_qp_peer_ok(qp, iph, v6)) {
		why = SROCE_DROP_HDR;
		goto drop_put;
	}
	/* bounded: a flood waits for no one (the transport drains in order) */
	if (sroce_rxq_full(qp, skb)) {
		why = SROCE_DROP_BACKLOG;
		goto drop_put;
	}
queue:
	why = SROCE_DROP_MAX;
drop_put:
	return sroce_rcv_finish(qp, skb, why);
}

/**
 * sroce_udp_encap_recv() - a datagram arrived on UDP 4791
 * @sk: our socket (its namespace is the packet's)
 * @skb: the datagram, data at the UDP header
 *
 * Softirq context. Checks the lengths, the IP header and the ICRC, then
 * hands the packet to sroce_rcv(). Every failure is counted and the packet
 * dropped.
 *
 * Return: 0, the skb is consumed.
 */
static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	const u8 *iph;
	unsigned int iph_len;
	bool unchecked;
	bool v6;

	if (skb->len < sizeof(struct udphdr) + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		goto drop_len;
	/*
	 * The headers linear, the payload where it is: fragments (sroce's
	 * zero-copy transmit, a NIC's pages) are read in place, not copied.
	 */
	if (!pskb_may_pull(skb, min_t(unsigned int, skb->len, SROCE_RX_PULL)))
		goto drop_len;
	iph = skb_network_header(skb);
	iph_len = skb_transport_header(skb) - iph;
	v6 = (iph[0] >> 4) == 6;
	/* no IPv4 options, no IPv6 extension headers: the ICRC covers them */
	if (iph_len != (v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) ||
	    skb->data != skb_transport_header(skb))
		goto drop_hdr;
	/* marked as carrying no ICRC: the destination QP decides (sroce_rcv()) */
	unchecked = skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV8A_OFF] &
		    SROCE_BTH_ICRC_NONE;
	if (!unchecked && !sroce_rcv_icrc_ok(skb, iph, v6)) {
		sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_ICRC);
		return 0;
	}
	return sroce_rcv(sock_net(sk), skb, iph, v6, unchecked);

drop_len:
	sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_LEN);
	return 0;
drop_hdr:
	sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_HDR);
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

/* ---- transmit ------------------------------------------------------- */

/**
 * sroce_pkt_alloc() - an skb for one packet of @qp
 * @qp: the sending QP (its path decides the headroom)
 * @len: transport headers + payload bytes the caller will put
 *
 * Return: an skb with headroom for Ethernet/IP/UDP and tailroom for the pad
 * and the ICRC, or NULL.
 */
struct sk_buff *sroce_pkt_alloc(struct sroce_qp *qp, u32 len)
{
	struct net_device *ndev = qp->sdev->ndev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + sizeof(struct udphdr) +
		(qp->path.ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	struct sk_buff *skb;

	skb = alloc_skb(head + len + 3 + SROCE_ICRC_LEN, GFP_ATOMIC);
	if (skb)
		skb_reserve(skb, head);
	return skb;
}

static bool sroce_zcopy = true;
module_param_named(zcopy, sroce_zcopy, bool, 0644);
MODULE_PARM_DESC(zcopy,
		 "RC/XRC requests and READ responses carry user MR pages by reference, not a copy (default: on)");

/**
 * sroce_pkt_frag_mode() - how @payload bytes of a packet of @qp travel
 * @qp: the sending QP
 * @payload: payload bytes
 * @zc: may they travel by reference (see sroce_mr_frags())? Only for
 *	RC and XRC, whose requests complete on their acknowledgement; a UC
 *	or UD send completes once sent, when its buffer is the user's again.
 *
 * Return: SROCE_PKT_LINEAR (small: copied behind the headers),
 * SROCE_PKT_ZCOPY (user MR pages as fragments, sroce_pkt_zc_end()) or
 * SROCE_PKT_FRAG (copied into a page fragment, sroce_pkt_frag_buf()): no
 * linear buffer the size of the packet, which the slab rounds up to twice
 * that and init_on_alloc zeroes whole.
 */
enum sroce_pkt_mode sroce_pkt_frag_mode(const struct sroce_qp *qp, u32 payload, bool zc)
{
	if (payload < SROCE_PKT_FRAG_MIN)
		return SROCE_PKT_LINEAR;
	if (zc && READ_ONCE(sroce_zcopy) && sroce_qpt_connected(qp->ibqp.qp_type) &&
	    !sroce_qp_is_uc(qp))
		return SROCE_PKT_ZCOPY;
	return SROCE_PKT_FRAG;
}

/* Append @len bytes of a page fragment to @skb; NULL when none is left */
static u8 *sroce_pkt_frag_add(struct sk_buff *skb, u32 len)
{
	struct page *page;
	u8 *buf;

	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)
		return NULL;
	buf = netdev_alloc_frag(len);
	if (!buf)
		return NULL;
	page = virt_to_head_page(buf);
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, buf - (u8 *)page_address(page),
			len, len);
	return buf;
}

/* Append @len bytes and the pad and ICRC field of @payload as a fragment */
static u8 *sroce_pkt_frag_tail(struct sk_buff *skb, u32 len, u32 payload)
{
	u32 trailer = sroce_pad_len(payload) + SROCE_ICRC_LEN;
	u8 *buf = sroce_pkt_frag_add(skb, len + trailer);

	if (buf)
		memset(buf + len, 0, trailer);
	return buf;
}

/**
 * sroce_pkt_frag_buf() - room for a packet's payload, pad and ICRC in a fragment
 * @skb: the packet, headers built, no fragments yet
 * @payload: payload bytes
 *
 * Return: where the caller copies the payload (the pad and the ICRC
 * field after it are zeroed), or NULL (no memory: drop the packet like a
 * lost one).
 */
u8 *sroce_pkt_frag_buf(struct sk_buff *skb, u32 payload)
{
	return sroce_pkt_frag_tail(skb, payload, payload);
}

/**
 * sroce_pkt_zc_end() - end a packet whose payload was appended by reference
 * @qp: the sending QP
 * @skb: the packet
 * @payload: payload bytes
 * @err: what appending them by reference returned (sroce_mr_frags(),
 *	sroce_sgl_frags())
 *
 * Appends the pad and the ICRC field, which sroce_pkt_xmit() finds in the
 * last fragment; or, when the payload's memory cannot be referenced,
 * takes back what was appended.
 *
 * Return: 0, the packet is complete; -EOPNOTSUPP, copy the payload
 * (sroce_pkt_frag_buf()) after all; -ENOMEM (drop the packet like a lost
 * one) or @err.
 */
int sroce_pkt_zc_end(struct sroce_qp *qp, struct sk_buff *skb, u32 payload, int err)
{
	if (!err) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_ZCOPY_PKTS);
		return sroce_pkt_frag_tail(skb, 0, payload) ? 0 : -ENOMEM;
	}
	if (err != -EOPNOTSUPP)
		return err;
	sroce_stat_inc(qp->sdev, SROCE_STAT_ZCOPY_FALLBACK);
	return pskb_trim(skb, skb_headlen(skb)) ? -ENOMEM : -EOPNOTSUPP;
}

/* Where the ICRC of an outgoing packet goes: its last 4 bytes */
static u8 *sroce_pkt_icrc_field(struct sk_buff *skb)
{
	const skb_frag_t *last;

	if (!skb_shinfo(skb)->nr_frags)
		return skb_tail_pointer(skb) - SROCE_ICRC_LEN;
	/* a fragment of ours (sroce_pkt_frag_buf()): lowmem, writable */
	last = &skb_shinfo(skb)->frags[skb_shinfo(skb)->nr_frags - 1];
	return (u8 *)skb_frag_address(last) + skb_frag_size(last) - SROCE_ICRC_LEN;
}

static bool sroce_loopback = true;
module_param_named(loopback, sroce_loopback, bool, 0644);
MODULE_PARM_DESC(loopback,
		 "deliver packets for a local address directly, not through the IP stack and lo (default: on)");

/**
 * sroce_xmit_local() - deliver a packet addressed to this host
 * @qp: the sending QP
 * @skb: the packet, data at its IP header, all headers but the ICRC built
 * @net: the sender's namespace, where the destination address is local
 *
 * The packet never reaches a wire, so like a NIC's internal loopback it
 * skips the IP stack, lo, and the ICRC on both ends; it is received as if
 * it had arrived on lo. The headers are our own, and sroce_rcv() checks
 * them like any other.
 *
 * Return: 0, @skb is consumed.
 */
static int sroce_xmit_local(struct sroce_qp *qp, struct sk_buff *skb, struct net *net)
{
	const u8 *iph = skb_network_header(skb);
	int ret;

	/* a BH-disabling lock: the receive side runs as if in softirq */
	lockdep_assert_held(&qp->lock);
	sroce_stat_inc(qp->sdev, SROCE_STAT_LOOPBACK_PKTS);
	__skb_pull(skb, skb_transport_offset(skb));
	skb->dev = net->loopback_dev;
	skb->pkt_type = PACKET_HOST;
	/* the receiver may run here, nested in our round: bounded in sched.c */
	sroce_sched_local_enter();
	ret = sroce_rcv(net, skb, iph, qp->path.ipv6, false);
	sroce_sched_local_exit();
	return ret;
}

/**
 * sroce_qp_icrc_learn() - note that the peer of @qp skips the ICRC
 * @qp: a connected QP
 * @skb: a packet from its peer (address checked), data at the UDP header
 *
 * A QP that opted in (qp->icrc_skip, sampled from the device at RTR) marks
 * its packets SROCE_BTH_ICRC_ADV; once the peer's packets carry the mark
 * too, both ends opted in and the QP stops computing the ICRC
 * (sroce_icrc_mark()). rxe and hardware never set the bit, so the QP keeps
 * the ICRC with them. Selective repeat is negotiated the same way with
 * SROCE_BTH_SR_ADV (qp->sr, qp->sr_peer).
 */
void sroce_qp_icrc_learn(struct sroce_qp *qp, const struct sk_buff *skb)
{
	lockdep_assert_held(&qp->lock);

	u8 resv8a = skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV8A_OFF];

	if (qp->icrc_skip && !qp->icrc_peer && (resv8a & SROCE_BTH_ICRC_ADV))
		qp->icrc_peer = true;
	/* selective repeat likewise: both ends offered it (sroce_sr.h) */
	if (qp->sr && !qp->sr_peer && (resv8a & SROCE_BTH_SR_ADV))
		qp->sr_peer = true;
}

/**
 * sroce_icrc_mark() - the ICRC skip marks of an outgoing packet
 * @qp: the sending QP
 * @skb: the packet, transport header set
 *
 * Return: true if the packet goes without an ICRC (both ends opted in),
 * false if the caller computes it.
 */
static bool sroce_icrc_mark(struct sroce_qp *qp, struct sk_buff *skb)
{
	u8 *resv8a = skb_transport_header(skb) + sizeof(struct udphdr) +
		     SROCE_BTH_RESV8A_OFF;

	if (qp->sr)
		*resv8a |= SROCE_BTH_SR_ADV;	/* offer selective repeat */
	if (!qp->icrc_skip)
		return false;
	if (!qp->icrc_peer) {
		*resv8a |= SROCE_BTH_ICRC_ADV;
		return false;
	}
	*resv8a |= SROCE_BTH_ICRC_ADV | SROCE_BTH_ICRC_NONE;
	sroce_stat_inc(qp->sdev, SROCE_STAT_ICRC_SKIP_TX);
	return true;
}

/* The path's traffic class; ECT(0) in its ECN bits when the QP does DCQCN */
static u8 sroce_qp_tos(const struct sroce_qp *qp)
{
	if (unlikely(qp->dcqcn.on))
		return (qp->path.tos & ~INET_ECN_MASK) | INET_ECN_ECT_0;
	return qp->path.tos;
}

/*
 * The transmit burst. While sroce_rc_process() runs a connected QP that
 * opted in (sysfs tx_gso, sampled at RTR), its IPv4 packets are not handed
 * to the IP stack one by one: a run of them whose UDP payloads all have
 * the length of the first (the last may be shorter) goes as one UDP GSO
 * packet, SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST. Each packet stays a complete
 * skb of its own (IP, UDP, BTH .. ICRC) chained on the first one's
 * frag_list, so whoever segments it (the receiving UDP socket, or the
 * stack before a device that cannot take it) only un-chains them and
 * restores their headers: the wire carries exactly the packets it would
 * carry without the burst, but the route, netfilter, qdisc and device
 * (veth: the peer's backlog, IP and UDP receive) are crossed once per
 * burst. GSO gives the k-th segment the IP ID of the first plus k, so
 * that is the ID each packet's ICRC is computed over.
 *
 * Only where the route's device takes such packets whole (veth does;
 * physical NICs do not take fraglist GSO): elsewhere the stack would
 * segment at once and nothing is saved. Only packets of at least
 * SROCE_TXB_MIN_SEG bytes: with 64 B messages, bursts measured 10-20 %
 * below single packets on 6.12 (segmenting costs what the stack saves).
 */
#define SROCE_TXB_MIN_SEG	512
#define SROCE_TXB_MAX_PKTS	32
#define SROCE_TXB_MAX_LEN	(60 * 1024)
#define SROCE_TXB_DEV_FEATURES	(NETIF_F_GSO_UDP_L4 | NETIF_F_GSO_FRAGLIST | \
				 NETIF_F_FRAGLIST | NETIF_F_SG)

/* Start collecting (a round of sroce_rc_process()). */
void sroce_txb_begin(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->txb.on = qp->tx_gso && !qp->path.ipv6 && !qp->dcqcn.on;
}

/* Send what is collected: one packet as it is, more as one GSO packet. */
static void sroce_txb_flush(struct sroce_qp *qp)
{
	struct sroce_txb *b = &qp->txb;
	struct sk_buff *skb = b->head;
	struct net *net = dev_net(qp->sdev->ndev);

	lockdep_assert_held(&qp->lock);
	if (!skb)
		return;
	if (b->n > 1) {
		struct skb_shared_info *sh = skb_shinfo(skb);

		udp_hdr(skb)->len = htons(skb->len - skb_transport_offset(skb));
		sh->gso_size = b->seg;
		sh->gso_segs = b->n;
		sh->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		/* __ip_local_out() sets the total length and the IP checksum */
		sroce_stat_inc(qp->sdev, SROCE_STAT_TX_GSO_BURSTS);
		sroce_stat_add(qp->sdev, SROCE_STAT_TX_GSO_PKTS, b->n);
	}
	b->head = NULL;
	b->tail = NULL;
	b->n = 0;
	ip_local_out(net, NULL, skb);
}

/* Stop collecting and send what is left. */
void sroce_txb_end(struct sroce_qp *qp)
{
	sroce_txb_flush(qp);
	qp->txb.on = false;
}

/**
 * sroce_txb_pos() - the position @skb will have in the burst
 * @qp: the sending QP, collecting
 * @seg: its UDP payload length
 * @rt: its route
 *
 * Sends what is collected first when @skb cannot follow it (another route,
 * a longer packet, a burst that ended with a shorter one, or a full one),
 * or goes alone (a small packet, a device that would segment).
 *
 * Return: its position (0 starts a new burst), or -1 to send it alone.
 */
static int sroce_txb_pos(struct sroce_qp *qp, u32 seg, struct rtable *rt)
{
	struct sroce_txb *b = &qp->txb;

	if ((rt->dst.dev->features & SROCE_TXB_DEV_FEATURES) != SROCE_TXB_DEV_FEATURES ||
	    seg < SROCE_TXB_MIN_SEG) {
		sroce_txb_flush(qp);
		return -1;
	}
	if (b->head && (skb_dst(b->head) != &rt->dst || seg > b->seg || b->last != b->seg ||
			b->n >= SROCE_TXB_MAX_PKTS ||
			b->head->len + seg > SROCE_TXB_MAX_LEN))
		sroce_txb_flush(qp);
	return b->n;
}

/*
 * Add @skb (checksummed, at position sroce_txb_pos(), @seg bytes of UDP
 * payload) to the burst; the first packet keeps its route, the others drop
 * theirs (GSO segments take the first's).
 */
static void sroce_txb_add(struct sroce_qp *qp, struct sk_buff *skb, u32 seg,
			  struct rtable *rt)
{
	struct sroce_txb *b = &qp->txb;
	struct sk_buff *head = b->head;
	struct iphdr *iph = ip_hdr(skb);
	struct udphdr *uh = udp_hdr(skb);

	/*
	 * A GSO packet is CHECKSUM_PARTIAL (the receive side segments only
	 * such packets, or warns): each packet's UDP checksum field holds
	 * its pseudo-header sum, so a device that completes it gets it
	 * right; the ICRC masks the field.
	 */
	uh->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr, ntohs(uh->len),
				       IPPROTO_UDP, 0);
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	if (!head) {
		skb_dst_set(skb, &rt->dst);
		b->head = skb;
		b->seg = seg;
		b->id0 = ntohs(iph->id);
	} else {
		ip_rt_put(rt);
		/* a fraglist member: data at its UDP payload, headers before it */
		__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
		if (!skb_shinfo(head)->frag_list)
			skb_shinfo(head)->frag_list = skb;
		else
			b->tail->next = skb;
		head->len += skb->len;
		head->data_len += skb->len;
		head->truesize += skb->truesize;
	}
	b->tail = skb;
	b->last = seg;
	b->n++;
}

static int sroce_xmit4(struct sroce_qp *qp, struct sk_buff *skb, struct net *net)
{
	struct flowi4 fl4 = {
		.flowi4_oif = qp->sdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = qp->path.daddr4,
		.saddr = qp->path.saddr4,
		SROCE_FLOWI4_TOS(qp->path.tos & ~INET_ECN_MASK),
	};
	struct iphdr *iph;
	struct rtable *rt;
	__be32 saddr;
	u32 icrc, seg = 0;
	int pos = -1;

	/* always a miss for UD, whose dst_cache is not set up (qp.c) */
	rt = dst_cache_get_ip4(&qp->dst_cache, &saddr);
	if (!rt) {
		rt = ip_route_output_key(net, &fl4);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		dst_cache_set_ip4(&qp->dst_cache, &rt->dst, fl4.saddr);
	}

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = sroce_qp_tos(qp);
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = qp->path.ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = qp->path.saddr4;
	iph->daddr = qp->path.daddr4;
	/* every header byte is set: a UD receiver copies them to its buffer */
	ip_select_ident(net, skb, NULL);
	if (sroce_loopback && rt->rt_type == RTN_LOCAL) {
		ip_rt_put(rt);
		if (unlikely(qp->txb.head))
			sroce_txb_flush(qp);	/* (a route that just became local) */
		ip_send_check(iph);
		return sroce_xmit_local(qp, skb, net);
	}
	if (qp->txb.on) {
		seg = skb->len - sizeof(*iph) - sizeof(struct udphdr);
		pos = sroce_txb_pos(qp, seg, rt);
		/* the ID GSO segmentation gives it */
		if (pos > 0)
			iph->id = htons(qp->txb.id0 + pos);
	}
	/* ICRC last but one: it covers the final IP ID; the checksums are masked */
	if (!sroce_icrc_mark(qp, skb)) {
		sroce_skb_icrc(skb, sizeof(*iph), skb->len - sizeof(*iph) - SROCE_ICRC_LEN,
			       (u8 *)iph, sizeof(*iph), &icrc);
		sroce_icrc_put(sroce_pkt_icrc_field(skb), icrc);
	}
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	if (pos >= 0) {
		sroce_txb_add(qp, skb, seg, rt);
		return 0;
	}
	skb_dst_set(skb, &rt->dst);
	return ip_local_out(net, NULL, skb);
}

static int sroce_xmit6(struct sroce_qp *qp, struct sk_buff *skb, struct net *net)
{
	struct flowi6 fl6 = {
		.flowi6_oif = qp->sdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = qp->path.daddr6,
		.saddr = qp->path.saddr6,
	};
	struct ipv6hdr *ip6h;
	struct dst_entry *dst;
	int udp_len = skb->len;
	struct in6_addr saddr;
	u32 icrc;

	dst = dst_cache_get_ip6(&qp->dst_cache, &saddr);
	if (!dst) {
		dst = ip6_route_output(net, NULL, &fl6);
		if (dst->error) {
			int err = dst->error;

			dst_release(dst);
			kfree_skb(skb);
			return err;
		}
		dst_cache_set_ip6(&qp->dst_cache, dst, &fl6.saddr);
	}
	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, sroce_qp_tos(qp), htonl(qp->path.flow_label));
	ip6h->payload_len = htons(udp_len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = qp->path.ttl;
	ip6h->saddr = qp->path.saddr6;
	ip6h->daddr = qp->path.daddr6;
	if (sroce_loopback && (dst->dev->flags & IFF_LOOPBACK)) {
		dst_release(dst);
		return sroce_xmit_local(qp, skb, net);
	}
	skb_dst_set(skb, dst);
	if (!sroce_icrc_mark(qp, skb)) {
		sroce_skb_icrc(skb, sizeof(*ip6h), udp_len - SROCE_ICRC_LEN, (u8 *)ip6h,
			       sizeof(*ip6h), &icrc);
		sroce_icrc_put(sroce_pkt_icrc_field(skb), icrc);
	}
	/* IPv6 requires a UDP checksum; the ICRC masks it, so it goes last */
	udp6_set_csum(false, skb, &ip6h->saddr, &ip6h->daddr, udp_len);
	skb->protocol = htons(ETH_P_IPV6);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return ip6_local_out(net, NULL, skb);
}

/**
 * sroce_pkt_xmit() - pad, checksum and send one packet of @qp
 * @qp: the sending QP
 * @skb: transport headers and payload (from sroce_pkt_alloc())
 * @payload: payload bytes in @skb (decides the pad)
 *
 * Consumes @skb. Return: 0 or a negative errno (routing failure; the
 * packet is lost like any packet on the wire and retransmission recovers).
 */
int sroce_pkt_xmit(struct sroce_qp *qp, struct sk_buff *skb, u32 payload)
{
	struct net *net = dev_net(qp->sdev->ndev);
	struct udphdr *uh;

	trace_sroce_pkt_tx(qp, skb->data, payload);
	/* a packet with fragments has its pad and ICRC field in the last one */
	if (!skb_shinfo(skb)->nr_frags)
		skb_put_zero(skb, sroce_pad_len(payload) + SROCE_ICRC_LEN);
	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = qp->path.sport;
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
	skb->ignore_df = 0;
	skb->ip_summed = CHECKSUM_NONE;
	sroce_stat_inc(qp->sdev, SROCE_STAT_TX_PKTS);
	return qp->path.ipv6 ? sroce_xmit6(qp, skb, net) : sroce_xmit4(qp, skb, net);
}
