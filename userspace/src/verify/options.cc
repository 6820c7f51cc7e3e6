// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "options.h"

#include <charconv>

namespace sroce::verify {

namespace {

constexpr std::string_view kOpNames[kNumOps] = {
	"send", "send_imm", "write", "write_imm", "read", "cas", "faa", "atomic_write",
};

template <typename T> std::optional<T> parse_uint(std::string_view s, T lo, T hi)
{
	uint64_t v = 0;
	int base = 10;
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s.remove_prefix(2);
		base = 16;
	}
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
	if (s.empty() || ec != std::errc() || p != s.data() + s.size() ||
	    v < static_cast<uint64_t>(lo) || v > static_cast<uint64_t>(hi))
		return std::nullopt;
	return static_cast<T>(v);
}

// Sizes accept a K/M suffix (binary).
std::optional<uint32_t> parse_size(std::string_view s)
{
	uint64_t mult = 1;
	if (!s.empty() && (s.back() == 'K' || s.back() == 'k'))
		mult = 1024;
	else if (!s.empty() && (s.back() == 'M' || s.back() == 'm'))
		mult = 1024 * 1024;
	if (mult != 1)
		s.remove_suffix(1);
	auto v = parse_uint<uint64_t>(s, 0, (1ull << 31) / mult);
	if (!v)
		return std::nullopt;
	return static_cast<uint32_t>(*v * mult);
}

}  // namespace

std::string_view op_name(Op op)
{
	return kOpNames[static_cast<unsigned>(op)];
}

std::optional<uint32_t> parse_ops(std::string_view list)
{
	uint32_t mask = 0;
	while (!list.empty()) {
		auto comma = list.find(',');
		auto name = list.substr(0, comma);
		list = comma == std::string_view::npos ? std::string_view{}
						       : list.substr(comma + 1);
		if (name == "all") {
			mask |= kAllOps;
			continue;
		}
		bool found = false;
		for (unsigned i = 0; i < kNumOps; i++) {
			if (name == kOpNames[i]) {
				mask |= 1u << i;
				found = true;
			}
		}
		if (!found)
			return std::nullopt;
	}
	if (!mask)
		return std::nullopt;
	return mask;
}

std::string usage_text()
{
	return "usage: sroce-verify [OPTIONS] [SERVER_ADDR]\n"
	       "Run random RC transfers against a peer sroce-verify and check every byte and\n"
	       "every completion. Without SERVER_ADDR, wait for a client; the client's\n"
	       "transfer parameters (-n, --max-size, --min-size, --depth, --ops, --initiator,\n"
	       "--seed, -m, --timeout, --qp-timeout, --retry-cnt, --nccl, --qps,\n"
	       "--ar-threshold) apply to both. cas, faa\n"
	       "and atomic_write are 8 bytes each whatever --min-size and --max-size say.\n"
	       "  -d, --ib-dev DEV       RDMA device (default: the first one)\n"
	       "  -g, --gid-idx N        local GID index (default 0)\n"
	       "  -m, --mtu BYTES        path MTU 256..4096 (default: the port's active MTU)\n"
	       "  -n, --iters N          number of transfers (default 1000)\n"
	       "      --max-size BYTES   largest transfer, K/M suffix allowed (default 4M)\n"
	       "      --min-size BYTES   smallest transfer (default 0)\n"
	       "      --depth N          transfers outstanding at once, 1..256 (default 1)\n"
	       "      --ops LIST         comma list of send,send_imm,write,write_imm,read,\n"
	       "                         cas (ATOMIC_CMP_AND_SWP), faa (ATOMIC_FETCH_AND_ADD),\n"
	       "                         atomic_write (IBTA 1.5 ATOMIC WRITE, "
	       "ibv_wr_atomic_write)\n"
	       "                         or all (all eight); default: the five without\n"
	       "                         cas, faa and atomic_write\n"
	       "      --initiator WHO    who starts every transfer: client, server or any\n"
	       "                         (default any: each side half of them, at random)\n"
	       "      --seed N           seed of every random choice (default 1)\n"
	       "  -p, --port PORT        TCP port of the exchange (default 18515)\n"
	       "      --timeout S        seconds to wait for a completion or the peer (default "
	       "10)\n"
	       "      --qp-timeout N     QP local ACK timeout, 4.096 us << N, 1..31 (default 17)\n"
	       "      --retry-cnt N      QP transport retry count 0..7 (default 7)\n"
	       "      --nccl             NCCL's IB transport pattern instead of random plans:\n"
	       "                         the receiver writes clear-to-send entries (inline\n"
	       "                         RDMA WRITEs) to the sender's FIFO, the sender RDMA\n"
	       "                         WRITEs the data split over --qps QPs, the size in a\n"
	       "                         WRITE_WITH_IMM; --initiator names the sender (any:\n"
	       "                         both directions at once). Defaults then: --depth 8,\n"
	       "                         --max-size 512K, --qp-timeout 20\n"
	       "      --qps N            --nccl: QPs per connection, 1..16 (default 1)\n"
	       "      --ar-threshold B   --nccl: above B bytes, plain WRITEs then a separate\n"
	       "                         zero-length WRITE_WITH_IMM (default 8192)\n"
	       "  -v, --verbose          print every transfer\n"
	       "  -h, --help             this help\n"
	       "Exit status: 0 all verified, 1 a mismatch or an error, 2 bad usage.\n";
}

std::variant<Options, Help, UsageError> parse_options(const std::vector<std::string_view> &args)
{
	Options o;
	bool have_server = false;
	// --nccl changes these defaults, not values given
	bool given_depth = false, given_max = false, given_timeout = false, given_ops = false;
	bool given_qps = false, given_ar = false;
	for (size_t i = 0; i < args.size(); i++) {
		std::string_view a = args[i];
		std::string_view val;
		bool has_val = false;
		// --name=value form
		if (a.starts_with("--") && a.find('=') != std::string_view::npos) {
			val = a.substr(a.find('=') + 1);
			a = a.substr(0, a.find('='));
			has_val = true;
		}
		auto is = [&](std::string_view s, std::string_view l) { return a == s || a == l; };
		auto need = [&]() -> std::optional<std::string_view> {
			if (has_val)
				return val;
			if (i + 1 >= args.size())
				return std::nullopt;
			return args[++i];
		};
		auto bad = [&](std::string_view what) {
			return UsageError{"invalid " + std::string(what) + " for " +
					  std::string(a)};
		};

		if (is("-h", "--help"))
			return Help{usage_text()};
		if (is("-v", "--verbose")) {
			o.verbose = true;
			continue;
		}
		if (a == "--nccl") {
			o.nccl = true;
			continue;
		}
		if (a.starts_with("-") && a.size() > 1) {
			auto v = need();
			if (!v)
				return UsageError{"option " + std::string(a) + " needs a value"};
			if (is("-d", "--ib-dev")) {
				o.device = std::string(*v);
			} else if (is("-g", "--gid-idx")) {
				auto n = parse_uint<int>(*v, 0, 65535);
				if (!n)
					return bad("GID index");
				o.gid_index = *n;
			} else if (is("-m", "--mtu")) {
				auto n = parse_uint<uint32_t>(*v, 256, 4096);
				if (!n || (*n & (*n - 1)))
					return bad("MTU (256, 512, 1024, 2048 or 4096)");
				o.mtu = *n;
			} else if (is("-n", "--iters")) {
				auto n = parse_uint<uint32_t>(*v, 1, UINT32_MAX);
				if (!n)
					return bad("iteration count");
				o.iterations = *n;
			} else if (a == "--max-size") {
				auto n = parse_size(*v);
				if (!n)
					return bad("size");
				o.max_size = *n;
				given_max = true;
			} else if (a == "--min-size") {
				auto n = parse_size(*v);
				if (!n)
					return bad("size");
				o.min_size = *n;
			} else if (a == "--depth") {
				auto n = parse_uint<uint32_t>(*v, 1, kMaxDepth);
				if (!n)
					return bad("depth (1.." + std::to_string(kMaxDepth) + ")");
				o.depth = *n;
				given_depth = true;
			} else if (a == "--qp-timeout") {
				auto n = parse_uint<uint8_t>(*v, 1, 31);
				if (!n)
					return bad("local ACK timeout exponent (1..31)");
				o.qp_timeout = *n;
				given_timeout = true;
			} else if (a == "--retry-cnt") {
				auto n = parse_uint<uint8_t>(*v, 0, 7);
				if (!n)
					return bad("retry count (0..7)");
				o.retry_cnt = *n;
			} else if (a == "--ops") {
				auto m = parse_ops(*v);
				if (!m)
					return bad("operation list");
				o.ops = *m;
				given_ops = true;
			} else if (a == "--qps") {
				auto n = parse_uint<uint32_t>(*v, 1, kMaxNcclQps);
				if (!n)
					return bad("QP count (1.." + std::to_string(kMaxNcclQps) +
						   ")");
				o.qps = *n;
				given_qps = true;
			} else if (a == "--ar-threshold") {
				auto n = parse_size(*v);
				if (!n)
					return bad("size");
				o.ar_threshold = *n;
				given_ar = true;
			} else if (a == "--initiator") {
				if (*v == "any")
					o.initiators = Initiators::Any;
				else if (*v == "client")
					o.initiators = Initiators::Client;
				else if (*v == "server")
					o.initiators = Initiators::Server;
				else
					return bad("initiator (client, server or any)");
			} else if (a == "--seed") {
				auto n = parse_uint<uint64_t>(*v, 0, UINT64_MAX);
				if (!n)
					return bad("seed");
				o.seed = *n;
			} else if (is("-p", "--port")) {
				auto n = parse_uint<uint16_t>(*v, 1, 65535);
				if (!n)
					return bad("port");
				o.port = *n;
			} else if (a == "--timeout") {
				auto n = parse_uint<unsigned>(*v, 1, 3600);
				if (!n)
					return bad("timeout");
				o.timeout_s = *n;
			} else {
				return UsageError{"unknown option " + std::string(a)};
			}
			continue;
		}
		if (have_server)
			return UsageError{"more than one server address"};
		o.server = std::string(a);
		have_server = true;
	}
	if (o.nccl) {
		if (given_ops)
			return UsageError{
				"--ops and --nccl: NCCL moves data with RDMA WRITEs only"};
		if (!given_depth)
			o.depth = kNcclDepth;
		if (!given_max)
			o.max_size = kNcclMaxSize;
		if (!given_timeout)
			o.qp_timeout = kNcclQpTimeout;
	} else if (given_qps || given_ar) {
		return UsageError{"--qps and --ar-threshold need --nccl"};
	}
	if (o.min_size > o.max_size)
		return UsageError{"--min-size exceeds --max-size"};
	return o;
}

}  // namespace sroce::verify
