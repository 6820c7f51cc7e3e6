/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: RoCEv2 Invariant CRC (IBTA Annex A17.4.1).
 *
 * The ICRC is the Ethernet CRC-32 (reflected polynomial 0xedb88320, initial
 * value ~0, final xor ~0) over
 *   8 bytes of 0xff standing in for the LRH RoCEv2 does not carry,
 *   the IP header with its variant fields set to all ones (IPv4: Type of
 *   Service, TTL, Header Checksum; IPv6: Traffic Class, Flow Label, Hop
 *   Limit),
 *   the UDP header with its checksum set to all ones,
 *   the BTH with its Resv8a byte (FECN/BECN) set to all ones,
 *   and everything after the BTH up to the ICRC.
 * It is transmitted least significant byte first: the CRC value 0x0d70038e
 * appears on the wire as 8e 03 70 0d (checked against rdma_rxe frames).
 *
 * Nothing is copied or modified: the masked header bytes are fed to the
 * CRC from small on-stack copies, everything else from the caller's buffer.
 */
#ifndef SROCE_ICRC_H
#define SROCE_ICRC_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SROCE_IPV4_MIN_HLEN	20
#define SROCE_IPV4_MAX_HLEN	60

/**
 * sroce_crc32_le() - raw reflected CRC-32 update (polynomial 0xedb88320)
 * @crc: running value; no inversion is applied on entry or exit
 * @p: data
 * @len: bytes at @p
 *
 * The kernel build uses crc32_le(), the crypto API's "crc32" or
 * sroce_crc32_table(), whichever is fastest on the machine (kernel/crc.c);
 * the host build sroce_crc32_table().
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len);

/**
 * sroce_crc32_table() - sroce_crc32_le() by slicing-by-8 tables
 * @crc: running value
 * @p: data
 * @len: bytes at @p
 *
 * The tables are built by sroce_crc32_table_init() (the host build: at
 * program start).
 */
u32 sroce_crc32_table(u32 crc, const u8 *p, size_t len);
void sroce_crc32_table_init(void);

/**
 * enum sroce_icrc_err - sroce_icrc_start() / sroce_icrc_compute() errors
 * @SROCE_ICRC_EIP: not an IPv4 or IPv6 header, or @iph_len does not match
 *                  it (IPv4: IHL * 4, IPv6: 40 or more)
 * @SROCE_ICRC_ESHORT: fewer than UDP header + BTH bytes at @udp
 */
enum sroce_icrc_err {
	SROCE_ICRC_EIP		= -1,
	SROCE_ICRC_ESHORT	= -2,
};

/**
 * sroce_icrc_start() - begin an ICRC: LRH stand-in, IP, UDP, BTH, data
 * @crc: receives the running CRC state
 * @iph: IPv4 or IPv6 header (version taken from its first nibble)
 * @iph_len: bytes of IP header at @iph
 * @udp: UDP header followed by the BTH and possibly more of the packet
 * @len: bytes at @udp to include, at least UDP header + BTH; must not
 *       include the ICRC
 *
 * Continue with sroce_icrc_update() for non-contiguous payload and finish
 * with sroce_icrc_final().
 *
 * Return: 0 or a negative enum sroce_icrc_err.
 */
int sroce_icrc_start(u32 *crc, const u8 *iph, size_t iph_len,
		     const u8 *udp, size_t len);

/** sroce_icrc_update() - feed more packet bytes (after the BTH) */
static inline u32 sroce_icrc_update(u32 crc, const u8 *p, size_t len)
{
	return sroce_crc32_le(crc, p, len);
}

/** sroce_icrc_final() - the ICRC value from the running state */
static inline u32 sroce_icrc_final(u32 crc)
{
	return ~crc;
}

/**
 * sroce_icrc_compute() - ICRC of a contiguous packet
 * @icrc: receives the ICRC value (store it with sroce_icrc_put())
 * @iph: IP header
 * @iph_len: its length
 * @udp: UDP header through the end of the payload and pad
 * @len: bytes at @udp, ICRC excluded
 *
 * Return: 0 or a negative enum sroce_icrc_err.
 */
int sroce_icrc_compute(u32 *icrc, const u8 *iph, size_t iph_len,
		       const u8 *udp, size_t len);

/** sroce_icrc_put() - store an ICRC value in wire order (LSB first) */
static inline void sroce_icrc_put(u8 *p, u32 icrc)
{
	p[0] = (u8)icrc;
	p[1] = (u8)(icrc >> 8);
	p[2] = (u8)(icrc >> 16);
	p[3] = (u8)(icrc >> 24);
}

/** sroce_icrc_get() - load an ICRC value from wire order (LSB first) */
static inline u32 sroce_icrc_get(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

/**
 * sroce_icrc_verify() - check the ICRC trailing a contiguous packet
 * @iph: IP header
 * @iph_len: its length
 * @udp: UDP header through the ICRC
 * @len: bytes at @udp, ICRC included
 *
 * Return: true when the packet is well formed enough to checksum and its
 * trailing 4 bytes match.
 */
bool sroce_icrc_verify(const u8 *iph, size_t iph_len, const u8 *udp,
		       size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SROCE_ICRC_H */
