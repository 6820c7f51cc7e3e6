// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: device matching, device and context lifetime,
 * and registration with libibverbs.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

/*
 * The kernel registers its ib_devices with driver_id RDMA_DRIVER_UNKNOWN and
 * without a modalias, so libibverbs can only match them by name. The table
 * entry expands to an fnmatch() pattern on "rdma_device:N<ibdev name>".
 */
static const struct verbs_match_ent sroce_match_table[] = {
	VERBS_NAME_MATCH(SROCE_DEVICE_NAME_PREFIX, NULL),
	{},
};

/*
 * The name pattern above is loose ("*Nsroce*"); the fast path accepts only
 * the names the kernel module hands out by default: the prefix followed by
 * a decimal index.
 */
static bool sroce_name_is_ours(const char *name)
{
	size_t plen = strlen(SROCE_DEVICE_NAME_PREFIX);
	const char *p;

	if (strncmp(name, SROCE_DEVICE_NAME_PREFIX, plen))
		return false;
	p = name + plen;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/*
 * A device may have any name: `rdma link add NAME type sroce` takes the
 * user's, and a device moved into a container keeps its own. The kernel
 * module says what a device is in its hca_type attribute ("sroce"): a
 * device the name pattern does not claim is ours when that reads so.
 */
static bool sroce_hca_type_is_ours(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[16];
	int n;

	n = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "hca_type");
	if (n <= 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, SROCE_DEVICE_NAME_PREFIX);
}

static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	if (sysfs_dev->match && sroce_name_is_ours(sysfs_dev->ibdev_name))
		return true;
	if (!sroce_hca_type_is_ours(sysfs_dev))
		return false;
	sysfs_dev->match = &sroce_match_table[0];
	return true;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.free_context = sroce_free_context,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
#if SROCE_HAVE_QUERY_PORT_SPEED
	/* the port's bandwidth in 100 Mb/s: the kernel's answer (7.x) as it is */
	.query_port_speed = ibv_cmd_query_port_speed,
#endif
#if SROCE_HAVE_DMAH
	.alloc_dmah = sroce_alloc_dmah,
	.dealloc_dmah = sroce_dealloc_dmah,
	.reg_mr_ex = sroce_reg_mr_ex,
#endif
#if SROCE_HAVE_COMP_CNTR
	/* completion counters: the kernel's (7.x), one command per verb */
	.create_comp_cntr = sroce_create_comp_cntr,
	.destroy_comp_cntr = sroce_destroy_comp_cntr,
	.qp_attach_comp_cntr = sroce_qp_attach_comp_cntr,
	.query_comp_cntr_caps = ibv_cmd_query_comp_cntr_caps,
	.set_comp_cntr = ibv_cmd_set_comp_cntr,
	.set_err_comp_cntr = ibv_cmd_set_err_comp_cntr,
	.inc_comp_cntr = ibv_cmd_inc_comp_cntr,
	.inc_err_comp_cntr = ibv_cmd_inc_err_comp_cntr,
	.read_comp_cntr = ibv_cmd_read_comp_cntr,
	.read_err_comp_cntr = ibv_cmd_read_err_comp_cntr,
#endif
	.query_rt_values = sroce_query_rt_values,
	.alloc_mw = sroce_alloc_mw,
	.alloc_dm = sroce_alloc_dm,
	.free_dm = sroce_free_dm,
	.import_dm = sroce_import_dm,
	.unimport_dm = sroce_unimport_dm,
	.reg_dm_mr = sroce_reg_dm_mr,
	.import_pd = sroce_import_pd,
	.unimport_pd = sroce_unimport_pd,
	.import_mr = sroce_import_mr,
	.unimport_mr = sroce_unimport_mr,
	.attach_mcast = ibv_cmd_attach_mcast,
	.alloc_pd = sroce_alloc_pd,
	.bind_mw = sroce_bind_mw,
	.dealloc_mw = sroce_dealloc_mw,
	.detach_mcast = ibv_cmd_detach_mcast,
	.alloc_parent_domain = sroce_alloc_parent_domain,
	.rereg_mr = sroce_rereg_mr,
	.dealloc_pd = sroce_dealloc_pd,
	.create_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.reg_mr = sroce_reg_mr,
	.reg_dmabuf_mr = sroce_reg_dmabuf_mr,
	.dereg_mr = sroce_dereg_mr,
	.advise_mr = sroce_advise_mr,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.query_qp = sroce_query_qp,
	.modify_qp = sroce_modify_qp,
	.modify_qp_rate_limit = sroce_modify_qp_rate_limit,
	.destroy_qp = sroce_destroy_qp,
	.open_qp = sroce_open_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	.create_srq = sroce_create_srq,
	.modify_srq = sroce_modify_srq,
	.query_srq = sroce_query_srq,
	.destroy_srq = sroce_destroy_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.create_srq_ex = sroce_create_srq_ex,
	.get_srq_num = sroce_get_srq_num,
	.open_xrcd = sroce_open_xrcd,
	.close_xrcd = sroce_close_xrcd,
	/*
	 * Every op left NULL keeps libibverbs' default, which fails with
	 * EOPNOTSUPP.
	 */
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_get_context_resp resp;
	struct sroce_get_context cmd;
	struct sroce_context *ctx;
	int ret;

	(void)private_data;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
#if SROCE_HAVE_GET_CONTEXT_FD_ARR
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd), NULL,
				  &resp.ibv_resp, sizeof(resp));
#else
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
#endif
	if (ret) {
		sroce_dbg(&ctx->vctx.context, "alloc_context: the kernel refused: %s", strerror(ret));
		errno = ret;
		goto err;
	}

	if (resp.abi_version != SROCE_UVERBS_ABI_VERSION) {
		/* a setup error: logged as an error (VERBS_LOG_LEVEL >= 1) */
		sroce_err(&ctx->vctx.context,
			  "kernel returned uverbs ABI version %u, this provider supports only %u; rebuild/reload sroce.ko and libsroce together",
			  resp.abi_version, SROCE_UVERBS_ABI_VERSION);
		errno = EPROTONOSUPPORT;
		goto err;
	}
	ctx->caps = resp.caps;

	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	return &ctx->vctx;

err:
	/* Closes cmd_fd, which also tears down the kernel ucontext. */
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	return NULL;
}

/*
 * ibv_import_device(): a second ibv_context on a uverbs file (a dup()ed
 * cmd_fd) whose kernel context exists already, for ibv_import_pd, _mr and
 * _dm. The kernel context's caps are not known here: an imported context
 * has none (none are defined yet).
 */
static struct verbs_context *sroce_import_context(struct ibv_device *ibdev,
						  int cmd_fd)
{
	struct sroce_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	ret = ibv_cmd_query_context(&ctx->vctx.context, NULL);
	if (ret) {
		sroce_dbg(&ctx->vctx.context, "import_context: the kernel refused: %s", strerror(ret));
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	return &ctx->vctx;
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *dev;

	(void)sysfs_dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(to_sdev(&vdev->device));
}

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	/* libibverbs refuses the device if its uverbs ABI is out of range */
	.match_min_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
	.import_context = sroce_import_context,
};

PROVIDER_DRIVER(sroce, sroce_dev_ops);
