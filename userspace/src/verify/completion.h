// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Waiting for one completion and checking every field of it.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace sroce::verify {

struct ExpectedWc {
	uint64_t wr_id = 0;
	ibv_wc_opcode opcode = IBV_WC_SEND;
	uint32_t qp_num = 0;
	std::optional<uint32_t> byte_len;
	std::optional<uint32_t> imm;  // host order; nullopt: IBV_WC_WITH_IMM must be clear
	bool check_imm = false;	      // receive side: the flag is meaningful
};

// Poll CQ until one completion arrives or TIMEOUT passes; ABORT is asked
// now and then whether to stop waiting (the peer reported a failure).
// Throws Error on timeout or a poll error.
ibv_wc wait_completion(ibv_cq *cq, std::chrono::milliseconds timeout, const char *what,
		       const std::function<void()> &abort);

// nullopt if WC matches EXPECT, else what differs.
std::optional<std::string> check_completion(const ibv_wc &wc, const ExpectedWc &expect);

// Every field of WC, for an error message.
std::string wc_text(const ibv_wc &wc);

// "IBV_WC_RETRY_EXC_ERR": the enumerator's name, for scripts to match.
std::string wc_status_name(ibv_wc_status status);

// Error when CQ holds a completion nobody asked for.
std::optional<std::string> check_cq_empty(ibv_cq *cq, const char *what);

}  // namespace sroce::verify
