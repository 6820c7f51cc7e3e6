// SPDX-License-Identifier: GPL-2.0
/*
 * sroce transmit path: a packet's skb (headers, payload copied into
 * fragments or carried by reference), its ICRC, the route and the IPv4
 * or IPv6 header, local delivery for an address of this host, and the
 * transmit bursts (tx_gso): one GSO packet of many.
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
#include "qp.h"
#include "recv.h"
#include "sroce_icrc.h"
#include "sroce_wire.h"
#include "trace.h"
#include "xmit.h"

/*
 * Headroom a transmit burst's members keep before their IP header. The
 * stack's segmentation of a burst (skb_segment_list()) pushes each member
 * back to the head's MAC header and copies the head's link and tunnel
 * headers there unchecked: a VLAN tag a tc action or a device without tag
 * offload put inline, a tunnel's outer headers. LL_RESERVED_SPACE() alone
 * (16 bytes on a veth) made a pushed VLAN tag a skb_under_panic()
 * (93-tx-gso). MAX_HEADER is what the kernel reserves for a link header
 * with a tunnel in front of it.
 */
#define SROCE_TXB_HEADROOM	MAX_HEADER

/**
 * sroce_pkt_alloc() - an skb for one packet of @qp
 * @qp: the sending QP (its path decides the headroom)
 * @len: transport headers + payload bytes the caller will put
 *
 * Return: an skb with headroom for Ethernet/IP/UDP (SROCE_TXB_HEADROOM
 * more for a QP that may send bursts) and tailroom for the pad and the
 * ICRC, or NULL.
 */
struct sk_buff *sroce_pkt_alloc(struct sroce_qp *qp, u32 len)
{
	struct net_device *ndev = qp->sdev->ndev;
	unsigned int head = LL_RESERVED_SPACE(ndev) + sizeof(struct udphdr) +
		(qp->path.ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
		(qp->opt.tx_gso ? SROCE_TXB_HEADROOM : 0);
	unsigned int size = head + len + 3 + SROCE_ICRC_LEN;
	unsigned int truesize = SKB_DATA_ALIGN(size) +
		SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *buf;

	/*
	 * A payload copied behind its headers (sroce_pkt_frag_mode(): a
	 * device that cannot gather) comes from the page-fragment cache:
	 * the slab would round a full 1024-byte-MTU packet up to 2 KiB and
	 * init_on_alloc would zero all of it, for bytes we write anyway.
	 * (netdev_alloc_skb() does the same with NET_SKB_PAD more headroom:
	 * 3 % less WRITE bandwidth across two VMs, 4 of 4 repetitions.)
	 */
	if (len < SROCE_PKT_FRAG_MIN || truesize > PAGE_SIZE) {
		skb = alloc_skb(size, GFP_ATOMIC);
	} else {
		buf = netdev_alloc_frag(truesize);
		if (!buf)
			return NULL;
		skb = build_skb(buf, truesize);
		if (!skb)
			skb_free_frag(buf);
	}
	if (skb)
		skb_reserve(skb, head);
	return skb;
}

static bool sroce_zcopy = true;
module_param_named(zcopy, sroce_zcopy, bool, 0644);
MODULE_PARM_DESC(zcopy,
		 "RC/XRC requests and READ responses carry user MR pages by reference, not a copy (default: on)");

/*
 * Can @ndev send a packet whose payload is in page fragments? One that
 * cannot (no NETIF_F_SG: virtio-net without checksum offload, as on QEMU's
 * socket and dgram backends) has the stack copy every such packet into a
 * new linear buffer (validate_xmit_skb(), skb_segment_list() for a burst's
 * members): fragments, by reference or copied, only add that second
 * allocation and copy.
 */
static bool sroce_pkt_dev_gathers(const struct net_device *ndev)
{
	return READ_ONCE(ndev->features) & NETIF_F_SG;
}

/**
 * sroce_pkt_frag_mode() - how @payload bytes of a packet of @qp travel
 * @qp: the sending QP
 * @payload: payload bytes
 * @zc: may they travel by reference (see sroce_mr_frags())? Only for
 *	RC and XRC, whose requests complete on their acknowledgement; a UC
 *	or UD send completes once sent, when its buffer is the user's again.
 *
 * Return: SROCE_PKT_LINEAR (small, or a device that cannot gather:
 * copied behind the headers),
 * SROCE_PKT_ZCOPY (user MR pages as fragments, sroce_pkt_zc_end()) or
 * SROCE_PKT_FRAG (copied into a page fragment, sroce_pkt_frag_piece()): no
 * linear buffer the size of the packet, which the slab rounds up to twice
 * that and init_on_alloc zeroes whole.
 */
enum sroce_pkt_mode sroce_pkt_frag_mode(const struct sroce_qp *qp, u32 payload, bool zc)
{
	if (payload < SROCE_PKT_FRAG_MIN || !sroce_pkt_dev_gathers(qp->sdev->ndev))
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

/*
 * Append @len bytes and the pad and ICRC field of @payload: one fragment,
 * or two when they do not fit in a page together (a full 4096-byte MTU
 * payload). 7.x's page-fragment allocator serves no fragment larger than
 * a page once its cache page is used up: one 4100-byte fragment a packet
 * failed every packet after the 7th (a UC stream stopped there).
 */
static u8 *sroce_pkt_frag_tail(struct sk_buff *skb, u32 len, u32 payload)
{
	u32 trailer = sroce_pad_len(payload) + SROCE_ICRC_LEN;
	u8 *buf, *tail;

	if (len + trailer <= PAGE_SIZE) {
		buf = sroce_pkt_frag_add(skb, len + trailer);
		if (buf)
			memset(buf + len, 0, trailer);
		return buf;
	}
	buf = sroce_pkt_frag_add(skb, len);
	if (!buf)
		return NULL;
	tail = sroce_pkt_frag_add(skb, trailer);
	if (!tail)
		return NULL;	/* the caller frees @skb, fragments and all */
	memset(tail, 0, trailer);
	return buf;
}

/**
 * sroce_pkt_frag_piece() - room for the next piece of a packet's payload
 * @skb: the packet, headers built, the pieces before this one appended
 * @len: this piece's bytes, at most PAGE_SIZE
 * @payload: the packet's payload bytes
 * @last: the pad and ICRC field follow this piece (zeroed)
 *
 * A payload larger than a page (a wide segment, sroce_wide_seg()) is
 * copied a page at a time: no fragment larger than a page is to be had
 * (sroce_pkt_frag_tail()).
 *
 * Return: where the caller copies the piece, or NULL (no memory: drop the
 * packet like a lost one).
 */
u8 *sroce_pkt_frag_piece(struct sk_buff *skb, u32 len, u32 payload, bool last)
{
	return last ? sroce_pkt_frag_tail(skb, len, payload) : sroce_pkt_frag_add(skb, len);
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
 * (sroce_pkt_frag_piece()) after all; -ENOMEM (drop the packet like a lost
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
	/* a fragment of ours (sroce_pkt_frag_piece()): lowmem, writable */
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
	sroce_qp_local_enter();
	ret = sroce_rcv(net, skb, iph, qp->path.ipv6, false);
	sroce_qp_local_exit();
	return ret;
}

/**
 * sroce_qp_icrc_learn() - note that the peer of @qp skips the ICRC
 * @qp: a connected QP
 * @skb: a packet from its peer (address checked), data at the UDP header
 * @flags: the packet's opcode flags (SROCE_OPF_*)
 *
 * A QP that opted in (qp->opt.icrc_skip, sampled from the device at RTR) marks
 * its packets SROCE_BTH_ICRC_ADV; once the peer's packets carry the mark
 * too, both ends opted in and the QP stops computing the ICRC
 * (sroce_icrc_mark()). rxe and hardware never set the bit, so the QP keeps
 * the ICRC with them. Selective repeat is negotiated the same way with
 * SROCE_BTH_SR_ADV (qp->opt.selrep, qp->opt.selrep_peer), and READ repairs
 * with SROCE_BTH_SELRD_ADV (qp->opt.selrd_peer); a peer in adaptive
 * routing mode is known by SROCE_BTH_AR on its requests (qp->opt.ar_peer),
 * one that takes wide segments by the same bit on its responses
 * (SROCE_BTH_WIDE_ADV, qp->opt.wide_peer), offered only to a requester
 * whose SEND and WRITE packets asked with SROCE_BTH_WIDE_ASK
 * (qp->opt.wide_ask); wide READ responses likewise, by the Resv7 marks
 * (SROCE_BTH7_WIDE_RD_ADV, qp->opt.wide_rd_peer; SROCE_BTH7_WIDE_RD_ASK
 * on its requests, qp->opt.wide_rd_ask).
 */
void sroce_qp_icrc_learn(struct sroce_qp *qp, const struct sk_buff *skb, u32 flags)
{
	lockdep_assert_held(&qp->lock);

	u8 resv8a = skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV8A_OFF];
	u8 resv7 = skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV7_OFF];

	if (qp->opt.icrc_skip && !qp->opt.icrc_peer && (resv8a & SROCE_BTH_ICRC_ADV))
		qp->opt.icrc_peer = true;
	/* selective repeat likewise: both ends offered it (sroce_sr.h) */
	if (qp->opt.selrep && !qp->opt.selrep_peer && (resv8a & SROCE_BTH_SR_ADV))
		qp->opt.selrep_peer = true;
	if (qp->opt.selrep && !qp->opt.selrd_peer && (resv8a & SROCE_BTH_SELRD_ADV))
		qp->opt.selrd_peer = true;
	if (qp->opt.selrep && !qp->opt.rdprobe_peer && (resv7 & SROCE_BTH7_RD_PROBE_ADV))
		qp->opt.rdprobe_peer = true;
	if (flags & (SROCE_OPF_RESP | SROCE_OPF_ACK)) {
		/* its responder takes wide segments (requester.c) */
		if (qp->opt.wide && !qp->opt.wide_peer && (resv8a & SROCE_BTH_WIDE_ADV))
			qp->opt.wide_peer = true;
		/* and sends wide READ responses (requester.c, sroce_req_seg()) */
		if (qp->opt.wide && !qp->opt.wide_rd_peer && (resv7 & SROCE_BTH7_WIDE_RD_ADV))
			qp->opt.wide_rd_peer = true;
		return;
	}
	/* its READs would take wide responses: offer them */
	if (qp->opt.wide && !qp->opt.wide_rd_ask && (resv7 & SROCE_BTH7_WIDE_RD_ASK))
		qp->opt.wide_rd_ask = true;
	/* its requester would send them: offer them (sroce_icrc_mark()) */
	if (qp->opt.wide && !qp->opt.wide_ask && (resv8a & SROCE_BTH_WIDE_ASK) &&
	    (flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)))
		qp->opt.wide_ask = true;
	/* the peer sprays its requests: expect reordering (sr.c) */
	if (!qp->opt.ar_peer && (resv8a & SROCE_BTH_AR))
		qp->opt.ar_peer = true;
}

/*
 * The wide segment marks of a packet of @qp, whose BTH is at @bth: a SEND
 * or WRITE request asks (Resv8a), every request asks for wide READ
 * responses (Resv7); a response offers each to a requester that asked
 */
static void sroce_wide_mark(const struct sroce_qp *qp, u8 *bth)
{
	const struct sroce_opcode_info *info;

	if (!qp->opt.wide)
		return;	/* no table lookup for a QP that never offers */
	info = sroce_opcode(bth[0]);
	if (!info)
		return;
	if (info->flags & (SROCE_OPF_RESP | SROCE_OPF_ACK)) {
		if (qp->opt.wide_ask)
			bth[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_WIDE_ADV;
		if (qp->opt.wide_rd_ask)
			bth[SROCE_BTH_RESV7_OFF] |= SROCE_BTH7_WIDE_RD_ADV;
		return;
	}
	/* any request: the offer comes with the first answer, before a READ */
	bth[SROCE_BTH_RESV7_OFF] |= SROCE_BTH7_WIDE_RD_ASK;
	if (info->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE))
		bth[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_WIDE_ASK;
}

/**
 * sroce_icrc_mark() - the ICRC skip marks of an outgoing packet
 * @qp: the sending QP
 * @skb: the packet, transport header set
 *
 * Also the offers of the sending QP: selective repeat (every packet), wide
 * segments (sroce_wide_mark()).
 *
 * Return: true if the packet goes without an ICRC (both ends opted in),
 * false if the caller computes it.
 */
static bool sroce_icrc_mark(struct sroce_qp *qp, struct sk_buff *skb)
{
	u8 *resv8a = skb_transport_header(skb) + sizeof(struct udphdr) +
		     SROCE_BTH_RESV8A_OFF;

	if (qp->opt.selrep) {
		*resv8a |= SROCE_BTH_SR_ADV | SROCE_BTH_SELRD_ADV;	/* and READ repairs */
		resv8a[SROCE_BTH_RESV7_OFF - SROCE_BTH_RESV8A_OFF] |= SROCE_BTH7_RD_PROBE_ADV;
	}
	sroce_wide_mark(qp, resv8a - SROCE_BTH_RESV8A_OFF);
	if (!qp->opt.icrc_skip)
		return false;
	if (!qp->opt.icrc_peer) {
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
 * The transmit burst. While sroce_rc_process() runs a connected QP whose
 * device allows it (sysfs tx_gso, sampled at RTR; by default where the
 * netdev has bursts segmented before its driver), its IPv4 packets are
 * not handed to the IP stack one by one: a run of them whose UDP payloads all have
 * the length of the first (the last may be shorter) goes as one UDP GSO
 * packet, SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST. Each packet stays a complete
 * skb of its own (IP, UDP, BTH .. ICRC) chained on the first one's
 * frag_list, so whoever segments it only un-chains them and restores
 * their headers: the wire carries exactly the packets it would carry
 * without the burst. GSO gives the k-th segment the IP ID of the first
 * plus k, so that is the ID each packet's ICRC is computed over.
 *
 * Where the route's device takes such packets whole (veth), the route,
 * netfilter, qdisc and device (the peer's backlog, IP and UDP receive) are
 * crossed once per burst, and the receiving UDP socket segments it. Any
 * other device (virtio-net, a physical NIC) has the stack segment it just
 * before its driver (validate_xmit_skb(), skb_segment_list()), which then
 * gets the packets as one list, xmit_more set on all but the last: one
 * doorbell per burst instead of one per packet (on virtio-net under TCG
 * each doorbell is an exit into QEMU; performance.rst, *Across machines*).
 *
 * That segmentation completes no checksum: its segments keep the head's
 * ip_summed, and a CHECKSUM_PARTIAL packet on a device without checksum
 * offload would leave with its pseudo-header sum as UDP checksum (each
 * counted in the receiver's UdpInCsumErrors and dropped). So a burst is
 * CHECKSUM_PARTIAL (the device completes every packet's checksum) only
 * on a veth that offloads IPv4 checksums; elsewhere its packets carry
 * UDP checksum 0, as every single packet of sroce does, marked
 * CHECKSUM_UNNECESSARY (the other ip_summed a GSO packet may have). The
 * ICRC masks the checksum either way.
 *
 * Only packets of at least SROCE_TXB_MIN_SEG bytes: with 64 B messages,
 * bursts measured 10-20 % below single packets on 6.12 (segmenting costs
 * what the stack saves).
 */
#define SROCE_TXB_MIN_SEG	512
#define SROCE_TXB_MAX_PKTS	32
#define SROCE_TXB_MAX_LEN	(60 * 1024)
#define SROCE_TXB_DEV_CSUM	(NETIF_F_HW_CSUM | NETIF_F_IP_CSUM)

/*
 * May a burst to @dev stay CHECKSUM_PARTIAL? Only where the device itself
 * takes the burst whole and offloads the checksum: a veth, whose peer's
 * UDP receive segments a GSO packet only if it is CHECKSUM_PARTIAL (else
 * it warns), so checksum 0 for every device is no option. A stacked
 * device (macvlan, ipvlan, a bond, a VLAN, a bridge) advertises offloads
 * its lower device may lack, and the lower device's segmentation would
 * then send the partial sums (the UdpInCsumErrors above); so every other
 * device gets UDP checksum 0, which RoCEv2 allows.
 */
static bool sroce_txb_partial_csum(const struct net_device *dev)
{
	return (dev->features & SROCE_TXB_DEV_CSUM) && dev->rtnl_link_ops &&
	       !strcmp(dev->rtnl_link_ops->kind, "veth");
}

/**
 * sroce_txb_segmented() - would @ndev have a burst segmented before its driver?
 * @ndev: the netdev a device is created on
 *
 * Such a netdev (virtio-net, a physical NIC: no fraglist GSO) still carries
 * and shows every packet on its own, and a burst saves its doorbells; one
 * that takes a burst whole (a veth, a bond, a VLAN or other stacked device)
 * hands it on as one packet, to the peer's netfilter and captures too. A
 * new device's tx_gso defaults to this (main.c, tx_gso_default).
 *
 * Return: true if the stack segments bursts sent through @ndev itself.
 */
bool sroce_txb_segmented(const struct net_device *ndev)
{
	return !net_gso_ok(ndev->features, SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST);
}

/* Start collecting (a round of sroce_rc_process()). */
void sroce_txb_begin(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	/* not with adaptive routing: a burst's packets share one UDP header */
	qp->txb.on = qp->opt.tx_gso && !qp->path.ipv6 && !qp->dcqcn.on && !qp->opt.ar;
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
 * @skb: the packet, its IP header built
 * @seg: its UDP payload length
 * @rt: its route
 *
 * Sends what is collected first when @skb cannot follow it (another route,
 * a longer packet, a burst that ended with a shorter one, or a full one),
 * or goes alone (a small packet, or one allocated before the QP could send
 * bursts, without SROCE_TXB_HEADROOM).
 *
 * Return: its position (0 starts a new burst), or -1 to send it alone.
 */
static int sroce_txb_pos(struct sroce_qp *qp, const struct sk_buff *skb, u32 seg,
			 struct rtable *rt)
{
	struct sroce_txb *b = &qp->txb;

	if (seg < SROCE_TXB_MIN_SEG || skb_headroom(skb) < SROCE_TXB_HEADROOM) {
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
 * Add @skb (ICRC computed, at position sroce_txb_pos(), @seg bytes of UDP
 * payload) to the burst; the first packet keeps its route, the others drop
 * theirs (GSO segments take the first's). The first packet also decides
 * how the burst's UDP checksums go (see above): the stack's segmentation
 * gives every packet the first one's ip_summed.
 */
static void sroce_txb_add(struct sroce_qp *qp, struct sk_buff *skb, u32 seg,
			  struct rtable *rt)
{
	struct sroce_txb *b = &qp->txb;
	struct sk_buff *head = b->head;
	struct iphdr *iph = ip_hdr(skb);
	struct udphdr *uh = udp_hdr(skb);

	if (!head)
		b->csum = sroce_txb_partial_csum(rt->dst.dev);
	if (b->csum) {
		/* the pseudo-header sum: the device completes it */
		uh->check = ~csum_tcpudp_magic(iph->saddr, iph->daddr, ntohs(uh->len),
					       IPPROTO_UDP, 0);
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	} else {
		uh->check = 0;	/* (sroce_pkt_xmit_port() set it so) */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	}
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
	if (READ_ONCE(sroce_loopback) && rt->rt_type == RTN_LOCAL) {
		ip_rt_put(rt);
		if (unlikely(qp->txb.head))
			sroce_txb_flush(qp);	/* (a route that just became local) */
		ip_send_check(iph);
		return sroce_xmit_local(qp, skb, net);
	}
	if (qp->txb.on) {
		seg = skb->len - sizeof(*iph) - sizeof(struct udphdr);
		pos = sroce_txb_pos(qp, skb, seg, rt);
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
	if (READ_ONCE(sroce_loopback) && (dst->dev->flags & IFF_LOOPBACK)) {
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
 * sroce_qp_ar_sport() - the UDP source port of an AR QP's next request
 * @qp: an RC QP in adaptive routing mode
 *
 * Multipath spraying: a QP's SEND and WRITE packets go round the
 * qp->opt.ar_paths source ports of sroce_ar_sport() in turn, so routers
 * that hash on L4 (ECMP, a bond's layer3+4 policy) put them on different
 * paths. What comes back (ACKs, NAKs, SACKs) is matched by QP and PSN,
 * never by port, and DCQCN and the rate limiter count the QP's packets
 * whatever their port.
 *
 * Return: the port, network order.
 */
__be16 sroce_qp_ar_sport(struct sroce_qp *qp)
{
	u32 path = qp->opt.ar_next;

	lockdep_assert_held(&qp->lock);
	if (++qp->opt.ar_next >= qp->opt.ar_paths)
		qp->opt.ar_next = 0;
	return htons(sroce_ar_sport(ntohs(qp->path.sport), path));
}

/**
 * sroce_pkt_xmit_port() - pad, checksum and send one packet of @qp
 * @qp: the sending QP
 * @skb: transport headers and payload (from sroce_pkt_alloc())
 * @payload: payload bytes in @skb (decides the pad)
 * @sport: its UDP source port (network order)
 *
 * Consumes @skb.
 *
 * Return: 0 or a negative errno (routing failure; the packet is lost like
 * any packet on the wire and retransmission recovers).
 */
int sroce_pkt_xmit_port(struct sroce_qp *qp, struct sk_buff *skb, u32 payload, __be16 sport)
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
	uh->source = sport;
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;
	skb->ignore_df = 0;
	skb->ip_summed = CHECKSUM_NONE;
	sroce_stat_inc(qp->sdev, SROCE_STAT_TX_PKTS);
	return qp->path.ipv6 ? sroce_xmit6(qp, skb, net) : sroce_xmit4(qp, skb, net);
}

/* Send one packet of @qp from its own source port: sroce_pkt_xmit_port(). */
int sroce_pkt_xmit(struct sroce_qp *qp, struct sk_buff *skb, u32 payload)
{
	return sroce_pkt_xmit_port(qp, skb, payload, qp->path.sport);
}
