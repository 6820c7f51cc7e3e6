/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce's device limits: what ibv_query_device() reports (verbs.c) and
 * every verb enforces, in one place. Internal bounds of a layer (ring
 * sizes, queued bytes, timers) stay in its header.
 */
#ifndef SROCE_PARAM_H
#define SROCE_PARAM_H

/* objects per device */
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_MR		0x40000		/* MR table indices 1..this */
#define SROCE_MAX_QP		65536	/* per device */
#define SROCE_MAX_SRQ		0x10000		/* per device */
#define SROCE_MAX_MW		0x10000		/* MW table indices 1..this */
#define SROCE_MAX_XRCD		0x10000		/* per device */
#define SROCE_MAX_AH		0x100000	/* AH ids 1..this per device */
#define SROCE_MAX_COMP_CNTR	1024	/* max_counters (completion counters) */

/* sizes */
/*
 * 1 GiB: at the smallest path MTU (256) a message then spans at most 2^22
 * PSNs, a quarter of the 24-bit PSN space, so PSN comparisons (+/- 2^23)
 * hold across every message in flight (the requester keeps the PSNs in
 * flight below SROCE_MAX_PSN_INFLIGHT).
 */
#define SROCE_MAX_MSG_SZ	0x40000000u
#define SROCE_MAX_CQE		((1 << 22) - 1)	/* ring: SROCE_QUEUE_MAX_ENTRIES */
#define SROCE_MAX_MR_SIZE	(1ULL << 39)	/* 512 GiB: page array <= 1 GiB */
#define SROCE_MAX_QP_WR		16384
#define SROCE_MAX_SRQ_WR	16384
#define SROCE_MAX_SGE		16
#define SROCE_MAX_INLINE	256
#define SROCE_MAX_RD_ATOMIC	128	/* also the responder's READ slots */
#define SROCE_MAX_FR_PAGES	512	/* max_fast_reg_page_list_len */
#define SROCE_MAX_DM_SIZE	(2ULL << 20)	/* max_dm_size: bytes of one DM */

/* multicast */
#define SROCE_MAX_MCAST_GRP		1024
#define SROCE_MAX_MCAST_QP_ATTACH	32		/* QPs per group */
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	4096		/* per device */

#endif /* SROCE_PARAM_H */
