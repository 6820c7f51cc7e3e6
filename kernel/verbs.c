// SPDX-License-Identifier: GPL-2.0
/*
 * sroce verbs: device/port queries, user contexts, protection domains, and
 * the ib_device_ops table (CQs live in cq.c, MRs in mr.c, rings in queue.c).
 *
 * Capabilities are honest: only what works is advertised. Objects that are
 * not implemented yet (QP) are refused with -EOPNOTSUPP so that
 * applications and test suites skip rather than mis-complete.
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "cntr.h"
#include "qp.h"
#include "qp_verbs.h"
#include "ud.h"
#include "queue.h"
#include "srq.h"
#include "xrc.h"
#include "mw.h"
#include "mcast.h"
#include "dm.h"
#include "restrack.h"
#include "sched.h"
#include "ah.h"
#include "port_counters.h"
#include "cq.h"
#include "main.h"
#include "mr.h"
#include "verbs.h"

/**
 * sroce_port_state() - IB port state derived from the netdev
 * @sdev: the device
 *
 * The port is ACTIVE while the netdev is up with carrier, DOWN otherwise.
 *
 * Return: IB_PORT_ACTIVE or IB_PORT_DOWN.
 */
enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen)) {
		sroce_dbg_dev(ibdev, "query_device: driver data in %zu, out %zu bytes (takes none)",
			      udata->inlen, udata->outlen);
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 0;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_pkeys = 1;
	attr->max_ah = SROCE_MAX_AH;
	attr->local_ca_ack_delay = 15;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FR_PAGES;
	attr->max_dm_size = SROCE_MAX_DM_SIZE;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_ON_DEMAND_PAGING;
	/* completion time stamps: CLOCK_MONOTONIC in ns, a 1 GHz clock (kHz) */
	attr->hca_core_clock = 1000000;
	attr->timestamp_mask = U64_MAX;
	/*
	 * ODP MRs, explicit and implicit (odp.c): every operation of each QP
	 * type. UC and UD have no RNR NAK to send a request back with: their
	 * receive waits for the fault, its packet held (sroce_qp_drain_rx()).
	 * RC FLUSH and ATOMIC WRITE too where the uAPI has their bits.
	 */
	attr->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = IB_ODP_SUPPORT_SEND |
		IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV | SROCE_ODP_FLUSH_CAPS;
	attr->odp_caps.per_transport_caps.xrc_odp_caps = IB_ODP_SUPPORT_SEND |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ | IB_ODP_SUPPORT_ATOMIC |
		IB_ODP_SUPPORT_SRQ_RECV;
	attr->odp_caps.per_transport_caps.uc_odp_caps = IB_ODP_SUPPORT_SEND |
		IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_SRQ_RECV;
	attr->odp_caps.per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND |
		IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_SRQ_RECV;
	attr->device_cap_flags = IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_MEM_MGT_EXTENSIONS | IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B | IB_DEVICE_XRC |
				 SROCE_DEVICE_ATOMIC_WRITE | SROCE_DEVICE_FLUSH_GLOBAL;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);
	int mtu;

	/* the core zeroes *attr and validates @port */
	attr->state = sroce_port_state(sdev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	mtu = sroce_ib_mtu_from_netdev_mtu(READ_ONCE(sdev->ndev->mtu));
	attr->active_mtu = mtu ? (enum ib_mtu)mtu : IB_MTU_256;
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SZ;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->sm_sl = 0;
	attr->subnet_timeout = 0;
	attr->init_type_reply = 0;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

/**
 * sroce_link_mbps() - the netdev's link speed
 * @ndev: the netdev
 *
 * As ib_get_eth_speed() (query_port's active_speed/width) takes it: what
 * ethtool reports, 1000 Mb/s when the netdev does not know (virtio-net
 * without a speed, for one).
 *
 * Context: rtnl held.
 * Return: Mb/s.
 */
u32 sroce_link_mbps(struct net_device *ndev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (__ethtool_get_link_ksettings(ndev, &ks) || !ks.base.speed ||
	    ks.base.speed == SPEED_UNKNOWN)
		return SPEED_1000;
	return ks.base.speed;
}

/**
 * sroce_query_port_speed() - ib_device_ops.query_port_speed (7.x)
 * @ibdev: the device
 * @port: its port (the core checked it)
 * @speed: the port's bandwidth in units of 100 Mb/s: the netdev's link
 *	speed (sroce_link_mbps())
 *
 * Return: 0.
 */
int sroce_query_port_speed(struct ib_device *ibdev, u32 port, u64 *speed)
{
	struct sroce_dev *sdev = sroce_to_dev(ibdev);

	rtnl_lock();
	*speed = sroce_link_mbps(sdev->ndev) / 100;
	rtnl_unlock();
	return 0;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index) {
		sroce_dbg_dev(ibdev, "query_pkey: index %u > 0 (one P_Key)", index);
		return -EINVAL;
	}
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	/* RoCEv2 only, with MADs and CM over the GSI QP (ud.c) */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_UVERBS_ABI_VERSION,
		.caps = 0,
	};

	int err;

	if (!udata)
		return 0;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		sroce_dbg_dev(ibuc->device, "alloc_ucontext: response not writable (%d)", err);
	return err;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * UVERBS_METHOD_QUERY_CONTEXT (ibv_import_device: a second ibv_context on
 * the same uverbs file): nothing driver-specific to report.
 */
static int sroce_query_ucontext(struct ib_ucontext *ibuc,
				struct uverbs_attr_bundle *attrs)
{
	return 0;
}

/*
 * The device is going away while a process still has it open (`rdma link
 * delete`, netdev or namespace removal, rmmod): the core destroys every
 * object of the context through the ordinary destroy verbs, none of which
 * waits for the process or the peer, and the process gets
 * IB_EVENT_DEVICE_FATAL and -EIO from then on. Nothing else is to be done
 * here: the rings it still maps are pages it holds references to (see
 * queue.c), which nothing in the kernel reads or writes any more. Having
 * this callback is what lets the core unregister without waiting for the
 * process to close the device.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* At most SROCE_MAX_PD PDs per device (max_pd), user and kernel alike */
static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = sroce_to_dev(ibpd->device);

	if (atomic_inc_return(&sdev->pd_count) > SROCE_MAX_PD) {
		atomic_dec(&sdev->pd_count);
		sroce_dbg_dev(ibpd->device,
			      "alloc_pd: the device has max_pd %d PDs already", SROCE_MAX_PD);
		return -ENOMEM;
	}
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&sroce_to_dev(ibpd->device)->pd_count);
	return 0;
}

/* ---- sysfs ---------------------------------------------------------- */

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", SROCE_DRV_NAME);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ib_dev);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}
static DEVICE_ATTR_RO(parent);

/**
 * struct sroce_dev_bool_attr - a boolean device setting's sysfs attribute
 * @attr: the attribute
 * @off: the setting's offset in struct sroce_dev
 */
struct sroce_dev_bool_attr {
	struct device_attribute attr;
	size_t off;
};

static bool *sroce_dev_bool(struct device *device, struct device_attribute *attr)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ib_dev);

	return (bool *)((u8 *)sdev + container_of(attr, struct sroce_dev_bool_attr, attr)->off);
}

static ssize_t sroce_dev_bool_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(*sroce_dev_bool(device, attr)));
}

static ssize_t sroce_dev_bool_store(struct device *device,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	bool on;
	int err;

	err = kstrtobool(buf, &on);
	if (err)
		return err;
	WRITE_ONCE(*sroce_dev_bool(device, attr), on);
	return count;
}

#define SROCE_DEV_BOOL_ATTR(_name, _field)					\
	static struct sroce_dev_bool_attr sroce_attr_##_name = {		\
		.attr = __ATTR(_name, 0644, sroce_dev_bool_show,		\
			       sroce_dev_bool_store),				\
		.off = offsetof(struct sroce_dev, _field),			\
	}

/*
 * icrc_skip: 1 lets the device's connected QPs skip the ICRC with a peer
 * that allows it too (xmit.c, sroce_qp_icrc_learn()); QPs sample it at RTR.
 */
SROCE_DEV_BOOL_ATTR(icrc_skip, icrc_skip);
/*
 * selective_repeat: 1 lets the device's RC QPs hold out-of-order requests
 * and resend only missing PSNs with a peer that allows it too (responder.c,
 * completer.c); QPs sample it at RTR.
 */
SROCE_DEV_BOOL_ATTR(selective_repeat, sr);
/*
 * DCQCN (dcqcn.c): dcqcn_enable switches it on for connections set up
 * afterwards; the other dcqcn_* attributes are its parameters, each with
 * its range. QPs copy them at RTR.
 */
SROCE_DEV_BOOL_ATTR(dcqcn_enable, dcqcn);
/*
 * tx_gso: 1 lets the device's connected QPs send runs of equal-sized
 * packets as one UDP GSO packet (xmit.c, sroce_txb_*()); QPs sample it at RTR.
 */
SROCE_DEV_BOOL_ATTR(tx_gso, tx_gso);
/*
 * adaptive_routing: 1 makes the device's RC QPs send each RC WRITE as one
 * WRITE ONLY per path MTU with its own RETH, marked SROCE_BTH_AR, sprayed
 * over ar_paths UDP source ports (requester.c, xmit.c); sampled at RTR.
 */
SROCE_DEV_BOOL_ATTR(adaptive_routing, ar);
/*
 * wide_segments: 1 lets the device's RC QPs send SEND and WRITE packets of
 * sroce_wide_seg() bytes to a peer whose responses offer them, and offer
 * them in their own responses when the netdev fits them (requester.c,
 * responder.c); sampled at RTR.
 */
SROCE_DEV_BOOL_ATTR(wide_segments, wide);

/**
 * struct sroce_dev_uint_attr - a u32 device attribute with a range
 * @attr: the attribute
 * @off: the field's offset in struct sroce_dev
 * @min: the smallest value accepted
 * @max: the largest value accepted
 */
struct sroce_dev_uint_attr {
	struct device_attribute attr;
	size_t off;
	u32 min, max;
};

static u32 *sroce_dev_uint(struct device *device, struct device_attribute *attr,
			   const struct sroce_dev_uint_attr **ua)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ib_dev);

	*ua = container_of(attr, struct sroce_dev_uint_attr, attr);
	return (u32 *)((u8 *)sdev + (*ua)->off);
}

static ssize_t sroce_dev_uint_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	const struct sroce_dev_uint_attr *ua;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*sroce_dev_uint(device, attr, &ua)));
}

static ssize_t sroce_dev_uint_store(struct device *device,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	const struct sroce_dev_uint_attr *ua;
	u32 *p = sroce_dev_uint(device, attr, &ua);
	u32 v;
	int err;

	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	if (v < ua->min || v > ua->max) {
		sroce_dbg_dev(rdma_device_to_ibdev(device), "%s: %u outside [%u, %u]",
			      attr->attr.name, v, ua->min, ua->max);
		return -ERANGE;
	}
	WRITE_ONCE(*p, v);
	return count;
}

#define SROCE_DEV_UINT_ATTR(_name, _field, _min, _max)				\
	static struct sroce_dev_uint_attr sroce_attr_##_name = {		\
		.attr = __ATTR(_name, 0644, sroce_dev_uint_show,		\
			       sroce_dev_uint_store),				\
		.off = offsetof(struct sroce_dev, _field),			\
		.min = (_min),							\
		.max = (_max),							\
	}

/* ar_paths: UDP source ports an adaptive routing QP sprays over (xmit.c) */
SROCE_DEV_UINT_ATTR(ar_paths, ar_paths, 1, 64);
static_assert(SROCE_AR_PATHS_MIN == 1 && SROCE_AR_PATHS_MAX == 64);

/* a DCQCN parameter (struct sroce_dcqcn_cfg): a u32 device attribute */
#define SROCE_DCQCN_ATTR(_name, _min, _max)					\
	static struct sroce_dev_uint_attr sroce_dcqcn_attr_##_name = {		\
		.attr = __ATTR(dcqcn_##_name, 0644, sroce_dev_uint_show,	\
			       sroce_dev_uint_store),				\
		.off = offsetof(struct sroce_dev, dcqcn_cfg._name),		\
		.min = (_min),							\
		.max = (_max),							\
	}

SROCE_DCQCN_ATTR(cnp_interval_us, 0, 1000000);
SROCE_DCQCN_ATTR(g, 1, 1024);
SROCE_DCQCN_ATTR(alpha_timer_us, 1, 1000000);
SROCE_DCQCN_ATTR(rate_timer_us, 1, 1000000);
SROCE_DCQCN_ATTR(byte_counter_kb, 1, 1048576);
SROCE_DCQCN_ATTR(fast_recovery, 0, 64);
SROCE_DCQCN_ATTR(rate_ai_mbps, 1, 100000);
SROCE_DCQCN_ATTR(rate_hai_mbps, 1, 1000000);
SROCE_DCQCN_ATTR(rate_max_mbps, 1, 1000000);
SROCE_DCQCN_ATTR(rate_min_mbps, 1, 1000000);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_hca_type.attr,
	&dev_attr_parent.attr,
	&sroce_attr_icrc_skip.attr.attr,
	&sroce_attr_selective_repeat.attr.attr,
	&sroce_attr_dcqcn_enable.attr.attr,
	&sroce_attr_tx_gso.attr.attr,
	&sroce_attr_adaptive_routing.attr.attr,
	&sroce_attr_ar_paths.attr.attr,
	&sroce_attr_wide_segments.attr.attr,
	&sroce_dcqcn_attr_cnp_interval_us.attr.attr,
	&sroce_dcqcn_attr_g.attr.attr,
	&sroce_dcqcn_attr_alpha_timer_us.attr.attr,
	&sroce_dcqcn_attr_rate_timer_us.attr.attr,
	&sroce_dcqcn_attr_byte_counter_kb.attr.attr,
	&sroce_dcqcn_attr_fast_recovery.attr.attr,
	&sroce_dcqcn_attr_rate_ai_mbps.attr.attr,
	&sroce_dcqcn_attr_rate_hai_mbps.attr.attr,
	&sroce_dcqcn_attr_rate_max_mbps.attr.attr,
	&sroce_dcqcn_attr_rate_min_mbps.attr.attr,
	NULL,
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	/* out of tree: enum rdma_driver_id has no entry for us; the provider
	 * matches the device by name (VERBS_NAME_MATCH)
	 */
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.alloc_dm = sroce_alloc_dm,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_mr = sroce_alloc_mr,
	.advise_mr = sroce_advise_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.alloc_xrcd = sroce_alloc_xrcd,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_dm = sroce_dealloc_dm,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dealloc_xrcd = sroce_dealloc_xrcd,
	.dereg_mr = sroce_dereg_mr,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.destroy_ah = sroce_ud_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.device_group = &sroce_dev_attr_group,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.fill_res_mr_entry = sroce_fill_res_mr_entry,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	SROCE_FILL_RES_SRQ_OP
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_sched_post_recv,
	.post_send = sroce_sched_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.query_ucontext = sroce_query_ucontext,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	SROCE_QUERY_PORT_SPEED_OP
	.reg_dm_mr = sroce_reg_dm_mr,
	.reg_user_mr = sroce_reg_user_mr,
	.reg_user_mr_dmabuf = sroce_reg_user_mr_dmabuf,
	.rereg_user_mr = sroce_rereg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.SROCE_RESIZE_CQ_OP = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
	SROCE_DMAH_OPS
	SROCE_COMP_CNTR_OPS
};

/**
 * sroce_init_ib_dev() - fill the ib_device fields that derive from the netdev
 * @sdev: device whose @ndev is set
 */
void sroce_init_ib_dev(struct sroce_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ib_dev;
	struct net_device *ndev = sdev->ndev;
	u8 mac[ETH_ALEN] = {};

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	/*
	 * Legacy write() commands the core only enables on request: the
	 * doorbells (a post with no WRs) and CQ arming.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	strscpy(ibdev->node_desc, SROCE_DRV_NAME, sizeof(ibdev->node_desc));
	if (ndev->addr_len == ETH_ALEN)
		ether_addr_copy(mac, ndev->dev_addr);
	sroce_eui64_from_mac((u8 *)&ibdev->node_guid, mac);
	/*
	 * Parent the RDMA device to the netdev's bus device (virtio-net's
	 * PCI function) so /sys/class/infiniband/X/device/net/ exists, as
	 * rdma-core's tools expect for a NIC-backed device.
	 */
	ibdev->dev.parent = ndev->dev.parent;
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	ibdev->driver_def = sroce_dm_uapi_defs;
	sroce_mr_init_dev(sdev);
	sroce_mw_init_dev(sdev);
	sroce_ah_init_dev(sdev);
}
