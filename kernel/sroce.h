/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce - software RoCEv2 device: shared driver definitions.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/percpu_counter.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/jump_label.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "sroce_copy.h"

/* the last bytes of a copy that sroce_place() stores in address order */
#define SROCE_PLACE_TAIL	64

/* below this memcpy() is used whatever crc.c measured */
#define SROCE_COPY_WORDS_MIN	256

DECLARE_STATIC_KEY_FALSE(sroce_copy_use_words);

/**
 * sroce_copy() - copy payload bytes
 * @dst: destination
 * @src: source
 * @n: bytes
 *
 * memcpy(), or for larger copies a loop of word moves when the module
 * measured that faster at load (crc.c: under QEMU's TCG the kernel's
 * "rep movsb" memcpy() of CPUs with ERMS copies a byte per emulated
 * iteration, about a tenth of the loop's rate).
 */
static inline void sroce_copy(void *dst, const void *src, size_t n)
{
	if (static_branch_unlikely(&sroce_copy_use_words) &&
	    n >= SROCE_COPY_WORDS_MIN)
		sroce_copy_words(dst, src, n);
	else
		memcpy(dst, src, n);
}

/**
 * sroce_place() - copy received payload into memory in ascending address order
 * @dst: the destination (a mapping of an MR's page)
 * @src: the payload
 * @n: bytes
 *
 * A NIC's DMA writes a packet's payload in ascending address order, and
 * applications rely on it: they poll the last bytes of a message (NCCL's
 * clear-to-send FIFO index, "last byte changed" flags), then read the
 * rest. memcpy() may copy backwards (x86's memcpy_orig does for some
 * alignments), so the body is copied first and the last
 * SROCE_PLACE_TAIL bytes after it, in ascending order: aligned words
 * where possible (a polled word is never seen half written), each store
 * ordered after the ones before it.
 */
static inline void sroce_place(void *dst, const void *src, size_t n)
{
	size_t i = n > SROCE_PLACE_TAIL ? n - SROCE_PLACE_TAIL : 0;
	const u8 *s = src;
	u8 *d = dst;
	unsigned long w;

	if (i) {
		sroce_copy(d, s, i);
		smp_wmb();	/* the body is visible before the tail */
	}
	/* release: each store of the tail is ordered after the ones before it */
	for (; i < n && !IS_ALIGNED((uintptr_t)(d + i), sizeof(w)); i++)
		smp_store_release(&d[i], s[i]);	/* in order, see above */
	for (; i + sizeof(w) <= n; i += sizeof(w)) {
		memcpy(&w, s + i, sizeof(w));
		smp_store_release((unsigned long *)(d + i), w);	/* in order */
	}
	for (; i < n; i++)
		smp_store_release(&d[i], s[i]);	/* in order, see above */
}

#include "sroce_proto.h"
#include "sroce_dcqcn.h"
#include "sroce-abi.h"
#include "sroce_param.h"

#define SROCE_DRV_NAME		"sroce"
#define SROCE_PORT		1
#define SROCE_GID_TBL_LEN	256
#define SROCE_VENDOR_ID		0xffffff	/* no IEEE OUI: software device */

struct sroce_udp;
struct sroce_qp;

/* 8-byte atomic operations on MR memory (mr_copy.c, odp.c) */
enum sroce_atomic_op {
	SROCE_ATOMIC_CMP_SWAP,
	SROCE_ATOMIC_FETCH_ADD,
	SROCE_ATOMIC_WRITE,
};

/* per-device counters (port_counters.c) */
enum sroce_stat {
	SROCE_STAT_TX_PKTS,
	SROCE_STAT_RX_PKTS,
	SROCE_STAT_RETRANSMITS,
	SROCE_STAT_SEQ_NAKS_SENT,
	SROCE_STAT_RNR_NAKS_SENT,
	SROCE_STAT_SQ_WQES,
	SROCE_STAT_DOORBELLS,
	SROCE_STAT_LOOPBACK_PKTS,
	SROCE_STAT_TIMEOUTS,
	SROCE_STAT_ODP_FAULTS,
	SROCE_STAT_ODP_FAULT_ERRS,
	SROCE_STAT_ICRC_SKIP_TX,
	SROCE_STAT_ICRC_SKIP_RX,
	SROCE_STAT_ECN_MARKED_RX,
	SROCE_STAT_CNP_TX,
	SROCE_STAT_CNP_RX,
	SROCE_STAT_DCQCN_RATE_CUTS,
	SROCE_STAT_RETX_PKTS,
	SROCE_STAT_RETX_BYTES,
	SROCE_STAT_SR_OOO_RX,
	SROCE_STAT_SR_HOLD_DROPS,
	SROCE_STAT_SR_SACK_TX,
	SROCE_STAT_SR_SACK_RX,
	SROCE_STAT_SR_SKIPPED,
	SROCE_STAT_SR_WINDOW,
	SROCE_STAT_SR_SACK_DROPS,
	SROCE_STAT_SR_PLACED,
	SROCE_STAT_SR_HELD,
	SROCE_STAT_SR_FAR_DROPS,
	SROCE_STAT_TX_GSO_BURSTS,
	SROCE_STAT_TX_GSO_PKTS,
	SROCE_STAT_CWND_CUTS,
	SROCE_STAT_CWND_UNDOS,
	SROCE_STAT_RTO_RESENDS,
	SROCE_STAT_RTO_SPURIOUS,
	SROCE_STAT_ZCOPY_PKTS,
	SROCE_STAT_ZCOPY_FALLBACK,
	SROCE_STAT_RX_DEFERRED,
	SROCE_STAT_DOORBELLS_DEFERRED,
	SROCE_STAT_ODP_RX_WAITS,
	SROCE_STAT_ERR_RX_SETTLED,
	SROCE_STAT_SELRD_PLACED,
	SROCE_STAT_SELRD_REPAIRS,
	SROCE_STAT_SELRD_REASKS,
	SROCE_STAT_SELRD_PROBES,
	SROCE_STAT_DUP_REQUEST,
	SROCE_STAT_MAX
};

/* Device counters, one set per CPU (summed when read, port_counters.c) */
struct sroce_dev_stats {
	u64 v[SROCE_STAT_MAX];
};

/**
 * struct sroce_dev - one sroce RDMA device, bound to one Ethernet netdev
 * @ib_dev: the RDMA core device; must be first (ib_alloc_device)
 * @list: entry in sroce_dev_list, under sroce_dev_lock; the list owns a
 *	reference on @ib_dev.dev until the entry is reaped
 * @ndev: the netdev carrying our RoCEv2 traffic, held by @ndev_tracker;
 *	NULL once released
 * @ndev_tracker: the reference tracker of our hold on @ndev
 * @udp: the UDP 4791 socket(s) of @ndev's network namespace, or NULL
 * @dead: dealloc_driver ran: only the list reference remains
 * @ndev_gone: the netdev began unregistering while we were registering
 * @last_port_state: the port state last reported with an ib_event
 * @last_mbps: the link speed last seen (0 until registered), for
 *	IB_EVENT_DEVICE_SPEED_CHANGE
 * @stats: per-CPU packet and drop counters (a locked increment per packet
 *	showed in the 64 B profile)
 * @rxq_bytes: skb->truesize queued to all its QPs' rxq (sched.c), the
 *	rx_backlog_dev_kb bound
 * @qp_count: QPs allocated, at most SROCE_MAX_QP
 * @pd_count: PDs allocated, at most SROCE_MAX_PD
 * @cq_count: CQs allocated, at most SROCE_MAX_CQ
 * @srq_count: SRQs allocated, at most SROCE_MAX_SRQ
 * @mr_xa: MRs by key index (key >> 8); lookups under RCU
 * @mr_next: cyclic allocation hint for @mr_xa
 * @ah_xa: address handles by id (the handle a WQE names); lookups under RCU
 * @ah_next: cyclic allocation hint for @ah_xa
 * @mw_xa: memory windows by key index (without SROCE_MW_INDEX_BIT); lookups
 *	under RCU (mw.c)
 * @mw_next: cyclic allocation hint for @mw_xa
 * @mw_count: MWs allocated, at most SROCE_MAX_MW
 * @mw_gen: the last generation given to a memory window (mw.c)
 * @xrcd_count: XRC domains allocated, at most SROCE_MAX_XRCD (xrc.c)
 * @cntr_count: completion counters, at most SROCE_MAX_COMP_CNTR (cntr.c)
 * @gsi_qp: the device's GSI QP (QP1), NULL when none; see ud.c
 * @dm_pages: pages of device memory allocated, at most SROCE_DM_DEV_PAGES
 *	(dm.c)
 * @icrc_skip: the administrator allows this device to skip the ICRC with
 *	a sroce peer that allows it too (sysfs ``icrc_skip``, off by
 *	default); sampled by each connected QP when it moves to RTR, see
 *	sroce_qp_opts_sample() and sroce_qp_icrc_learn()
 * @sr: the administrator allows selective repeat with a sroce peer that
 *	allows it too (sysfs ``selective_repeat``; on unless the module
 *	parameter ``sr_default`` is off when the device is created);
 *	sampled by each RC QP when it moves to RTR (responder.c, completer.c)
 * @dcqcn: the administrator turned DCQCN on (sysfs ``dcqcn_enable``, off by
 *	default): connected QPs that reach RTR afterwards send ECN-capable
 *	packets, answer CE marks with CNPs and pace themselves (dcqcn.c)
 * @dcqcn_cfg: its parameters, copied by each QP at RTR
 * @tx_gso: the administrator lets connected QPs hand runs of equal-sized
 *	packets to the IP stack as one UDP GSO (fraglist) packet (sysfs
 *	``tx_gso``; by default on where the stack segments such a packet
 *	before the netdev's driver, sroce_txb_segmented(); sampled at RTR)
 * @ar: adaptive routing mode (sysfs ``adaptive_routing``, off by default):
 *	RC QPs that reach RTR afterwards send each RC WRITE as one WRITE ONLY
 *	per path MTU with its own RETH, mark their requests SROCE_BTH_AR and
 *	spread them over @ar_paths UDP source ports (requester.c, xmit.c)
 * @ar_paths: source ports an AR QP sprays its requests over (sysfs
 *	``ar_paths``, SROCE_AR_PATHS_MIN..SROCE_AR_PATHS_MAX); sampled at RTR
 * @wide: the administrator allows wide SEND/WRITE segments with a sroce
 *	peer that offers them (sysfs ``wide_segments``, module parameter
 *	``wide_segments_default``; sroce_wide_seg(); sampled at RTR)
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct list_head list;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct sroce_udp *udp;
	bool dead;
	bool ndev_gone;
	/* per CPU: a locked increment per packet showed in the 64 B profile */
	struct sroce_dev_stats __percpu *stats;
	/* skb->truesize queued to all its QPs' rxq (sched.c): rx_backlog_dev_kb */
	struct percpu_counter rxq_bytes;
	atomic_t qp_count;
	atomic_t pd_count;
	enum ib_port_state last_port_state;
	u32 last_mbps;
	atomic_t cq_count;
	atomic_t srq_count;
	struct xarray mr_xa;
	u32 mr_next;
	struct xarray ah_xa;
	u32 ah_next;
	struct xarray mw_xa;
	u32 mw_next;
	atomic_t mw_count;
	atomic_t mw_gen;
	atomic_t xrcd_count;
	atomic_t cntr_count;
	struct sroce_qp *gsi_qp;
	atomic_long_t dm_pages;
	bool icrc_skip;
	bool sr;
	bool dcqcn;
	struct sroce_dcqcn_cfg dcqcn_cfg;
	bool tx_gso;
	bool ar;
	u32 ar_paths;
	bool wide;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct sroce_dev *sroce_to_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

/*
 * Debug logging: why a verb was refused. Every error return a user (or a
 * kernel consumer) can cause in the verbs paths is preceded by one of
 * these, naming the argument and the values. They are ibdev_dbg(), so
 * dynamic debug, off by default; on with
 *
 *	echo 'module sroce +p' > /sys/kernel/debug/dynamic_debug/control
 *
 * Each line names the object: the device (ibdev_dbg's prefix), then
 * "qp#N: ", "cq#N: ", "mr#N: " or "srq#N: " (N: the number `rdma
 * resource show` prints; a CQ, MR or SRQ being created has none yet, so
 * creation refusals use sroce_dbg_dev() and name the verb). The newline
 * is added here. The _rl variants are rate limited, for what a consumer
 * can hit once per work request. No argument may have side effects: with
 * the site disabled none is evaluated.
 */
#define sroce_dbg_dev(ibdev, fmt, ...) \
	ibdev_dbg(ibdev, fmt "\n", ##__VA_ARGS__)
#define sroce_dbg_dev_rl(ibdev, fmt, ...) \
	ibdev_dbg_ratelimited(ibdev, fmt "\n", ##__VA_ARGS__)
#define sroce_dbg_qp(qp, fmt, ...) \
	ibdev_dbg((qp)->ibqp.device, "qp#%u: " fmt "\n", (qp)->ibqp.qp_num, ##__VA_ARGS__)
#define sroce_dbg_qp_rl(qp, fmt, ...) \
	ibdev_dbg_ratelimited((qp)->ibqp.device, "qp#%u: " fmt "\n", (qp)->ibqp.qp_num, \
			      ##__VA_ARGS__)
#define sroce_dbg_cq(cq, fmt, ...) \
	ibdev_dbg((cq)->ibcq.device, "cq#%u: " fmt "\n", (cq)->ibcq.res.id, ##__VA_ARGS__)
#define sroce_dbg_mr(mr, fmt, ...) \
	ibdev_dbg((mr)->ibmr.device, "mr#%u: " fmt "\n", (mr)->ibmr.res.id, ##__VA_ARGS__)
#define sroce_dbg_mr_rl(mr, fmt, ...) \
	ibdev_dbg_ratelimited((mr)->ibmr.device, "mr#%u: " fmt "\n", (mr)->ibmr.res.id, \
			      ##__VA_ARGS__)
#define sroce_dbg_srq(srq, fmt, ...) \
	ibdev_dbg((srq)->ibsrq.device, "srq#%u: " fmt "\n", (srq)->ibsrq.res.id, ##__VA_ARGS__)
#define sroce_dbg_srq_rl(srq, fmt, ...) \
	ibdev_dbg_ratelimited((srq)->ibsrq.device, "srq#%u: " fmt "\n", (srq)->ibsrq.res.id, \
			      ##__VA_ARGS__)

static inline void sroce_stat_inc(struct sroce_dev *sdev, enum sroce_stat s)
{
	this_cpu_inc(sdev->stats->v[s]);
}

static inline void sroce_stat_add(struct sroce_dev *sdev, enum sroce_stat s, u64 n)
{
	this_cpu_add(sdev->stats->v[s], n);
}

#endif /* SROCE_H */
