/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: 24-bit Packet Sequence Number arithmetic (IBTA 9.7.1).
 *
 * PSNs live in a 2^24 circular space. Ordering is only meaningful between
 * PSNs less than half the space (2^23) apart; sroce_psn_diff() maps the
 * distance into [-2^23, 2^23 - 1].
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		0xffffffu
/* Half the PSN space: the largest forward distance still "after" */
#define SROCE_PSN_HALF		0x800000u

/** sroce_psn_add() - @psn advanced by @n, wrapping at 2^24 */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/** sroce_psn_inc() - the PSN following @psn */
static inline u32 sroce_psn_inc(u32 psn)
{
	return sroce_psn_add(psn, 1);
}

/**
 * sroce_psn_diff() - signed circular distance from @b to @a
 * @a: PSN (only the low 24 bits are used)
 * @b: PSN (only the low 24 bits are used)
 *
 * Return: @a - @b sign-extended from 24 bits, in [-2^23, 2^23 - 1]; positive
 * when @a is after @b. Computed without implementation-defined shifts.
 */
static inline int sroce_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	if (d & SROCE_PSN_HALF)
		return (int)d - (int)(SROCE_PSN_MASK + 1);
	return (int)d;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_PSN_H */
