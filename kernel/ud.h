/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ud.c: UD and GSI QPs
 */
#ifndef SROCE_UD_H
#define SROCE_UD_H

#include "qp.h"

void sroce_ud_rx(struct sroce_qp *qp, struct sk_buff *skb,
		 const struct sroce_pkt_hdr *hdr);
void sroce_ud_send(struct sroce_qp *qp);
void sroce_ud_send_posted(struct sroce_qp *qp);
void sroce_ud_send_posted_pd(struct ib_pd *pd);
int sroce_ud_destroy_ah(struct ib_ah *ibah, u32 flags);

#endif /* SROCE_UD_H */
