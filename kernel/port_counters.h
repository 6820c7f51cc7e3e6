/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port_counters.c: the port counters (rdma statistic)
 */
#ifndef SROCE_PORT_COUNTERS_H
#define SROCE_PORT_COUNTERS_H

#include "sroce.h"

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_PORT_COUNTERS_H */
