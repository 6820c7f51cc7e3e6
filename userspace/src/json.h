// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// A tiny streaming JSON writer: compact output, proper string escaping.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sroce {

// `s` as a JSON string literal, quotes included. Escapes '"', '\\' and all
// control characters (U+0000..U+001F, U+007F); other bytes, UTF-8 included,
// are copied as they are.
std::string json_quote(std::string_view s);

// A compact JSON document (JsonWriter's) re-indented for people, as `rdma
// -j -p` prints: one member or element a line, four spaces per level,
// "key": value; empty objects and arrays stay {} and []. Text outside the
// document (a trailing newline) is kept.
std::string json_pretty(std::string_view compact);

class JsonWriter {
public:
	JsonWriter &begin_object();
	JsonWriter &end_object();
	JsonWriter &begin_array();
	JsonWriter &end_array();
	JsonWriter &key(std::string_view k);
	JsonWriter &value(std::string_view s);
	JsonWriter &value(const char *s) { return value(std::string_view(s)); }
	template <std::integral T>
	requires(!std::same_as<T, bool>) JsonWriter &value(T n)
	{
		if constexpr (std::is_unsigned_v<T>)
			return unsigned_integer(static_cast<std::uint64_t>(n));
		else
			return integer(static_cast<std::int64_t>(n));
	}
	JsonWriter &value(bool b);
	JsonWriter &null();
	template <typename T> JsonWriter &value(const std::optional<T> &v)
	{
		return v ? value(*v) : null();
	}

	// The document so far; complete once every begin_* has its end_*.
	const std::string &str() const { return out_; }

private:
	JsonWriter &integer(std::int64_t n);
	JsonWriter &unsigned_integer(std::uint64_t n);
	void separate();

	std::string out_;
	std::vector<bool> first_;  // per open container: no element yet
	bool after_key_ = false;
};

}  // namespace sroce
