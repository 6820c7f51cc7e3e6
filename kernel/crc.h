/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce CRC-32 selection (crc.c); sroce_crc32_le() itself is declared in
 * proto/sroce_icrc.h, shared with the host build.
 */
#ifndef SROCE_CRC_H
#define SROCE_CRC_H

struct seq_file;

void sroce_crc_init_module(void);
void sroce_crc_exit_module(void);
void sroce_crc_show(struct seq_file *m);

#endif /* SROCE_CRC_H */
