/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xmit.c: building and sending packets
 */
#ifndef SROCE_XMIT_H
#define SROCE_XMIT_H

#include "qp.h"

struct sk_buff *sroce_pkt_alloc(struct sroce_qp *qp, u32 len);
/* payloads from this size on travel in fragments (sroce_pkt_frag_mode()) */
#define SROCE_PKT_FRAG_MIN	1024
enum sroce_pkt_mode {
	SROCE_PKT_LINEAR,
	SROCE_PKT_FRAG,
	SROCE_PKT_ZCOPY,
};
enum sroce_pkt_mode sroce_pkt_frag_mode(const struct sroce_qp *qp, u32 payload, bool zc);
u8 *sroce_pkt_frag_piece(struct sk_buff *skb, u32 len, u32 payload, bool last);
int sroce_pkt_zc_end(struct sroce_qp *qp, struct sk_buff *skb, u32 payload, int err);
int sroce_pkt_xmit(struct sroce_qp *qp, struct sk_buff *skb, u32 payload);
int sroce_pkt_xmit_port(struct sroce_qp *qp, struct sk_buff *skb, u32 payload, __be16 sport);
__be16 sroce_qp_ar_sport(struct sroce_qp *qp);
bool sroce_txb_segmented(const struct net_device *ndev);
void sroce_txb_begin(struct sroce_qp *qp);
void sroce_txb_end(struct sroce_qp *qp);

void sroce_qp_icrc_learn(struct sroce_qp *qp, const struct sk_buff *skb, u32 flags);

#endif /* SROCE_XMIT_H */
