/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: a copy by word moves (sroce_copy.c).
 */
#ifndef SROCE_COPY_H
#define SROCE_COPY_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

void sroce_copy_words(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* SROCE_COPY_H */
