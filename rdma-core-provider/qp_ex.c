// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: the extended post API (ibv_wr_start() ...
 * ibv_wr_complete(), struct ibv_qp_ex).
 *
 * wr_start takes the SQ lock. Each wr_<opcode> call starts a WQE in the
 * next free SQ slot from qpx->wr_id and qpx->wr_flags; the wr_set_*
 * calls that follow fill in its address and data. The WQEs are the same
 * ring entries ibv_post_send writes (wqe.c builds both). Nothing is
 * visible to the kernel until wr_complete publishes the producer index
 * (and rings the doorbell if the kernel asked for one), so wr_abort, or an
 * error in any WR of the batch, discards the whole batch; wr_complete
 * returns the first error: EINVAL (QP in RESET, bad flags, too many SGEs,
 * too much inline data, missing address) or ENOMEM (SQ full).
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include <ccan/array_size.h>

#include "sroce.h"

#define SROCE_QPX_ATOMICS (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/*
 * Whether the installed libibverbs' struct ibv_qp_ex has wr_flush (v45+):
 * with an older one that slot is its verbs_qp.comp_mask, which must not be
 * written, and its applications cannot ask for FLUSH anyway.
 */
#define SROCE_LIB_HAS_WR_FLUSH \
	(SROCE_SYS_IBV_QP_EX_SIZE >= offsetof(struct ibv_qp_ex, wr_flush) + sizeof(void *))

/*
 * send_ops_flags this provider can offer, and the opcode each one posts.
 * Not offered: TSO. ATOMIC_WRITE and FLUSH exist only in this API (not in
 * ibv_post_send) and only on RC QPs; FLUSH needs a kernel that has it.
 */
static const struct {
	uint64_t flag;
	enum ibv_wr_opcode op;
} sroce_qpx_ops[] = {
	{ IBV_QP_EX_WITH_SEND, IBV_WR_SEND },
	{ IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM },
	{ IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE },
	{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ },
	{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP },
	{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ IBV_QP_EX_WITH_SEND_WITH_INV, IBV_WR_SEND_WITH_INV },
	{ IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV },
	{ IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW },
	{ IBV_QP_EX_WITH_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE },
	{ IBV_QP_EX_WITH_FLUSH, IBV_WR_FLUSH },
};

static bool sroce_qpx_op_ok(struct ibv_context *ibctx, enum ibv_qp_type type,
			    enum ibv_wr_opcode op)
{
	struct ibv_device_attr_ex attr = {};

	switch (op) {
	case IBV_WR_ATOMIC_WRITE:
		return type == IBV_QPT_RC;
	case IBV_WR_FLUSH:
		if (type != IBV_QPT_RC || !SROCE_LIB_HAS_WR_FLUSH)
			return false;
		return !ibv_query_device_ex(ibctx, NULL, &attr) &&
		       (attr.device_cap_flags_ex & IB_UVERBS_DEVICE_FLUSH_GLOBAL);
	default:
		return sroce_opcode_ok(type, op);
	}
}

/* Atomics are offered only once the device says it executes them. */
static bool sroce_device_has_atomics(struct ibv_context *ibctx)
{
	struct ibv_device_attr attr;

	if (ibv_query_device(ibctx, &attr))
		return false;
	return attr.atomic_cap != IBV_ATOMIC_NONE;
}

/* create_qp_ex with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: 0 or EOPNOTSUPP */
int sroce_qpx_check(struct ibv_context *ibctx, enum ibv_qp_type type,
		    uint64_t send_ops_flags)
{
	bool atomics = false;
	uint64_t ok = 0;
	size_t i;

	if (send_ops_flags & SROCE_QPX_ATOMICS)
		atomics = sroce_device_has_atomics(ibctx);
	for (i = 0; i < ARRAY_SIZE(sroce_qpx_ops); i++) {
		if (!(send_ops_flags & sroce_qpx_ops[i].flag) ||
		    !sroce_qpx_op_ok(ibctx, type, sroce_qpx_ops[i].op))
			continue;
		if (sroce_opcode_is_atomic(sroce_qpx_ops[i].op) && !atomics)
			continue;
		ok |= sroce_qpx_ops[i].flag;
	}
	if (send_ops_flags & ~ok) {
		sroce_err(ibctx, "create_qp: send_ops_flags 0x%llx: not offered on qp_type %d: 0x%llx",
			  (unsigned long long)send_ops_flags, type,
			  (unsigned long long)(send_ops_flags & ~ok));
		return EOPNOTSUPP;
	}
	return 0;
}

/* --- building a batch (all under sq.lock) -------------------------------- */

static void sroce_batch_fail(struct sroce_qpx_batch *b, int err)
{
	if (!b->err)
		b->err = err;
	b->cur = NULL;
}

/*
 * The batch of @qp fails with @errnum, for the reason the format says: logged
 * for the first failure only (a failed batch refuses everything after it).
 */
#define sroce_batch_refuse(qp, errnum, fmt, ...)				\
	do {									\
		if (!(qp)->batch.err)						\
			sroce_qp_err(qp, fmt, ##__VA_ARGS__);			\
		sroce_batch_fail(&(qp)->batch, errnum);				\
	} while (0)

/* The WR being built is done: what it still lacks is an error. */
static void sroce_wr_finish(struct sroce_qp *qp)
{
	struct sroce_qpx_batch *b = &qp->batch;

	if (!b->cur)
		return;
	if (b->need_ud)
		sroce_batch_refuse(qp, EINVAL, "wr_*: a UD work request without wr_set_ud_addr");
	else if (sroce_opcode_is_atomic(b->cur->opcode) && b->cur->num_sge != 1)
		sroce_batch_refuse(qp, EINVAL, "wr_*: an atomic without its 8-byte SGE (wr_set_sge)");
	b->cur = NULL;
}

/* Start a WR with @op in the next slot; NULL once the batch has failed. */
static struct sroce_send_wqe *sroce_wr_begin(struct ibv_qp_ex *qpx,
					     enum ibv_wr_opcode op)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;
	struct sroce_send_wqe *slot;
	int ret;

	sroce_wr_finish(qp);
	if (b->err)
		return NULL;
	ret = sroce_check_send_flags(qp, qpx->wr_flags);
	if (ret) {
		sroce_batch_fail(b, ret);
		return NULL;
	}
	slot = sroce_sq_slot(&qp->sq.ring, b->prod, &b->cons);
	if (!slot) {
		sroce_qp_dbg(qp, "wr_*: SQ full (%u work requests outstanding)",
			     qp->sq.ring.num_entries);
		sroce_batch_fail(b, ENOMEM);
		return NULL;
	}
	b->cur = sroce_wqe_init(slot, qpx->wr_id, op, qpx->wr_flags);
	b->need_ud = qp->vqp.qp.qp_type == IBV_QPT_UD;
	b->prod++;
	return b->cur;
}

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;

	pthread_spin_lock(&qp->sq.lock);
	b->cur = NULL;
	b->need_ud = false;
	b->err = sroce_sq_check_postable(qp);
	if (b->err)
		return;
	b->prod = qp->sq.ring.own;
	b->cons = sroce_load_acquire(&qp->sq.ring.hdr->consumer);
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;
	bool published = false;
	int ret;

	sroce_wr_finish(qp);
	ret = b->err;
	if (!ret)
		published = sroce_sq_publish(qp, b->prod);
	pthread_spin_unlock(&qp->sq.lock);
	if (ret)
		return ret;
	return sroce_sq_kick(qp, published);
}

static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);

	/* the producer index was never published: the slots are free again */
	qp->batch.cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/* --- opcodes ------------------------------------------------------------- */

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_begin(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (w)
		w->ex = imm_data;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE);

	if (w)
		sroce_wqe_set_rdma(w, rkey, remote_addr);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *w;

	w = sroce_wr_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (!w)
		return;
	sroce_wqe_set_rdma(w, rkey, remote_addr);
	w->ex = imm_data;
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_RDMA_READ);

	if (w)
		sroce_wqe_set_rdma(w, rkey, remote_addr);
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct sroce_send_wqe *w;

	w = sroce_wr_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (w)
		sroce_wqe_set_atomic(w, rkey, remote_addr, compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct sroce_send_wqe *w;

	w = sroce_wr_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (w)
		sroce_wqe_set_atomic(w, rkey, remote_addr, add, 0);
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (w)
		w->ex = (__be32)invalidate_rkey;	/* bit for bit, as post_send */
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (w)
		w->ex = (__be32)invalidate_rkey;
}

static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			     const struct ibv_mw_bind_info *info)
{
	struct sroce_send_wqe *w;

	if (!mw) {
		sroce_batch_refuse(qpx_to_sqp(qpx), EINVAL, "wr_bind_mw: no MW");
		return;
	}
	w = sroce_wr_begin(qpx, IBV_WR_BIND_MW);
	if (w)
		sroce_wqe_set_bind(w, mw, rkey, info);
}

static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_send_wqe *w = sroce_wr_begin(qpx, IBV_WR_ATOMIC_WRITE);

	if (!w)
		return;
	/* the 8 bytes travel in the entry (every SQ slot holds 16 bytes of data) */
	sroce_wqe_set_rdma(w, rkey, remote_addr);
	sroce_wqe_add_inline(w, atomic_wr, 8);
}

static void sroce_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			   size_t len, uint8_t type, uint8_t level)
{
	struct sroce_send_wqe *w;

	/* the RETH carries a 32-bit length */
	if (len > UINT32_MAX) {
		sroce_batch_refuse(qpx_to_sqp(qpx), EINVAL, "wr_flush: len %zu > 4 GiB - 1", len);
		return;
	}
	if (!type || (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    level > IBV_FLUSH_MR) {
		sroce_batch_refuse(qpx_to_sqp(qpx), EINVAL, "wr_flush: type 0x%x level %u unknown",
				   type, level);
		return;
	}
	w = sroce_wr_begin(qpx, IBV_WR_FLUSH);
	if (!w)
		return;
	w->wr.flush.remote_addr = remote_addr;
	w->wr.flush.length = len;
	w->wr.flush.rkey = rkey;
	w->wr.flush.type = type;
	w->wr.flush.level = level;
}

/* --- setters for the WR being built -------------------------------------- */

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;

	if (!b->cur) {
		/* no WR to set (or the batch failed already) */
		sroce_batch_refuse(qp, EINVAL, "wr_set_ud_addr: no work request started");
		return;
	}
	if (!ah) {
		sroce_batch_refuse(qp, EINVAL, "wr_set_ud_addr: no AH");
		return;
	}
	sroce_wqe_set_ud(b->cur, ah, remote_qpn, remote_qkey);
	b->need_ud = false;
}

static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;

	if (!b->cur) {
		sroce_batch_refuse(qp, EINVAL, "wr_set_xrc_srqn: no work request started");
		return;
	}
	sroce_wqe_set_xrc(b->cur, remote_srqn);
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;

	if (!b->cur) {
		/* no WR to set (or the batch failed already) */
		sroce_batch_refuse(qp, EINVAL, "wr_set_sge: no work request started");
		return;
	}
	if (sroce_check_num_sge(qp, num_sge)) {
		sroce_batch_fail(b, EINVAL);
		return;
	}
	if (sroce_opcode_is_atomic(b->cur->opcode) && (num_sge != 1 || sg_list[0].length != 8)) {
		sroce_batch_refuse(qp, EINVAL, "wr_set_sge: an atomic needs one 8-byte SGE (num_sge %zu, length %u)",
				   num_sge, num_sge ? sg_list[0].length : 0);
		return;
	}
	sroce_wqe_set_sges(b->cur, sg_list, num_sge);
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_qpx_batch *b = &qp->batch;
	uint64_t len = 0;
	size_t i;

	if (!b->cur) {
		/* no WR to set (or the batch failed already) */
		sroce_batch_refuse(qp, EINVAL, "wr_set_inline_data: no work request started");
		return;
	}
	for (i = 0; i < num_buf; i++) {
		/* len <= max_inline here: no wrap-around */
		if (buf_list[i].length > qp->max_inline - len) {
			sroce_batch_refuse(qp, EINVAL, "wr_set_inline_data: more than max_inline_data %u bytes",
					   qp->max_inline);
			return;
		}
		len += buf_list[i].length;
	}
	if (sroce_check_inline(qp, b->cur->opcode, len)) {
		sroce_batch_fail(b, EINVAL);
		return;
	}
	/* replaces whatever data an earlier setter gave this WR */
	sroce_wqe_set_sges(b->cur, NULL, 0);
	sroce_wqe_add_inline(b->cur, NULL, 0);
	for (i = 0; i < num_buf; i++)
		sroce_wqe_add_inline(b->cur, buf_list[i].addr,
				     buf_list[i].length);
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/*
 * Where the installed libibverbs has struct verbs_qp's comp_mask: right
 * after the ibv_qp/ibv_qp_ex union as its own headers size it (see
 * CMakeLists.txt). Its ibv_qp_ex may be shorter than ours; then comp_mask
 * overlays the tail of our ibv_qp_ex (wr_flush), which such a libibverbs
 * and its applications do not know about.
 */
#define SROCE_LIB_VQP_COMP_MASK \
	(SROCE_SYS_IBV_QP_EX_SIZE > SROCE_SYS_IBV_QP_SIZE ? \
	 SROCE_SYS_IBV_QP_EX_SIZE : SROCE_SYS_IBV_QP_SIZE)

static_assert(offsetof(struct verbs_qp, comp_mask) ==
	      (sizeof(struct ibv_qp_ex) > sizeof(struct ibv_qp) ?
	       sizeof(struct ibv_qp_ex) : sizeof(struct ibv_qp)),
	      "verbs_qp.comp_mask follows the union");
static_assert(SROCE_LIB_VQP_COMP_MASK % sizeof(uint32_t) == 0 &&
	      SROCE_LIB_VQP_COMP_MASK + sizeof(uint32_t) <=
	      sizeof(struct verbs_qp), "installed verbs_qp fits in ours");

static void sroce_mark_qp_ex(struct verbs_qp *vqp)
{
	uint8_t *p = (uint8_t *)vqp + SROCE_LIB_VQP_COMP_MASK;
	uint32_t mask;

	vqp->comp_mask |= VERBS_QP_EX;
	memcpy(&mask, p, sizeof(mask));
	mask |= VERBS_QP_EX;
	memcpy(p, &mask, sizeof(mask));
}

/* After a successful create_qp_ex with send_ops_flags (checked above). */
void sroce_qpx_init(struct sroce_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	sroce_mark_qp_ex(&qp->vqp);
	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		qpx->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;

	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = sroce_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = sroce_wr_send_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = sroce_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = sroce_wr_rdma_read;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = sroce_wr_send_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = sroce_wr_local_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = sroce_wr_bind_mw;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = sroce_wr_atomic_write;
	/* offered only when the installed libibverbs has the slot (above) */
	if (SROCE_LIB_HAS_WR_FLUSH && (send_ops_flags & IBV_QP_EX_WITH_FLUSH))
		qpx->wr_flush = sroce_wr_flush;
}
