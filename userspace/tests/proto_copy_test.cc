// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The word-move copy of the protocol core (kernel/proto/sroce_copy.c),
// the alternative to memcpy() the kernel measures at load.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "sroce_copy.h"

namespace {

TEST(CopyWords, EqualsMemcpyAtEveryAlignmentAndLength)
{
	std::mt19937 rng(11);
	std::vector<std::uint8_t> src(600), dst(600), ref(600);
	for (auto &b : src)
		b = static_cast<std::uint8_t>(rng());
	for (size_t so = 0; so < 8; so++) {
		for (size_t doff = 0; doff < 8; doff++) {
			for (size_t len = 0; len <= 300; len++) {
				std::memset(dst.data(), 0xa5, dst.size());
				std::memset(ref.data(), 0xa5, ref.size());
				sroce_copy_words(dst.data() + doff, src.data() + so, len);
				std::memcpy(ref.data() + doff, src.data() + so, len);
				// nothing before or after the range is touched either
				ASSERT_EQ(dst, ref) << so << " " << doff << " " << len;
			}
		}
	}
}

}  // namespace
