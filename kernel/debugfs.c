// SPDX-License-Identifier: GPL-2.0
/*
 * sroce debugfs: /sys/kernel/debug/sroce/qps, one line of transport state
 * per QP (the hang watchdog of the selftests prints it), and crc, the ICRC's
 * CRC-32 implementation (crc.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sroce.h"
#include "crc.h"
#include "qp.h"
#include "queue.h"
#include "debugfs.h"

static struct dentry *sroce_debugfs;

/* One line of transport state per QP; racy snapshot, for debugging only. */
static int sroce_qps_show(struct seq_file *m, void *v)
{
	unsigned long qpn = 0;
	struct sroce_qp *qp;

	while ((qp = sroce_qp_next(NULL, &qpn))) {
		const struct sroce_req *rq = &qp->req;

		seq_printf(m, "%s qpn %lu state %d psn %u una %u send %u/%u comp %u started %u fetched %u prod %u flags %#x rd %u rdgap %d rnr %d retry %d left %u backoff %u cwnd %u/%u max %u unit %uB rtt %u/%u us rto floor %u us | epsn %u msn %u ackp %d reads %u nakd %d | rxq %u %u/%uB peak %uB work %d timer %d ev %#lx | dcqcn %d rc %u kbit/s alpha %u/1048576 paced %d\n",
			   dev_name(&qp->sdev->ib_dev.dev), qpn, READ_ONCE(qp->state),
			   rq->psn, rq->una_psn, rq->send_idx, rq->send_off,
			   rq->comp_idx, rq->started, rq->fetched,
			   qp->sq ? READ_ONCE(qp->sq->hdr->producer) : 0,
			   qp->sq ? READ_ONCE(qp->sq->hdr->flags) : 0,
			   rq->rd_outstanding, rq->rd_gap, rq->rnr_wait, rq->need_retry,
			   rq->retry_left, rq->backoff, rq->cwnd.cwnd, rq->cwnd.ssthresh,
			   rq->cwnd.max, rq->cwnd.unit, rq->cwnd.srtt_us, rq->cwnd.min_rtt_us,
			   rq->cwnd.rto_floor_us,
			   qp->resp.psn, qp->resp.msn,
			   qp->resp.ack_pending,
			   qp->resp.rd_tail - qp->resp.rd_head, qp->resp.nak_deferred,
			   skb_queue_len(&qp->rxq), (unsigned int)atomic_read(&qp->rxq_bytes),
			   SROCE_RXQ_BYTES, READ_ONCE(qp->rxq_peak), work_pending(&qp->work),
			   timer_pending(&qp->retrans_timer), READ_ONCE(qp->events),
			   READ_ONCE(qp->dcqcn.on), READ_ONCE(qp->dcqcn.rp.rc),
			   READ_ONCE(qp->dcqcn.rp.alpha), READ_ONCE(qp->dcqcn.rp.limited));
		sroce_qp_put(qp);
		qpn++;
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_qps);

/* The ICRC's CRC-32: each implementation's rate at load and the choice */
static int sroce_crc_file_show(struct seq_file *m, void *v)
{
	sroce_crc_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_crc_file);

void sroce_debugfs_init(void)
{
	sroce_debugfs = debugfs_create_dir("sroce", NULL);
	debugfs_create_file("qps", 0400, sroce_debugfs, NULL, &sroce_qps_fops);
	debugfs_create_file("crc", 0400, sroce_debugfs, NULL, &sroce_crc_file_fops);
}

void sroce_debugfs_exit(void)
{
	debugfs_remove_recursive(sroce_debugfs);
}
