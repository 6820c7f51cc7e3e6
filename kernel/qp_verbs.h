/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qp_verbs.c: the QP verbs, above the scheduler and the roles
 */
#ifndef SROCE_QP_VERBS_H
#define SROCE_QP_VERBS_H

#include "qp.h"

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

#endif /* SROCE_QP_VERBS_H */
