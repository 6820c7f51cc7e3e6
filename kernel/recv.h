/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recv.c's entry points for the sockets (net.c) and local delivery
 * (xmit.c)
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/atomic.h>
#include <linux/types.h>

struct net;
struct sk_buff;
struct sock;

int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
int sroce_rcv(struct net *net, struct sk_buff *skb, const u8 *iph, bool v6, bool unchecked);
int sroce_skb_icrc(const struct sk_buff *skb, u32 off, u32 len, const u8 *iph,
		   unsigned int iph_len, u32 *icrc);

/*
 * recv.c: why a received packet was dropped. One list for the enum, the
 * rx_drop_* counters (port_counters.c) and the sroce_drop tracepoint's names
 * (trace.h): X(NAME, name) for SROCE_DROP_NAME, counted as rx_drop_name;
 * the last one is Y(NAME, name), for lists that must end without a comma
 * (a __print_symbolic() table).
 *  LEN       runt or unlinearisable datagram
 *  HDR       bad IP/transport header, wrong QP type/peer
 *  ICRC      ICRC mismatch
 *  NO_QP     no such destination QP in this namespace
 *  QKEY      UD: Q_Key is not the QP's
 *  NO_RQE    UD: no receive posted, or the QP's backlog full
 *  QP_STATE  RC: the QP does not receive in its state
 *  BACKLOG   RC: the QP's receive queue is full
 *  CNP       a CNP for no QP, or one not doing DCQCN
 */
#define SROCE_DROP_REASONS(X, Y)					\
	X(LEN, len) X(HDR, hdr) X(ICRC, icrc) X(NO_QP, no_qp)		\
	X(QKEY, qkey) X(NO_RQE, no_rqe) X(QP_STATE, qp_state)		\
	X(BACKLOG, backlog) X(DEV_BACKLOG, dev_backlog) Y(CNP, cnp)

#define SROCE_DROP_ENUM_(up, low)	SROCE_DROP_##up,
enum sroce_drop {
	SROCE_DROP_REASONS(SROCE_DROP_ENUM_, SROCE_DROP_ENUM_)
	SROCE_DROP_MAX
};

#undef SROCE_DROP_ENUM_

extern atomic64_t sroce_rx_drops[SROCE_DROP_MAX];
void sroce_drop_count(enum sroce_drop why, u32 qpn);
/* sroce_drop_count()'s @qpn when the destination QP is not known */
#define SROCE_DROP_NO_QPN	U32_MAX

#endif
