// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: shared receive queues.
 *
 * An SRQ is a ring of struct sroce_recv_wqe that the kernel allocates and
 * we mmap, like a QP's RQ. Posting writes entries and publishes the
 * producer index; the kernel takes an entry out (and moves the consumer
 * index) when one of the SRQ's QPs needs a receive buffer, so posting
 * never makes a system call.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/* what create_srq_ex takes */
#define SROCE_SRQ_INIT_ATTR_MASK (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
				  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

static void sroce_srq_free(struct sroce_srq *srq)
{
	sroce_ring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
}

static struct sroce_srq *sroce_srq_alloc(void)
{
	struct sroce_srq *srq;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	if (pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(srq);
		return NULL;
	}
	return srq;
}

/*
 * After the kernel created the SRQ: map its ring. On failure the SRQ is
 * destroyed and freed, and errno set.
 */
static struct ibv_srq *sroce_srq_finish(struct sroce_srq *srq, int cmd_fd,
					const struct sroce_ring_info *ring,
					struct ibv_srq_attr *attr)
{
	uint32_t room;
	int ret;

	ret = sroce_ring_map(&srq->ring, cmd_fd, ring, sizeof(struct sroce_recv_wqe));
	if (ret) {
		sroce_err(srq->vsrq.srq.context, "create_srq: mapping the ring the kernel described: %s",
			  strerror(ret));
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		sroce_srq_free(srq);
		errno = ret;
		return NULL;
	}
	/* what a slot holds bounds what the kernel granted */
	room = srq->ring.entry_size - sizeof(struct sroce_recv_wqe);
	srq->max_sge = attr->max_sge < room / sizeof(struct sroce_sge) ?
		       attr->max_sge : room / sizeof(struct sroce_sge);
	attr->max_sge = srq->max_sge;
	return &srq->vsrq.srq;
}

struct ibv_srq *sroce_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct usroce_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct sroce_srq *srq;
	int ret;

	srq = sroce_srq_alloc();
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret) {
		sroce_dbg(pd->context, "create_srq: the kernel refused max_wr %u max_sge %u: %s",
			  attr->attr.max_wr, attr->attr.max_sge, strerror(ret));
		sroce_srq_free(srq);
		errno = ret;
		return NULL;
	}
	return sroce_srq_finish(srq, pd->context->cmd_fd, &resp.ring, &attr->attr);
}

/*
 * Basic and XRC SRQs (IBV_SRQT_XRC: an XRC domain and a CQ, which gets the
 * completions of every XRC TGT QP receiving into it); tag matching is not
 * supported.
 */
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	struct usroce_create_xsrq_resp resp = {};
	struct usroce_create_xsrq cmd = {};
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct sroce_srq *srq;
	int ret;

	if (attr->comp_mask & ~SROCE_SRQ_INIT_ATTR_MASK) {
		sroce_err(ibctx, "create_srq_ex: comp_mask 0x%x: unsupported bits 0x%x",
			  attr->comp_mask, attr->comp_mask & ~SROCE_SRQ_INIT_ATTR_MASK);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) {
		sroce_err(ibctx, "create_srq_ex: srq_type %d not supported (basic, XRC)", type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		sroce_err(ibctx, "create_srq_ex: no PD");
		errno = EINVAL;
		return NULL;
	}
	if (type == IBV_SRQT_XRC &&
	    (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	     !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq)) {
		sroce_err(ibctx, "create_srq_ex: an XRC SRQ needs an XRC domain and a CQ (xrcd %s, cq %s)",
			  (attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) && attr->xrcd ? "set" : "none",
			  (attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) && attr->cq ? "set" : "none");
		errno = EINVAL;
		return NULL;
	}

	srq = sroce_srq_alloc();
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		sroce_dbg(ibctx, "create_srq_ex: the kernel refused max_wr %u max_sge %u: %s",
			  attr->attr.max_wr, attr->attr.max_sge, strerror(ret));
		sroce_srq_free(srq);
		errno = ret;
		return NULL;
	}
	return sroce_srq_finish(srq, ibctx->cmd_fd, &resp.ring, &attr->attr);
}

int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC) {
		sroce_err(ibsrq->context, "get_srq_num: not an XRC SRQ");
		return EOPNOTSUPP;
	}
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

/*
 * IBV_SRQ_MAX_WR replaces the ring: the kernel copies the posted entries
 * to a new ring at the same indices and describes it in @info; posting
 * waits on the lock until the new ring is mapped in place of the old.
 */
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct usroce_modify_srq cmd = {};
	struct sroce_ring_info info = {};
	struct sroce_ring nr;
	int ret;

	if (!(mask & IBV_SRQ_MAX_WR)) {
		ret = ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv_cmd, sizeof(cmd.ibv_cmd));
		if (ret)
			sroce_dbg(ibsrq->context, "modify_srq: the kernel refused attr_mask 0x%x: %s",
				  mask, strerror(ret));
		return ret;
	}

	cmd.ring_info_addr = (uintptr_t)&info;
	pthread_spin_lock(&srq->lock);
	ret = ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd.ibv_cmd, sizeof(cmd));
	if (ret) {
		pthread_spin_unlock(&srq->lock);
		sroce_dbg(ibsrq->context, "modify_srq: the kernel refused max_wr %u (attr_mask 0x%x): %s",
			  attr->max_wr, mask, strerror(ret));
		return ret;
	}
	ret = sroce_ring_map(&nr, ibsrq->context->cmd_fd, &info, sizeof(struct sroce_recv_wqe));
	if (ret) {
		sroce_err(ibsrq->context, "modify_srq: mapping the new ring: %s (the SRQ takes no more posts)",
			  strerror(ret));
		sroce_ring_unmap(&srq->ring);
	} else {
		nr.own = srq->ring.own;
		sroce_ring_unmap(&srq->ring);
		srq->ring = nr;
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret) {
		sroce_dbg(ibsrq->context, "destroy_srq: the kernel refused: %s", strerror(ret));
		return ret;
	}
	sroce_srq_free(srq);
	return 0;
}

int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_ring *r = &srq->ring;
	uint32_t prod, cons;
	int ret = 0;

	pthread_spin_lock(&srq->lock);
	if (!r->hdr) {
		pthread_spin_unlock(&srq->lock);
		sroce_err(ibsrq->context, "post_srq_recv: the SRQ lost its ring in a failed resize");
		*bad_wr = wr;
		return EIO;
	}
	prod = r->own;
	cons = sroce_load_acquire(&r->hdr->consumer);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			sroce_err(ibsrq->context, "post_srq_recv: num_sge %d > max_sge %u",
				  wr->num_sge, srq->max_sge);
			ret = EINVAL;
			break;
		}
		ret = sroce_ring_put_recv(r, &prod, &cons, wr);
		if (ret) {
			sroce_dbg(ibsrq->context, "post_srq_recv: SRQ full (%u work requests posted)",
				  r->num_entries);
			break;
		}
	}
	if (prod != r->own) {
		r->own = prod;
		sroce_store_release(&r->hdr->producer, prod);
	}
	pthread_spin_unlock(&srq->lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}
