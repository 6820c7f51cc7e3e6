/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs.c: /sys/kernel/debug/sroce
 */
#ifndef SROCE_DEBUGFS_H
#define SROCE_DEBUGFS_H

void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);

#endif /* SROCE_DEBUGFS_H */
