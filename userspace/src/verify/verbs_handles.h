// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// RAII owners of libibverbs objects.
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace sroce::verify {

template <auto Fn> struct VerbsDeleter {
	template <typename T> void operator()(T *p) const { (void)Fn(p); }
};

using DeviceListPtr = std::unique_ptr<ibv_device *, VerbsDeleter<ibv_free_device_list>>;
using ContextPtr = std::unique_ptr<ibv_context, VerbsDeleter<ibv_close_device>>;
using PdPtr = std::unique_ptr<ibv_pd, VerbsDeleter<ibv_dealloc_pd>>;
using CqPtr = std::unique_ptr<ibv_cq, VerbsDeleter<ibv_destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, VerbsDeleter<ibv_destroy_qp>>;
using MrPtr = std::unique_ptr<ibv_mr, VerbsDeleter<ibv_dereg_mr>>;

// Any setup failure: a verbs call, the TCP exchange, a timeout.
class Error : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// "what: strerror(errno)" as an Error.
[[noreturn]] void throw_errno(const std::string &what, int err);

// Open DEVICE (empty: the first device).
ContextPtr open_device(const std::string &device);

}  // namespace sroce::verify
