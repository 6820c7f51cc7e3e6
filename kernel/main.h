/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main.c: the driver: link type, device life cycle, module parameters
 */
#ifndef SROCE_MAIN_H
#define SROCE_MAIN_H

#include "sroce.h"

void sroce_dealloc_driver(struct ib_device *ibdev);

#endif /* SROCE_MAIN_H */
