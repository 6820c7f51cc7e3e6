// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// One fuzzing child: its World and its threads.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "fuzz.h"
#include "ops.h"
#include "world.h"

namespace sroce::hostile {

int fuzz_child(const Options &o, const FuzzRun &run, FuzzShared &shared)
{
	World w;
	if (!world_build(w, o.dev, o.gid_index)) {
		std::printf("child: cannot open the device\n");
		return 3;
	}
	std::vector<std::thread> threads;
	for (unsigned t = 0; t < run.threads; t++)
		threads.emplace_back([&, t] {
			Ops ops(w, shared, o, sroce::verify::derive_key(run.seed, t, 1));
			while (shared.ops.fetch_add(1) < run.max_ops &&
			       std::chrono::steady_clock::now() < run.deadline)
				ops.step();
		});
	for (auto &t : threads)
		t.join();
	std::unique_lock lk(w.mu);
	w.clear();
	const std::string failed = destroy_failures();
	if (!failed.empty())
		std::printf("child: destroy verbs that failed (objects left to exit): %s\n",
			    failed.c_str());
	return 0;
}

}  // namespace sroce::hostile
