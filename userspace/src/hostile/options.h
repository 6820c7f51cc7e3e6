// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Command line of sroce-hostile.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace sroce::hostile {

struct Options {
	std::string dev;	// empty: the first device
	std::string case_name;	// empty: fuzz mode
	int gid_index = 1;	// the RoCEv2 IPv4 GID
	std::uint64_t seed = 1;
	std::uint64_t ops = 100000;
	unsigned threads = 4;
	unsigned secs = 60;	  // time bound of the fuzz mode
	unsigned rounds = 10;	  // advise-dereg
	unsigned qps = 64;	  // local-chain, local-fanin
	unsigned case_secs = 20;  // a case's own bound on waiting for the kernel
	// fuzz: never write a ring's producer index (a known defect is hit
	// within ~1000 ops otherwise: sq-prod-back; the provider's next post
	// moves an index we pushed forward back as well)
	bool avoid_producer = false;
};

void usage(std::FILE *f);
// false (and a message) on a bad command line; @help when -h was given
bool parse_options(int argc, char **argv, Options &o, bool &help);

}  // namespace sroce::hostile
