/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce dma-buf memory regions (ibv_reg_dmabuf_mr): see dmabuf.c.
 */
#ifndef SROCE_DMABUF_H
#define SROCE_DMABUF_H

#include <linux/types.h>

struct ib_device;
struct page;
struct sroce_dmabuf;

struct sroce_dmabuf *sroce_dmabuf_get(struct ib_device *ibdev, int fd, u64 offset, u64 length,
				      bool writable, struct page ***pages, unsigned long *npages);
void sroce_dmabuf_put(struct sroce_dmabuf *sdb);

#endif /* SROCE_DMABUF_H */
