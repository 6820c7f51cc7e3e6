// SPDX-License-Identifier: GPL-2.0
/*
 * sroce receive path: what arrives on the UDP 4791 sockets (net.c), and
 * what sroce_xmit_local() delivers without the IP stack. Checks the
 * lengths, the IP and transport headers and the ICRC, finds the
 * destination QP (or multicast group, or the CNP's QP), queues the packet
 * to it and runs its transport. Every drop is counted with its reason
 * (sroce_drop_count()).
 */
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
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
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "mcast.h"
#include "qp.h"
#include "recv.h"
#include "sroce_icrc.h"
#include "sroce_wire.h"
#include "trace.h"

/*
 * Bytes of a received datagram made linear before parsing: the UDP header,
 * the largest transport header and the largest thing after it that is
 * read as a header (a SACK block, a CNP's reserved bytes).
 */
#define SROCE_RX_PULL	(sizeof(struct udphdr) + SROCE_HDR_MAX_LEN + SROCE_SACK_BLOCK_LEN)

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

/* ---- UD and GSI demultiplexing ----------------------------------------- */

#define SROCE_UD_RXQ_MAX	1024	/* packets queued to one QP */
#define SROCE_UD_MAX_PAYLOAD	4096	/* a UD message fits the largest path MTU */

/* GSI QPs of all devices, for the receive path: RCU, writers under the lock */
static LIST_HEAD(sroce_gsi_list);
static DEFINE_SPINLOCK(sroce_gsi_lock);

/**
 * sroce_gsi_add() - make @qp its device's QP1
 * @qp: a new GSI QP
 *
 * Return: 0, or -EBUSY when the device has one already.
 */
int sroce_gsi_add(struct sroce_qp *qp)
{
	int err = 0;

	spin_lock(&sroce_gsi_lock);
	if (qp->sdev->gsi_qp) {
		err = -EBUSY;
	} else {
		WRITE_ONCE(qp->sdev->gsi_qp, qp);
		list_add_tail_rcu(&qp->gsi_node, &sroce_gsi_list);
	}
	spin_unlock(&sroce_gsi_lock);
	return err;
}

/**
 * sroce_gsi_del() - unpublish a GSI QP
 * @qp: the device's GSI QP
 *
 * The caller waits for an RCU grace period before freeing anything the
 * receive path may look at (sroce_destroy_qp() does).
 */
void sroce_gsi_del(struct sroce_qp *qp)
{
	spin_lock(&sroce_gsi_lock);
	list_del_rcu(&qp->gsi_node);
	WRITE_ONCE(qp->sdev->gsi_qp, NULL);
	spin_unlock(&sroce_gsi_lock);
}

/* Does @ndev own the destination address of the packet at @iph? */
static bool sroce_dst_is_local(struct net *net, struct net_device *ndev,
			       const u8 *iph, bool v6)
{
	if (v6)
		return ipv6_chk_addr(net, &((const struct ipv6hdr *)iph)->daddr,
				     ndev, 0);
	return __ip_dev_find(net, ((const struct iphdr *)iph)->daddr, false) == ndev;
}

/**
 * sroce_gsi_get() - the GSI QP a packet for QPN 1 is for
 * @net: namespace of the receiving socket
 * @skb: the packet (skb->dev is the ingress netdev)
 * @iph: its IP header
 * @v6: @iph is IPv6
 *
 * Context: softirq.
 * Return: the QP with a reference, or NULL.
 */
static struct sroce_qp *sroce_gsi_get(struct net *net, struct sk_buff *skb,
				      const u8 *iph, bool v6)
{
	struct sroce_qp *qp, *found = NULL;
	struct net_device *ndev;

	rcu_read_lock();
	list_for_each_entry_rcu(qp, &sroce_gsi_list, gsi_node) {
		if (READ_ONCE(qp->sdev->ndev) == skb->dev) {
			found = qp;
			break;
		}
	}
	if (!found) {
		/* loopback: arrived on lo, addressed to one of our netdevs */
		list_for_each_entry_rcu(qp, &sroce_gsi_list, gsi_node) {
			ndev = READ_ONCE(qp->sdev->ndev);
			if (ndev && net_eq(dev_net(ndev), net) &&
			    sroce_dst_is_local(net, ndev, iph, v6)) {
				found = qp;
				break;
			}
		}
	}
	if (found)
		found = sroce_qp_tryget(found->h);
	rcu_read_unlock();
	return found;
}

/**
 * sroce_ud_check() - may @qp take the UD packet @hdr describes?
 * @qp: the destination UD or GSI QP
 * @skb: the packet
 * @hdr: its parsed transport header
 *
 * Checks the QP type, the length (at most 4096 bytes, the largest MTU; a
 * MAD's 256 on QP1), the P_Key, the Q_Key and the backlogs of the QP
 * (packets, bytes) and of its device (bytes).
 *
 * ib_mad posts QP1 buffers for a GRH and one MAD, and takes any receive
 * that completes in error for a QP in the error state: it neither reposts
 * nor frees that buffer. A longer datagram would complete its buffer with
 * IB_WC_LOC_LEN_ERR, so a few hundred of them from anyone on the network
 * would leave QP1 without buffers, and rdma_cm without connections, until
 * the device goes (97-rdmacm, big_mad).
 *
 * Return: SROCE_DROP_MAX when it may, else why the packet is dropped.
 */
enum sroce_drop sroce_ud_check(struct sroce_qp *qp, const struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr)
{
	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI)
		return SROCE_DROP_HDR;
	if (hdr->payload_len > SROCE_UD_MAX_PAYLOAD ||
	    (qp->ibqp.qp_type == IB_QPT_GSI && hdr->payload_len > IB_MGMT_MAD_SIZE))
		return SROCE_DROP_LEN;
	if ((hdr->bth.pkey & 0x7fff) != (SROCE_DEFAULT_PKEY & 0x7fff))
		return SROCE_DROP_HDR;
	if (hdr->deth.qkey != READ_ONCE(qp->attr.qkey))
		return SROCE_DROP_QKEY;
	if (skb_queue_len(&qp->rxq) >= SROCE_UD_RXQ_MAX)
		return SROCE_DROP_NO_RQE;
	/* a UD QP's queue is bounded in bytes too, as RC's and UC's */
	if ((unsigned int)atomic_read(&qp->rxq_bytes) + skb->truesize > SROCE_RXQ_BYTES)
		return SROCE_DROP_BACKLOG;
	if (sroce_dev_rxq_full(qp, skb, 0))
		return SROCE_DROP_DEV_BACKLOG;
	return SROCE_DROP_MAX;
}

/**
 * sroce_ud_accept() - find and check the QP a UD packet is for
 * @net: namespace of the receiving socket
 * @skb: the datagram, data at the UDP header (after the ICRC and header
 *	checks in recv.c)
 * @hdr: its parsed transport header (a UD opcode)
 * @iph: its IP header
 * @v6: @iph is IPv6
 *
 * Finds the destination UD or GSI QP and checks the packet against it
 * (sroce_ud_check()). A failure is counted and the packet dropped.
 *
 * Context: softirq.
 * Return: the QP with a reference (the caller queues @skb to it), or NULL
 * when @skb was dropped.
 */
struct sroce_qp *sroce_ud_accept(struct net *net, struct sk_buff *skb,
				 const struct sroce_pkt_hdr *hdr, const u8 *iph, bool v6)
{
	u32 dqpn = hdr->bth.dqpn;
	enum sroce_drop why;
	struct sroce_qp *qp;

	if (dqpn == SROCE_GSI_QPN)
		qp = sroce_gsi_get(net, skb, iph, v6);
	else if (dqpn >= 16)
		qp = sroce_qp_get_net(net, dqpn);
	else
		qp = NULL;
	why = qp ? sroce_ud_check(qp, skb, hdr) : SROCE_DROP_NO_QP;
	if (why == SROCE_DROP_MAX)
		return qp;
	if (qp)
		sroce_qp_put(qp);
	sroce_drop_count(why, dqpn);
	kfree_skb(skb);
	return NULL;
}

/* ---- multicast --------------------------------------------------------- */

/**
 * sroce_mc_rcv() - hand a multicast UD datagram to every QP attached to its
 *	group on the device it arrived on
 * @skb: the datagram (consumed)
 * @hdr: its parsed transport header (UD, DQPN 0xFFFFFF)
 * @iph: its IP header
 * @v6: @iph is IPv6
 *
 * Each QP checks the packet as a unicast one (sroce_ud_check()) and gets a
 * clone. Context: softirq.
 * Return: 0.
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
		why = sroce_ud_check(qps[i], skb, hdr);
		if (why == SROCE_DROP_MAX) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (c)
				sroce_qp_rx(qps[i], c);
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
int sroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, const u8 *iph,
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
	/* every QP type: the device's packets queued are bounded in bytes */
	if (why == SROCE_DROP_MAX && sroce_dev_rxq_full(qp, skb, 0))
		why = SROCE_DROP_DEV_BACKLOG;
	if (why == SROCE_DROP_MAX)
		sroce_qp_rx(qp, skb);
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
 * Context: softirq, or BH disabled.
 * Return: 0, the skb is consumed.
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
	if (unchecked && !READ_ONCE(qp->opt.icrc_skip) && !sroce_rcv_icrc_ok(skb, iph, v6)) {
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

/*
 * A datagram whose transport headers do not parse (@err): a CNP, the one
 * other packet we know, or dropped (as a bad ICRC if it was not checked).
 */
static int sroce_rcv_unparsed(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6,
			      bool unchecked, int err)
{
	if (err == SROCE_PKT_EOPCODE && skb->data[sizeof(struct udphdr)] == SROCE_OP_CNP)
		return sroce_cnp_rcv(net, skb, iph, v6, unchecked);
	if (unchecked && !sroce_rcv_icrc_ok(skb, iph, v6)) {
		sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_ICRC);
		return 0;
	}
	net_dbg_ratelimited("sroce: dropped a packet: %s\n", sroce_pkt_strerror(err));
	sroce_rx_drop(skb, SROCE_DROP_NO_QPN, SROCE_DROP_HDR);
	return 0;
}

/* A UD datagram: to a multicast group's QPs, or to the one QP that accepts it. */
static int sroce_rcv_ud(struct net *net, struct sk_buff *skb, struct sroce_pkt_hdr *hdr,
			const u8 *iph, bool v6, bool unchecked)
{
	struct sroce_qp *qp;

	/* UD never skips the ICRC */
	if (unchecked && !sroce_rcv_icrc_ok(skb, iph, v6)) {
		sroce_rx_drop(skb, hdr->bth.dqpn, SROCE_DROP_ICRC);
		return 0;
	}
	if (hdr->bth.dqpn == SROCE_MCAST_QPN)
		return sroce_mc_rcv(skb, hdr, iph, v6);
	qp = sroce_ud_accept(net, skb, hdr, iph, v6);
	return qp ? sroce_rcv_finish(qp, skb, SROCE_DROP_MAX) : 0;
}

/*
 * Whether a connected QP takes a packet of @opflags: Return: why it drops
 * it, or SROCE_DROP_MAX to queue it.
 */
static enum sroce_drop sroce_rcv_check_qp(struct sroce_qp *qp, struct sk_buff *skb,
					  u32 opflags, const u8 *iph, bool v6, bool unchecked)
{
	enum ib_qp_state state;

	if (unchecked) {
		if (READ_ONCE(qp->opt.icrc_skip))
			sroce_stat_inc(qp->sdev, SROCE_STAT_ICRC_SKIP_RX);
		else if (!sroce_rcv_icrc_ok(skb, iph, v6))
			return SROCE_DROP_ICRC;
	}
	if (!sroce_rcv_type_ok(qp, opflags))
		return SROCE_DROP_HDR;
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_ERR)
		return SROCE_DROP_QP_STATE;
	/*
	 * not from the connected peer: never queued (the transport checks
	 * again under the QP lock, as modify_qp may change the path)
	 */
	if (!sroce_qp_peer_ok(qp, iph, v6))
		return SROCE_DROP_HDR;
	/* bounded: a flood waits for no one (the transport drains in order) */
	if (sroce_rxq_full(qp, skb))
		return SROCE_DROP_BACKLOG;
	return SROCE_DROP_MAX;
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
 * Context: softirq, or BH disabled.
 * Return: 0, the skb is consumed.
 */
int sroce_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6, bool unchecked)
{
	struct sroce_pkt_hdr hdr;
	struct sroce_qp *qp;
	int err;

	err = sroce_pkt_parse(skb->data + sizeof(struct udphdr),
			      skb->len - sizeof(struct udphdr), &hdr);
	if (err)
		return sroce_rcv_unparsed(net, skb, iph, v6, unchecked, err);
	if (hdr.info->flags & SROCE_OPF_UD)
		return sroce_rcv_ud(net, skb, &hdr, iph, v6, unchecked);
	qp = sroce_qp_get_net(net, hdr.bth.dqpn);
	if (!qp) {
		sroce_rx_drop(skb, hdr.bth.dqpn,
			      unchecked && !sroce_rcv_icrc_ok(skb, iph, v6) ?
			      SROCE_DROP_ICRC : SROCE_DROP_NO_QP);
		return 0;
	}
	return sroce_rcv_finish(qp, skb,
				sroce_rcv_check_qp(qp, skb, hdr.info->flags, iph, v6, unchecked));
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
int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
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
