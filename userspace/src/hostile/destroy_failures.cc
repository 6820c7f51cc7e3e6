// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "verbs_ptr.h"

namespace sroce::hostile {

namespace {

std::mutex failures_mu;
std::map<std::pair<std::string, int>, unsigned> failures;

}  // namespace

void note_destroy_failure(const char *type, int err)
{
	std::lock_guard lk(failures_mu);
	failures[{type, err}]++;
}

std::string destroy_failures()
{
	std::lock_guard lk(failures_mu);
	std::string out;
	for (const auto &[key, n] : failures) {
		if (!out.empty())
			out += ", ";
		out += key.first + " " + std::to_string(n) + "x " +
		       (key.second > 0 ? strerrorname_np(key.second) : std::to_string(key.second));
	}
	return out;
}

}  // namespace sroce::hostile
