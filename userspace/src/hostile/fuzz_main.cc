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

// What became of the children
struct Tally {
	std::map<int, unsigned> deaths;	 // signal -> children
	unsigned children = 0, stuck = 0, failed = 0;
};

// Report how child gen (seed, ops operations) ended; false: stop forking
bool child_ended(const ChildEnd &e, std::uint64_t gen, std::uint64_t seed, std::uint64_t ops,
		 Tally &t)
{
	const auto g = static_cast<unsigned long long>(gen);
	const auto s = static_cast<unsigned long long>(seed);
	const auto n = static_cast<unsigned long long>(ops);
	if (!e.done) {
		std::printf("child %llu (seed %llu): did not end 30 s after the time bound, "
			    "not even of SIGKILL: stuck in the kernel after %llu ops\n",
			    g, s, n);
		t.stuck++;
		return false;
	}
	if (e.signaled) {
		t.deaths[e.status]++;
		std::printf("child %llu (seed %llu): %s after %llu ops%s\n", g, s,
			    strsignal(e.status), n,
			    e.status == SIGKILL ? " (killed at the time bound + 30 s)" : "");
		if (e.status == SIGKILL)
			t.stuck++;
	} else if (e.status != 0) {
		std::printf("child %llu (seed %llu): exit status %d\n", g, s, e.status);
		t.failed++;
		if (e.status == 3)
			return false;  // no device: the next one would not fare better
	}
	return true;
}

void print_summary(const Options &o, const FuzzShared &shared, double secs, const Tally &t)
{
	std::string sigs;
	for (const auto &[sig, n] : t.deaths) {
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
		static_cast<unsigned long long>(std::min<std::uint64_t>(shared.ops.load(), o.ops)),
		secs, t.children, sigs.empty() ? " none" : sigs.c_str(),
		static_cast<unsigned long long>(shared.forks.load()),
		static_cast<unsigned long long>(shared.reopens.load()));
}

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
	Tally t;
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
		t.children++;
		// the child ends by the deadline; beyond that it is stuck
		const double left = std::chrono::duration<double>(deadline - clock::now()).count();
		const ChildEnd e = child_wait(pid, left + 30);
		if (!child_ended(e, gen, run.seed, shared->ops.load() - before, t))
			break;
		gen++;
	}
	print_summary(o, *shared, std::chrono::duration<double>(clock::now() - t0).count(), t);
	return t.stuck || t.failed ? 1 : 0;
}

}  // namespace sroce::hostile
