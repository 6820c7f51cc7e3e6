// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "wire.h"

#include <algorithm>

#include "verbs_handles.h"

namespace sroce::verify {

void WireWriter::u32(uint32_t v)
{
	for (int s = 24; s >= 0; s -= 8)
		buf_.push_back(static_cast<uint8_t>(v >> s));
}

void WireWriter::u64(uint64_t v)
{
	u32(static_cast<uint32_t>(v >> 32));
	u32(static_cast<uint32_t>(v));
}

void WireWriter::bytes(std::span<const uint8_t> b)
{
	buf_.insert(buf_.end(), b.begin(), b.end());
}

std::span<const uint8_t> WireReader::take(size_t n)
{
	if (buf_.size() < n)
		throw Error("peer message too short");
	auto head = buf_.first(n);
	buf_ = buf_.subspan(n);
	return head;
}

uint32_t WireReader::u32()
{
	uint32_t v = 0;
	for (uint8_t b : take(4))
		v = (v << 8) | b;
	return v;
}

uint64_t WireReader::u64()
{
	uint64_t hi = u32();
	return (hi << 32) | u32();
}

void WireReader::bytes(std::span<uint8_t> out)
{
	auto in = take(out.size());
	std::copy(in.begin(), in.end(), out.begin());
}

}  // namespace sroce::verify
