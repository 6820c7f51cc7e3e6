// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Deterministic randomness: both peers derive the same choices from a seed.
#pragma once

#include <cstdint>

namespace sroce::verify {

constexpr uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// A key for one purpose of one iteration: mix(seed, iteration, purpose).
constexpr uint64_t derive_key(uint64_t seed, uint64_t iteration, uint64_t purpose)
{
	return splitmix64(splitmix64(seed ^ splitmix64(iteration)) + purpose);
}

// xoshiro256** seeded through splitmix64.
class Rng {
public:
	explicit Rng(uint64_t seed)
	{
		for (auto &w : s_) {
			seed += 0x9e3779b97f4a7c15ull;
			w = splitmix64(seed);
		}
	}
	uint64_t next()
	{
		const uint64_t r = rotl(s_[1] * 5, 7) * 9;
		const uint64_t t = s_[1] << 17;
		s_[2] ^= s_[0];
		s_[3] ^= s_[1];
		s_[1] ^= s_[2];
		s_[0] ^= s_[3];
		s_[2] ^= t;
		s_[3] = rotl(s_[3], 45);
		return r;
	}
	// uniform in [0, n), n > 0 (the tiny modulo bias does not matter here)
	uint64_t below(uint64_t n) { return next() % n; }
	// uniform in [lo, hi]
	uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
	bool chance(unsigned percent) { return below(100) < percent; }

private:
	static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
	uint64_t s_[4];
};

}  // namespace sroce::verify
