// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "options.h"

#include <charconv>
#include <string_view>

namespace sroce::hostile {

void usage(std::FILE *f)
{
	std::fputs("usage: sroce-hostile [--dev NAME] [--gid-index N] [--seed N] [--ops N]\n"
		   "                     [--threads N] [--secs N] [--avoid producer]\n"
		   "       sroce-hostile --case NAME [--dev NAME] [--rounds N] [--qps N]\n"
		   "                     [--case-secs N]\n"
		   "A hostile local process: uverbs calls racing on the same objects and\n"
		   "arbitrary writes into the device's mmapped rings (fuzz mode, seeded,\n"
		   "in forked children restarted when one dies of a signal), or one\n"
		   "deterministic reproducer (--case):\n"
		   "  advise-dereg   ibv_advise_mr prefetch of a cold 1 GiB ODP MR vs dereg\n"
		   "                 (every other round through an implicit MR, if offered)\n"
		   "  sq-prod-back   SQ producer moved back below what the kernel fetched\n"
		   "  local-chain    QPs sending to each other in a ring and a chain\n"
		   "  local-fanin    QPs all sending to one QP\n"
		   "  mcast-lid      a UD QP attached to one group with two LIDs, detached\n"
		   "  defer-destroy  RC pairs destroyed mid-burst, deferred doorbell rounds,\n"
		   "                 paced rounds and timers still queued (two threads)\n"
		   "Exit: 0 ok, 1 failure, 2 usage, 4 skipped (the reason on the last line).\n",
		   f);
}

namespace {

template <typename T> bool parse_num(std::string_view s, T &v)
{
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
	return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

bool parse_options(int argc, char **argv, Options &o, bool &help)
{
	help = false;
	for (int i = 1; i < argc; i++) {
		const std::string_view a = argv[i];
		if (a == "-h" || a == "--help") {
			help = true;
			return true;
		}
		if (i + 1 >= argc) {
			std::fprintf(stderr, "%s: needs a value\n", argv[i]);
			return false;
		}
		const std::string_view v = argv[++i];
		bool ok = true;
		if (a == "--dev")
			o.dev = v;
		else if (a == "--case")
			o.case_name = v;
		else if (a == "--gid-index")
			ok = parse_num(v, o.gid_index);
		else if (a == "--seed")
			ok = parse_num(v, o.seed);
		else if (a == "--ops")
			ok = parse_num(v, o.ops);
		else if (a == "--threads")
			ok = parse_num(v, o.threads) && o.threads > 0 && o.threads <= 64;
		else if (a == "--secs")
			ok = parse_num(v, o.secs) && o.secs > 0;
		else if (a == "--rounds")
			ok = parse_num(v, o.rounds) && o.rounds > 0;
		else if (a == "--qps")
			ok = parse_num(v, o.qps) && o.qps >= 2 && o.qps <= 4096;
		else if (a == "--avoid")
			ok = v == "producer" && (o.avoid_producer = true);
		else if (a == "--case-secs")
			ok = parse_num(v, o.case_secs) && o.case_secs > 0;
		else {
			std::fprintf(stderr, "unknown option %s\n", argv[i - 1]);
			return false;
		}
		if (!ok) {
			std::fprintf(stderr, "%s: bad value '%s'\n", argv[i - 1], argv[i]);
			return false;
		}
	}
	return true;
}

}  // namespace sroce::hostile
