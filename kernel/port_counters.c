// SPDX-License-Identifier: GPL-2.0
/*
 * sroce counters, exported as port hw counters:
 * `rdma statistic show link sroce0/1`, or
 * /sys/class/infiniband/<dev>/ports/1/hw_counters/.
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "recv.h"
#include "port_counters.h"

static const struct rdma_stat_desc sroce_stat_descs[] = {
	[SROCE_STAT_TX_PKTS]		= { .name = "tx_pkts" },
	[SROCE_STAT_RX_PKTS]		= { .name = "rx_pkts" },
	[SROCE_STAT_RETRANSMITS]	= { .name = "retransmits" },
	[SROCE_STAT_SEQ_NAKS_SENT]	= { .name = "seq_naks_sent" },
	[SROCE_STAT_RNR_NAKS_SENT]	= { .name = "rnr_naks_sent" },
	[SROCE_STAT_SQ_WQES]		= { .name = "sq_wqes" },
	[SROCE_STAT_DOORBELLS]		= { .name = "doorbells" },
	[SROCE_STAT_LOOPBACK_PKTS]	= { .name = "loopback_pkts" },
	[SROCE_STAT_TIMEOUTS]		= { .name = "local_ack_timeouts" },
	[SROCE_STAT_ODP_FAULTS]		= { .name = "odp_faults" },
	[SROCE_STAT_ODP_FAULT_ERRS]	= { .name = "odp_fault_errors" },
	[SROCE_STAT_ICRC_SKIP_TX]	= { .name = "icrc_skip_tx_pkts" },
	[SROCE_STAT_ICRC_SKIP_RX]	= { .name = "icrc_skip_rx_pkts" },
	[SROCE_STAT_ECN_MARKED_RX]	= { .name = "ecn_marked_rx_pkts" },
	[SROCE_STAT_CNP_TX]		= { .name = "cnp_tx_pkts" },
	[SROCE_STAT_CNP_RX]		= { .name = "cnp_rx_pkts" },
	[SROCE_STAT_DCQCN_RATE_CUTS]	= { .name = "dcqcn_rate_cuts" },
	[SROCE_STAT_RETX_PKTS]		= { .name = "retx_pkts" },
	[SROCE_STAT_RETX_BYTES]		= { .name = "retx_bytes" },
	[SROCE_STAT_SR_OOO_RX]		= { .name = "sr_ooo_rx_pkts" },
	[SROCE_STAT_SR_HOLD_DROPS]	= { .name = "sr_hold_drops" },
	[SROCE_STAT_SR_SACK_TX]		= { .name = "sr_sack_tx" },
	[SROCE_STAT_SR_SACK_RX]		= { .name = "sr_sack_rx" },
	[SROCE_STAT_SR_SKIPPED]		= { .name = "sr_retx_skipped_pkts" },
	[SROCE_STAT_SR_WINDOW]		= { .name = "sr_window_pkts" },
	[SROCE_STAT_SR_SACK_DROPS]	= { .name = "sr_sack_rx_drops" },
	[SROCE_STAT_SR_PLACED]		= { .name = "sr_placed_pkts" },
	[SROCE_STAT_SR_HELD]		= { .name = "sr_held_pkts" },
	[SROCE_STAT_SR_FAR_DROPS]	= { .name = "sr_far_drops" },
	[SROCE_STAT_TX_GSO_BURSTS]	= { .name = "tx_gso_bursts" },
	[SROCE_STAT_TX_GSO_PKTS]	= { .name = "tx_gso_pkts" },
	[SROCE_STAT_CWND_CUTS]		= { .name = "cwnd_cuts" },
	[SROCE_STAT_CWND_UNDOS]		= { .name = "cwnd_undos" },
	[SROCE_STAT_RTO_RESENDS]	= { .name = "rto_retransmits" },
	[SROCE_STAT_RTO_SPURIOUS]	= { .name = "rto_spurious" },
	[SROCE_STAT_ZCOPY_PKTS]		= { .name = "tx_zcopy_pkts" },
	[SROCE_STAT_ZCOPY_FALLBACK]	= { .name = "tx_zcopy_fallbacks" },
	[SROCE_STAT_RX_DEFERRED]	= { .name = "loopback_deferred" },
	[SROCE_STAT_DOORBELLS_DEFERRED]	= { .name = "doorbells_deferred" },
	[SROCE_STAT_ODP_RX_WAITS]	= { .name = "odp_rx_waits" },
	[SROCE_STAT_ERR_RX_SETTLED]	= { .name = "rx_settled_at_err" },
	[SROCE_STAT_SELRD_PLACED]	= { .name = "selrd_placed_pkts" },
	[SROCE_STAT_SELRD_REPAIRS]	= { .name = "selrd_repairs" },
	[SROCE_STAT_SELRD_REASKS]	= { .name = "selrd_reasks" },
	[SROCE_STAT_SELRD_PROBES]	= { .name = "selrd_probes" },
	[SROCE_STAT_DUP_REQUEST]	= { .name = "duplicate_request" },
	/* module-wide: dropped before the destination QP is known */
#define SROCE_DROP_DESC_(up, low) \
	[SROCE_STAT_MAX + SROCE_DROP_##up] = { .name = "rx_drop_" #low },
	SROCE_DROP_REASONS(SROCE_DROP_DESC_, SROCE_DROP_DESC_)
#undef SROCE_DROP_DESC_
};

static_assert(ARRAY_SIZE(sroce_stat_descs) == SROCE_STAT_MAX + SROCE_DROP_MAX);

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_stat_descs,
					  ARRAY_SIZE(sroce_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);
	int i, cpu;

	for (i = 0; i < SROCE_STAT_MAX; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(sdev->stats, cpu)->v[i]);
		stats->value[i] = sum;
	}
	for (i = 0; i < SROCE_DROP_MAX; i++)
		stats->value[SROCE_STAT_MAX + i] = atomic64_read(&sroce_rx_drops[i]);
	return ARRAY_SIZE(sroce_stat_descs);
}
