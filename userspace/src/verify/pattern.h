// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Byte patterns: byte N of the stream KEY is a pure function of (KEY, N), so
// a checker can tell where a misplaced byte should have been.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace sroce::verify {

constexpr uint8_t pattern_byte(uint64_t key, uint64_t pos);

// Fill DST with bytes POS.. of stream KEY.
void pattern_fill(std::span<uint8_t> dst, uint64_t key, uint64_t pos);

// Index into BUF of the first byte that differs from stream KEY from POS on.
std::optional<size_t> pattern_mismatch(std::span<const uint8_t> buf, uint64_t key, uint64_t pos);

}  // namespace sroce::verify

#include "rng.h"

constexpr uint8_t sroce::verify::pattern_byte(uint64_t key, uint64_t pos)
{
	return static_cast<uint8_t>(splitmix64(key + (pos >> 3)) >> (8 * (pos & 7)));
}
