// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The fuzz mode's supervisor: forks a child per generation (seed derived
// from --seed and the generation), restarts the next one when a child
// dies of a signal (the provider may fault on a ring we scribbled on),
// and counts the operations of all of them in shared memory.
#include <signal.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>

#include "child.h"
#include "fuzz.h"
#include "verify/rng.h"

namespace sroce::hostile {

namespace {

// The shared counters, in memory the children inherit as shared.
class SharedPage {
public:
	SharedPage()
	{
		void *p = mmap(nullptr, sizeof(FuzzShared), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			shared_ = ::new (p) FuzzShared;
	}
	~SharedPage()
	{
		if (shared_) {
			shared_->~FuzzShared();
			munmap(shared_, sizeof(FuzzShared));
		}
	}
	SharedPage(const SharedPage &) = delete;
	SharedPage &operator=(const SharedPage &) = delete;
	FuzzShared *get() const { return shared_; }

private:
	FuzzShared *shared_ = nullptr;
};

}  // namespace

int fuzz_main(const Options &o)
{
	using clock = std::chrono::steady_clock;
	SharedPage page;
	FuzzShared *shared = page.get();
	if (!shared) {
		std::printf("mmap: %s\n", std::strerror(errno));
		return 1;
	}
	const auto t0 = clock::now();
	const auto deadline = t0 + std::chrono::seconds(o.secs);
	std::map<int, unsigned> deaths;	 // signal -> children
	unsigned children = 0, stuck = 0, failed = 0;
	std::uint64_t gen = 0;

	while (shared->ops.load() < o.ops && clock::now() < deadline) {
		FuzzRun run;
		run.seed = sroce::verify::derive_key(o.seed, gen, 0);
		run.max_ops = o.ops;
		run.threads = o.threads;
		run.deadline = deadline;
		const std::uint64_t before = shared->ops.load();
		const pid_t pid = child_start([&] { return fuzz_child(o, run, *shared); });
		if (pid < 0) {
			std::printf("fork: %s\n", std::strerror(errno));
			return 1;
		}
		children++;
		// the child ends by the deadline; beyond that it is stuck
		const double left = std::chrono::duration<double>(deadline - clock::now()).count();
		const ChildEnd e = child_wait(pid, left + 30);
		const std::uint64_t ops = shared->ops.load() - before;
		if (!e.done) {
			std::printf(
				"child %llu (seed %llu): did not end 30 s after the time bound, "
				"not even of SIGKILL: stuck in the kernel after %llu ops\n",
				static_cast<unsigned long long>(gen),
				static_cast<unsigned long long>(run.seed),
				static_cast<unsigned long long>(ops));
			stuck++;
			break;
		}
		if (e.signaled) {
			deaths[e.status]++;
			std::printf("child %llu (seed %llu): %s after %llu ops%s\n",
				    static_cast<unsigned long long>(gen),
				    static_cast<unsigned long long>(run.seed), strsignal(e.status),
				    static_cast<unsigned long long>(ops),
				    e.status == SIGKILL ? " (killed at the time bound + 30 s)"
							: "");
			if (e.status == SIGKILL)
				stuck++;
		} else if (e.status != 0) {
			std::printf("child %llu (seed %llu): exit status %d\n",
				    static_cast<unsigned long long>(gen),
				    static_cast<unsigned long long>(run.seed), e.status);
			failed++;
			if (e.status == 3)
				break;	// no device: the next one would not fare better
		}
		gen++;
	}
	const double secs = std::chrono::duration<double>(clock::now() - t0).count();
	std::string sigs;
	for (const auto &[sig, n] : deaths) {
		// appended piece by piece: gcc 12's -Wrestrict misfires at -O3
		// on a chain of std::string operator+ (GCC PR 105329)
		sigs += ' ';
		sigs += std::to_string(n);
		sigs += 'x';
		sigs += sigabbrev_np(sig);
	}
	std::printf(
		"seed %llu: %llu ops in %.1f s, %u children (died of a signal:%s), "
		"%llu forks, %llu reopens\n",
		static_cast<unsigned long long>(o.seed),
		static_cast<unsigned long long>(std::min<std::uint64_t>(shared->ops.load(), o.ops)),
		secs, children, sigs.empty() ? " none" : sigs.c_str(),
		static_cast<unsigned long long>(shared->forks.load()),
		static_cast<unsigned long long>(shared->reopens.load()));
	return stuck || failed ? 1 : 0;
}

}  // namespace sroce::hostile
