// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Result<T>: a value or a positive errno (C++20 has no std::expected).
//
// The error boundary of the C++ tools: the `sroce` CLI and what it is built
// from (netlink, sysfs, rendering) return Result and never throw, so every
// failure reaches main() as an errno and an exit status. sroce-verify's
// layers (src/verify/) throw Error or PeerFailure instead, caught once in
// verify_main.cc; the hostile tools (src/hostile/) report by exit status.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

namespace sroce {

struct Errno {
	int code;  // positive errno value
};

template <typename T> class Result {
public:
	Result(T value) : v_(std::move(value)) {}
	Result(Errno e) : v_(e) { assert(e.code > 0); }

	bool ok() const { return std::holds_alternative<T>(v_); }
	explicit operator bool() const { return ok(); }
	int error() const { return ok() ? 0 : std::get<Errno>(v_).code; }

	T &value() & { return std::get<T>(v_); }
	const T &value() const & { return std::get<T>(v_); }
	T &&value() && { return std::get<T>(std::move(v_)); }
	T *operator->() { return &value(); }
	const T *operator->() const { return &value(); }
	T &operator*() & { return value(); }
	const T &operator*() const & { return value(); }

private:
	std::variant<T, Errno> v_;
};

}  // namespace sroce
