// SPDX-License-Identifier: GPL-2.0
/*
 * sroce UD transport (IBTA 9.8.4 with Annex A17) and the GSI QP (QP1).
 *
 * UD messages are single packets: SEND ONLY (or SEND ONLY with immediate)
 * with a DETH carrying the sender's Q_Key and QPN. There are no ACKs, no
 * retries and no PSN checks; a packet that finds no receive buffer is
 * dropped. The send side completes a WQE as soon as its packet is handed to
 * the network stack.
 *
 * UD and GSI QPs use the same rings, shadow SQ and worker plumbing as RC
 * (sched.c), with their own work function, sroce_ud_work(). A UD QP has no
 * fixed path: before building each packet the worker loads the WQE's AH
 * path into qp->path, which only the worker reads for a UD QP.
 *
 * QPNs >= 16 are module-wide (qp.c). QP1 exists once per device: received
 * packets for QPN 1 go to the GSI QP of the device they arrived on, found
 * from the ingress netdev, or for loopback traffic (which arrives on lo)
 * from the device owning the destination address (the receive path's UD
 * demultiplexing is recv.c's: sroce_ud_accept()).
 *
 * Receive buffers start with a 40-byte area for the GRH (IBTA 11.4.1.2):
 * RoCEv2 puts the IPv6 header there, or the IPv4 header in its last 20
 * bytes, as ib_get_gids_from_rdma_hdr() expects.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "qp.h"
#include "queue.h"
#include "srq.h"
#include "trace.h"
#include "ah.h"
#include "requester.h"
#include "completer.h"
#include "xmit.h"
#include "recv.h"
#include "ud.h"
#include "cq.h"
#include "mr_copy.h"
#include "odp.h"

#define SROCE_GRH_LEN		40
#define SROCE_UD_SEND_BUDGET	64	/* SQ entries sent per round of the worker */

/**
 * sroce_ud_send_posted_pd() - send what the UD QPs of @pd still hold
 * @pd: the PD of an AH about to be destroyed
 *
 * A NIC reads a UD WQE's address vector when it fetches the WQE at the
 * doorbell, so destroying the AH right after posting loses nothing
 * (rdma_cm's mckey destroys its AH, then its QP, right after posting
 * unsignaled datagrams). Our worker resolves the AH id when it sends, so
 * destroy_ah first sends what is posted on the PD's UD QPs in RTS: at most
 * one SQ's worth each (sroce_ud_send_posted()).
 *
 * Context: process (bottom halves enabled).
 */
void sroce_ud_send_posted_pd(struct ib_pd *pd)
{
	unsigned long index = 0;
	struct sroce_qp *qp;

	while ((qp = sroce_qp_next_ud_rts(pd, &index))) {
		sroce_ud_send_posted(qp);
		sroce_qp_put(qp);
		index++;
	}
}

/**
 * sroce_ud_destroy_ah() - ib_device_ops.destroy_ah
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0 (maybe atomic)
 *
 * When the caller may sleep (user AHs), datagrams already posted on the
 * PD's UD QPs are sent first (sroce_ud_send_posted_pd()), then the AH goes
 * (sroce_destroy_ah()).
 *
 * Return: 0.
 */
int sroce_ud_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	if (flags & RDMA_DESTROY_AH_SLEEPABLE)
		sroce_ud_send_posted_pd(ibah->pd);
	return sroce_destroy_ah(ibah, flags);
}

/* ---- receive (worker) ------------------------------------------------ */

/* Complete the RQE copied into qp->resp.rqe. */
static void sroce_ud_complete_recv(struct sroce_qp *qp, const struct sroce_pkt_hdr *hdr,
				   enum ib_wc_status status, u32 byte_len, bool v6)
{
	struct sroce_recv_wqe *rqe = qp->resp.rqe;
	struct sroce_cqe cqe = {};

	cqe.wr_id = rqe->wr_id;
	cqe.status = status;
	cqe.opcode = IB_WC_RECV;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.src_qp = hdr->deth.src_qpn;
	cqe.byte_len = byte_len;
	cqe.wc_flags = SROCE_WC_F_GRH;
	if (hdr->info->flags & SROCE_OPF_IMMDT) {
		cqe.ex = cpu_to_be32(hdr->immdt);
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
	}
	cqe.pkey_index = 0;
	cqe.port_num = SROCE_PORT;
	cqe.network_hdr_type = v6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
	/*
	 * SL means nothing on RoCE; for user space it carries the packet type
	 * the way RoCE NICs report it (bit 3: UDP-encapsulated, bits 2:0: 1
	 * IPv6, 2 IPv4), which UCX's UD transport reads to find the
	 * destination address in the GRH area. Kernel CQs get
	 * network_hdr_type instead.
	 */
	if (sroce_to_cq(qp->ibqp.recv_cq)->user)
		cqe.sl = 0x8 | (v6 ? 0x1 : 0x2);
	qp->resp.rqe_valid = false;
	sroce_recv_done(qp);
	sroce_qp_count(qp, SROCE_CNTR_RECV, status != IB_WC_SUCCESS);
	if (sroce_cq_post(sroce_to_cq(qp->ibqp.recv_cq), &cqe, hdr->bth.se))
		sroce_qp_set_error(qp);
}

/**
 * sroce_ud_rx() - deliver one UD packet into the next receive buffer
 * @qp: the QP
 * @skb: the packet, data at the UDP header, network header intact
 * @hdr: its parsed transport header
 *
 * A receive buffer too small for GRH + payload completes with
 * IB_WC_LOC_LEN_ERR; the QP stays usable (a remote sender must not be able
 * to break it). A corrupt RQ (user space wrote a bad producer index or
 * entry) moves the QP to ERR. A buffer in an ODP page that is not present
 * stays taken (qp->resp.rqe_valid) while the packet waits for the fault
 * (qp->resp.odp_park, sroce_qp_drain_rx()); the packet then runs again.
 */
void sroce_ud_rx(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt_hdr *hdr)
{
	const u8 *iph = skb_network_header(skb);
	bool v6 = (iph[0] >> 4) == 6;
	struct sroce_recv_wqe *rqe = qp->resp.rqe;
	u8 grh[SROCE_GRH_LEN] = {};
	enum ib_wc_status status = IB_WC_SUCCESS;
	int err;

	lockdep_assert_held(&qp->lock);

	switch (READ_ONCE(qp->state)) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		break;
	default:
		return;		/* not receiving: silently dropped (no NAK in UD) */
	}
	if (!(hdr->info->flags & SROCE_OPF_UD) ||
	    hdr->deth.qkey != qp->attr.qkey) {
		sroce_drop_count(SROCE_DROP_QKEY, qp->ibqp.qp_num);
		return;
	}
	err = qp->resp.rqe_valid ? 0 : sroce_recv_take(qp, rqe);
	if (err == -EAGAIN) {
		sroce_drop_count(SROCE_DROP_NO_RQE, qp->ibqp.qp_num);
		return;
	}
	if (err == -EOVERFLOW) {
		sroce_qp_set_error(qp);
		return;
	}
	if (err) {
		rqe->num_sge = 0;
		sroce_ud_complete_recv(qp, hdr, IB_WC_LOC_QP_OP_ERR, 0, v6);
		sroce_qp_set_error(qp);
		return;
	}
	qp->resp.rqe_valid = true;

	if (v6)
		memcpy(grh, iph, sizeof(struct ipv6hdr));
	else
		memcpy(grh + SROCE_GRH_LEN - sizeof(struct iphdr), iph,
		       sizeof(struct iphdr));
	err = sroce_sgl_copy(qp->sdev, qp->ibqp.pd, rqe->sge, rqe->num_sge, 0,
			     grh, SROCE_GRH_LEN, SROCE_COPY_TO_MR);
	if (!err)
		err = sroce_sgl_copy_skb(qp->sdev, qp->ibqp.pd, rqe->sge, rqe->num_sge,
					 SROCE_GRH_LEN, skb, sizeof(struct udphdr) + hdr->hdr_len,
					 hdr->payload_len);
	if (err == -EAGAIN) {
		/* an ODP page of the buffer: its fault is queued, wait for it */
		WRITE_ONCE(qp->resp.odp_park, true);
		return;
	}
	if (err == -EMSGSIZE)
		status = IB_WC_LOC_LEN_ERR;
	else if (err)
		status = IB_WC_LOC_PROT_ERR;
	sroce_ud_complete_recv(qp, hdr, status, SROCE_GRH_LEN + hdr->payload_len, v6);
	if (status == IB_WC_LOC_PROT_ERR)
		sroce_qp_set_error(qp);	/* our own buffer is bad */
}

/* ---- send (worker) --------------------------------------------------- */

/* The port's MTU in bytes: the largest UD payload. */
static u32 sroce_ud_mtu(struct sroce_qp *qp)
{
	int mtu = sroce_ib_mtu_from_netdev_mtu(READ_ONCE(qp->sdev->ndev->mtu));

	return mtu ? ib_mtu_enum_to_int((enum ib_mtu)mtu) : 0;
}

/*
 * Check the copied SQ entry @wqe of ring index @idx: a SEND (with or
 * without immediate) of at most the port's MTU (its length then in
 * @sw, for the completion), through an AH of the QP's PD, whose path
 * lands in @path. Return: its completion status.
 */
static enum ib_wc_status sroce_ud_check_wqe(struct sroce_qp *qp, u32 idx,
					    struct sroce_send_wqe *wqe, struct sroce_swqe *sw,
					    struct sroce_path *path, u64 *len)
{
	enum ib_wc_status status;

	if (wqe->opcode != IB_UVERBS_WR_SEND &&
	    wqe->opcode != IB_UVERBS_WR_SEND_WITH_IMM) {
		sroce_dbg_qp_rl(qp, "SQ entry %u: opcode %u on a UD QP (SEND only)", idx,
				wqe->opcode);
		return IB_WC_LOC_QP_OP_ERR;
	}
	status = sroce_wqe_len(qp, wqe, len);
	if (status != IB_WC_SUCCESS)
		return status;
	if (*len > sroce_ud_mtu(qp)) {
		sroce_dbg_qp_rl(qp, "SQ entry %u: datagram of %llu bytes > the port MTU %u", idx,
				*len, sroce_ud_mtu(qp));
		return IB_WC_LOC_LEN_ERR;
	}
	sw->length = *len;
	if (!sroce_ah_path(qp->sdev, qp->ibqp.pd, wqe->wr.ud.ah, path)) {
		sroce_dbg_qp_rl(qp, "SQ entry %u: AH id %u names no AH of the QP's PD", idx,
				wqe->wr.ud.ah);
		return IB_WC_LOC_QP_OP_ERR;
	}
	return IB_WC_SUCCESS;
}

/* The BTH, DETH and immediate of the datagram @wqe of @len bytes. */
static void sroce_ud_fill_hdr(struct sroce_qp *qp, const struct sroce_send_wqe *wqe,
			      u64 len, struct sroce_pkt_hdr *hdr)
{
	u32 qkey = wqe->wr.ud.remote_qkey;

	/* a Q_Key with the high bit set means the QP's own (IBTA 10.2.4) */
	if (qkey & SROCE_QKEY_PRIVILEGED)
		qkey = qp->attr.qkey;
	hdr->bth.opcode = wqe->opcode == IB_UVERBS_WR_SEND_WITH_IMM ?
		SROCE_OP_UD_SEND_ONLY_IMM : SROCE_OP_UD_SEND_ONLY;
	hdr->bth.se = !!(wqe->send_flags & SROCE_SEND_SOLICITED);
	hdr->bth.pkey = SROCE_DEFAULT_PKEY;
	hdr->bth.dqpn = wqe->wr.ud.remote_qpn & SROCE_QPN_MASK;
	hdr->bth.psn = qp->req.psn;
	hdr->bth.pad = sroce_pad_len(len);
	hdr->deth.qkey = qkey;
	hdr->deth.src_qpn = qp->ibqp.qp_num;
	hdr->immdt = be32_to_cpu(wqe->ex);
	hdr->info = sroce_opcode(hdr->bth.opcode);
}

/*
 * Build and send the datagram of SQ entry @idx. Return: 0 (sent, or lost
 * for want of memory, as on the wire), -EAGAIN (an ODP page of the gather
 * list is being faulted in: nothing sent) or -EINVAL with @status set.
 */
static int sroce_ud_xmit_wqe(struct sroce_qp *qp, u32 idx,
			     const struct sroce_send_wqe *wqe,
			     const struct sroce_pkt_hdr *hdr, u64 len,
			     enum ib_wc_status *status)
{
	struct sk_buff *skb;
	int err;

	skb = sroce_pkt_alloc(qp, hdr->info->hdr_len + len);
	if (!skb)
		return 0;	/* lost, as on the wire */
	if (sroce_pkt_build_hdrs(skb_put(skb, hdr->info->hdr_len),
				 hdr->info->hdr_len, hdr) < 0) {
		*status = IB_WC_LOC_QP_OP_ERR;
		goto free_skb;
	}
	if (wqe->send_flags & SROCE_SEND_INLINE) {
		skb_put_data(skb, wqe + 1, len);
		err = 0;
	} else {
		err = sroce_sgl_copy(qp->sdev, qp->ibqp.pd, wqe->sge, wqe->num_sge,
				     0, skb_put(skb, len), len, SROCE_COPY_FROM_MR);
	}
	if (err == -EAGAIN) {
		kfree_skb(skb);
		return err;	/* an ODP page is faulted in: sent again then */
	}
	if (err) {
		sroce_dbg_qp_rl(qp,
				"SQ entry %u: its local memory (lkey, range, rights) refused: error %d",
				idx, err);
		*status = IB_WC_LOC_PROT_ERR;
		goto free_skb;
	}
	sroce_pkt_xmit(qp, skb, len);
	return 0;

free_skb:
	kfree_skb(skb);
	return -EINVAL;
}

/**
 * sroce_ud_send_one() - copy, check and send SQ entry @idx
 * @qp: the QP
 * @idx: ring index (the SQ head)
 * @status: the completion status for the entry
 *
 * Return: 0, or -EAGAIN if the entry gathers from an ODP page that is not
 * present: nothing was sent, the page's fault is queued and the caller
 * waits for it (sroce_odp_wait()) and sends the entry again.
 */
static int sroce_ud_send_one(struct sroce_qp *qp, u32 idx, enum ib_wc_status *status)
{
	struct sroce_send_wqe *wqe = sroce_shadow(qp, idx);
	struct sroce_swqe *sw = sroce_swqe(qp, idx);
	struct sroce_pkt_hdr hdr = {};
	struct sroce_path path;
	u64 len;
	int err;

	/* copy before validating: user space may change the ring at any time */
	memcpy(wqe, sroce_queue_at(qp->sq, idx), qp->sq_stride);
	memset(sw, 0, sizeof(*sw));

	*status = sroce_ud_check_wqe(qp, idx, wqe, sw, &path, &len);
	if (*status != IB_WC_SUCCESS)
		return 0;
	sroce_ud_fill_hdr(qp, wqe, len, &hdr);

	/* the packet's path: only this worker reads a UD QP's qp->path */
	path.sport = htons(sroce_udp_sport(qp->ibqp.qp_num, hdr.bth.dqpn));
	qp->path = path;
	err = sroce_ud_xmit_wqe(qp, idx, wqe, &hdr, len, status);
	if (err == -EAGAIN)
		return err;
	if (err)
		return 0;
	qp->req.psn = sroce_psn_inc(qp->req.psn);
	return 0;
}

/**
 * sroce_ud_send() - send what the SQ holds
 * @qp: the QP, in RTS or SQD
 *
 * Every entry completes when its packet is sent. A bad entry completes in
 * error and moves the QP to ERR. The doorbell protocol is the RC
 * requester's (see sroce_requester()).
 */
void sroce_ud_send(struct sroce_qp *qp)
{
	struct sroce_ring_hdr *h = qp->sq->hdr;
	struct sroce_req *req = &qp->req;
	enum ib_wc_status status;
	int budget = SROCE_UD_SEND_BUDGET;
	u32 prod;

	lockdep_assert_held(&qp->lock);

	WRITE_ONCE(h->flags, 0);
	while (budget--) {
		prod = smp_load_acquire(&h->producer);
		if (prod - req->comp_idx > qp->sq_entries) {
			sroce_qp_set_error(qp);	/* hostile producer index */
			return;
		}
		if (prod == req->comp_idx) {
			WRITE_ONCE(h->flags, SROCE_RING_F_NEED_WAKEUP);
			smp_mb();	/* flag store before producer load */
			if (smp_load_acquire(&h->producer) == req->comp_idx)
				return;
			WRITE_ONCE(h->flags, 0);
			continue;
		}
		if (READ_ONCE(qp->state) == IB_QPS_SQD)
			return;
		if (sroce_ud_send_one(qp, req->comp_idx, &status) == -EAGAIN) {
			sroce_odp_wait(qp);	/* kicked once the page is there */
			return;
		}
		trace_sroce_wqe_fetch(qp, req->comp_idx, status);
		sroce_stat_inc(qp->sdev, SROCE_STAT_SQ_WQES);
		/*
		 * Free the slot before the completion is visible: a poster
		 * that saw the CQE must find room. The CQE is built from the
		 * shadow copy.
		 */
		sroce_queue_consumed(qp->sq, 1);
		sroce_req_complete(qp, req->comp_idx, status);
		req->comp_idx++;
		req->send_idx = req->comp_idx;
		req->fetched = req->comp_idx;
		if (status != IB_WC_SUCCESS) {
			sroce_qp_set_error(qp);
			return;
		}
	}
	sroce_qp_yield(qp);	/* more to send: come back in another round */
}

/**
 * sroce_ud_send_posted() - send what is posted before a UD QP goes away
 * @qp: a UD QP being destroyed, still published
 *
 * A NIC puts a datagram on the wire right after its doorbell; here the
 * worker may not have run yet when the QP is destroyed. Applications post
 * unsignaled datagrams and destroy the QP at once (rdma_cm's mckey sends
 * its multicast messages that way), so they would be lost. In RTS this
 * sends them now: at most one SQ's worth of packets, then the destroy
 * goes on. BHs are off for one round (SROCE_UD_SEND_BUDGET datagrams) at
 * a time, not for the SQ (16K datagrams): destroy_ah runs this for every
 * UD QP of the PD.
 *
 * Context: process.
 */
void sroce_ud_send_posted(struct sroce_qp *qp)
{
	struct sroce_ring_hdr *h = qp->sq->hdr;
	u32 rounds = qp->sq_entries / SROCE_UD_SEND_BUDGET + 2;
	bool more = true;

	while (rounds-- && more) {
		spin_lock_bh(&qp->lock);
		more = READ_ONCE(qp->state) == IB_QPS_RTS &&
		       smp_load_acquire(&h->producer) != qp->req.comp_idx;
		if (more)
			sroce_ud_send(qp);
		spin_unlock_bh(&qp->lock);
		cond_resched();
	}
}
