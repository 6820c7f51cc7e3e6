// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "gid.h"

#include <algorithm>
#include <cstdio>

namespace sroce {

namespace {

int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

}  // namespace

std::string format_gid(std::span<const std::uint8_t, 16> gid)
{
	std::string out;
	out.reserve(39);
	for (std::size_t i = 0; i < gid.size(); i += 2) {
		char group[6];
		std::snprintf(group, sizeof(group), "%s%02x%02x", i ? ":" : "", gid[i], gid[i + 1]);
		out += group;
	}
	return out;
}

std::optional<Gid> parse_gid(std::string_view text)
{
	while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
		text.remove_suffix(1);
	if (text.size() != 39)
		return std::nullopt;
	Gid gid{};
	for (std::size_t g = 0; g < 8; g++) {
		std::string_view group = text.substr(g * 5, 4);
		if (g < 7 && text[g * 5 + 4] != ':')
			return std::nullopt;
		unsigned v = 0;
		for (char c : group) {
			int h = hex_value(c);
			if (h < 0)
				return std::nullopt;
			v = v << 4 | static_cast<unsigned>(h);
		}
		gid[g * 2] = static_cast<std::uint8_t>(v >> 8);
		gid[g * 2 + 1] = static_cast<std::uint8_t>(v);
	}
	return gid;
}

bool is_zero_gid(std::span<const std::uint8_t, 16> gid)
{
	return std::all_of(gid.begin(), gid.end(), [](std::uint8_t b) { return b == 0; });
}

std::optional<std::string> gid_ipv4(std::span<const std::uint8_t, 16> gid)
{
	for (std::size_t i = 0; i < 10; i++)
		if (gid[i])
			return std::nullopt;
	if (gid[10] != 0xff || gid[11] != 0xff)
		return std::nullopt;
	char buf[16];
	std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", gid[12], gid[13], gid[14], gid[15]);
	return std::string(buf);
}

std::string format_guid(std::uint64_t guid)
{
	char buf[20];
	std::snprintf(
		buf, sizeof(buf), "%04x:%04x:%04x:%04x", static_cast<unsigned>(guid >> 48 & 0xffff),
		static_cast<unsigned>(guid >> 32 & 0xffff),
		static_cast<unsigned>(guid >> 16 & 0xffff), static_cast<unsigned>(guid & 0xffff));
	return buf;
}

}  // namespace sroce
