// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <cstdio>

#include "cases.h"

namespace sroce::hostile {

int run_case(const Options &o)
{
	if (o.case_name == "advise-dereg")
		return case_advise_dereg(o);
	if (o.case_name == "sq-prod-back")
		return case_sq_prod_back(o);
	if (o.case_name == "local-chain")
		return case_local_chain(o);
	if (o.case_name == "local-fanin")
		return case_local_fanin(o);
	if (o.case_name == "defer-destroy")
		return case_defer_destroy(o);
	if (o.case_name == "mcast-lid")
		return case_mcast_lid(o);
	std::fprintf(stderr, "unknown case '%s'\n", o.case_name.c_str());
	return 2;
}

}  // namespace sroce::hostile
