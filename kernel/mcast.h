/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce UD multicast (mcast.c).
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include "sroce.h"

#define SROCE_MCAST_QPN			0xffffff	/* IBTA: multicast DQPN */

struct sroce_qp;

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mc_qp_gone(struct sroce_qp *qp);
int sroce_mc_get_qps(const struct net_device *ndev, const union ib_gid *mgid,
		     struct sroce_qp **qps, int max);

#endif /* SROCE_MCAST_H */
