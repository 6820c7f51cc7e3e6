// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce userspace provider: objects of another ibv_context on the same
 * uverbs file (ibv_import_device on a dup()ed cmd_fd, then ibv_import_pd,
 * ibv_import_mr; ibv_import_dm is in dm.c). The kernel objects stay with
 * their owner: an imported object is the provider's view of a handle, and
 * unimporting frees only that view. A PD has nothing the provider needs
 * besides its handle, so importing one asks nothing of the kernel; a bad
 * handle fails in the kernel at first use.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sroce.h"

struct ibv_pd *sroce_import_pd(struct ibv_context *ibctx, uint32_t pd_handle)
{
	struct sroce_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibv_pd.context = ibctx;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

void sroce_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_spd(ibpd));
}

/* The kernel says what the MR is (keys, length): UVERBS_METHOD_QUERY_MR */
struct ibv_mr *sroce_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (ret) {
		sroce_dbg(pd->context, "import_mr: the kernel refused handle %u: %s", mr_handle,
			  strerror(ret));
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

void sroce_unimport_mr(struct ibv_mr *ibmr)
{
	free(verbs_get_mr(ibmr));
}
