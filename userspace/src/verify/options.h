// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-verify command line: which device, which peer, what to transfer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sroce::verify {

// The RC operations the tool exercises (bit positions in a mask): the five
// data transfers, the two 8-byte atomics, then IBTA 1.5's ATOMIC WRITE.
enum class Op : uint8_t { Send, SendImm, Write, WriteImm, Read, CmpSwap, FetchAdd, AtomicWrite };
inline constexpr unsigned kNumOps = 8;
inline constexpr uint32_t kAllOps = (1u << kNumOps) - 1;
// Without --ops: the five data transfers, so that runs (and seeds) behave
// as before atomics existed. --ops all adds the atomics.
inline constexpr uint32_t kAtomicOps =
	(1u << static_cast<unsigned>(Op::CmpSwap)) | (1u << static_cast<unsigned>(Op::FetchAdd));
// ATOMIC WRITE (posted with ibv_wr_atomic_write on an extended QP)
inline constexpr uint32_t kAtomicWriteOp = 1u << static_cast<unsigned>(Op::AtomicWrite);
inline constexpr uint32_t kDefaultOps = kAllOps & ~kAtomicOps & ~kAtomicWriteOp;
inline constexpr uint32_t kMaxDepth = 256;  // --depth limit

// --nccl: NCCL's IB transport (nccl.h) instead of random plans. Its
// defaults where NCCL has one: NCCL_STEPS requests in flight, a step of
// NCCL's default 4 MiB buffer, NCCL_IB_TIMEOUT, NCCL_IB_AR_THRESHOLD.
inline constexpr uint32_t kNcclDepth = 8;
inline constexpr uint32_t kNcclMaxSize = 512u << 10;
inline constexpr uint8_t kNcclQpTimeout = 20;
inline constexpr uint32_t kNcclArThreshold = 8192;
inline constexpr uint32_t kMaxNcclQps = 16;  // --qps limit

// Which side starts the transfers (--initiator): each plan draws one at
// random, the other two force it (a one-way test: say, rdma_rxe only as
// the requester).
enum class Initiators : uint8_t { Any, Client, Server };

std::string_view op_name(Op op);
constexpr bool is_atomic(Op op)
{
	return op == Op::CmpSwap || op == Op::FetchAdd;
}

struct Options {
	std::string device;  // empty: the first RDMA device
	int gid_index = 0;
	uint32_t mtu = 0;  // 0: the port's active MTU
	uint32_t iterations = 1000;
	uint32_t max_size = 4u << 20;
	uint32_t min_size = 0;	     // sizes below it are redrawn in [min, max]
	uint32_t depth = 1;	     // transfers outstanding at once (a batch)
	uint32_t ops = kDefaultOps;  // bit (1 << Op)
	Initiators initiators = Initiators::Any;
	uint64_t seed = 1;
	uint16_t port = 18515;
	unsigned timeout_s = 10;		   // per completion / per peer message
	uint8_t qp_timeout = 17;		   // local ACK timeout exponent: 4.096 us << N
	uint8_t retry_cnt = 7;			   // transport retries (IBV_QP_RETRY_CNT)
	bool nccl = false;			   // --nccl: NCCL's traffic pattern
	uint32_t qps = 1;			   // --nccl: QPs per connection (and direction)
	uint32_t ar_threshold = kNcclArThreshold;  // --nccl: adaptive-routing split above it
	std::string server;			   // empty: act as the server
	bool verbose = false;
};

struct Help {
	std::string text;
};
struct UsageError {
	std::string message;
};

std::variant<Options, Help, UsageError> parse_options(const std::vector<std::string_view> &args);
std::string usage_text();

// "send,write,read" -> mask; nullopt for an unknown name.
std::optional<uint32_t> parse_ops(std::string_view list);

}  // namespace sroce::verify
