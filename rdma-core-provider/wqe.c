// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: send WQE building blocks (see wqe.h).
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "sroce.h"

#define SROCE_SEND_FLAGS (IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
			  IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static_assert(SROCE_SEND_FENCE == IBV_SEND_FENCE, "send flag");
static_assert(SROCE_SEND_SIGNALED == IBV_SEND_SIGNALED, "send flag");
static_assert(SROCE_SEND_SOLICITED == IBV_SEND_SOLICITED, "send flag");
static_assert(SROCE_SEND_INLINE == IBV_SEND_INLINE, "send flag");

bool sroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	/* XRC INI: data transfer only (no local operations, no invalidation) */
	if (type == IBV_QPT_XRC_SEND)
		return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
		       op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		       op == IBV_WR_RDMA_READ || sroce_opcode_is_atomic(op);
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return true;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	case IBV_WR_BIND_MW:
	case IBV_WR_LOCAL_INV:
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC;
	default:
		return false;
	}
}

bool sroce_opcode_is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

int sroce_check_send_flags(const struct sroce_qp *qp, unsigned int send_flags)
{
	if (send_flags & ~SROCE_SEND_FLAGS) {
		sroce_qp_err(qp, "send_flags 0x%x: unsupported bits 0x%x", send_flags,
			     send_flags & ~SROCE_SEND_FLAGS);
		return EINVAL;
	}
	return 0;
}

int sroce_check_num_sge(const struct sroce_qp *qp, uint64_t num_sge)
{
	if (num_sge > qp->sq.max_sge) {
		sroce_qp_err(qp, "num_sge %llu > max_send_sge %u",
			     (unsigned long long)num_sge, qp->sq.max_sge);
		return EINVAL;
	}
	return 0;
}

/* inline data is something we send, never a target */
int sroce_check_inline(const struct sroce_qp *qp, enum ibv_wr_opcode op,
		       uint64_t len)
{
	if (op == IBV_WR_RDMA_READ || sroce_opcode_is_atomic(op)) {
		sroce_qp_err(qp, "opcode %d with IBV_SEND_INLINE (READ and atomics have a local target)",
			     op);
		return EINVAL;
	}
	if (len > qp->max_inline) {
		sroce_qp_err(qp, "%llu bytes inline > max_inline_data %u",
			     (unsigned long long)len, qp->max_inline);
		return EINVAL;
	}
	return 0;
}

struct sroce_send_wqe *sroce_sq_slot(struct sroce_ring *r, uint32_t prod,
				     uint32_t *cons)
{
	if (prod - *cons >= r->num_entries) {
		/* acquire: the kernel is done with the slot */
		*cons = sroce_load_acquire(&r->hdr->consumer);
		if (prod - *cons >= r->num_entries)
			return NULL;
	}
	return sroce_ring_slot(r, prod);
}

struct sroce_send_wqe *sroce_wqe_init(void *slot, uint64_t wr_id,
				      enum ibv_wr_opcode op,
				      unsigned int send_flags)
{
	struct sroce_send_wqe *w = slot;

	memset(w, 0, sizeof(*w));
	w->wr_id = wr_id;
	w->opcode = op;
	w->send_flags = send_flags & ~IBV_SEND_INLINE;
	return w;
}

void sroce_wqe_set_rdma(struct sroce_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr)
{
	w->wr.rdma.remote_addr = remote_addr;
	w->wr.rdma.rkey = rkey;
}

void sroce_wqe_set_atomic(struct sroce_send_wqe *w, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap)
{
	w->wr.atomic.remote_addr = remote_addr;
	w->wr.atomic.compare_add = compare_add;
	w->wr.atomic.swap = swap;
	w->wr.atomic.rkey = rkey;
}

void sroce_wqe_set_bind(struct sroce_send_wqe *w, struct ibv_mw *mw, uint32_t rkey,
			const struct ibv_mw_bind_info *info)
{
	w->wr.bind.addr = info->addr;
	w->wr.bind.length = info->length;
	w->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	w->wr.bind.mw_rkey = mw->rkey;
	w->wr.bind.new_rkey = rkey;
	w->wr.bind.access = info->mw_access_flags;
}

void sroce_wqe_set_ud(struct sroce_send_wqe *w, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey)
{
	w->wr.ud.ah = to_sah(ah)->id;
	w->wr.ud.remote_qpn = remote_qpn;
	w->wr.ud.remote_qkey = remote_qkey;
}

void sroce_wqe_set_sges(struct sroce_send_wqe *w, const struct ibv_sge *sge,
			uint32_t n)
{
	w->send_flags &= ~SROCE_SEND_INLINE;
	w->inline_len = 0;
	w->num_sge = n;
	if (n)
		memcpy(w->sge, sge, n * sizeof(struct sroce_sge));
}

/* the data replaces the SGE list; num_sge stays 0 */
void sroce_wqe_add_inline(struct sroce_send_wqe *w, const void *addr,
			  size_t len)
{
	if (!(w->send_flags & SROCE_SEND_INLINE)) {
		w->send_flags |= SROCE_SEND_INLINE;
		w->num_sge = 0;
		w->inline_len = 0;
	}
	if (len)
		memcpy((uint8_t *)w->sge + w->inline_len, addr, len);
	w->inline_len += len;
}
