/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcqcn.c: DCQCN congestion control (Documentation/datapath.rst)
 */
#ifndef SROCE_DCQCN_H
#define SROCE_DCQCN_H

#include "qp.h"

void sroce_dcqcn_dev_init(struct sroce_dev *sdev);
void sroce_dcqcn_init_qp(struct sroce_qp *qp);
void sroce_dcqcn_start(struct sroce_qp *qp);
void sroce_dcqcn_stop(struct sroce_qp *qp);
void sroce_dcqcn_cancel(struct sroce_qp *qp);
bool sroce_dcqcn_armed(struct sroce_qp *qp);
/* Does the requester's pacer run for @qp (DCQCN on, or a rate limit)? */
static inline bool sroce_pacer_on(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	return qp->dcqcn.on || qp->dcqcn.rl;
}

bool sroce_dcqcn_may_send(struct sroce_qp *qp);
void sroce_dcqcn_set_rate_limit(struct sroce_qp *qp, u32 kbps);
void sroce_dcqcn_sent(struct sroce_qp *qp, u32 bytes);
void sroce_dcqcn_np_rx(struct sroce_qp *qp, const struct sk_buff *skb);
void sroce_dcqcn_cnp_rx(struct sroce_qp *qp, const struct sk_buff *skb);

#endif /* SROCE_DCQCN_H */
