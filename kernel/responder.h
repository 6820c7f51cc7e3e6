/* SPDX-License-Identifier: GPL-2.0 */
/*
 * responder.c: the RC/UC/XRC receive side
 */
#ifndef SROCE_RESPONDER_H
#define SROCE_RESPONDER_H

#include "qp.h"

void sroce_responder_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr);
void sroce_responder_flush_acks(struct sroce_qp *qp);
void sroce_responder_send_reads(struct sroce_qp *qp);
void sroce_responder_sr_gap(struct sroce_qp *qp);
void sroce_responder_reset(struct sroce_qp *qp);
void sroce_responder_release(struct sroce_qp *qp);
void sroce_responder_flush(struct sroce_qp *qp);
int sroce_send_ack(struct sroce_qp *qp, u8 syndrome, u32 psn);
int sroce_send_ack_sack(struct sroce_qp *qp, u8 syndrome, u32 psn,
			const struct sroce_sack *sack, u8 kind);
void sroce_resp_nak_resend(struct sroce_qp *qp, u8 syndrome);
void sroce_resp_rx(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt_hdr *hdr, int xerr);

#endif /* SROCE_RESPONDER_H */
