/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce user/kernel ABI: udata structures exchanged through uverbs and the
 * layout of the mmapped rings. Shared verbatim by sroce.ko and the rdma-core
 * provider (rdma-core-provider/).
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* uverbs ABI version; the provider accepts exactly this one */
#define SROCE_UVERBS_ABI_VERSION	1

/* Device name prefix the provider matches (sroce0, sroce1, ...) */
#define SROCE_DEVICE_NAME_PREFIX	"sroce"

/*
 * Capability bits in sroce_alloc_ucontext_resp.caps. None are defined yet:
 * later kernels set bits here as features (mmapped rings, doorbell
 * suppression) land, and a provider must treat unknown bits as absent.
 */

/* alloc_ucontext response: what this kernel build supports */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* SROCE_UVERBS_ABI_VERSION */
	__u32 caps;		/* SROCE_CAP_* */
	__aligned_u64 reserved;
};

/*
 * Rings
 * =====
 *
 * SQ, RQ and CQ are rings allocated by the kernel and mmapped by the
 * provider. A mapping starts with struct sroce_ring_hdr; entry i lives at
 * entries_offset + (i & (num_entries - 1)) * entry_size. Producer and
 * consumer indices are free-running u32 counters, each on its own cache
 * line; both sides publish with release and read with acquire ordering.
 *
 *   ring  producer          consumer
 *   SQ    provider (post)   kernel send worker
 *   RQ    provider (post)   kernel responder
 *   CQ    kernel            provider (poll)
 *
 * The kernel treats every index it reads from user memory as hostile: it
 * masks before indexing, copies an entry out of the ring before validating
 * it, and treats an index that claims more than num_entries outstanding
 * entries as a fatal error of the queue (QP to ERR, CQ error event).
 */
#define SROCE_RING_HDR_SIZE	256	/* entries_offset of every ring */

struct sroce_ring_hdr {
	__u32 producer;
	__u32 pad0[15];
	__u32 consumer;
	__u32 pad1[15];
	__u32 flags;		/* SROCE_RING_F_*, written by the kernel */
	__u32 pad2[15];
	__aligned_u64 doorbells;	/* SQ: doorbell syscalls taken (kernel) */
	__u32 pad3[14];
};

/*
 * SQ flags: the send worker sets NEED_WAKEUP before it stops polling the
 * ring. After publishing a new producer index the provider makes the
 * doorbell syscall only when it sees the flag (with a full barrier between
 * its producer store and its flags load).
 */
#define SROCE_RING_F_NEED_WAKEUP	(1U << 0)

/* Where a ring is and what it looks like, in create responses. */
struct sroce_ring_info {
	__aligned_u64 mmap_offset;	/* for mmap(2) on the uverbs fd */
	__aligned_u64 mmap_len;
	__u32 num_entries;		/* power of two */
	__u32 entry_size;		/* bytes, multiple of 16 */
};

struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* send_flags of an SQ entry: the values of IBV_SEND_* (and IB_SEND_*) */
#define SROCE_SEND_FENCE	(1U << 0)
#define SROCE_SEND_SIGNALED	(1U << 1)
#define SROCE_SEND_SOLICITED	(1U << 2)
#define SROCE_SEND_INLINE	(1U << 3)

/*
 * Kernel QPs only (never valid in a user ring): fast registration of the
 * FR MR whose index the key names (wr.reg), the value of IB_WR_REG_MR.
 * LOCAL_INV (ex: the rkey) invalidates a FR MR (kernel QPs) or a type 2
 * memory window (any QP).
 */
#define SROCE_WR_REG_MR		0x20

/*
 * IBTA 1.5 operations, with the values ib_user_verbs.h gives them since
 * Linux 6.2 (IB_UVERBS_WR_FLUSH/ATOMIC_WRITE, IB_UVERBS_WC_FLUSH/
 * ATOMIC_WRITE), which libibverbs' IBV_WR_/IBV_WC_ values equal. An ATOMIC
 * WRITE carries its 8 bytes inline (SROCE_SEND_INLINE, inline_len 8).
 */
#define SROCE_WR_FLUSH		14
#define SROCE_WR_ATOMIC_WRITE	15
#define SROCE_WC_FLUSH		8
#define SROCE_WC_ATOMIC_WRITE	9
/* wr.flush.type: the placement types of IBV_FLUSH_GLOBAL/PERSISTENT */
#define SROCE_FLUSH_GLOBAL	(1U << 0)
#define SROCE_FLUSH_PERSISTENT	(1U << 1)
/* wr.flush.level: IBV_FLUSH_RANGE, IBV_FLUSH_MR */
#define SROCE_FLUSH_RANGE	0
#define SROCE_FLUSH_MR		1

/*
 * Per-QP rate limits (IB_QP_RATE_LIMIT, ibv_modify_qp_rate_limit()), in
 * kbit/s; 0 lifts the limit. The provider reports these bounds as
 * packet_pacing_caps. RC, UC and XRC initiator QPs, set on the way to or
 * in RTS.
 */
#define SROCE_RATE_LIMIT_MIN_KBPS	1000U		/* 1 Mbit/s */
#define SROCE_RATE_LIMIT_MAX_KBPS	100000000U	/* 100 Gbit/s */

/* SQ entry: header, then num_sge sroce_sge or inline_len bytes of data */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* enum ib_uverbs_wr_opcode */
	__u32 send_flags;	/* SROCE_SEND_* */
	__u32 num_sge;
	__u32 inline_len;	/* with SROCE_SEND_INLINE: bytes after the header */
	__be32 ex;		/* immediate data, or the rkey to invalidate */
	__u32 xrc_srqn;		/* XRC INI QPs: the remote XRC SRQ (24 bits) */
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__aligned_u64 remote_addr;
			__u32 length;	/* bytes, with SROCE_FLUSH_RANGE */
			__u32 rkey;
			__u8 type;	/* SROCE_FLUSH_GLOBAL | _PERSISTENT */
			__u8 level;	/* SROCE_FLUSH_RANGE or _MR */
			__u8 reserved[6];
		} flush;
		/* IB_WR_REG_MR, kernel QPs only: ib_reg_wr and its MR's */
		struct {
			__u32 key;	/* the new lkey/rkey */
			__u32 access;	/* IB_ACCESS_* */
			__aligned_u64 iova;	/* ib_mr.iova when posted */
			__aligned_u64 length;	/* ib_mr.length */
		} reg;
		/*
		 * IB_UVERBS_WR_BIND_MW (ibv_bind_mw() for type 1, a BIND_MW
		 * work request for type 2): the MW is the one both rkeys name
		 */
		struct {
			__aligned_u64 addr;	/* first byte of the window */
			__aligned_u64 length;	/* 0: unbind (type 1) */
			__u32 mr_lkey;		/* the MR the window is in */
			__u32 mw_rkey;		/* the MW's rkey now */
			__u32 new_rkey;		/* its rkey once bound */
			__u32 access;		/* IBV_ACCESS_REMOTE_* */
		} bind;
		struct {
			__u32 ah;	/* AH id from create_ah (sroce_create_ah_resp) */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
	} wr;
	struct sroce_sge sge[];
};

/* RQ entry */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct sroce_sge sge[];
};

/* CQ entry; flags use libibverbs' values (IBV_WC_WITH_IMM ...) */
#define SROCE_WC_F_GRH		(1U << 0)
#define SROCE_WC_F_WITH_IMM	(1U << 1)
#define SROCE_WC_F_WITH_INV	(1U << 3)

struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;		/* enum ib_wc_status == enum ibv_wc_status */
	__u32 opcode;		/* enum ib_uverbs_wc_opcode, or 128/129 for RECV */
	__u32 vendor_err;
	__u32 byte_len;
	__be32 ex;		/* immediate data, or the invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* SROCE_WC_F_* */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;	/* kernel CQs: enum rdma_network_type, else 0 */
	/*
	 * CQs created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION: when the
	 * CQE was written, CLOCK_MONOTONIC (the device clock: hca_core_clock
	 * 1 GHz) and CLOCK_REALTIME, in ns; 0 on other CQs
	 */
	__aligned_u64 ts_ns;
	__aligned_u64 wallclock_ns;
};				/* 64 bytes */

/* create_cq: no request data; the response says where the ring is */
struct sroce_create_cq_resp {
	struct sroce_ring_info ring;
};

/* resize_cq: the ring is replaced; the provider remaps */
struct sroce_resize_cq_resp {
	struct sroce_ring_info ring;
};

/*
 * create_srq: no request data; the response says where the ring is (of
 * struct sroce_recv_wqe, like an RQ). The kernel takes entries out at once
 * (consumer index moves when a QP takes a buffer, not when it completes).
 */
struct sroce_create_srq_resp {
	struct sroce_ring_info ring;
};

/*
 * modify_srq request (no response: the command has none). Resizing
 * (IB_SRQ_MAX_WR) replaces the ring; the kernel writes the new ring's
 * struct sroce_ring_info to @ring_info_addr, a user address, and the
 * provider remaps. The posted entries keep their (free-running) indices.
 * Without the request (an older provider), a resize is refused.
 */
struct sroce_modify_srq {
	__aligned_u64 ring_info_addr;
};

/*
 * create_qp response: SQ and RQ rings; num_entries 0: no such queue (the RQ
 * of a QP on an SRQ, a queue created with 0 WRs), posting to it fails
 */
struct sroce_create_qp_resp {
	struct sroce_ring_info sq;
	struct sroce_ring_info rq;
	__u32 qpn;
	__u32 reserved;
};

/*
 * create_ah response: the AH's id. A UD SQ entry names its destination
 * with it (sroce_send_wqe.wr.ud.ah); the kernel accepts only ids of AHs of
 * the QP's own PD.
 */
struct sroce_create_ah_resp {
	__u32 ah_id;
	__u32 reserved;
};

/*
 * Device memory (ibv_alloc_dm)
 * ============================
 *
 * A DM is zeroed kernel memory of whole pages owned by the user context,
 * mapped by the provider with mmap(2) on the uverbs fd (MAP_SHARED, the
 * offset and length below), so ibv_memcpy_to/from_dm are plain memcpy. It
 * is registered with ibv_reg_dm_mr (zero-based; offset and length within
 * the DM's requested length).
 *
 * Driver attributes (UVERBS_ID_NS_SHIFT: the driver's id namespace):
 * UVERBS_METHOD_DM_ALLOC of UVERBS_OBJECT_DM takes two optional outputs;
 * SROCE_METHOD_DM_QUERY (same object) tells the same of an existing DM,
 * for ibv_import_dm.
 */
enum sroce_alloc_dm_attrs {
	SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET = (1U << UVERBS_ID_NS_SHIFT),
	SROCE_ATTR_ALLOC_DM_RESP_MMAP_LEN,		/* u64, whole pages */
};

enum sroce_dm_methods {
	SROCE_METHOD_DM_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum sroce_query_dm_attrs {
	SROCE_ATTR_QUERY_DM_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SROCE_ATTR_QUERY_DM_RESP_MMAP_OFFSET,	/* u64 */
	SROCE_ATTR_QUERY_DM_RESP_MMAP_LEN,	/* u64 */
	SROCE_ATTR_QUERY_DM_RESP_LENGTH,	/* u64: the length asked for */
};

#endif /* SROCE_ABI_USER_H */
