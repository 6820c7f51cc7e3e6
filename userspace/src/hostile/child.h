// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Running kernel-facing work in a forked child with a bound on the wait:
// a reproducer may leave its process spinning or blocked in the kernel
// (where no signal reaches it); the parent, which holds no device, still
// reports and exits.
#pragma once

#include <sys/types.h>

#include <functional>

namespace sroce::hostile {

// How a child ended; done == false: not (yet)
struct ChildEnd {
	bool done = false;
	bool signaled = false;
	int status = 0;	 // exit status or signal number
};

// Non-blocking look at @pid.
ChildEnd child_poll(pid_t pid);

// Wait for @pid until @secs have passed; SIGKILL it then, and wait 3 s
// more. done == false: it did not even die of SIGKILL.
ChildEnd child_wait(pid_t pid, double secs);

// fork(); the child runs @fn and _exits with its value (stdout flushed).
pid_t child_start(const std::function<int()> &fn);

// child_start + child_wait, the outcome printed. Return: the child's exit
// status; 1 if it died of a signal or did not end in time.
int run_bounded(const std::function<int()> &fn, double secs, const char *what);

}  // namespace sroce::hostile
