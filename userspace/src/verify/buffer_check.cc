// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "buffer_check.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "pattern.h"

namespace sroce::verify {

namespace {

struct Range {
	uint64_t begin, end;
};

Range guarded(const Sge &s, uint64_t mr_len)
{
	return {s.offset >= kGuard ? s.offset - kGuard : 0,
		std::min<uint64_t>(s.offset + s.length + kGuard, mr_len)};
}

bool covered(const std::vector<Sge> &list, uint32_t mr, uint64_t off)
{
	return std::any_of(list.begin(), list.end(), [&](const Sge &s) {
		return s.mr == mr && off >= s.offset && off < s.offset + s.length;
	});
}

std::string hex(uint64_t v)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
	return buf;
}

std::string byte_hex(uint8_t v)
{
	char buf[8];
	std::snprintf(buf, sizeof(buf), "0x%02x", v);
	return buf;
}

std::string sge_name(const std::vector<Sge> &list, size_t i)
{
	const Sge &s = list[i];
	return "SGE " + std::to_string(i) + "/" + std::to_string(list.size()) + " mr" +
	       std::to_string(s.mr) + "+" + hex(s.offset) + "/" + std::to_string(s.length);
}

}  // namespace

void fill_background(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list)
{
	for (const Sge &s : list) {
		auto mem = ep.bytes(s.mr);
		Range r = guarded(s, mem.size());
		pattern_fill(mem.subspan(r.begin, r.end - r.begin), background_key(plan, s.mr),
			     r.begin);
	}
}

void fill_message(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list)
{
	uint64_t pos = 0;
	for (const Sge &s : list) {
		pattern_fill(ep.bytes(s.mr).subspan(s.offset, s.length), plan.data_key, pos);
		pos += s.length;
	}
}

std::optional<std::string> check_list(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list,
				      uint64_t msg_len, std::string_view what)
{
	uint64_t pos = 0;
	for (size_t i = 0; i < list.size(); i++) {
		const Sge &s = list[i];
		auto mem = ep.bytes(s.mr);
		uint64_t data = pos < msg_len ? std::min<uint64_t>(s.length, msg_len - pos) : 0;
		auto got = mem.subspan(s.offset, data);
		if (auto bad = pattern_mismatch(got, plan.data_key, pos)) {
			size_t nbad = 0;
			for (size_t k = 0; k < got.size(); k++)
				nbad += got[k] != pattern_byte(plan.data_key, pos + k);
			return "data mismatch at message offset " + std::to_string(pos + *bad) +
			       " of " + std::to_string(msg_len) + " in " + std::string(what) + " " +
			       sge_name(list, i) + " byte " + std::to_string(*bad) + ": expected " +
			       byte_hex(pattern_byte(plan.data_key, pos + *bad)) + ", got " +
			       byte_hex(got[*bad]) + " (" + std::to_string(nbad) + " of " +
			       std::to_string(got.size()) + " bytes of this SGE differ)";
		}
		uint64_t bkey = background_key(plan, s.mr);
		auto rest = mem.subspan(s.offset + data, s.length - data);
		if (auto bad = pattern_mismatch(rest, bkey, s.offset + data))
			return "byte past the message end overwritten in " + std::string(what) +
			       " " + sge_name(list, i) + " byte " + std::to_string(data + *bad) +
			       " (message length " + std::to_string(msg_len) + "): expected " +
			       byte_hex(pattern_byte(bkey, s.offset + data + *bad)) + ", got " +
			       byte_hex(rest[*bad]);
		pos += s.length;
	}
	return check_guards(ep, plan, list, what);
}

std::optional<std::string> check_guards(Endpoint &ep, const Plan &plan,
					const std::vector<Sge> &list, std::string_view what)
{
	for (size_t i = 0; i < list.size(); i++) {
		const Sge &s = list[i];
		auto mem = ep.bytes(s.mr);
		Range r = guarded(s, mem.size());
		uint64_t bkey = background_key(plan, s.mr);
		for (uint64_t off = r.begin; off < r.end; off++) {
			if (off == s.offset) {
				off += s.length;
				if (off >= r.end)
					break;
			}
			if (mem[off] == pattern_byte(bkey, off) || covered(list, s.mr, off))
				continue;
			int64_t rel = off < s.offset
					      ? static_cast<int64_t>(off - s.offset)
					      : static_cast<int64_t>(off - s.offset - s.length);
			return "byte outside the transfer overwritten at mr" +
			       std::to_string(s.mr) + "+" + hex(off) + " (" +
			       std::to_string(rel < 0 ? -rel : rel + 1) +
			       (rel < 0 ? " before the start" : " after the end") + " of " +
			       std::string(what) + " " + sge_name(list, i) + "): expected " +
			       byte_hex(pattern_byte(bkey, off)) + ", got " + byte_hex(mem[off]);
		}
	}
	return std::nullopt;
}

std::optional<std::string> check_word(Endpoint &ep, const Plan &plan, const Sge &sge,
				      uint64_t expect, std::string_view what)
{
	uint64_t got;
	std::memcpy(&got, ep.bytes(sge.mr).subspan(sge.offset, sizeof(got)).data(), sizeof(got));
	if (got != expect) {
		std::string why = "wrong value in " + std::string(what) + " " + sge_name({sge}, 0) +
				  ": expected " + hex(expect) + ", got " + hex(got);
		if (plan.op == Op::FetchAdd && got == expect + plan.compare_add)
			why += " (" + hex(got - expect) + " too much: the addition ran once more)";
		return why;
	}
	return check_guards(ep, plan, {sge}, what);
}

}  // namespace sroce::verify
