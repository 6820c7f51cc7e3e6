/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ah.c: address handles and the paths of QPs and AHs
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include "qp.h"

int sroce_path_from_ah_attr(const struct rdma_ah_attr *ah, const struct net_device *ndev,
			    struct sroce_path *path, const char **why);
u32 sroce_ah_id(struct ib_ah *ibah);
bool sroce_ah_path(struct sroce_dev *sdev, struct ib_pd *pd, u32 id,
		   struct sroce_path *path);
void sroce_ah_init_dev(struct sroce_dev *sdev);
void sroce_ah_cleanup_dev(struct sroce_dev *sdev);
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);

#endif /* SROCE_AH_H */
