/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sr.c: selective repeat, the responder's side
 */
#ifndef SROCE_RESP_SR_H
#define SROCE_RESP_SR_H

#include "qp.h"

/* held out-of-order request bytes (skb truesize) per QP, selective repeat */
#define SROCE_SR_HOLD_BYTES	(2u << 20)

unsigned long sroce_sr_nak_delay(void);
void sroce_sr_release(struct sroce_qp *qp);
bool sroce_sr_sack(struct sroce_qp *qp, struct sroce_sack *sack);
bool sroce_sr_hold(struct sroce_qp *qp, struct sk_buff *skb, const struct sroce_pkt_hdr *hdr);
int sroce_sr_next(struct sroce_qp *qp, struct sk_buff **skb, struct sroce_pkt_hdr *hdr);
bool sroce_sr_drained(struct sroce_qp *qp);

#endif /* SROCE_RESP_SR_H */
