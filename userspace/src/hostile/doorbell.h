// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The raw doorbells of rdma-core-provider/qp.c: a legacy write() of
// POST_SEND (or POST_RECV) with no work requests on the uverbs command
// fd, which runs the QP's transport whatever the ring's flags say.
#pragma once

#include <infiniband/verbs.h>

namespace sroce::hostile {

// 0 or an errno
int sq_doorbell(ibv_qp *qp);
int rq_doorbell(ibv_qp *qp);

}  // namespace sroce::hostile
