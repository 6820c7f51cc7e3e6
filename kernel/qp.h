/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce QP and RC transport state.
 *
 * The requester, the responder and the completer of a QP run under
 * qp->lock (a BH-disabling spinlock), in whichever context has something
 * for them (sched.c): the softirq that received a packet, the system call
 * that rang the doorbell, or the QP's work item (on sroce_wq; a kernel
 * ULP's QP on the unbound sroce_k, see sroce_sched_init_module()). Received
 * packets are queued to qp->rxq first; whoever gets the lock drains the
 * queue in order (sroce_sched_kick()). Timers only schedule the work.
 *
 * This header holds the QP's types and qp.c's functions; each role's
 * functions are in its own header (sched.h, requester.h, responder.h,
 * completer.h, ud.h, xmit.h, recv.h, dcqcn.h, ah.h, kpost.h).
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/in6.h>
#include <net/dst_cache.h>

#include "sroce.h"
#include "sroce_wire.h"
#include "sroce_psn.h"
#include "sroce_sr.h"
#include "sroce_rc_req.h"
#include "sroce_cwnd.h"

struct sroce_queue;
struct sroce_cq;
struct sroce_mr;

/*
 * Completion counters (cntr.c): the operation classes a counter is
 * attached for, one per bit of the uverbs op_mask (enum
 * ib_uverbs_qp_attach_comp_cntr_op, bit n: class n), and the values the
 * QP's inline sroce_qp_count() updates. Here, below cntr.h, which needs
 * the QP.
 */
enum sroce_cntr_op {
	SROCE_CNTR_SEND,		/* SEND work requests completed */
	SROCE_CNTR_RECV,		/* receive work requests completed */
	SROCE_CNTR_RDMA_READ,		/* RDMA READ work requests completed */
	SROCE_CNTR_REMOTE_RDMA_READ,	/* READ requests of the peer served */
	SROCE_CNTR_RDMA_WRITE,		/* RDMA WRITE work requests completed */
	SROCE_CNTR_REMOTE_RDMA_WRITE,	/* WRITE messages of the peer placed */
	SROCE_CNTR_NOPS
};

#define SROCE_CNTR_ALL_OPS	(BIT(SROCE_CNTR_NOPS) - 1)

/**
 * struct sroce_cntr - the values of a completion counter
 * @val: [0] completions without error, [1] completions in error (the
 *	uverbs entries IB_UVERBS_COMP_CNTR_ENTRY_COMP and _ERR); modulo 2^64
 * @qps: the QP op classes pointing here (sroce_qp.cntr[]): the counter
 *	is not destroyed while any is left, whatever the core counts
 */
struct sroce_cntr {
	atomic64_t val[2];
	atomic_t qps;
};

/*
 * PSNs a READ may reach past the oldest unacknowledged one: a quarter of
 * the PSN space, so every PSN in flight compares correctly (+/- 2^23).
 */
#define SROCE_MAX_PSN_INFLIGHT	(1u << 22)
/* expiries without progress that stretch the wait (sroce_retry_wait_ns()) */
#define SROCE_RETRY_BACKOFF_MAX	3
#define SROCE_RXQ_MAX		4096	/* received packets queued per QP */
/*
 * and their bytes (skb->truesize): a full window of 1024 packets at MTU
 * 4096 fits, a flood of large packets from a peer cannot pin more
 */
#define SROCE_RXQ_BYTES		(8u << 20)
/*
 * Received packets queued to all of a device's QPs, in skb->truesize, at
 * most rx_backlog_dev_kb KiB (sched.c; 64 MiB by default): the per-QP
 * bounds times max_qp would let one user pin far more (a flood looped
 * back to QPs whose receives wait for ODP faults, UD or UC).
 */
extern unsigned int sroce_dev_rxq_kb;
/*
 * The device's count is per CPU (percpu_counter): each CPU holds back
 * less than this much of it, so a read is within that times the CPUs of
 * the truth; near the bound sroce_dev_rxq_full() sums it exactly. Fixed:
 * a batch that changed would leave the CPUs' parts outside that bound.
 */
#define SROCE_DEV_RXQ_BATCH	SZ_64K

/*
 * Why a received packet was dropped (recv.c, ud.c, sched.c). One list for
 * the enum, the rx_drop_* counters (port_counters.c) and the sroce_drop
 * tracepoint's names (trace.h): X(NAME, name) for SROCE_DROP_NAME, counted
 * as rx_drop_name;
 * the last one is Y(NAME, name), for lists that must end without a comma
 * (a __print_symbolic() table).
 *  LEN       runt or unlinearisable datagram
 *  HDR       bad IP/transport header, wrong QP type/peer
 *  ICRC      ICRC mismatch
 *  NO_QP     no such destination QP in this namespace
 *  QKEY      UD: Q_Key is not the QP's
 *  NO_RQE    UD: no receive posted, or the QP's backlog full
 *  QP_STATE  RC: the QP does not receive in its state
 *  BACKLOG   RC: the QP's receive queue is full
 *  CNP       a CNP for no QP, or one not doing DCQCN
 */
#define SROCE_DROP_REASONS(X, Y)					\
	X(LEN, len) X(HDR, hdr) X(ICRC, icrc) X(NO_QP, no_qp)		\
	X(QKEY, qkey) X(NO_RQE, no_rqe) X(QP_STATE, qp_state)		\
	X(BACKLOG, backlog) X(DEV_BACKLOG, dev_backlog) Y(CNP, cnp)

#define SROCE_DROP_ENUM_(up, low)	SROCE_DROP_##up,
enum sroce_drop {
	SROCE_DROP_REASONS(SROCE_DROP_ENUM_, SROCE_DROP_ENUM_)
	SROCE_DROP_MAX
};

#undef SROCE_DROP_ENUM_

/* qp->events bits: set by timers and kickers, consumed by the transport */
enum {
	SROCE_QP_EV_TIMEOUT,
	SROCE_QP_EV_RNR_DONE,
	SROCE_QP_EV_KICK,	/* work arrived while another context ran the QP */
	SROCE_QP_EV_YIELD,	/* a role left work for another round */
	SROCE_QP_EV_SR_GAP,	/* selective repeat: a held gap's window ended */
};

/* Where the QP's packets go: resolved at RTR from the address vector. */
struct sroce_path {
	bool ipv6;
	__be32 saddr4, daddr4;
	struct in6_addr saddr6, daddr6;
	u8 tos;
	u8 ttl;
	u32 flow_label;
	__be16 sport;
};

/**
 * struct sroce_ah_info - what a WQE's AH id resolves to
 * @rcu: freed after readers of the AH table are gone
 * @pd: the AH's PD; only QPs of this PD may use the AH
 * @path: the resolved destination
 */
struct sroce_ah_info {
	struct rcu_head rcu;
	struct ib_pd *pd;
	struct sroce_path path;
};

/**
 * struct sroce_ah - address handle
 * @ibah: the core's AH; must be first for INIT_RDMA_OBJ_SIZE
 * @id: index in the device's AH table, what WQEs carry
 * @info: the table entry
 */
struct sroce_ah {
	struct ib_ah ibah;
	u32 id;
	struct sroce_ah_info *info;
};

static inline struct sroce_ah *sroce_to_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/* Kernel-private state of one SQ entry (the ring holds the user's copy). */
struct sroce_swqe {
	u32 first_psn;		/* PSN of its first packet */
	u32 last_psn;		/* PSN of its last packet (READ: last response) */
	u32 npkts;
	u32 length;		/* total payload bytes */
	u32 seg;		/* payload per packet (READ: response) but the last */
	u8 bad;			/* ib_wc_status when validation failed, else 0 */
	bool sent;		/* every request packet sent since the last go-back */
	bool tail_sent;		/* the last request packet was sent (last_psn valid) */
	bool local_done;	/* a local operation took effect */
	u32 read_done;		/* READ: response bytes placed */
};

/**
 * struct sroce_selrd - selective READ: responses after a lost one are kept
 * @on: an episode: responses before @hi are missing
 * @repair_due: holes between @asked and @hi were not asked for again yet
 * @reasked: the resend timer asked for every hole again once (a lost
 *	repair, sroce_selrd_reask()); its next expiry goes back, unless the
 *	peer answers probes (sroce_selrd_probe())
 * @probe: the resend timer probed a READ (sroce_selrd_probe())
 * @probe_due: ... not sent yet
 * @probe_idx: the READ entry probed
 * @hi: the PSN after the newest READ response placed
 * @asked: the holes before this PSN were asked for (sroce_req_repair())
 * @got: by PSN modulo SROCE_SELRD_BITS, the responses placed past the
 *	first hole (cleared as the contiguous data reaches them)
 */
struct sroce_selrd {
	bool on;
	bool repair_due;
	bool reasked;
	bool probe;
	bool probe_due;
	u32 probe_idx;
	u32 hi;
	u32 asked;
	DECLARE_BITMAP(got, SROCE_SELRD_BITS);
};

/* End a selective READ episode: a go-back asks again for everything from una */
static inline void sroce_selrd_reset(struct sroce_selrd *s)
{
	if (!s->on)
		return;
	s->on = false;
	s->repair_due = false;
	s->probe_due = false;
	bitmap_zero(s->got, SROCE_SELRD_BITS);
}

struct sroce_req {
	u32 psn;		/* next PSN to send */
	u32 una_psn;		/* oldest PSN not acknowledged */
	u32 heard_psn;		/* past the newest PSN the responder answered */
	u32 send_idx;		/* ring index of the WQE being sent */
	u32 send_off;		/* payload bytes of it already sent */
	u32 comp_idx;		/* oldest WQE not completed (ring consumer) */
	u32 started;		/* WQEs before this one have been (partly) sent */
	u32 fetched;		/* WQEs copied into the shadow ring so far */
	u32 rd_outstanding;	/* READs sent, not fully answered */
	u32 retry_left;
	u32 rnr_left;
	u8 backoff;		/* timeouts in a row without progress, capped */
	unsigned long ack_due;	/* jiffies: when the local ACK timer is due (lazy) */
	unsigned long rto_due;	/* jiffies: the measured RTT's resend, 0 for none */
	unsigned long fail_at;	/* jiffies: the IBTA deadline an RTO episode started under */
	bool rnr_wait;		/* waiting out an RNR NAK */
	bool need_retry;	/* go back to retry_psn on the next run */
	u32 retry_psn;
	bool probe_due;		/* the RTO's probe goes on the next run (requester.c) */
	bool probing;		/* ... it went: its answer decides (completer.c) */
	u32 probe_psn;		/* the PSN it resent */
	bool probe_alone;	/* ... an ACK of it alone came: the next RTO goes back */
	bool odp_retry;		/* a response met a missing ODP page: once it is */
	u32 odp_retry_psn;	/* faulted in, ask again from odp_retry_psn */
	bool rd_gap;		/* a READ's responses were lost: asked again from rd_gap_psn */
	u32 rd_gap_psn;
	u8 zread_resends;	/* resends of a zero-length READ, the newest request */
	u32 hi_psn;		/* the first PSN never sent (resends are before it) */
	struct sroce_cwnd cwnd;	/* loss window (proto/sroce_cwnd.h) */
	/*
	 * selective repeat: the PSNs the peer holds after a gap, what was
	 * sent then (proto/sroce_rc_req.h)
	 */
	bool sack_valid;
	struct sroce_rc_sacked sack;
	/* the responder's room to hold, 0: unknown (sroce_rc_sack_window()) */
	u32 sr_room;
	bool sr_room_hit;	/* ... it said it was full since the last NAK */
	/* SQ polling grace (see sroce_req_idle_poll()) */
	bool poll;		/* posts follow idleness closely: poll for them */
	bool want_poll;		/* the requester went idle in poll mode */
	u64 poll_until;		/* ns: end of the current polling grace, or 0 */
	u64 idle_since;		/* ns: when NEED_WAKEUP was last raised */
	/*
	 * doorbell deferral (sched.c, sroce_db_defer()): a heuristic, read
	 * and written by doorbells without qp->lock (READ_ONCE/WRITE_ONCE)
	 */
	u64 db_round_ns;	/* how long the last inline doorbell round took */
	u32 db_prod;		/* the SQ producer index at the last deferred doorbell */
	u32 db_hold;		/* doorbells to run inline before deferring again */
	u32 db_backoff;		/* the next @db_hold after a deferral gathered no batch */
	bool db_deferred;	/* the last doorbell was deferred */
	struct sroce_selrd selrd;	/* selective READ (completer.c), cold: last */
};

/**
 * struct sroce_dcqcn - a connected QP's DCQCN state and pacer (dcqcn.c), under qp->lock
 * @on: sampled from the device at RTR; written under qp->lock, read
 *	without it by the receive path (READ_ONCE)
 * @cfg: the device's parameters at RTR
 * @rp: the reaction point (proto/sroce_dcqcn.h): limited (rc is below the
 *	line rate and the pacer runs); rc, the current rate, and rt, the
 *	target rate, in kbit/s; alpha, the congestion estimate (1.0 =
 *	SROCE_DCQCN_ONE); t_count and b_count, the rate timer and byte
 *	counter events since the last cut; bytes, sent since the last byte
 *	counter event; t_alpha, ns, the last alpha update (a cut or K
 *	without CNP); t_rate, ns, the last rate timer event (or cut)
 * @tokens: pacer credit in bytes x 8e6 (kbit/s x ns), at most a burst
 * @t_tokens: ns, the last refill
 * @np_last: ns, the last CNP this QP sent (notification point)
 * @pace: runs the QP again when the pacer has credit for a packet
 * @rl: the QP's rate limit (IB_QP_RATE_LIMIT), kbit/s, 0 for none; the
 *	pacer holds the QP to the lower of it and @rp.rc (when @rp.limited)
 */
struct sroce_dcqcn {
	bool on;
	u32 rl;
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp;	/* the reaction point (proto/sroce_dcqcn.h) */
	s64 tokens;
	u64 t_tokens;
	u64 np_last;
	struct hrtimer pace;
};

struct sroce_resp_read {	/* one READ (or atomic) being answered */
	bool atomic;		/* an ATOMIC ACK carrying @orig */
	u64 orig;
	struct sroce_mr *mr;
	u32 gen;		/* @mr's generation at lookup */
	u32 key;		/* the rkey: a window's is checked per response */
	u64 va;
	u32 len;
	u32 seg;		/* payload per response but the last (READ) */
	u32 sent;		/* bytes answered */
	u32 psn;		/* PSN of the next response packet */
	u32 last_psn;		/* PSN of its last response packet */
};

struct sroce_resp_atomic {	/* an atomic executed: never again */
	u32 psn;
	u64 orig;
};

struct sroce_resp {
	u32 psn;		/* expected PSN (ePSN) */
	u32 msn;
	bool nak_sent;		/* PSN sequence NAK outstanding for a gap */
	bool sack_update;	/* no room to hold: SACK update due (sroce_sr_hold()) */
	bool sr_full_told;	/* ... and sent (or due) for this gap */
	bool ack_pending;
	/*
	 * The PSN a coalesced ACK names: the newest SEND or WRITE packet
	 * executed, never that of a request its responses answer (READ,
	 * atomic, ATOMIC WRITE, FLUSH): a requester may take an ACK of a
	 * READ's PSN for its completion (rdma_rxe does), data or not.
	 */
	u32 ack_psn;
	/*
	 * An ACK owed for duplicate SEND or WRITE packets of a requester not
	 * known to be sroce (sroce_qp_peer_is_sroce()): it names the newest
	 * duplicate, not @ack_psn (responder.c, sroce_resp_dup_ack())
	 */
	bool dup_ack_pending;
	u32 dup_ack_psn;
	/*
	 * A sroce requester's duplicate came while @ack_pending was already
	 * due: the ACK goes twice, so the requester sees the duplicate's own
	 * (sroce_cwnd_rto_dup_ack())
	 */
	bool ack_twice;
	/* a NAK for @psn that must wait for queued READ responses (IBTA ordering) */
	bool nak_deferred;
	u8 nak_syn;
	/* SEND (or WRITE with immediate) receive buffer */
	bool in_send;
	bool rqe_valid;
	u32 recv_off;
	/* UC: a message was lost or refused; drop up to the next FIRST/ONLY */
	bool uc_skip;
	/*
	 * UC, UD: the packet at the head of the QP's rxq needs an ODP page
	 * being faulted in; the receive side waits for it (sched.c)
	 */
	bool odp_park;
	/* XRC TGT: the XRC SRQ of the message in progress (its XRCETH) */
	u32 xrc_srqn;
	/* WRITE in progress */
	bool in_write;
	struct sroce_mr *wmr;
	u32 wgen;
	u32 wkey;	/* its rkey: a window's is checked per packet (mw.c) */
	u64 wva;
	u32 wleft;
	u32 wlen;
	u32 wseg;	/* its FIRST's payload: that of every packet but the last */
	/* READ responses: @reads */
	u32 rd_head, rd_tail;	/* free-running */
	/* atomics executed (@atomics), for duplicates: answered again */
	u32 at_count;		/* free-running */
	/*
	 * selective repeat (SR peer only): request packets that came up to
	 * SROCE_SR_WINDOW - 1 PSNs early, held by PSN % SROCE_SR_WINDOW
	 * until the gap before them is filled; at most SROCE_SR_HOLD_BYTES
	 */
	struct sk_buff *sr_hold[SROCE_SR_WINDOW];
	u32 sr_psn[SROCE_SR_WINDOW];
	/*
	 * a WRITE MIDDLE/LAST of the WRITE in progress, or an adaptive
	 * routing WRITE ONLY, placed at arrival (bit set, no skb): what the
	 * in-order pass still has to do for it (a WRITE ONLY's RETH: its
	 * rkey is checked again then)
	 */
	DECLARE_BITMAP(sr_placed, SROCE_SR_WINDOW);
	struct sroce_sr_rec {
		u64 va;
		u32 rkey;
		u32 immdt;
		u16 len;
		u8 opcode;
		u8 ack_req:1, se:1;
	} sr_rec[SROCE_SR_WINDOW];
	u32 sr_held;		/* slots in use: held skbs and placed packets */
	u32 sr_inv_held;	/* held packets with an IETH (SEND with Invalidate) */
	u32 sr_bytes;		/* truesize of the held packets */
	unsigned long sr_gap_since;	/* jiffies: the first packet held after the gap */
	/*
	 * keep last: survive a reset. A copy of the current RQ entry; the
	 * READ/atomic answer queue and the atomic results, SROCE_MAX_RD_ATOMIC
	 * each, allocated apart and charged to the QP creator's memory cgroup
	 */
	void *rqe;
	struct sroce_resp_read *reads;
	struct sroce_resp_atomic *atomics;
};

/**
 * struct sroce_qp_handle - what lookups under RCU see of a QP
 * @ref: references to the QP (the creator's one, and one per lookup that
 *	found it alive); the QP is destroyed once it drops to zero
 * @qp: the QP, valid while @ref is not zero
 * @rcu: freed a grace period after the QP: a reader that found the
 *	handle may still try @ref
 *
 * The QP itself is freed by ib_core right after destroy_qp returns, so
 * nothing reachable under RCU may point into it; the QPN table and the
 * multicast attachments point here instead, and destroy_qp need not wait
 * for a grace period.
 */
struct sroce_qp_handle {
	refcount_t ref;
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *sdev;
	struct sroce_qp_handle *h;	/* its references; lookups find it */
	struct completion freed;

	struct sroce_queue *sq;
	struct sroce_queue *rq;
	struct sroce_srq *srq;	/* receives come from here, if set */
	struct ib_xrcd *xrcd;	/* XRC TGT: its XRC domain */
	struct sroce_srq *xsrq;	/* XRC TGT: the XRC SRQ of the packet being executed */
	bool has_sq, has_rq;	/* created with send / receive WRs */
	void *sq_shadow;	/* validated copies of SQ entries */
	struct sroce_swqe *swqe;
	u32 sq_entries, sq_stride, rq_entries, rq_stride;
	u32 max_send_sge, max_recv_sge, max_inline;
	bool sig_all;

	spinlock_t lock;	/* the transport state (req, resp, rings' kernel side) */
	spinlock_t state_lock;	/* state and attr changes vs the worker */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct sroce_path path;
	struct dst_cache dst_cache;	/* RC: the path's route, per CPU; UD: unset */
	u32 mtu;		/* path MTU in bytes */

	struct work_struct work;	/* on one workqueue only (sched.c) */
	atomic_t work_running;	/* instances of @work running: at most 1 */
	bool stopping;		/* destroy: nothing queues or arms any more */
	struct sk_buff_head rxq;
	atomic_t rxq_bytes;	/* truesize of the packets in @rxq */
	unsigned int rxq_peak;	/* the most @rxq_bytes was, for debugfs */
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	struct timer_list sr_timer;	/* the responder's reordering window */
	struct hrtimer poll_timer;	/* end of the SQ polling grace */
	unsigned long events;

	struct sroce_req req;
	struct sroce_resp resp;
	bool flushed;
	bool sq_drained_sent;
	bool comm_est_sent;	/* IB_EVENT_COMM_EST raised (first packet in RTR) */
	bool odp_waiting;	/* on its MR's odp->waiters (odp.c) */
	/*
	 * the device's opt-ins this connected QP uses for a connection's
	 * lifetime: sampled at RTR, cleared at reset (sroce_qp_opts_sample());
	 * the _peer halves learnt from the peer's packets under @lock (xmit.c)
	 */
	struct sroce_qp_opts {
		bool icrc_skip;	/* sdev->icrc_skip (xmit.c, recv.c: read without @lock) */
		bool icrc_peer;	/* the peer advertised ICRC skip */
		bool selrep;	/* RC: sdev->sr (selective repeat offered) */
		bool selrep_peer;	/* the peer offers it too: selective repeat on */
		bool selrd_peer;	/* and answers READ repairs (selective READ) */
		bool rdprobe_peer;	/* and READ probes, in order (SROCE_BTH7_RD_PROBE_ADV) */
		bool tx_gso;	/* sdev->tx_gso (xmit.c) */
		bool ar;	/* RC: sdev->ar, adaptive routing mode (requester.c) */
		bool ar_peer;	/* the peer's requests carry SROCE_BTH_AR (sr.c) */
		u8 ar_paths;	/* RC with @ar: sdev->ar_paths, source ports sprayed over */
		bool wide;	/* RC: sdev->wide and the netdev fits sroce_wide_seg() */
		bool wide_peer;	/* the peer's responses carry SROCE_BTH_WIDE_ADV */
		bool wide_ask;	/* its SEND/WRITE requests carry SROCE_BTH_WIDE_ASK */
		bool wide_rd_peer;	/* its responses carry SROCE_BTH7_WIDE_RD_ADV */
		bool wide_rd_ask;	/* its requests carry SROCE_BTH7_WIDE_RD_ASK */
		u8 ar_next;	/* the path of the next request packet */
	} opt;
	/*
	 * the transmit burst (xmit.c, sroce_txb_*()): packets of this QP held
	 * back while sroce_rc_process() sends, to go as one UDP GSO packet
	 */
	struct sroce_txb {
		struct sk_buff *head, *tail;	/* the head holds the route */
		u32 n;			/* packets in it */
		u32 seg;		/* UDP payload of the head, as of every one but the last */
		u32 last;		/* the last one's */
		u16 id0;		/* the head's IP ID */
		bool csum;		/* CHECKSUM_PARTIAL, else checksum 0 (xmit.c) */
		bool on;		/* collecting (sroce_txb_begin() .. sroce_txb_end()) */
	} txb;
	struct list_head odp_wait;
	struct sroce_dcqcn dcqcn;

	spinlock_t kpost_lock;	/* kernel posters (kpost.c), SQ and RQ */
	bool kernel;		/* a kernel ULP's: its work item runs on sroce_kwq */
	struct list_head gsi_node;	/* GSI QP: on the GSI list (ud.c) */
	/*
	 * completion counters attached (cntr.c), per operation class; set
	 * while the QP is in RESET or INIT, read locklessly by the transport
	 */
	struct sroce_cntr *cntr[SROCE_CNTR_NOPS];
	u8 cntr_ops;		/* the classes with a counter: bit n, cntr[n] */
};

static inline struct sroce_qp *sroce_to_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/*
 * Count one completion (@err: in error) of operation class @op in the
 * counter attached for it, if any: one pointer test when none is.
 */
static inline void sroce_qp_count(struct sroce_qp *qp, enum sroce_cntr_op op, bool err)
{
	struct sroce_cntr *c = READ_ONCE(qp->cntr[op]);

	if (unlikely(c))
		atomic64_inc(&c->val[err]);
}

/* The kernel's validated copy of SQ entry @idx (free-running index). */
static inline struct sroce_send_wqe *sroce_shadow(struct sroce_qp *qp, u32 idx)
{
	return qp->sq_shadow + (size_t)(idx & (qp->sq_entries - 1)) * qp->sq_stride;
}

/* The transport state of SQ entry @idx. */
static inline struct sroce_swqe *sroce_swqe(struct sroce_qp *qp, u32 idx)
{
	return &qp->swqe[idx & (qp->sq_entries - 1)];
}

/* UC: connected like RC, but nothing is acknowledged or resent */
static inline bool sroce_qp_is_uc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UC;
}

static inline bool sroce_qp_is_xrc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_INI || qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/*
 * The peer has shown it is sroce: its packets carried one of sroce's marks
 * (ICRC skip, selective repeat, adaptive routing, wide segments;
 * sroce_qp_icrc_learn()).
 * Off with rxe and hardware, and with a sroce peer none of them is on for.
 */
static inline bool sroce_qp_peer_is_sroce(const struct sroce_qp *qp)
{
	return qp->opt.icrc_peer || qp->opt.selrep_peer || qp->opt.ar_peer ||
	       qp->opt.wide_peer || qp->opt.wide_ask || qp->opt.wide_rd_peer ||
	       qp->opt.wide_rd_ask;
}

/* Types run by the connected transport (RC's, with UC and XRC variants) */
static inline bool sroce_qpt_connected(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC ||
	       type == IB_QPT_XRC_INI || type == IB_QPT_XRC_TGT;
}

/* The opcode a QP sends for RC operation @rc_op: XRC QPs use prefix 101b */
static inline u8 sroce_qp_opcode(const struct sroce_qp *qp, u8 rc_op)
{
	return sroce_qp_is_xrc(qp) ? rc_op | SROCE_OP_PREFIX_XRC : rc_op;
}

/* A READ of data: selective READ places its responses by PSN */
static inline bool sroce_selrd_entry(struct sroce_qp *qp, u32 idx)
{
	return sroce_shadow(qp, idx)->opcode == IB_UVERBS_WR_RDMA_READ &&
	       sroce_swqe(qp, idx)->length;
}

/* The PSN of READ entry @sw's first response not placed in order */
static inline u32 sroce_read_expect(const struct sroce_swqe *sw)
{
	return sroce_psn_add(sw->first_psn, sw->read_done / sw->seg);
}

/* Has the requester sent anything that is not completed yet? */
static inline bool sroce_req_busy(const struct sroce_req *req)
{
	return req->comp_idx != req->started;
}

/* The send WQE's kind (a shadow SQ entry, sroce_shadow()) */
static inline bool sroce_wqe_is_read(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == IB_UVERBS_WR_RDMA_READ;
}

static inline bool sroce_wqe_is_atomic(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ||
	       wqe->opcode == IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD;
}

/* FLUSH and ATOMIC WRITE: answered by a zero-length READ Response Only */
static inline bool sroce_wqe_empty_response(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == SROCE_WR_FLUSH || wqe->opcode == SROCE_WR_ATOMIC_WRITE;
}

/**
 * sroce_wqe_has_response() - does the entry wait for a response?
 * @wqe: the (shadow) SQ entry
 *
 * READs, atomics, FLUSH and ATOMIC WRITE: they count against
 * max_rd_atomic, a FENCE waits for them, and only their responses (never a
 * plain ACK) complete them.
 *
 * Return: true for those.
 */
static inline bool sroce_wqe_has_response(const struct sroce_send_wqe *wqe)
{
	return sroce_wqe_is_read(wqe) || sroce_wqe_is_atomic(wqe) ||
	       sroce_wqe_empty_response(wqe);
}

/* A local operation (fast registration, local invalidation, MW bind): no packet */
static inline bool sroce_wqe_is_local(const struct sroce_send_wqe *wqe)
{
	return wqe->opcode == SROCE_WR_REG_MR || wqe->opcode == IB_UVERBS_WR_LOCAL_INV ||
	       wqe->opcode == IB_UVERBS_WR_BIND_MW;
}

/* qp.c */
#define SROCE_GSI_QPN		1		/* the GSI QP, one per device (ud.c) */
#define SROCE_QPN_MAX		0xffffff
int sroce_qp_alloc_qpn(u32 *qpn);
int sroce_qp_publish(struct sroce_qp *qp, u32 qpn);
void sroce_qp_unpublish(u32 qpn);
struct sroce_qp *sroce_qp_get_net(struct net *net, u32 qpn);
struct sroce_qp *sroce_qp_next(struct ib_cq *ibcq, unsigned long *index);
struct sroce_qp *sroce_qp_next_ud_rts(struct ib_pd *pd, unsigned long *index);
bool sroce_qp_peer_ok(struct sroce_qp *qp, const u8 *iph, bool v6);
void sroce_qp_put(struct sroce_qp *qp);
struct sroce_qp *sroce_qp_tryget(struct sroce_qp_handle *h);
void sroce_qp_set_error(struct sroce_qp *qp);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);

/**
 * sroce_qp_yield() - ask the scheduler for another round of this QP
 * @qp: the QP, its transport running here
 *
 * A role that stops at a budget with work left calls it; the scheduler
 * queues the QP's work item when the round ends.
 */
static inline void sroce_qp_yield(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	set_bit(SROCE_QP_EV_YIELD, &qp->events);
}

struct ib_qp *sroce_qp_from_qpn(struct sroce_dev *sdev, u32 qpn);
bool sroce_qp_psns_visible(const struct ib_qp *ibqp);

/*
 * Would @skb take what @qp's device holds past its bound (sroce_dev_rxq_kb)
 * shifted right by @shift: 0 for a packet queued to a QP, 1 for one held
 * by selective repeat (sr.c)? Far from the bound the per-CPU count's
 * approximate value decides; within SROCE_DEV_RXQ_BATCH per CPU of it, the
 * exact sum.
 */
static inline bool sroce_dev_rxq_full(struct sroce_qp *qp, const struct sk_buff *skb,
				      unsigned int shift)
{
	s64 limit = ((s64)READ_ONCE(sroce_dev_rxq_kb) << 10) >> shift;

	return __percpu_counter_compare(&qp->sdev->rxq_bytes, limit - skb->truesize,
					SROCE_DEV_RXQ_BATCH) > 0;
}

/* A QP state's name, for debug messages (qp.c) */
const char *sroce_qp_state_name(enum ib_qp_state state);

/* May @skb not be queued to @qp (SROCE_RXQ_MAX packets, SROCE_RXQ_BYTES)? */
static inline bool sroce_rxq_full(struct sroce_qp *qp, const struct sk_buff *skb)
{
	return skb_queue_len(&qp->rxq) >= SROCE_RXQ_MAX ||
	       (unsigned int)atomic_read(&qp->rxq_bytes) + skb->truesize > SROCE_RXQ_BYTES;
}

/**
 * struct sroce_sched_hooks - how the objects and the wire ask for a QP run
 * @kick: run the QP's transport here if nobody else is (sroce_sched_kick())
 * @queue: queue the QP's work item (sroce_sched_queue())
 * @rx: queue a received packet to its QP and run it (sroce_sched_rx())
 * @local_enter: a local delivery starts on this CPU (sroce_sched_local_enter())
 * @local_exit: it is done (sroce_sched_local_exit())
 * @sync_cq: let the QPs completing to a CQ catch up (sroce_sched_sync_cq())
 *
 * The scheduler (sched.c) sits above the QP objects and the wire and
 * registers these at module init (sroce_qp_set_sched(), before any device
 * exists); what sits below it (cq.c, odp.c, dcqcn.c, kpost.c, xmit.c,
 * recv.c) asks through sroce_qp_kick() and its siblings, never by including
 * sched.h (Documentation/design.rst, "Layering").
 */
struct sroce_sched_hooks {
	void (*kick)(struct sroce_qp *qp);
	void (*queue)(struct sroce_qp *qp);
	void (*rx)(struct sroce_qp *qp, struct sk_buff *skb);
	void (*local_enter)(void);
	void (*local_exit)(void);
	void (*sync_cq)(struct ib_cq *ibcq);
};

extern const struct sroce_sched_hooks *sroce_qp_sched;
void sroce_qp_set_sched(const struct sroce_sched_hooks *hooks);

/* Run @qp's transport here, unless another context is running it. */
static inline void sroce_qp_kick(struct sroce_qp *qp)
{
	sroce_qp_sched->kick(qp);
}

/* Queue @qp's work item: a round soon, in another context. */
static inline void sroce_qp_queue(struct sroce_qp *qp)
{
	sroce_qp_sched->queue(qp);
}

/* Queue the received @skb to @qp (checked for it) and run the QP. */
static inline void sroce_qp_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_qp_sched->rx(qp, skb);
}

/* A local delivery (xmit.c) starts on this CPU: BH disabled until the exit. */
static inline void sroce_qp_local_enter(void)
{
	sroce_qp_sched->local_enter();
}

static inline void sroce_qp_local_exit(void)
{
	sroce_qp_sched->local_exit();
}

/* Completions of the work posted to the QPs completing to @ibcq are in it. */
static inline void sroce_qp_sync_cq(struct ib_cq *ibcq)
{
	sroce_qp_sched->sync_cq(ibcq);
}

#endif /* SROCE_QP_H */
