// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce protocol core: RoCEv2 Invariant CRC (IBTA Annex A17.4.1).
 */
#include "sroce_icrc.h"

#define SROCE_ICRC_UDP_HLEN	8
#define SROCE_ICRC_BTH_LEN	12
#define SROCE_ICRC_IPV6_HLEN	40
#define SROCE_ICRC_LEN		4

static const u8 sroce_icrc_lrh[8] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/*
 * Feed the fixed IPv4 header with TOS, TTL and checksum masked; options
 * (IHL > 5) are invariant and fed unchanged.
 */
static u32 sroce_icrc_ipv4(u32 crc, const u8 *iph, size_t iph_len)
{
	u8 h[SROCE_IPV4_MIN_HLEN];

	memcpy(h, iph, sizeof(h));
	h[1] = 0xff;			/* Type of Service */
	h[8] = 0xff;			/* Time to Live */
	h[10] = 0xff;			/* Header Checksum */
	h[11] = 0xff;
	crc = sroce_crc32_le(crc, h, sizeof(h));
	return sroce_crc32_le(crc, iph + sizeof(h), iph_len - sizeof(h));
}

static u32 sroce_icrc_ipv6(u32 crc, const u8 *iph, size_t iph_len)
{
	u8 h[SROCE_ICRC_IPV6_HLEN];

	memcpy(h, iph, sizeof(h));
	h[0] |= 0x0f;			/* Traffic Class, high nibble */
	h[1] = 0xff;			/* Traffic Class low, Flow Label */
	h[2] = 0xff;
	h[3] = 0xff;
	h[7] = 0xff;			/* Hop Limit */
	crc = sroce_crc32_le(crc, h, sizeof(h));
	return sroce_crc32_le(crc, iph + sizeof(h), iph_len - sizeof(h));
}

int sroce_icrc_start(u32 *crc, const u8 *iph, size_t iph_len,
		     const u8 *udp, size_t len)
{
	u8 hdr[SROCE_ICRC_UDP_HLEN + SROCE_ICRC_BTH_LEN];
	u32 c;

	if (len < sizeof(hdr))
		return SROCE_ICRC_ESHORT;
	if (iph_len < 1)
		return SROCE_ICRC_EIP;

	c = sroce_crc32_le(~0u, sroce_icrc_lrh, sizeof(sroce_icrc_lrh));
	switch (iph[0] >> 4) {
	case 4:
		if (iph_len < SROCE_IPV4_MIN_HLEN ||
		    iph_len != (size_t)(iph[0] & 0xf) * 4)
			return SROCE_ICRC_EIP;
		c = sroce_icrc_ipv4(c, iph, iph_len);
		break;
	case 6:
		if (iph_len < SROCE_ICRC_IPV6_HLEN)
			return SROCE_ICRC_EIP;
		c = sroce_icrc_ipv6(c, iph, iph_len);
		break;
	default:
		return SROCE_ICRC_EIP;
	}

	memcpy(hdr, udp, sizeof(hdr));
	hdr[6] = 0xff;			/* UDP Checksum */
	hdr[7] = 0xff;
	hdr[SROCE_ICRC_UDP_HLEN + 4] = 0xff;	/* BTH Resv8a: FECN, BECN */
	c = sroce_crc32_le(c, hdr, sizeof(hdr));
	*crc = sroce_crc32_le(c, udp + sizeof(hdr), len - sizeof(hdr));
	return 0;
}

int sroce_icrc_compute(u32 *icrc, const u8 *iph, size_t iph_len,
		       const u8 *udp, size_t len)
{
	u32 crc;
	int err;

	err = sroce_icrc_start(&crc, iph, iph_len, udp, len);
	if (err)
		return err;
	*icrc = sroce_icrc_final(crc);
	return 0;
}

bool sroce_icrc_verify(const u8 *iph, size_t iph_len, const u8 *udp,
		       size_t len)
{
	u32 icrc;

	if (len < SROCE_ICRC_LEN)
		return false;
	if (sroce_icrc_compute(&icrc, iph, iph_len, udp, len - SROCE_ICRC_LEN))
		return false;
	return icrc == sroce_icrc_get(udp + len - SROCE_ICRC_LEN);
}
