// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "pattern.h"

namespace sroce::verify {

void pattern_fill(std::span<uint8_t> dst, uint64_t key, uint64_t pos)
{
	uint64_t word = splitmix64(key + (pos >> 3));
	for (auto &b : dst) {
		b = static_cast<uint8_t>(word >> (8 * (pos & 7)));
		if ((++pos & 7) == 0)
			word = splitmix64(key + (pos >> 3));
	}
}

std::optional<size_t> pattern_mismatch(std::span<const uint8_t> buf, uint64_t key, uint64_t pos)
{
	uint64_t word = splitmix64(key + (pos >> 3));
	for (size_t i = 0; i < buf.size(); i++) {
		if (buf[i] != static_cast<uint8_t>(word >> (8 * (pos & 7))))
			return i;
		if ((++pos & 7) == 0)
			word = splitmix64(key + (pos >> 3));
	}
	return std::nullopt;
}

}  // namespace sroce::verify
