// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzz mode: a supervisor forks children that fuzz; each child builds
// a World and runs --threads threads of random operations on it (ops.cc).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "options.h"

namespace sroce::hostile {

// Shared between the supervisor and its children (MAP_SHARED memory).
struct FuzzShared {
	std::atomic<std::uint64_t> ops{0};  // operations started, all children
	std::atomic<std::uint64_t> reopens{0};
	std::atomic<std::uint64_t> forks{0};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct FuzzRun {
	std::uint64_t seed = 0;	 // this child's
	std::uint64_t max_ops = 0;
	unsigned threads = 1;
	std::chrono::steady_clock::time_point deadline;
};

struct World;

// One child: builds the world, runs the threads, tears everything down.
// Return: its exit status (0, or 3 when the device could not be opened).
int fuzz_child(const Options &o, const FuzzRun &run, FuzzShared &shared);

// The supervisor (mode 1). Return: the tool's exit status.
int fuzz_main(const Options &o);

}  // namespace sroce::hostile
