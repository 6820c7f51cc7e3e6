/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recv.c's entry points for the sockets (net.c) and local delivery
 * (xmit.c)
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/types.h>

struct net;
struct sk_buff;
struct sock;

int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
int sroce_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6, bool unchecked);
int sroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, const u8 *iph,
		   unsigned int iph_len, u32 *icrc);

#endif
