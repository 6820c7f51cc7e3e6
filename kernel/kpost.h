/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpost.c: posting for kernel consumers (ULPs)
 */
#ifndef SROCE_KPOST_H
#define SROCE_KPOST_H

#include "qp.h"

int sroce_kpost_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int sroce_kpost_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);

#endif /* SROCE_KPOST_H */
