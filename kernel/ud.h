/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ud.c: UD and GSI QPs
 */
#ifndef SROCE_UD_H
#define SROCE_UD_H

#include "qp.h"
#include "recv.h"

#define SROCE_GSI_QPN		1
struct sroce_qp *sroce_ud_accept(struct net *net, struct sk_buff *skb,
				  const struct sroce_pkt_hdr *hdr, const u8 *iph, bool v6);
void sroce_ud_rx(struct sroce_qp *qp, struct sk_buff *skb,
		 const struct sroce_pkt_hdr *hdr);
void sroce_ud_send(struct sroce_qp *qp);
void sroce_ud_send_posted(struct sroce_qp *qp);
void sroce_ud_send_posted_pd(struct ib_pd *pd);
int sroce_gsi_add(struct sroce_qp *qp);
void sroce_gsi_del(struct sroce_qp *qp);


enum sroce_drop sroce_ud_check(struct sroce_qp *qp, const struct sk_buff *skb,
			       const struct sroce_pkt_hdr *hdr);

#endif /* SROCE_UD_H */
