// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce protocol core: GUID and MTU derivation from netdev properties.
 */
#include "sroce_proto.h"

void sroce_eui64_from_mac(u8 eui[8], const u8 mac[6])
{
	eui[0] = mac[0] ^ 0x02;
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
}

int sroce_ib_mtu_from_netdev_mtu(unsigned int mtu)
{
	int m;

	if (mtu < SROCE_MAX_OVERHEAD)
		return 0;
	mtu -= SROCE_MAX_OVERHEAD;
	for (m = SROCE_IB_MTU_4096; m >= SROCE_IB_MTU_256; m--)
		if (mtu >= sroce_ib_mtu_bytes(m))
			return m;
	return 0;
}

unsigned int sroce_ib_mtu_bytes(int ib_mtu)
{
	if (ib_mtu < SROCE_IB_MTU_256 || ib_mtu > SROCE_IB_MTU_4096)
		return 0;
	return 128u << ib_mtu;
}
