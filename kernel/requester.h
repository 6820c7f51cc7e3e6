/* SPDX-License-Identifier: GPL-2.0 */
/*
 * requester.c: the RC/UC/XRC send side
 */
#ifndef SROCE_REQUESTER_H
#define SROCE_REQUESTER_H

#include "qp.h"

void sroce_requester(struct sroce_qp *qp, int budget);
enum ib_wc_status sroce_wqe_len(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
				u64 *len);
void sroce_req_flush(struct sroce_qp *qp);
void sroce_req_go_back(struct sroce_qp *qp, u32 psn);
bool sroce_wqe_has_response(const struct sroce_send_wqe *wqe);
bool sroce_wqe_empty_response(const struct sroce_send_wqe *wqe);
bool sroce_wqe_is_local(const struct sroce_send_wqe *wqe);
void sroce_req_retire_local(struct sroce_qp *qp);
void sroce_req_complete(struct sroce_qp *qp, u32 idx, enum ib_wc_status status);
void sroce_req_arm_timer(struct sroce_qp *qp);
void sroce_req_doorbell(struct sroce_qp *qp);

#endif /* SROCE_REQUESTER_H */
