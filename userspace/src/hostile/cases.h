// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The targeted reproducers (--case NAME). Each returns the exit status:
// 0 the kernel coped, 1 failure, 4 skipped (reason on the last line).
#pragma once

#include "options.h"

namespace sroce::hostile {

int case_advise_dereg(const Options &o);
int case_sq_prod_back(const Options &o);
int case_local_chain(const Options &o);
int case_local_fanin(const Options &o);
int case_mcast_lid(const Options &o);
int case_defer_destroy(const Options &o);

// Runs the case @o.case_name; 2 for an unknown name.
int run_case(const Options &o);

}  // namespace sroce::hostile
