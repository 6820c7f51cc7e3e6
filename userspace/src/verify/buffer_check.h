// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Filling and checking the registered buffers of one side.
//
// A message is the byte stream pattern_byte(plan.data_key, k), k = 0..size-1,
// laid along an SGE list in list order. Everything else a transfer may not
// touch (the rest of a longer RECV, the kGuard bytes around every target
// SGE) holds the background pattern of its MR and must still hold it after.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoint.h"
#include "plan.h"

namespace sroce::verify {

// Background into every SGE of LIST and the kGuard bytes around each.
void fill_background(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list);

// Message bytes along LIST (from message offset 0).
void fill_message(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list);

// LIST must hold message bytes 0..MSG_LEN-1, then background; the guards
// around each SGE must hold background. WHAT names the list in the error.
std::optional<std::string> check_list(Endpoint &ep, const Plan &plan, const std::vector<Sge> &list,
				      uint64_t msg_len, std::string_view what);

// The guards around each SGE of LIST must hold background.
std::optional<std::string> check_guards(Endpoint &ep, const Plan &plan,
					const std::vector<Sge> &list, std::string_view what);

// The 8 bytes of SGE (an atomic's operand) must read EXPECT as a host-order
// word, its guards background.
std::optional<std::string> check_word(Endpoint &ep, const Plan &plan, const Sge &sge,
				      uint64_t expect, std::string_view what);

}  // namespace sroce::verify
