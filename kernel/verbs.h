/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs.c: the device operations table, device and port queries
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include "sroce.h"

extern const struct ib_device_ops sroce_dev_ops;
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);
void sroce_init_ib_dev(struct sroce_dev *sdev);
u32 sroce_link_mbps(struct net_device *ndev);
int sroce_query_port_speed(struct ib_device *ibdev, u32 port, u64 *speed);

#endif /* SROCE_VERBS_H */
