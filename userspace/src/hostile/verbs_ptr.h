// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Owning pointers for libibverbs objects: each destroys its object with
// the matching verb (failures ignored: a hostile run expects some).
#pragma once

#include <infiniband/verbs.h>

#include <memory>

namespace sroce::hostile {

template <typename T, int (*Destroy)(T *)> struct VerbsDeleter {
	void operator()(T *p) const { (void)Destroy(p); }
};

inline int destroy_mw(ibv_mw *mw) { return ibv_dealloc_mw(mw); }
inline int destroy_dm(ibv_dm *dm) { return ibv_free_dm(dm); }

using ContextPtr = std::unique_ptr<ibv_context, VerbsDeleter<ibv_context, ibv_close_device>>;
using PdPtr = std::unique_ptr<ibv_pd, VerbsDeleter<ibv_pd, ibv_dealloc_pd>>;
using CqPtr = std::unique_ptr<ibv_cq, VerbsDeleter<ibv_cq, ibv_destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, VerbsDeleter<ibv_qp, ibv_destroy_qp>>;
using MrPtr = std::unique_ptr<ibv_mr, VerbsDeleter<ibv_mr, ibv_dereg_mr>>;
using SrqPtr = std::unique_ptr<ibv_srq, VerbsDeleter<ibv_srq, ibv_destroy_srq>>;
using AhPtr = std::unique_ptr<ibv_ah, VerbsDeleter<ibv_ah, ibv_destroy_ah>>;
using MwPtr = std::unique_ptr<ibv_mw, VerbsDeleter<ibv_mw, destroy_mw>>;
using DmPtr = std::unique_ptr<ibv_dm, VerbsDeleter<ibv_dm, destroy_dm>>;
using ChannelPtr =
	std::unique_ptr<ibv_comp_channel, VerbsDeleter<ibv_comp_channel, ibv_destroy_comp_channel>>;

}  // namespace sroce::hostile
