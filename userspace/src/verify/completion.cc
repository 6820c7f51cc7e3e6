// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "completion.h"

#include <arpa/inet.h>

#include <cstdio>
#include <iterator>
#include <thread>

#include "verbs_handles.h"

namespace sroce::verify {

namespace {

constexpr const char *kStatusNames[] = {
	"IBV_WC_SUCCESS",
	"IBV_WC_LOC_LEN_ERR",
	"IBV_WC_LOC_QP_OP_ERR",
	"IBV_WC_LOC_EEC_OP_ERR",
	"IBV_WC_LOC_PROT_ERR",
	"IBV_WC_WR_FLUSH_ERR",
	"IBV_WC_MW_BIND_ERR",
	"IBV_WC_BAD_RESP_ERR",
	"IBV_WC_LOC_ACCESS_ERR",
	"IBV_WC_REM_INV_REQ_ERR",
	"IBV_WC_REM_ACCESS_ERR",
	"IBV_WC_REM_OP_ERR",
	"IBV_WC_RETRY_EXC_ERR",
	"IBV_WC_RNR_RETRY_EXC_ERR",
	"IBV_WC_LOC_RDD_VIOL_ERR",
	"IBV_WC_REM_INV_RD_REQ_ERR",
	"IBV_WC_REM_ABORT_ERR",
	"IBV_WC_INV_EECN_ERR",
	"IBV_WC_INV_EEC_STATE_ERR",
	"IBV_WC_FATAL_ERR",
	"IBV_WC_RESP_TIMEOUT_ERR",
	"IBV_WC_GENERAL_ERR",
	"IBV_WC_TM_ERR",
	"IBV_WC_TM_RNDV_INCOMPLETE",
};
static_assert(IBV_WC_RETRY_EXC_ERR == 12 && IBV_WC_TM_ERR == 22);

}  // namespace

std::string wc_text(const ibv_wc &wc)
{
	char buf[320];
	std::snprintf(buf, sizeof(buf),
		      "{status %s (%s, %d), opcode %d, wr_id 0x%llx, byte_len %u, qp_num %u, "
		      "wc_flags 0x%x, imm_data 0x%08x}",
		      wc_status_name(wc.status).c_str(), ibv_wc_status_str(wc.status), wc.status,
		      wc.opcode, static_cast<unsigned long long>(wc.wr_id), wc.byte_len, wc.qp_num,
		      wc.wc_flags, ntohl(wc.imm_data));
	return buf;
}

std::string wc_status_name(ibv_wc_status status)
{
	auto i = static_cast<size_t>(status);
	if (i < std::size(kStatusNames))
		return kStatusNames[i];
	return "IBV_WC_STATUS_" + std::to_string(i);
}

ibv_wc wait_completion(ibv_cq *cq, std::chrono::milliseconds timeout, const char *what,
		       const std::function<void()> &abort)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	for (unsigned spin = 0;; spin++) {
		ibv_wc wc{};
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			throw Error(std::string("ibv_poll_cq on the ") + what + " CQ failed");
		if (n == 1)
			return wc;
		if (spin < 64)
			continue;
		// back off: under emulation the peer and the driver need the CPU
		abort();
		if (std::chrono::steady_clock::now() >= deadline)
			throw Error(std::string("no ") + what + " completion within " +
				    std::to_string(timeout.count() / 1000) + " s");
		std::this_thread::sleep_for(std::chrono::microseconds(spin < 1024 ? 20 : 200));
	}
}

std::optional<std::string> check_completion(const ibv_wc &wc, const ExpectedWc &e)
{
	std::string bad;
	auto add = [&](const std::string &s) { bad += (bad.empty() ? "" : ", ") + s; };
	if (wc.status != IBV_WC_SUCCESS)
		add("status " + wc_status_name(wc.status));
	if (wc.wr_id != e.wr_id)
		add("wr_id (expected 0x" +
		    [&] {
			    char b[24];
			    std::snprintf(b, sizeof(b), "%llx",
					  static_cast<unsigned long long>(e.wr_id));
			    return std::string(b);
		    }() +
		    ")");
	if (wc.status == IBV_WC_SUCCESS) {
		// opcode, byte_len and imm are undefined in error completions
		if (wc.opcode != e.opcode)
			add("opcode (expected " + std::to_string(e.opcode) + ")");
		if (e.byte_len && wc.byte_len != *e.byte_len)
			add("byte_len (expected " + std::to_string(*e.byte_len) + ")");
		if (e.check_imm) {
			bool has = wc.wc_flags & IBV_WC_WITH_IMM;
			if (has != e.imm.has_value())
				add(e.imm ? "IBV_WC_WITH_IMM missing" : "IBV_WC_WITH_IMM set");
			else if (e.imm && ntohl(wc.imm_data) != *e.imm) {
				char b[48];
				std::snprintf(b, sizeof(b), "imm_data (expected 0x%08x)", *e.imm);
				add(b);
			}
		}
	}
	if (wc.qp_num != e.qp_num)
		add("qp_num (expected " + std::to_string(e.qp_num) + ")");
	if (bad.empty())
		return std::nullopt;
	return "bad completion " + wc_text(wc) + ": " + bad;
}

std::optional<std::string> check_cq_empty(ibv_cq *cq, const char *what)
{
	ibv_wc wc{};
	int n = ibv_poll_cq(cq, 1, &wc);
	if (n < 0)
		return std::string("ibv_poll_cq on the ") + what + " CQ failed";
	if (n > 0)
		return std::string("unexpected extra completion on the ") + what +
		       " CQ: " + wc_text(wc);
	return std::nullopt;
}

}  // namespace sroce::verify
