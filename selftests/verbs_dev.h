/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verbs_dev.h - what the selftests' small C verbs programs share
 * (dyndbg_refuse.c, xrc_open_qp.c)
 */
#ifndef SROCE_SELFTEST_VERBS_DEV_H
#define SROCE_SELFTEST_VERBS_DEV_H

#include <string.h>

#include <infiniband/verbs.h>

/* open the RDMA device called NAME; NULL if there is none or it fails */
static inline struct ibv_context *open_dev(const char *name)
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

#endif
