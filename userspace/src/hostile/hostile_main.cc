// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-hostile: a hostile local process against sroce.ko: uverbs calls
// and writes into the mmapped rings. See Documentation/testing.rst
// (hostile-process fuzzer).
#include <cstdio>

#include "cases.h"
#include "fuzz.h"
#include "options.h"

int main(int argc, char **argv)
{
	using namespace sroce::hostile;
	Options o;
	bool help = false;

	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	if (!parse_options(argc, argv, o, help)) {
		usage(stderr);
		return 2;
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	if (!o.case_name.empty())
		return run_case(o);
	std::printf("fuzz: seed %llu, %llu ops, %u threads, at most %u s, device %s%s\n",
		    static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(o.ops),
		    o.threads, o.secs, o.dev.empty() ? "(first)" : o.dev.c_str(),
		    o.avoid_producer ? ", producer indices left alone" : "");
	return fuzz_main(o);
}
