// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "json.h"

#include <cassert>
#include <cstdio>

namespace sroce {

std::string json_quote(std::string_view s)
{
	std::string out;
	out.reserve(s.size() + 2);
	out += '"';
	for (char c : s) {
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\b': out += "\\b"; break;
		case '\f': out += "\\f"; break;
		case '\n': out += "\\n"; break;
		case '\r': out += "\\r"; break;
		case '\t': out += "\\t"; break;
		default:
			if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
				char buf[8];
				std::snprintf(buf, sizeof(buf), "\\u%04x",
					      static_cast<unsigned char>(c));
				out += buf;
			} else {
				out += c;
			}
		}
	}
	out += '"';
	return out;
}

void JsonWriter::separate()
{
	if (after_key_) {
		after_key_ = false;
		return;
	}
	if (!first_.empty()) {
		if (!first_.back())
			out_ += ',';
		first_.back() = false;
	}
}

JsonWriter &JsonWriter::begin_object()
{
	separate();
	out_ += '{';
	first_.push_back(true);
	return *this;
}

JsonWriter &JsonWriter::end_object()
{
	assert(!first_.empty() && !after_key_);
	first_.pop_back();
	out_ += '}';
	return *this;
}

JsonWriter &JsonWriter::begin_array()
{
	separate();
	out_ += '[';
	first_.push_back(true);
	return *this;
}

JsonWriter &JsonWriter::end_array()
{
	assert(!first_.empty() && !after_key_);
	first_.pop_back();
	out_ += ']';
	return *this;
}

JsonWriter &JsonWriter::key(std::string_view k)
{
	separate();
	out_ += json_quote(k);
	out_ += ':';
	after_key_ = true;
	return *this;
}

JsonWriter &JsonWriter::value(std::string_view s)
{
	separate();
	out_ += json_quote(s);
	return *this;
}

JsonWriter &JsonWriter::integer(std::int64_t n)
{
	separate();
	out_ += std::to_string(n);
	return *this;
}

JsonWriter &JsonWriter::unsigned_integer(std::uint64_t n)
{
	separate();
	out_ += std::to_string(n);
	return *this;
}

JsonWriter &JsonWriter::value(bool b)
{
	separate();
	out_ += b ? "true" : "false";
	return *this;
}

JsonWriter &JsonWriter::null()
{
	separate();
	out_ += "null";
	return *this;
}

std::string json_pretty(std::string_view in)
{
	std::string out;
	int depth = 0;
	bool in_string = false, escaped = false;
	auto newline = [&] { out += "\n" + std::string(static_cast<std::size_t>(depth) * 4, ' '); };
	for (std::size_t i = 0; i < in.size(); i++) {
		const char c = in[i];
		if (in_string) {
			out += c;
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
			continue;
		}
		switch (c) {
		case '"':
			in_string = true;
			out += c;
			break;
		case '{':
		case '[':
			out += c;
			if (i + 1 < in.size() && (in[i + 1] == '}' || in[i + 1] == ']')) {
				out += in[++i];
				break;
			}
			depth++;
			newline();
			break;
		case '}':
		case ']':
			depth--;
			newline();
			out += c;
			break;
		case ',':
			out += c;
			newline();
			break;
		case ':': out += ": "; break;
		default: out += c;
		}
	}
	return out;
}

}  // namespace sroce
