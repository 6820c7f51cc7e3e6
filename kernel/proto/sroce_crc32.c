// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce protocol core: CRC-32 (reflected, polynomial 0xedb88320),
 * slicing-by-8. The host build's sroce_crc32_le(); in the kernel one of the
 * implementations kernel/crc.c chooses from (under QEMU's TCG it beats the
 * carry-less-multiply versions, whose instruction TCG emulates slowly).
 */
#include "sroce_icrc.h"

#define SROCE_CRC32_POLY	0xedb88320u

static u32 sroce_crc32_tab[8][256];

/*
 * Table k maps a byte to its CRC contribution when followed by k zero
 * bytes, which lets the loop fold 8 input bytes per step.
 */
void sroce_crc32_table_init(void)
{
	u32 i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? SROCE_CRC32_POLY : 0);
		sroce_crc32_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++) {
			c = sroce_crc32_tab[k - 1][i];
			sroce_crc32_tab[k][i] = (c >> 8) ^
						sroce_crc32_tab[0][c & 0xff];
		}
}

u32 sroce_crc32_table(u32 crc, const u8 *p, size_t len)
{
	u32 lo, hi;

	while (len >= 8) {
		lo = crc ^ ((u32)p[0] | (u32)p[1] << 8 |
			    (u32)p[2] << 16 | (u32)p[3] << 24);
		hi = (u32)p[4] | (u32)p[5] << 8 |
		     (u32)p[6] << 16 | (u32)p[7] << 24;
		crc = sroce_crc32_tab[7][lo & 0xff] ^
		      sroce_crc32_tab[6][(lo >> 8) & 0xff] ^
		      sroce_crc32_tab[5][(lo >> 16) & 0xff] ^
		      sroce_crc32_tab[4][lo >> 24] ^
		      sroce_crc32_tab[3][hi & 0xff] ^
		      sroce_crc32_tab[2][(hi >> 8) & 0xff] ^
		      sroce_crc32_tab[1][(hi >> 16) & 0xff] ^
		      sroce_crc32_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ sroce_crc32_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

#ifndef __KERNEL__
static void __attribute__((constructor)) sroce_crc32_ctor(void)
{
	sroce_crc32_table_init();
}

u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	return sroce_crc32_table(crc, p, len);
}
#endif /* !__KERNEL__ */
