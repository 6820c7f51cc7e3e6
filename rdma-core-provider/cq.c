// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: completion queues.
 *
 * The kernel produces CQEs into an mmapped ring; poll_cq consumes them
 * without a system call. Creating, resizing, arming and destroying go
 * through uverbs.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/* The CQE carries libibverbs' own values; make sure that stays true. */
static_assert(SROCE_WC_F_GRH == IBV_WC_GRH, "wc flag");
static_assert(SROCE_WC_F_WITH_IMM == IBV_WC_WITH_IMM, "wc flag");
static_assert(SROCE_WC_F_WITH_INV == IBV_WC_WITH_INV, "wc flag");
static_assert(sizeof(struct sroce_cqe) == 64, "cqe size");

struct sroce_cq *sroce_cq_alloc(void)
{
	struct sroce_cq *cq;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		return NULL;
	}
	return cq;
}

void sroce_cq_free(struct sroce_cq *cq)
{
	sroce_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

/*
 * The second half of both create paths, after the kernel's answer @ret to
 * the create command of @verb: map the ring it described. Returns 0, or an
 * errno with the CQ destroyed in the kernel (if it was created) and freed.
 */
int sroce_cq_created(struct sroce_cq *cq, struct ibv_context *ibctx, int ret,
		     const struct sroce_ring_info *info, const char *verb, int cqe)
{
	if (ret) {
		sroce_dbg(ibctx, "%s: the kernel refused cqe %d: %s", verb, cqe, strerror(ret));
		goto err_free;
	}
	ret = sroce_ring_map(&cq->ring, ibctx->cmd_fd, info, sizeof(struct sroce_cqe));
	if (ret) {
		sroce_err(ibctx, "%s: mapping the ring the kernel described: %s", verb,
			  strerror(ret));
		goto err_destroy;
	}
	cq->ring.own = sroce_load_acquire(&cq->ring.hdr->consumer);
	return 0;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	sroce_cq_free(cq);
	return ret;
}

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct usroce_create_cq_resp resp;
	struct usroce_create_cq cmd;
	struct sroce_cq *cq;
	int ret;

	cq = sroce_cq_alloc();
	if (!cq)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	ret = sroce_cq_created(cq, ibctx, ret, &resp.ring, "create_cq", cqe);
	if (ret) {
		errno = ret;
		return NULL;
	}
	return &cq->vcq.cq;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret) {
		sroce_dbg(ibcq->context, "destroy_cq: the kernel refused: %s", strerror(ret));
		return ret;
	}
	sroce_cq_free(to_scq(ibcq));
	return 0;
}

/*
 * With the CQ lock held: copy the oldest unpolled CQE to @cqe and consume
 * it. Returns 0, ENOENT when the CQ is empty, or EIO when the CQ has no
 * ring (a failed resize_cq) or the kernel's producer index is impossible.
 * The slots go back to the kernel only with sroce_cq_release().
 */
int sroce_cq_read(struct sroce_cq *cq, struct sroce_cqe *cqe)
{
	struct sroce_ring *r = &cq->ring;
	uint32_t prod;

	if (!r->map) {
		sroce_err(cq->vcq.cq.context, "poll_cq: the CQ lost its ring in a failed resize_cq");
		return EIO;
	}
	/* pairs with the kernel's release store after writing the CQEs */
	prod = sroce_load_acquire(&r->hdr->producer);
	if (prod - r->own > r->num_entries) {
		/* the kernel never does this: no garbage */
		sroce_err(cq->vcq.cq.context, "poll_cq: producer index %u impossible (consumer %u, %u entries)",
			  prod, r->own, r->num_entries);
		return EIO;
	}
	if (prod == r->own)
		return ENOENT;
	memcpy(cqe, sroce_ring_slot(r, r->own), sizeof(*cqe));
	r->own++;
	return 0;
}

/* With the lock held: the slots read so far may be reused by the kernel. */
void sroce_cq_release(struct sroce_cq *cq)
{
	/* release: we are done reading them */
	if (cq->ring.map)
		sroce_store_release(&cq->ring.hdr->consumer, cq->ring.own);
}

static void sroce_cqe_to_wc(const struct sroce_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/*
	 * Bit for bit into the imm_data/invalidated_rkey union, as uverbs
	 * does with ib_uverbs_wc: the kernel stores the immediate in network
	 * order and an invalidated rkey in host order.
	 */
	wc->imm_data = cqe->ex;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags & SROCE_WC_F_ALL;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_cqe cqe;
	int n = 0, ret = 0;

	pthread_spin_lock(&cq->lock);
	while (n < ne) {
		ret = sroce_cq_read(cq, &cqe);
		if (ret)
			break;
		sroce_cqe_to_wc(&cqe, &wc[n]);
		n++;
	}
	if (n)
		sroce_cq_release(cq);
	pthread_spin_unlock(&cq->lock);
	return ret == EIO && !n ? -EIO : n;
}

int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel replaces the ring, carrying unpolled CQEs over, and describes
 * the new one. All of it happens under the CQ lock, so no poll_cq sees the
 * switch; our consumer index is whatever the kernel put into the new
 * header.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct usroce_resize_cq_resp resp;
	struct usroce_resize_cq cmd;
	struct sroce_ring nr;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		sroce_dbg(ibcq->context, "resize_cq: the kernel refused cqe %d: %s", cqe,
			  strerror(ret));
		goto out;
	}

	ret = sroce_ring_map(&nr, ibcq->context->cmd_fd, &resp.ring,
			     sizeof(struct sroce_cqe));
	/*
	 * The old ring is gone on the kernel side either way; keeping it
	 * mapped would only let poll_cq return stale entries. Without a new
	 * one the CQ is unusable (poll_cq fails) until destroyed.
	 */
	sroce_ring_unmap(&cq->ring);
	if (ret) {
		sroce_err(ibcq->context, "resize_cq: mapping the new ring: %s (the CQ is unusable)",
			  strerror(ret));
		goto out;
	}
	cq->ring = nr;
	cq->ring.own = sroce_load_acquire(&cq->ring.hdr->consumer);
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

/*
 * A QP went to RESET: its completions still in the CQ go (as on hardware
 * that cleans the CQ on reset). Under the CQ lock, the entries between our
 * consumer index and the kernel's producer index are compacted towards the
 * producer end and the consumer index moves past the removed ones; the
 * kernel only ever writes at or after the producer index.
 */
void sroce_cq_clean(struct sroce_cq *cq, uint32_t qpn)
{
	struct sroce_ring *r = &cq->ring;
	uint32_t cons, prod, i, keep;

	pthread_spin_lock(&cq->lock);
	cons = r->own;
	prod = sroce_load_acquire(&r->hdr->producer);
	if (prod - cons > r->num_entries)
		goto out;	/* a corrupt index: leave the ring to poll_cq */
	keep = prod;
	for (i = prod; i != cons;) {
		const struct sroce_cqe *e = sroce_ring_slot(r, --i);

		if (e->qp_num == qpn)
			continue;
		if (--keep != i)
			memcpy(sroce_ring_slot(r, keep), e, r->entry_size);
	}
	if (keep != cons) {
		r->own = keep;
		sroce_store_release(&r->hdr->consumer, keep);
	}
out:
	pthread_spin_unlock(&cq->lock);
}
