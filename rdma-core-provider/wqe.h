/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce userspace provider: building send WQEs (struct sroce_send_wqe in
 * kernel/uapi/sroce-abi.h) and reserving SQ slots for them. Shared by
 * ibv_post_send (qp.c) and the extended ibv_wr_* API (qp_ex.c), so both
 * write exactly the same ring entries.
 *
 * The checks return 0 or EINVAL and touch nothing but the log (a refusal
 * says why: sroce_qp_err()); the builders assume the checks passed.
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "ring.h"

struct sroce_qp;

bool sroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode op);
bool sroce_opcode_is_atomic(enum ibv_wr_opcode op);
int sroce_check_send_flags(const struct sroce_qp *qp, unsigned int send_flags);
int sroce_check_num_sge(const struct sroce_qp *qp, uint64_t num_sge);
int sroce_check_inline(const struct sroce_qp *qp, enum ibv_wr_opcode op,
		       uint64_t len);

/*
 * The next free SQ slot at @prod, or NULL when the ring is full. *@cons is
 * the caller's cached consumer index, refreshed (acquire) only when the
 * ring looks full.
 */
struct sroce_send_wqe *sroce_sq_slot(struct sroce_ring *r, uint32_t prod,
				     uint32_t *cons);

/* Clear @slot and fill the header; INLINE is set by sroce_wqe_add_inline() */
struct sroce_send_wqe *sroce_wqe_init(void *slot, uint64_t wr_id,
				      enum ibv_wr_opcode op,
				      unsigned int send_flags);
void sroce_wqe_set_rdma(struct sroce_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr);
void sroce_wqe_set_atomic(struct sroce_send_wqe *w, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap);
/* an MW bind: @mw gets @rkey once bound to @info's range */
void sroce_wqe_set_bind(struct sroce_send_wqe *w, struct ibv_mw *mw, uint32_t rkey,
			const struct ibv_mw_bind_info *info);
void sroce_wqe_set_ud(struct sroce_send_wqe *w, struct ibv_ah *ah,
		      uint32_t remote_qpn, uint32_t remote_qkey);
/* XRC INI: the remote XRC SRQ the request goes to (24 bits, kernel-checked) */
static inline void sroce_wqe_set_xrc(struct sroce_send_wqe *w, uint32_t remote_srqn)
{
	w->xrc_srqn = remote_srqn;
}
/* Replace the WQE's data with @n SGEs (drops any inline data). */
void sroce_wqe_set_sges(struct sroce_send_wqe *w, const struct ibv_sge *sge,
			uint32_t n);
/* Append @len bytes of inline data (the caller checked the total). */
void sroce_wqe_add_inline(struct sroce_send_wqe *w, const void *addr,
			  size_t len);

#endif /* SROCE_WQE_H */
