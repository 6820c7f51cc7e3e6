/* SPDX-License-Identifier: GPL-2.0 */
/*
 * requester.c: the RC/UC/XRC send side
 */
#ifndef SROCE_REQUESTER_H
#define SROCE_REQUESTER_H

#include "qp.h"

/* module parameters sq_poll_us and doorbell_defer */
extern unsigned int sroce_sq_poll_us;
extern unsigned int sroce_db_defer_mode;

void sroce_requester(struct sroce_qp *qp, int budget);
enum ib_wc_status sroce_wqe_len(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
				u64 *len);
void sroce_req_flush(struct sroce_qp *qp);
void sroce_req_go_back(struct sroce_qp *qp, u32 psn);
void sroce_req_doorbell(struct sroce_qp *qp);

#endif /* SROCE_REQUESTER_H */
