// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Owning pointers for libibverbs objects: each destroys its object with
// the matching verb (failures ignored: a hostile run expects some).
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <string>

namespace sroce::hostile {

// Failed destroy verbs, counted by object type (the object is forgotten:
// a failed destroy leaves it, and its ring mappings, to the process's exit).
void note_destroy_failure(const char *type, int err);
// "qp: 2 (EBUSY)..." or "" when none failed
std::string destroy_failures();

template <typename T, int (*Destroy)(T *)> struct VerbsDeleter {
	void operator()(T *p) const
	{
		if (const int err = Destroy(p))
			note_destroy_failure(type_name(), err);
	}
	static const char *type_name();
};

inline int destroy_mw(ibv_mw *mw)
{
	return ibv_dealloc_mw(mw);
}
inline int destroy_dm(ibv_dm *dm)
{
	return ibv_free_dm(dm);
}

template <> inline const char *VerbsDeleter<ibv_context, ibv_close_device>::type_name()
{
	return "context";
}
template <> inline const char *VerbsDeleter<ibv_pd, ibv_dealloc_pd>::type_name()
{
	return "pd";
}
template <> inline const char *VerbsDeleter<ibv_cq, ibv_destroy_cq>::type_name()
{
	return "cq";
}
template <> inline const char *VerbsDeleter<ibv_qp, ibv_destroy_qp>::type_name()
{
	return "qp";
}
template <> inline const char *VerbsDeleter<ibv_mr, ibv_dereg_mr>::type_name()
{
	return "mr";
}
template <> inline const char *VerbsDeleter<ibv_srq, ibv_destroy_srq>::type_name()
{
	return "srq";
}
template <> inline const char *VerbsDeleter<ibv_ah, ibv_destroy_ah>::type_name()
{
	return "ah";
}
template <> inline const char *VerbsDeleter<ibv_mw, destroy_mw>::type_name()
{
	return "mw";
}
template <> inline const char *VerbsDeleter<ibv_dm, destroy_dm>::type_name()
{
	return "dm";
}
template <> inline const char *VerbsDeleter<ibv_comp_channel, ibv_destroy_comp_channel>::type_name()
{
	return "comp_channel";
}

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
