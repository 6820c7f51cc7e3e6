/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recv.c's entry points for the sockets (net.c) and local delivery
 * (xmit.c)
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/atomic.h>
#include <linux/types.h>

#include "qp.h"

struct net;
struct sk_buff;
struct sock;

/*
 * Opt-in ICRC skip between two sroce peers (xmit.c and recv.c, Documentation/
 * datapath.rst): two reserved bits of the BTH's Resv8a byte, which the
 * ICRC masks and other implementations ignore. ADV: the sender's QP skips
 * the ICRC when its peer does; NONE: this packet carries no ICRC.
 */
/* SROCE_BTH_RESV8A_OFF: the byte's offset, proto/sroce_wire.h */
#define SROCE_BTH_ICRC_ADV	0x01
#define SROCE_BTH_ICRC_NONE	0x02

int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
int sroce_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6, bool unchecked);
int sroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, const u8 *iph,
		   unsigned int iph_len, u32 *icrc);

extern atomic64_t sroce_rx_drops[SROCE_DROP_MAX];
void sroce_drop_count(enum sroce_drop why, u32 qpn);
/* sroce_drop_count()'s @qpn when the destination QP is not known */
#define SROCE_DROP_NO_QPN	U32_MAX

/* UD and GSI demultiplexing (recv.c) */
int sroce_gsi_add(struct sroce_qp *qp);
void sroce_gsi_del(struct sroce_qp *qp);
enum sroce_drop sroce_ud_check(struct sroce_qp *qp, const struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr);
struct sroce_qp *sroce_ud_accept(struct net *net, struct sk_buff *skb,
				 const struct sroce_pkt_hdr *hdr, const u8 *iph, bool v6);

#endif
