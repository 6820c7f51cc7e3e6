// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The steps of one planned transfer on one side. With I the initiator and
// T the target of the plan:
//   prepare   I: its SGEs hold the message (background for a READ or
//                an atomic)
//             T: its WRITE/READ/atomic region and RECV buffers are
//                filled (an atomic's region with its original value), the
//                RECV is posted
//   post      I: the work request (always signaled)
//   complete  I: the send completion, and a READ's data and guards, an
//                atomic's returned original value and guards
//             T: the RECV completion, its data (a WRITE with immediate:
//                the region, placed before the completion)
//   settle    T, once I reported its completion: a WRITE's region, that
//             a READ left its source intact, or that an atomic's region
//             holds the result of exactly one execution
// Every check throws Error with what is wrong (session.h adds the plan).
#pragma once

#include <infiniband/verbs.h>

#include "endpoint.h"
#include "plan.h"

namespace sroce::verify {

bool is_rdma(Op op);

void prepare_initiator(Endpoint &ep, const Plan &plan);
void prepare_target(Endpoint &ep, const Plan &plan);
void post_request(Endpoint &ep, const PeerInfo &peer, const Plan &plan);
void check_request(Endpoint &ep, const Plan &plan, const ibv_wc &wc);
void check_receive(Endpoint &ep, const Plan &plan, const ibv_wc &wc);
void settle_target(Endpoint &ep, const Plan &plan);

}  // namespace sroce::verify
