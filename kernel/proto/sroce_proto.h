/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: pure functions shared by sroce.ko and the host unit
 * tests (userspace/tests). No kernel dependencies beyond sroce_types.h.
 */
#ifndef SROCE_PROTO_H
#define SROCE_PROTO_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RoCEv2 (IBTA Annex A17) constants */
#define SROCE_UDP_PORT		4791
#define SROCE_BTH_LEN		12
#define SROCE_RETH_LEN		16
#define SROCE_IMMDT_LEN		4
#define SROCE_ICRC_LEN		4
#define SROCE_UDP_HLEN		8
#define SROCE_IPV6_HLEN		40
/*
 * Worst-case bytes around a payload-carrying RoCEv2 packet, below the
 * Ethernet header: IPv6 + UDP + BTH + RETH + ImmDt + ICRC (RDMA WRITE Only
 * with Immediate over IPv6).
 */
#define SROCE_MAX_OVERHEAD	(SROCE_IPV6_HLEN + SROCE_UDP_HLEN + SROCE_BTH_LEN + \
				 SROCE_RETH_LEN + SROCE_IMMDT_LEN + SROCE_ICRC_LEN)

/* IB MTU enumeration values (IBTA 14.2.5.6; same values as enum ib_mtu) */
enum sroce_ib_mtu {
	SROCE_IB_MTU_256 = 1,
	SROCE_IB_MTU_512 = 2,
	SROCE_IB_MTU_1024 = 3,
	SROCE_IB_MTU_2048 = 4,
	SROCE_IB_MTU_4096 = 5,
};

/**
 * sroce_eui64_from_mac() - modified EUI-64 (node/port GUID) from a MAC
 * @eui: 8 output bytes, network order
 * @mac: 6 byte Ethernet address
 *
 * Inserts ff:fe in the middle and flips the universal/local bit.
 */
void sroce_eui64_from_mac(u8 eui[8], const u8 mac[6]);

/**
 * sroce_ib_mtu_from_netdev_mtu() - largest IB path MTU a netdev MTU carries
 * @mtu: the netdev's L3 MTU in bytes
 *
 * Return: an enum sroce_ib_mtu value, or 0 when even 256 bytes do not fit.
 */
int sroce_ib_mtu_from_netdev_mtu(unsigned int mtu);

/** sroce_ib_mtu_bytes() - bytes of an IB MTU enum value, 0 if invalid */
unsigned int sroce_ib_mtu_bytes(int ib_mtu);

#ifdef __cplusplus
}
#endif

#endif /* SROCE_PROTO_H */
