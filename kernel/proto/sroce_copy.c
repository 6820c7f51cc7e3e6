// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce protocol core: a copy by word moves, the alternative to memcpy()
 * kernel/crc.c measures at load (sroce_copy() in kernel/sroce.h). Pure C,
 * so the host unit tests check it against memcpy() at every alignment.
 */
#include "sroce_copy.h"

/**
 * sroce_copy_words() - copy by word moves (see sroce_copy())
 * @dst: destination
 * @src: source
 * @n: bytes
 *
 * Four unaligned word loads and stores a round, then the rest a byte at a
 * time; ascending addresses throughout.
 */
void sroce_copy_words(void *dst, const void *src, size_t n)
{
	const u8 *s = src;
	u8 *d = dst;
	u64 a, b, c, e;

	for (; n >= 4 * sizeof(a); n -= 4 * sizeof(a)) {
		memcpy(&a, s, sizeof(a));
		memcpy(&b, s + sizeof(a), sizeof(b));
		memcpy(&c, s + 2 * sizeof(a), sizeof(c));
		memcpy(&e, s + 3 * sizeof(a), sizeof(e));
		memcpy(d, &a, sizeof(a));
		memcpy(d + sizeof(a), &b, sizeof(b));
		memcpy(d + 2 * sizeof(a), &c, sizeof(c));
		memcpy(d + 3 * sizeof(a), &e, sizeof(e));
		s += 4 * sizeof(a);
		d += 4 * sizeof(a);
	}
	for (; n >= sizeof(a); n -= sizeof(a)) {
		memcpy(&a, s, sizeof(a));
		memcpy(d, &a, sizeof(a));
		s += sizeof(a);
		d += sizeof(a);
	}
	while (n--)
		*d++ = *s++;
}
