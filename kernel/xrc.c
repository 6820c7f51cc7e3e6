// SPDX-License-Identifier: GPL-2.0
/*
 * sroce XRC: domains and the XRC TGT QP's SRQ (the XRC SRQ numbers are
 * srq.c's).
 *
 * An XRC INI QP sends like an RC QP, with the XRC opcodes and an XRCETH
 * naming the remote XRC SRQ in every request. Its peer, an XRC TGT QP, has
 * no queues of its own: for each request it finds the XRC SRQ the XRCETH
 * names (sroce_xrc_resp_begin()), which must belong to the TGT QP's XRC
 * domain. The SRQ supplies the receive buffer, its CQ gets the receive
 * completion (wc.qp_num: the TGT QP) and its PD is the one the request's
 * rkey is checked against.
 *
 * XRC SRQ numbers are unique module-wide, like QPNs. A responder holds a
 * reference on the SRQ only while it executes one packet, so destroying an
 * XRC SRQ waits for no peer: the next packet naming it is refused.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "qp.h"
#include "srq.h"
#include "xrc.h"
#include "cq.h"

int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = sroce_to_dev(ibxrcd->device);

	if (udata && udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		sroce_dbg_dev(ibxrcd->device,
			      "alloc_xrcd: %zu bytes of driver data not zero (takes none)",
			      udata->inlen);
		return -EINVAL;
	}
	if (atomic_inc_return(&sdev->xrcd_count) > SROCE_MAX_XRCD) {
		atomic_dec(&sdev->xrcd_count);
		sroce_dbg_dev(ibxrcd->device, "alloc_xrcd: the device has %d XRC domains already",
			      SROCE_MAX_XRCD);
		return -ENOMEM;
	}
	return 0;
}

int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	atomic_dec(&sroce_to_dev(ibxrcd->device)->xrcd_count);
	return 0;
}

/**
 * sroce_xrc_resp_begin() - find the XRC SRQ a request for an XRC TGT QP names
 * @qp: the XRC TGT QP, its transport running here
 * @srqn: the request's XRCETH SRQ number
 *
 * On success qp->xsrq holds the SRQ (with a reference) until
 * sroce_xrc_resp_end(): the responder takes receive buffers from it, posts
 * completions to its CQ and checks rkeys against its PD.
 *
 * Return: 0; -ENOENT when the device has no such XRC SRQ, -EACCES when it
 * belongs to another XRC domain than @qp.
 */
int sroce_xrc_resp_begin(struct sroce_qp *qp, u32 srqn)
{
	int err;

	lockdep_assert_held(&qp->lock);

	qp->xsrq = sroce_xrc_srq_get(qp->sdev, qp->xrcd, srqn, &err);
	return qp->xsrq ? 0 : err;
}

/* The packet is done: drop the XRC SRQ sroce_xrc_resp_begin() found. */
void sroce_xrc_resp_end(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);

	if (qp->xsrq)
		sroce_xrc_srq_put(qp->xsrq);
	qp->xsrq = NULL;
}

/**
 * sroce_xrc_flush_rqe() - complete the receive buffer an XRC TGT QP took
 * @qp: the XRC TGT QP, being flushed
 * @cqe: the flush completion
 *
 * The buffer came from the XRC SRQ of the message in progress
 * (qp->resp.xrc_srqn); its completion goes to that SRQ's CQ. If the SRQ is
 * gone, so is the CQ's claim to the buffer.
 */
void sroce_xrc_flush_rqe(struct sroce_qp *qp, struct sroce_cqe *cqe)
{
	struct sroce_srq *srq;
	int err;

	lockdep_assert_held(&qp->lock);

	srq = sroce_xrc_srq_get(qp->sdev, qp->xrcd, qp->resp.xrc_srqn, &err);
	if (!srq)
		return;
	sroce_cq_post(sroce_to_cq(srq->ibsrq.ext.cq), cqe, false);
	sroce_xrc_srq_put(srq);
}
