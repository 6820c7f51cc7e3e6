// SPDX-License-Identifier: GPL-2.0
/*
 * sroce selective repeat, the responder's side (the protocol is in
 * proto/sroce_sr.h and Documentation/transport.rst): RC requests that
 * arrive after a gap are held (or, the MIDDLE packets of a WRITE whose
 * FIRST was executed, placed at once) instead of dropped, executed in PSN
 * order once the gap is filled, and the gap is NAKed with a SACK block of
 * what is held, so the requester resends only what is missing.
 */
#include <linux/module.h>

#include "sroce.h"
#include "qp.h"
#include "mr.h"
#include "mr_copy.h"
#include "mw.h"
#include "trace.h"
#include "sr.h"

static unsigned int sroce_sr_nak_delay_ms = 8;
module_param_named(sr_nak_delay_ms, sroce_sr_nak_delay_ms, uint, 0644);
MODULE_PARM_DESC(sr_nak_delay_ms,
		 "selective repeat with adaptive routing: milliseconds a gap may stay open before the responder NAKs it (default 8)");

/* held packets after which a gap is NAKed without waiting any longer */
#define SROCE_SR_NAK_HELD	(SROCE_SR_WINDOW / 2)

/*
 * The reordering window in jiffies: at least 2, so one tick is waited out;
 * a selective repeat requester's RTT resend waits for it too (the peer,
 * sroce, NAKs a gap with a SACK after its own window: assumed the same)
 */
unsigned long sroce_sr_nak_delay(void)
{
	return max_t(unsigned long, 2,
		     msecs_to_jiffies(READ_ONCE(sroce_sr_nak_delay_ms)));
}

/*
 * Is reordering expected on @qp's requests? Only when the peer sprays
 * them (SROCE_BTH_AR on its requests: its adaptive_routing is on): then a
 * gap is given the reordering window before it is NAKed. This device's
 * own adaptive_routing sprays only what it sends, not what it receives.
 * Otherwise a gap is a loss until shown otherwise, and is NAKed (with its
 * SACK) at once: waiting out the window under plain 1 % loss
 * made a 4 KiB WRITE stream 0.40 MB/s, go-back-N's 2.68 (issue 45).
 */
static bool sroce_sr_reorder_expected(const struct sroce_qp *qp)
{
	return qp->opt.ar_peer;
}

/*
 * A gap opened (or stayed open past a drain) at resp->sr_gap_since: the
 * QP's sr_timer NAKs it when the window ends even if nothing else arrives
 * (a lost tail), see sroce_responder_sr_gap().
 */
static void sroce_resp_sr_open_gap(struct sroce_qp *qp)
{
	qp->resp.sr_gap_since = jiffies;
	mod_timer(&qp->sr_timer, jiffies + sroce_sr_nak_delay());
}

/*
 * Held packets count on the QP (SROCE_SR_HOLD_BYTES) and in the device's
 * receive backlog (rx_backlog_dev_kb, with the packets queued to its QPs):
 * many QPs each holding their 2 MiB are bounded together.
 */
static void sroce_sr_charge(struct sroce_qp *qp, s64 bytes)
{
	qp->resp.sr_bytes += bytes;
	percpu_counter_add_batch(&qp->sdev->rxq_bytes, bytes, SROCE_DEV_RXQ_BATCH);
}

/* Free every held request packet. */
void sroce_sr_release(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;
	u32 i;

	for (i = 0; i < SROCE_SR_WINDOW; i++) {
		kfree_skb(resp->sr_hold[i]);
		resp->sr_hold[i] = NULL;
	}
	bitmap_zero(resp->sr_placed, SROCE_SR_WINDOW);
	resp->sr_held = 0;
	sroce_sr_charge(qp, -(s64)resp->sr_bytes);
	resp->sr_inv_held = 0;
}

/* Does held request @skb (data at its UDP header) carry an IETH? */
static bool sroce_sr_skb_inv(const struct sk_buff *skb)
{
	const struct sroce_opcode_info *info = sroce_opcode(skb->data[sizeof(struct udphdr)]);

	return info && (info->flags & SROCE_OPF_IETH);
}

/* Empty a slot in use; its skb (NULL for a placed packet) is returned. */
static struct sk_buff *sroce_sr_take(struct sroce_qp *qp, u32 slot)
{
	struct sroce_resp *resp = &qp->resp;
	struct sk_buff *skb = resp->sr_hold[slot];

	resp->sr_hold[slot] = NULL;
	__clear_bit(slot, resp->sr_placed);
	resp->sr_held--;
	if (skb) {
		sroce_sr_charge(qp, -(s64)skb->truesize);
		if (sroce_sr_skb_inv(skb))
			resp->sr_inv_held--;
	}
	return skb;
}

static bool sroce_sr_used(const struct sroce_resp *resp, u32 slot)
{
	return resp->sr_hold[slot] || test_bit(slot, resp->sr_placed);
}

/* What the in-order pass needs of a packet placed at arrival (slot @slot) */
static void sroce_sr_record(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr, u32 slot)
{
	struct sroce_sr_rec *rec = &qp->resp.sr_rec[slot];

	rec->va = hdr->reth.va;
	rec->rkey = hdr->reth.rkey;
	rec->immdt = hdr->immdt;
	rec->len = hdr->payload_len;
	rec->opcode = hdr->bth.opcode;
	rec->ack_req = hdr->bth.ack_req;
	rec->se = hdr->bth.se;
	__set_bit(slot, qp->resp.sr_placed);
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_PLACED);
}

/**
 * sroce_resp_sr_place_only() - place an early adaptive routing WRITE ONLY
 * @qp: an RC QP doing selective repeat, with the gap before @hdr's PSN
 * @skb: the packet, data at its UDP header
 * @hdr: its header (a WRITE ONLY, with or without immediate)
 *
 * A WRITE ONLY whose requester marked it SROCE_BTH_AR (its WRITEs leave
 * as one WRITE ONLY per MTU, and it accepts that their bytes land in
 * arrival order) carries all it needs: its payload is checked here as the
 * in-order pass would (the QP's remote write access, the rkey in the QP's
 * PD with remote write access, the bounds of its RETH, the MR valid now:
 * sroce_mr_copy_skb() checks its generation while it copies) and copied at
 * once. The in-order pass checks the rkey again and NAKs the WRITE if the
 * MR went meanwhile, as it would without placement. A packet that fails a
 * check is held, not placed, and so is one behind a held SEND with
 * Invalidate: the MR it names may be the one that SEND revokes, which is
 * known only when it executes (transport.rst, "Adaptive routing").
 *
 * Return: true if placed.
 */
static bool sroce_resp_sr_place_only(struct sroce_qp *qp, struct sk_buff *skb,
				     const struct sroce_pkt_hdr *hdr)
{
	u8 resv8a = skb->data[sizeof(struct udphdr) + SROCE_BTH_RESV8A_OFF];
	struct sroce_mr *mr;
	u32 gen;
	int err;

	if (!(resv8a & SROCE_BTH_AR) || !hdr->payload_len ||
	    hdr->reth.dma_len != hdr->payload_len || qp->resp.sr_inv_held ||
	    !(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return false;
	/* selective repeat is RC only: the QP's own PD (no XRC SRQ's) */
	mr = sroce_rkey_lookup(qp->sdev, hdr->reth.rkey, qp->ibqp.pd, qp->ibqp.qp_num,
			       IB_ACCESS_REMOTE_WRITE, hdr->reth.va, hdr->reth.dma_len, &gen);
	if (IS_ERR(mr))
		return false;
	/* through a window: only while it is still bound as the lookup saw */
	err = sroce_rkey_copy_skb(qp->sdev, hdr->reth.rkey, mr, gen, hdr->reth.va, skb,
				  sizeof(struct udphdr) + hdr->hdr_len, hdr->payload_len);
	sroce_mr_put(mr);
	if (err)
		return false;
	sroce_sr_record(qp, hdr, hdr->bth.psn % SROCE_SR_WINDOW);
	return true;
}

/**
 * sroce_resp_sr_place() - place an early packet of the WRITE in progress
 * @qp: an RC QP doing selective repeat, with the gap before @hdr's PSN
 * @skb: the packet
 * @hdr: its header (a WRITE MIDDLE, LAST or ONLY)
 * @off: its distance from the expected PSN
 *
 * The WRITE whose FIRST was executed already says where every later packet
 * of it goes (sroce_sr_write_at()): a MIDDLE's payload is copied there now,
 * inside the range the RETH's rkey check covered, and only what the
 * in-order pass needs of it is kept (sroce_resp_sr_drain() then advances
 * without copying). The LAST is held and written in order, after every
 * byte before it: a protocol that polls a WRITE's last bytes (an eager
 * buffer's tail flag) sees them only once the rest is there, as with
 * in-order arrival. An adaptive routing WRITE ONLY says it itself
 * (sroce_resp_sr_place_only(): its requester accepted arrival order). A
 * packet of another message, an ODP page not present or a copy error is
 * left to the ordinary hold.
 *
 * Return: true if placed.
 */
static bool sroce_resp_sr_place(struct sroce_qp *qp, struct sk_buff *skb,
				const struct sroce_pkt_hdr *hdr, u32 off)
{
	struct sroce_resp *resp = &qp->resp;
	u32 flags = hdr->info->flags;
	u64 at;

	if ((flags & SROCE_OPF_WRITE) && (flags & SROCE_OPF_ONLY))
		return sroce_resp_sr_place_only(qp, skb, hdr);
	if (!resp->in_write || !resp->wmr || !(flags & SROCE_OPF_WRITE) ||
	    !(flags & SROCE_OPF_MIDDLE) ||
	    !sroce_sr_write_at(off, resp->wseg, resp->wleft, hdr->payload_len, &at))
		return false;
	if (sroce_rkey_copy_skb(qp->sdev, resp->wkey, resp->wmr, resp->wgen, resp->wva + at,
				skb, sizeof(struct udphdr) + hdr->hdr_len, hdr->payload_len))
		return false;
	sroce_sr_record(qp, hdr, hdr->bth.psn % SROCE_SR_WINDOW);
	return true;
}

/* The SACK block of what is held after the expected PSN; false if nothing */
bool sroce_sr_sack(struct sroce_qp *qp, struct sroce_sack *sack)
{
	struct sroce_resp *resp = &qp->resp;
	u32 i;

	memset(sack, 0, sizeof(*sack));
	if (!qp->opt.selrep_peer || !resp->sr_held)
		return false;
	for (i = 0; i < SROCE_SR_WINDOW; i++)
		if (sroce_sr_used(resp, i))
			sroce_sack_set(sack, sroce_sr_offset(resp->sr_psn[i], resp->psn));
	return sroce_sack_span(sack) != 0;
}

/**
 * sroce_sr_hold() - keep a request that came before its turn
 * @qp: an RC QP whose peer negotiated selective repeat
 * @skb: the request (a reference is taken)
 * @hdr: its header
 *
 * SEND and WRITE packets up to SROCE_SR_WINDOW - 1 PSNs past the expected
 * one are held, within SROCE_SR_HOLD_BYTES and half the device's receive
 * backlog bound (sroce_dev_rxq_full()); one further ahead is counted
 * (sr_far_drops: an sroce requester keeps its packets nearer,
 * sroce_rc_sr_reach()). READ and atomic requests are not held (they are
 * executed in order only: a gap before them is NAKed).
 *
 * Return: true if the packet was held and the gap is not to be NAKed yet;
 * false to NAK it now (not holdable, over the bounds, the reordering
 * window is spent, or no reordering is expected: sroce_sr_reorder_expected()).
 */
bool sroce_sr_hold(struct sroce_qp *qp, struct sk_buff *skb, const struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 off = sroce_sr_offset(hdr->bth.psn, resp->psn);
	u32 slot = hdr->bth.psn % SROCE_SR_WINDOW;
	u32 flags = hdr->info->flags;

	lockdep_assert_held(&qp->lock);
	if (!(flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)))
		return false;
	if (!off) {
		/* further ahead than a slot: the requester's bound was not kept */
		sroce_stat_inc(qp->sdev, SROCE_STAT_SR_FAR_DROPS);
		return false;
	}
	if (sroce_sr_used(resp, slot)) {
		if (resp->sr_psn[slot] == hdr->bth.psn) {
			/* a resend of one held already */
			sroce_stat_inc(qp->sdev, SROCE_STAT_SR_HOLD_DROPS);
			return true;
		}
		/* a PSN the expected one has passed since (see the drain) */
		kfree_skb(sroce_sr_take(qp, slot));
	}
	/*
	 * What is held fills at most half of the device's receive backlog
	 * bound: the other half stays for the packets that fill the gaps
	 * (queued before they execute), else the held packets would keep out
	 * what they wait for until the requesters' retries ran out (a 64 KiB
	 * bound did, in 93-selective-repeat).
	 */
	if (sroce_resp_sr_place(qp, skb, hdr, off)) {
		/* placed: nothing of the packet is kept */
	} else if (resp->sr_bytes + skb->truesize > SROCE_SR_HOLD_BYTES ||
		   sroce_dev_rxq_full(qp, skb, 1)) {
		sroce_stat_inc(qp->sdev, SROCE_STAT_SR_HOLD_DROPS);
		/* no room: the requester learns what is held is all (once a gap) */
		if (resp->nak_sent && !resp->sr_full_told) {
			resp->sr_full_told = true;
			resp->sack_update = true;
		}
		return false;
	} else {
		resp->sr_hold[slot] = skb_get(skb);
		sroce_sr_charge(qp, skb->truesize);
		if (flags & SROCE_OPF_IETH)
			resp->sr_inv_held++;
		sroce_stat_inc(qp->sdev, SROCE_STAT_SR_HELD);
	}
	if (!resp->sr_held && sroce_sr_reorder_expected(qp))
		sroce_resp_sr_open_gap(qp);
	resp->sr_psn[slot] = hdr->bth.psn;
	resp->sr_held++;
	sroce_stat_inc(qp->sdev, SROCE_STAT_SR_OOO_RX);
	trace_sroce_sr_hold(qp->ibqp.qp_num, hdr->bth.psn, resp->psn, resp->sr_held,
			    !resp->sr_hold[slot]);
	if (!sroce_sr_reorder_expected(qp))
		return false;	/* held, and the gap NAKed now */
	/* the reordering window: NAK once the gap is old or much is held */
	return resp->sr_held < SROCE_SR_NAK_HELD &&
	       time_before(jiffies, resp->sr_gap_since + sroce_sr_nak_delay());
}

/**
 * sroce_sr_next() - the next held request to execute, the gap being filled
 * @qp: the QP
 * @skb: set to the held packet (the caller frees it), or NULL for one
 *	placed already (its payload is in place: the rest of its execution)
 * @hdr: set to its parsed transport header
 *
 * The responder executes what this hands back, in PSN order, while
 * resp->psn moves on (sroce_resp_sr_drain()); sr.c calls no role.
 *
 * Return: 1 for a request at the expected PSN (its slot emptied), 0 for
 * none, -EPROTO for a held packet that does not parse (freed).
 */
int sroce_sr_next(struct sroce_qp *qp, struct sk_buff **skb, struct sroce_pkt_hdr *hdr)
{
	struct sroce_resp *resp = &qp->resp;
	u32 psn = resp->psn, slot = psn % SROCE_SR_WINDOW;
	const struct sroce_sr_rec *rec;

	lockdep_assert_held(&qp->lock);
	*skb = NULL;
	if (!resp->sr_held || !sroce_sr_used(resp, slot) || resp->sr_psn[slot] != psn)
		return 0;
	if (!test_bit(slot, resp->sr_placed)) {
		*skb = sroce_sr_take(qp, slot);
		if (!sroce_pkt_parse((*skb)->data + sizeof(struct udphdr),
				     (*skb)->len - sizeof(struct udphdr), hdr))
			return 1;
		kfree_skb(*skb);
		*skb = NULL;
		return -EPROTO;
	}
	rec = &resp->sr_rec[slot];
	memset(hdr, 0, sizeof(*hdr));
	hdr->bth.opcode = rec->opcode;
	hdr->bth.psn = psn;
	hdr->bth.ack_req = rec->ack_req;
	hdr->bth.se = rec->se;
	hdr->info = sroce_opcode(rec->opcode);
	hdr->immdt = rec->immdt;
	hdr->payload_len = rec->len;
	hdr->reth.va = rec->va;
	hdr->reth.rkey = rec->rkey;
	hdr->reth.dma_len = rec->len;
	sroce_sr_take(qp, slot);
	return 1;
}

/**
 * sroce_sr_drained() - held requests were executed: what now for the gap
 * @qp: the QP
 *
 * Asks for an ACK at once; a gap still open starts its reordering window
 * now, or (no reordering expected) is to be NAKed.
 *
 * Return: true when the responder is to NAK the gap now, once per gap (it
 * acknowledges as much as was executed).
 */
bool sroce_sr_drained(struct sroce_qp *qp)
{
	struct sroce_resp *resp = &qp->resp;

	lockdep_assert_held(&qp->lock);
	resp->ack_pending = true;
	if (resp->sr_held && sroce_sr_reorder_expected(qp)) {
		sroce_resp_sr_open_gap(qp);
		return false;
	}
	return resp->sr_held;
}
