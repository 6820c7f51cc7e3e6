// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "child.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace sroce::hostile {

ChildEnd child_poll(pid_t pid)
{
	ChildEnd e;
	int st = 0;

	if (waitpid(pid, &st, WNOHANG) != pid)
		return e;
	e.done = true;
	if (WIFSIGNALED(st)) {
		e.signaled = true;
		e.status = WTERMSIG(st);
	} else {
		e.status = WEXITSTATUS(st);
	}
	return e;
}

ChildEnd child_wait(pid_t pid, double secs)
{
	using clock = std::chrono::steady_clock;
	auto deadline = clock::now() + std::chrono::duration<double>(secs);
	bool killed = false;

	for (;;) {
		ChildEnd e = child_poll(pid);
		if (e.done)
			return e;
		if (clock::now() >= deadline) {
			if (killed)
				return e;
			kill(pid, SIGKILL);
			killed = true;
			deadline = clock::now() + std::chrono::seconds(3);
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
}

pid_t child_start(const std::function<int()> &fn)
{
	std::fflush(stdout);
	std::fflush(stderr);
	const pid_t pid = fork();
	if (pid == 0) {
		const int rc = fn();
		std::fflush(stdout);
		std::fflush(stderr);
		_exit(rc);
	}
	return pid;
}

int run_bounded(const std::function<int()> &fn, double secs, const char *what)
{
	const pid_t pid = child_start(fn);
	if (pid < 0) {
		std::printf("%s: fork: %s\n", what, std::strerror(errno));
		return 1;
	}
	const ChildEnd e = child_wait(pid, secs);
	if (!e.done) {
		std::printf("%s: FAILED: not finished within %.0f s and not even dead 3 s after "
			    "SIGKILL: stuck in the kernel (pid %d left behind)\n",
			    what, secs, static_cast<int>(pid));
		return 1;
	}
	if (e.signaled) {
		std::printf("%s: FAILED: %s after %s\n", what, strsignal(e.status),
			    e.status == SIGKILL ? "the time limit" : "a fault");
		return 1;
	}
	return e.status;
}

}  // namespace sroce::hostile
