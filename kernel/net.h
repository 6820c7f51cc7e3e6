/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.c: the UDP 4791 sockets (one per network namespace)
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include "sroce.h"

struct sroce_udp *sroce_udp_get(struct net *net);
void sroce_udp_put(struct sroce_udp *udp);
int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* SROCE_NET_H */
