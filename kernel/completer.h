/* SPDX-License-Identifier: GPL-2.0 */
/*
 * completer.c: acknowledgements, READ responses and completions of the send side
 */
#ifndef SROCE_COMPLETER_H
#define SROCE_COMPLETER_H

#include "qp.h"

/* module parameter loss_window: the loss window and its RTT resend timer */
extern bool sroce_loss_window;

void sroce_completer_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr);
void sroce_completer_timeout(struct sroce_qp *qp);
void sroce_completer_rnr_done(struct sroce_qp *qp);
void sroce_comp_retire(struct sroce_qp *qp, enum ib_wc_status status);
/* the send side's completions and ACK timer, the requester's too */
void sroce_req_complete(struct sroce_qp *qp, u32 idx, enum ib_wc_status status);
void sroce_req_retire_local(struct sroce_qp *qp);
void sroce_req_arm_timer(struct sroce_qp *qp);

#endif /* SROCE_COMPLETER_H */
