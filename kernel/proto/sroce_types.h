/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: fixed-width types for code that builds both in the
 * kernel and in the host unit tests. Nothing in proto/ may include any other
 * kernel header.
 */
#ifndef SROCE_TYPES_H
#define SROCE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/math64.h>
#define sroce_div64(a, b)	div64_u64((a), (b))
#else
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define sroce_div64(a, b)	((uint64_t)(a) / (uint64_t)(b))
#endif

#endif /* SROCE_TYPES_H */
