/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce tracepoints, system "sroce" (Documentation/debugging.rst,
 * "Tracepoints"). Every field is a scalar copied when the event fires;
 * a disabled event costs a static branch and nothing else. trace.c
 * creates them (CREATE_TRACE_POINTS); the rest of the module only
 * includes this file for the trace_sroce_*() calls.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

/* types the callers need, outside the part that is read again */
#ifndef SROCE_TRACE_TYPES_H
#define SROCE_TRACE_TYPES_H
/* why the requester goes back to resend (sroce_retransmit) */
enum sroce_retx_why {
	SROCE_RETX_TIMEOUT,	/* the local ACK timer expired */
	SROCE_RETX_NAK,		/* a PSN sequence error NAK */
	SROCE_RETX_RNR,		/* an RNR NAK's wait is over */
	SROCE_RETX_READ_GAP,	/* READ responses were lost */
	SROCE_RETX_ODP,		/* a READ response met a missing ODP page */
	SROCE_RETX_RTO,		/* the measured RTT's resend timer expired */
	SROCE_RETX_PROBE,	/* the RTO's probe was answered: more was lost */
};
#endif

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>

#include "qp.h"
#include "sroce_wire.h"

/*
 * Symbol tables for __print_symbolic(), each value also announced with
 * TRACE_DEFINE_ENUM() so that the format files carry numbers for the
 * enum names (trace-cmd, perf). X(value, name) per entry; the last is
 * Y(value, name): a table ends without a comma.
 */
#define SROCE_TRACE_SYM_(v, s)		{ v, s },
#define SROCE_TRACE_SYM_LAST_(v, s)	{ v, s }
#define SROCE_TRACE_ENUM_(v, s)		TRACE_DEFINE_ENUM(v);

#define SROCE_TRACE_QP_STATES(X, Y)					\
	X(IB_QPS_RESET, "RESET") X(IB_QPS_INIT, "INIT")			\
	X(IB_QPS_RTR, "RTR") X(IB_QPS_RTS, "RTS") X(IB_QPS_SQD, "SQD")	\
	X(IB_QPS_SQE, "SQE") Y(IB_QPS_ERR, "ERR")
SROCE_TRACE_QP_STATES(SROCE_TRACE_ENUM_, SROCE_TRACE_ENUM_)
#define sroce_show_qp_state(s) \
	__print_symbolic(s, SROCE_TRACE_QP_STATES(SROCE_TRACE_SYM_, SROCE_TRACE_SYM_LAST_))

/* the completion statuses sroce reports */
#define SROCE_TRACE_WC_STATUS(X, Y)					\
	X(IB_WC_SUCCESS, "SUCCESS") X(IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR")	\
	X(IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR")				\
	X(IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR")				\
	X(IB_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR")				\
	X(IB_WC_MW_BIND_ERR, "MW_BIND_ERR")				\
	X(IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR")				\
	X(IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR")			\
	X(IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR")			\
	X(IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR")			\
	X(IB_WC_REM_OP_ERR, "REM_OP_ERR")				\
	X(IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR")				\
	X(IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR")			\
	X(IB_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR")		\
	Y(IB_WC_GENERAL_ERR, "GENERAL_ERR")
SROCE_TRACE_WC_STATUS(SROCE_TRACE_ENUM_, SROCE_TRACE_ENUM_)
#define sroce_show_wc_status(s) \
	__print_symbolic(s, SROCE_TRACE_WC_STATUS(SROCE_TRACE_SYM_, SROCE_TRACE_SYM_LAST_))

/* SQ entry opcodes: the core's, then sroce's own (plain numbers) */
#define SROCE_TRACE_WR_OPCODES(X)					\
	X(IB_UVERBS_WR_RDMA_WRITE, "WRITE")				\
	X(IB_UVERBS_WR_RDMA_WRITE_WITH_IMM, "WRITE_IMM")		\
	X(IB_UVERBS_WR_SEND, "SEND") X(IB_UVERBS_WR_SEND_WITH_IMM, "SEND_IMM") \
	X(IB_UVERBS_WR_RDMA_READ, "READ")				\
	X(IB_UVERBS_WR_ATOMIC_CMP_AND_SWP, "CMP_SWAP")			\
	X(IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD, "FETCH_ADD")		\
	X(IB_UVERBS_WR_LOCAL_INV, "LOCAL_INV")				\
	X(IB_UVERBS_WR_BIND_MW, "BIND_MW")				\
	X(IB_UVERBS_WR_SEND_WITH_INV, "SEND_INV")
SROCE_TRACE_WR_OPCODES(SROCE_TRACE_ENUM_)
#define sroce_show_wr_opcode(o)						\
	__print_symbolic(o, SROCE_TRACE_WR_OPCODES(SROCE_TRACE_SYM_)		\
			 { SROCE_WR_FLUSH, "FLUSH" },				\
			 { SROCE_WR_ATOMIC_WRITE, "ATOMIC_WRITE" },		\
			 { SROCE_WR_REG_MR, "REG_MR" })

/* BTH opcodes: enum sroce_opcode_num, then the CNP's */
#define SROCE_TRACE_OPCODES(X) \
	X(RC_SEND_FIRST) X(RC_SEND_MIDDLE) X(RC_SEND_LAST) X(RC_SEND_LAST_IMM) \
	X(RC_SEND_ONLY) X(RC_SEND_ONLY_IMM) X(RC_WRITE_FIRST) \
	X(RC_WRITE_MIDDLE) X(RC_WRITE_LAST) X(RC_WRITE_LAST_IMM) \
	X(RC_WRITE_ONLY) X(RC_WRITE_ONLY_IMM) X(RC_READ_REQUEST) \
	X(RC_READ_RESPONSE_FIRST) X(RC_READ_RESPONSE_MIDDLE) \
	X(RC_READ_RESPONSE_LAST) X(RC_READ_RESPONSE_ONLY) X(RC_ACKNOWLEDGE) \
	X(RC_ATOMIC_ACKNOWLEDGE) X(RC_COMPARE_SWAP) X(RC_FETCH_ADD) \
	X(RC_SEND_LAST_INV) X(RC_SEND_ONLY_INV) X(RC_FLUSH) X(RC_ATOMIC_WRITE) \
	X(UC_SEND_FIRST) X(UC_SEND_MIDDLE) X(UC_SEND_LAST) X(UC_SEND_LAST_IMM) \
	X(UC_SEND_ONLY) X(UC_SEND_ONLY_IMM) X(UC_WRITE_FIRST) \
	X(UC_WRITE_MIDDLE) X(UC_WRITE_LAST) X(UC_WRITE_LAST_IMM) \
	X(UC_WRITE_ONLY) X(UC_WRITE_ONLY_IMM) X(UD_SEND_ONLY) \
	X(UD_SEND_ONLY_IMM) X(XRC_SEND_FIRST) X(XRC_SEND_MIDDLE) \
	X(XRC_SEND_LAST) X(XRC_SEND_LAST_IMM) X(XRC_SEND_ONLY) \
	X(XRC_SEND_ONLY_IMM) X(XRC_WRITE_FIRST) X(XRC_WRITE_MIDDLE) \
	X(XRC_WRITE_LAST) X(XRC_WRITE_LAST_IMM) X(XRC_WRITE_ONLY) \
	X(XRC_WRITE_ONLY_IMM) X(XRC_READ_REQUEST) X(XRC_READ_RESPONSE_FIRST) \
	X(XRC_READ_RESPONSE_MIDDLE) X(XRC_READ_RESPONSE_LAST) \
	X(XRC_READ_RESPONSE_ONLY) X(XRC_ACKNOWLEDGE) X(XRC_ATOMIC_ACKNOWLEDGE) \
	X(XRC_COMPARE_SWAP) X(XRC_FETCH_ADD) X(XRC_SEND_LAST_INV) \
	X(XRC_SEND_ONLY_INV)
#define SROCE_TRACE_OP_SYM_(n)		{ SROCE_OP_##n, #n },
#define SROCE_TRACE_OP_ENUM_(n)		TRACE_DEFINE_ENUM(SROCE_OP_##n);
SROCE_TRACE_OPCODES(SROCE_TRACE_OP_ENUM_)
#define sroce_show_opcode(o) \
	__print_symbolic(o, SROCE_TRACE_OPCODES(SROCE_TRACE_OP_SYM_) { SROCE_OP_CNP, "CNP" })

/* enum sroce_drop: the one list in qp.h, as the rx_drop_* counters name them */
#define SROCE_TRACE_DROP_SYM_(up, low)		{ SROCE_DROP_##up, #low },
#define SROCE_TRACE_DROP_SYM_LAST_(up, low)	{ SROCE_DROP_##up, #low }
#define SROCE_TRACE_DROP_ENUM_(up, low)		TRACE_DEFINE_ENUM(SROCE_DROP_##up);
SROCE_DROP_REASONS(SROCE_TRACE_DROP_ENUM_, SROCE_TRACE_DROP_ENUM_)
#define sroce_show_drop(d) \
	__print_symbolic(d, SROCE_DROP_REASONS(SROCE_TRACE_DROP_SYM_, SROCE_TRACE_DROP_SYM_LAST_))

#define SROCE_TRACE_RETX(X, Y)						\
	X(SROCE_RETX_TIMEOUT, "timeout") X(SROCE_RETX_NAK, "nak")	\
	X(SROCE_RETX_RNR, "rnr") X(SROCE_RETX_READ_GAP, "read_gap")	\
	X(SROCE_RETX_ODP, "odp") X(SROCE_RETX_RTO, "rto")		\
	Y(SROCE_RETX_PROBE, "probe")
SROCE_TRACE_RETX(SROCE_TRACE_ENUM_, SROCE_TRACE_ENUM_)
#define sroce_show_retx(r) \
	__print_symbolic(r, SROCE_TRACE_RETX(SROCE_TRACE_SYM_, SROCE_TRACE_SYM_LAST_))

/* AETH syndrome type (bits 6-5), the rest its value */
#define sroce_show_syn_type(syn)					\
	__print_symbolic(((syn) >> 5) & 3, { 0, "ACK" }, { 1, "RNR-NAK" },	\
			 { 2, "RESERVED" }, { 3, "NAK" })

TRACE_EVENT(sroce_qp_state,
	TP_PROTO(u32 qpn, enum ib_qp_state from, enum ib_qp_state to),
	TP_ARGS(qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, from)
		__field(u32, to)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("qpn=%u %s -> %s", __entry->qpn, sroce_show_qp_state(__entry->from),
		  sroce_show_qp_state(__entry->to))
);

/* an SQ entry taken from the ring and checked (@status: its verdict) */
TRACE_EVENT(sroce_wqe_fetch,
	TP_PROTO(struct sroce_qp *qp, u32 idx, enum ib_wc_status status),
	TP_ARGS(qp, idx, status),
	TP_STRUCT__entry(
		__field(u64, wr_id)
		__field(u32, qpn)
		__field(u32, idx)
		__field(u32, opcode)
		__field(u32, length)
		__field(u32, npkts)
		__field(u32, status)
	),
	TP_fast_assign(
		__entry->wr_id = sroce_shadow(qp, idx)->wr_id;
		__entry->qpn = qp->ibqp.qp_num;
		__entry->idx = idx;
		__entry->opcode = sroce_shadow(qp, idx)->opcode;
		__entry->length = sroce_swqe(qp, idx)->length;
		__entry->npkts = sroce_swqe(qp, idx)->npkts;
		__entry->status = status;
	),
	TP_printk("qpn=%u idx=%u wr_id=0x%llx op=%s len=%u pkts=%u status=%s",
		  __entry->qpn, __entry->idx, __entry->wr_id,
		  sroce_show_wr_opcode(__entry->opcode), __entry->length, __entry->npkts,
		  sroce_show_wc_status(__entry->status))
);

/* an SQ entry completed, signaled or not */
TRACE_EVENT(sroce_wqe_complete,
	TP_PROTO(struct sroce_qp *qp, u32 idx, enum ib_wc_status status),
	TP_ARGS(qp, idx, status),
	TP_STRUCT__entry(
		__field(u64, wr_id)
		__field(u32, qpn)
		__field(u32, idx)
		__field(u32, opcode)
		__field(u32, first_psn)
		__field(u32, last_psn)
		__field(u32, length)
		__field(u32, status)
	),
	TP_fast_assign(
		__entry->wr_id = sroce_shadow(qp, idx)->wr_id;
		__entry->qpn = qp->ibqp.qp_num;
		__entry->idx = idx;
		__entry->opcode = sroce_shadow(qp, idx)->opcode;
		__entry->first_psn = sroce_swqe(qp, idx)->first_psn;
		__entry->last_psn = sroce_swqe(qp, idx)->last_psn;
		__entry->length = sroce_swqe(qp, idx)->length;
		__entry->status = status;
	),
	TP_printk("qpn=%u idx=%u wr_id=0x%llx op=%s psn=%u-%u len=%u status=%s",
		  __entry->qpn, __entry->idx, __entry->wr_id,
		  sroce_show_wr_opcode(__entry->opcode), __entry->first_psn,
		  __entry->last_psn, __entry->length, sroce_show_wc_status(__entry->status))
);

/* a packet of @qp: @bth its transport header, @len its payload bytes */
DECLARE_EVENT_CLASS(sroce_pkt,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth, u32 len),
	TP_ARGS(qp, bth, len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->qpn = qp->ibqp.qp_num;
		__entry->psn = sroce_get_be24(bth + 9);
		__entry->len = len;
		__entry->opcode = bth[0];
	),
	TP_printk("qpn=%u op=%s psn=%u len=%u", __entry->qpn,
		  sroce_show_opcode(__entry->opcode), __entry->psn, __entry->len)
);

/* handed to the IP stack (or delivered locally) */
DEFINE_EVENT(sroce_pkt, sroce_pkt_tx,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth, u32 len),
	TP_ARGS(qp, bth, len)
);

/* taken by the QP's transport from its receive queue */
DEFINE_EVENT(sroce_pkt, sroce_pkt_rx,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth, u32 len),
	TP_ARGS(qp, bth, len)
);

/* an ACK/NAK sent (responder) or received (completer) */
TRACE_EVENT(sroce_ack,
	TP_PROTO(u32 qpn, bool tx, u8 syndrome, u32 msn, u32 psn),
	TP_ARGS(qpn, tx, syndrome, msn, psn),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, msn)
		__field(u32, psn)
		__field(u8, syndrome)
		__field(bool, tx)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->msn = msn;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
		__entry->tx = tx;
	),
	TP_printk("qpn=%u %s %s value=%u msn=%u psn=%u", __entry->qpn,
		  __entry->tx ? "tx" : "rx", sroce_show_syn_type(__entry->syndrome),
		  __entry->syndrome & 0x1f, __entry->msn, __entry->psn)
);

/* the requester goes back to resend from @psn */
TRACE_EVENT(sroce_retransmit,
	TP_PROTO(u32 qpn, u32 psn, u32 retries_left, enum sroce_retx_why why),
	TP_ARGS(qpn, psn, retries_left, why),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, retries_left)
		__field(u32, why)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->retries_left = retries_left;
		__entry->why = why;
	),
	TP_printk("qpn=%u from_psn=%u retries_left=%u reason=%s", __entry->qpn,
		  __entry->psn, __entry->retries_left, sroce_show_retx(__entry->why))
);

/*
 * an RTO resend judged by the first progress after it, or shown needless
 * by a second answer: the RTO floor (us) that judgment left
 */
TRACE_EVENT(sroce_rto_judge,
	    TP_PROTO(u32 qpn, u32 psn, bool needless, u32 floor_us),
	    TP_ARGS(qpn, psn, needless, floor_us),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, psn)
			     __field(u32, floor_us)
			     __field(bool, needless)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->psn = psn;
			   __entry->floor_us = floor_us;
			   __entry->needless = needless;),
	    TP_printk("qpn=%u psn=%u %s rto_floor_us=%u", __entry->qpn, __entry->psn,
		      __entry->needless ? "needless" : "needed", __entry->floor_us)
);

/* a received packet dropped (sroce_drop_count()); qpn -1: not known */
TRACE_EVENT(sroce_drop,
	TP_PROTO(u32 qpn, enum sroce_drop why),
	TP_ARGS(qpn, why),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, why)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->why = why;
	),
	TP_printk("qpn=%d reason=%s", (int)__entry->qpn, sroce_show_drop(__entry->why))
);

/* selective repeat: an early request held (or placed) at the responder */
TRACE_EVENT(sroce_sr_hold,
	TP_PROTO(u32 qpn, u32 psn, u32 epsn, u32 held, bool placed),
	TP_ARGS(qpn, psn, epsn, held, placed),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, epsn)
		__field(u32, held)
		__field(bool, placed)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->epsn = epsn;
		__entry->held = held;
		__entry->placed = placed;
	),
	TP_printk("qpn=%u psn=%u epsn=%u held=%u %s", __entry->qpn, __entry->psn,
		  __entry->epsn, __entry->held, __entry->placed ? "placed" : "kept")
);

/* selective repeat: a SACK sent with a NAK, or a valid one received */
TRACE_EVENT(sroce_sr_sack,
	TP_PROTO(u32 qpn, bool tx, u32 psn, u32 span),
	TP_ARGS(qpn, tx, psn, span),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, span)
		__field(bool, tx)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->span = span;
		__entry->tx = tx;
	),
	TP_printk("qpn=%u %s psn=%u span=%u", __entry->qpn, __entry->tx ? "tx" : "rx",
		  __entry->psn, __entry->span)
);

/* DCQCN reaction point: the rate was cut (a CNP) or recovered */
TRACE_EVENT(sroce_dcqcn_rate,
	TP_PROTO(u32 qpn, u32 from, const struct sroce_dcqcn *d, bool cut),
	TP_ARGS(qpn, from, d, cut),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, from)
		__field(u32, rate)
		__field(u32, target)
		__field(u32, alpha)
		__field(bool, cut)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->rate = d->rp.rc;
		__entry->target = d->rp.rt;
		__entry->alpha = d->rp.alpha;
		__entry->cut = cut;
	),
	TP_printk("qpn=%u %s rate=%u->%u kbit/s target=%u alpha=%u", __entry->qpn,
		  __entry->cut ? "cut" : "increase", __entry->from, __entry->rate,
		  __entry->target, __entry->alpha)
);

/* ODP: a transfer missed a page (@err -EAGAIN: fault queued, -EFAULT: bad) */
TRACE_EVENT(sroce_odp_fault,
	TP_PROTO(u32 lkey, u64 uva, u64 len, int err),
	TP_ARGS(lkey, uva, len, err),
	TP_STRUCT__entry(
		__field(u64, uva)
		__field(u64, len)
		__field(u32, lkey)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->uva = uva;
		__entry->len = len;
		__entry->lkey = lkey;
		__entry->err = err;
	),
	TP_printk("lkey=0x%x uva=0x%llx len=%llu err=%d", __entry->lkey, __entry->uva,
		  __entry->len, __entry->err)
);

/* ODP: the fault work faulted [start, end) in (or failed to) */
TRACE_EVENT(sroce_odp_fault_done,
	TP_PROTO(u32 lkey, u64 start, u64 end, bool failed),
	TP_ARGS(lkey, start, end, failed),
	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u32, lkey)
		__field(bool, failed)
	),
	TP_fast_assign(
		__entry->start = start;
		__entry->end = end;
		__entry->lkey = lkey;
		__entry->failed = failed;
	),
	TP_printk("lkey=0x%x uva=0x%llx-0x%llx %s", __entry->lkey, __entry->start,
		  __entry->end, __entry->failed ? "failed" : "mapped")
);

#endif /* SROCE_TRACE_H */

/* out of tree: trace.c is built with -I$(src) (Kbuild) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
