// SPDX-License-Identifier: GPL-2.0
/*
 * dyndbg_refuse DEVICE: two calls sroce refuses, for 94-dyndbg.sh to find
 * the reasons logged:
 *   - ibv_create_qp() of an RC QP with max_send_wr 100000, above the
 *     device's max_qp_wr: the kernel refuses it (EINVAL), and with dynamic
 *     debug on says why in the kernel log;
 *   - ibv_post_recv() of a work request with 5 SGEs on a QP created with
 *     max_recv_sge 1 (in INIT): the provider refuses it (EINVAL), and with
 *     VERBS_LOG_LEVEL and VERBS_LOG_FILE says why in that file.
 * Prints each step; exits 0 when both were refused with EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 100000, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
	};
	struct ibv_sge sge[5] = {};
	struct ibv_recv_wr wr = { .sg_list = sge, .num_sge = 5 }, *bad;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		printf("FAIL: cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("FAIL: PD or CQ: %s\n", strerror(errno));
		return 1;
	}
	init.send_cq = cq;
	init.recv_cq = cq;

	errno = 0;
	qp = ibv_create_qp(pd, &init);
	if (qp) {
		printf("FAIL: create_qp with max_send_wr 100000 succeeded\n");
		ibv_destroy_qp(qp);
		rc = 1;
	} else if (errno != EINVAL) {
		printf("FAIL: create_qp with max_send_wr 100000: %s, expected EINVAL\n",
		       strerror(errno));
		rc = 1;
	} else {
		printf("create_qp with max_send_wr 100000: EINVAL\n");
	}

	init.cap.max_send_wr = 4;
	qp = ibv_create_qp(pd, &init);
	if (!qp) {
		printf("FAIL: create_qp with max_send_wr 4: %s\n", strerror(errno));
		return 1;
	}
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		printf("FAIL: modify_qp to INIT: %s\n", strerror(errno));
		return 1;
	}
	ret = ibv_post_recv(qp, &wr, &bad);
	if (ret != EINVAL) {
		printf("FAIL: post_recv of 5 SGEs with max_recv_sge %u: %s, expected EINVAL\n",
		       init.cap.max_recv_sge, ret ? strerror(ret) : "posted");
		rc = 1;
	} else {
		printf("post_recv of 5 SGEs with max_recv_sge %u: EINVAL\n",
		       init.cap.max_recv_sge);
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc;
}
