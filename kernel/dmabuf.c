// SPDX-License-Identifier: GPL-2.0
/*
 * sroce dma-buf memory regions: the memory of another driver's buffer
 * (ibv_reg_dmabuf_mr), as GPUDirect RDMA registers GPU memory.
 *
 * A hardware RNIC attaches to the dma-buf and DMAs to the addresses the
 * exporter maps for it. sroce has no DMA engine: its "device" is the CPU,
 * which copies payload to and from an MR's pages. So it imports a dma-buf
 * the way a CPU user does: it takes a reference on the buffer (the MR
 * keeps it when user space closes the fd), maps the buffer into the kernel
 * with dma_buf_vmap() and keeps that mapping for the MR's whole life. An
 * exporter keeps a mapped buffer in place until it is unmapped, so the MR
 * is pinned, like one from ib_umem_dmabuf_get_pinned(): no move_notify is
 * needed (and none is offered: CONFIG_DMABUF_MOVE_NOTIFY is off in the
 * supported kernels). The pages behind the mapping become the MR's page
 * array, so copies and atomics take the same path as on a user MR. They
 * are the exporter's for as long as the mapping exists; no page
 * references are taken (an exporter's pages need not be refcounted
 * individually, e.g. the tail pages of a non-compound allocation).
 *
 * A writable MR needs a dma-buf fd opened for writing (-EACCES otherwise),
 * as a writable user MR needs writable memory.
 *
 * Only memory the CPU can address through struct page qualifies. Refused
 * with -EOPNOTSUPP: exporters without a kernel mapping (no vmap), I/O
 * memory (a GPU's BAR: iosys_map.is_iomem), mappings of page frames
 * without struct page, and ZONE_DEVICE pages (device-private memory, PCI
 * peer-to-peer BARs).
 */
#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "dmabuf.h"

MODULE_IMPORT_NS(SROCE_NS_DMA_BUF);

/**
 * struct sroce_dmabuf - a dma-buf imported by an MR
 * @buf: the buffer, referenced
 * @map: its kernel mapping (dma_buf_vmap())
 */
struct sroce_dmabuf {
	struct dma_buf *buf;
	struct iosys_map map;
};

/* The struct page behind kernel address @va of a dma-buf mapping, or NULL. */
static struct page *sroce_dmabuf_page(void *va)
{
	struct page *page;

	if (is_vmalloc_addr(va)) {
		unsigned long pfn = vmalloc_to_pfn(va);

		if (!pfn || !pfn_valid(pfn))
			return NULL;
		page = pfn_to_page(pfn);
	} else if (virt_addr_valid(va)) {
		page = virt_to_page(va);
	} else {
		return NULL;
	}
	/* device-private memory or a peer's BAR: not ordinary RAM */
	return is_zone_device_page(page) ? NULL : page;
}

/*
 * Whether [@offset, @offset + @length) lies in the buffer, and the fd
 * grants write access if the MR does: a read-only fd grants nobody,
 * local or remote, write access.
 */
static int sroce_dmabuf_check(struct ib_device *ibdev, struct dma_buf *buf, int fd,
			      u64 offset, u64 length, bool writable)
{
	u64 end;

	if (!length || check_add_overflow(offset, length, &end) || end > buf->size) {
		sroce_dbg_dev(ibdev,
			      "reg_dmabuf_mr: offset %llu length %llu: %s (buffer %zu bytes)",
			      offset, length, !length ? "zero length" : "past the buffer's end",
			      buf->size);
		return -EINVAL;
	}
	if (writable && !(buf->file->f_mode & FMODE_WRITE)) {
		sroce_dbg_dev(ibdev, "reg_dmabuf_mr: write access through fd %d opened read-only",
			      fd);
		return -EACCES;
	}
	return 0;
}

/* The buffer's kernel mapping, which must be page-aligned RAM the CPU can copy. */
static int sroce_dmabuf_map(struct ib_device *ibdev, struct sroce_dmabuf *sdb)
{
	int err;

	err = sroce_dma_buf_vmap(sdb->buf, &sdb->map);
	if (err) {
		sroce_dbg_dev(ibdev, "reg_dmabuf_mr: exporter %s gives no kernel mapping: error %d",
			      sdb->buf->exp_name, err);
		/* no kernel mapping offered: not something the CPU can copy */
		if (err == -EINVAL || err == -ENOSYS || err == -ENOTTY)
			err = -EOPNOTSUPP;
		return err;
	}
	if (sdb->map.is_iomem || !sdb->map.vaddr || offset_in_page(sdb->map.vaddr)) {
		sroce_dbg_dev(ibdev,
			      "reg_dmabuf_mr: exporter %s maps %s, not pages the CPU can copy",
			      sdb->buf->exp_name, sdb->map.is_iomem ? "I/O memory" :
			      "no page-aligned kernel address");
		sroce_dma_buf_vunmap(sdb->buf, &sdb->map);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The pages of the mapping that cover the range: a new array, or an ERR_PTR. */
static struct page **sroce_dmabuf_pages(struct ib_device *ibdev, struct sroce_dmabuf *sdb,
					u64 offset, u64 length, unsigned long *npages)
{
	unsigned long i, n;
	struct page **pg;
	void *va;

	n = (offset_in_page(offset) + length + PAGE_SIZE - 1) >> PAGE_SHIFT;
	pg = kvmalloc_array(n, sizeof(*pg), GFP_KERNEL_ACCOUNT);
	if (!pg)
		return ERR_PTR(-ENOMEM);
	va = sdb->map.vaddr + (offset & PAGE_MASK);
	for (i = 0; i < n; i++, va += PAGE_SIZE) {
		pg[i] = sroce_dmabuf_page(va);
		if (!pg[i]) {
			sroce_dbg_dev(ibdev,
				      "reg_dmabuf_mr: exporter %s: page %lu of the range is no ordinary RAM",
				      sdb->buf->exp_name, i);
			kvfree(pg);
			return ERR_PTR(-EOPNOTSUPP);
		}
	}
	*npages = n;
	return pg;
}

/**
 * sroce_dmabuf_get() - import a dma-buf range for an MR
 * @ibdev: the MR's device (for debug messages)
 * @fd: the dma-buf's file descriptor (user supplied)
 * @offset: first byte of the range in the buffer
 * @length: bytes, > 0
 * @writable: the MR grants (local or remote) write access
 * @pages: set to a new array of the pages covering the range (kvfree())
 * @npages: set to the entries in *@pages
 *
 * The first byte of the range is at offset_in_page(@offset) in
 * (*@pages)[0]. The pages stay valid until sroce_dmabuf_put().
 *
 * Context: process, may sleep.
 * Return: the import, or an ERR_PTR: -EBADF (not an open fd), -EINVAL
 * (not a dma-buf; range wraps or ends past the buffer), -EACCES (@writable
 * but the fd was opened read-only), -EOPNOTSUPP (the
 * buffer cannot be CPU-mapped with struct pages), -ENOMEM, or the
 * exporter's vmap error.
 */
struct sroce_dmabuf *sroce_dmabuf_get(struct ib_device *ibdev, int fd, u64 offset, u64 length,
				      bool writable, struct page ***pages, unsigned long *npages)
{
	struct sroce_dmabuf *sdb;
	struct page **pg;
	int err;

	sdb = kzalloc(sizeof(*sdb), GFP_KERNEL_ACCOUNT);
	if (!sdb)
		return ERR_PTR(-ENOMEM);
	sdb->buf = dma_buf_get(fd);
	if (IS_ERR(sdb->buf)) {
		err = PTR_ERR(sdb->buf);
		sroce_dbg_dev(ibdev, "reg_dmabuf_mr: fd %d is %s", fd,
			      err == -EBADF ? "not open" : "not a dma-buf");
		goto err_free;
	}
	/* the fd first: a probe with fd -1 and nothing else learns -EBADF */
	err = sroce_dmabuf_check(ibdev, sdb->buf, fd, offset, length, writable);
	if (err)
		goto err_put_buf;
	err = sroce_dmabuf_map(ibdev, sdb);
	if (err)
		goto err_put_buf;
	pg = sroce_dmabuf_pages(ibdev, sdb, offset, length, npages);
	if (IS_ERR(pg)) {
		err = PTR_ERR(pg);
		goto err_vunmap;
	}
	*pages = pg;
	return sdb;

err_vunmap:
	sroce_dma_buf_vunmap(sdb->buf, &sdb->map);
err_put_buf:
	dma_buf_put(sdb->buf);
err_free:
	kfree(sdb);
	return ERR_PTR(err);
}

/**
 * sroce_dmabuf_put() - release an import: unmap, drop the buffer
 * @sdb: from sroce_dmabuf_get(); nobody copies to its pages any more
 *
 * Context: process, may sleep.
 */
void sroce_dmabuf_put(struct sroce_dmabuf *sdb)
{
	sroce_dma_buf_vunmap(sdb->buf, &sdb->map);
	dma_buf_put(sdb->buf);
	kfree(sdb);
}
