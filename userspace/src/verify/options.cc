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

namespace {

// Options whose defaults --nccl changes unless they were given
enum Given : unsigned {
	kGivenDepth = 1u << 0,
	kGivenMaxSize = 1u << 1,
	kGivenTimeout = 1u << 2,
	kGivenOps = 1u << 3,
	kGivenQps = 1u << 4,
	kGivenAr = 1u << 5,
};

// What a value option's parser says: nothing when the value is accepted,
// else what the value should have been ("invalid WHAT for OPTION")
using Refusal = std::optional<std::string>;
using Setter = Refusal (*)(Options &, std::string_view);

template <typename T>
Refusal set_uint(T &dst, std::string_view v, T lo, T hi, std::string_view what)
{
	auto n = parse_uint<T>(v, lo, hi);
	if (!n)
		return std::string(what);
	dst = *n;
	return std::nullopt;
}

Refusal set_size(uint32_t &dst, std::string_view v)
{
	auto n = parse_size(v);
	if (!n)
		return "size";
	dst = *n;
	return std::nullopt;
}

struct ValueOption {
	std::string_view short_name;  // empty: none
	std::string_view long_name;
	unsigned given;	 // Given bits
	Setter set;
};

const ValueOption kValueOptions[] = {
	{"-d", "--ib-dev", 0,
	 [](Options &o, std::string_view v) -> Refusal {
		 o.device = std::string(v);
		 return std::nullopt;
	 }},
	{"-g", "--gid-idx", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint(o.gid_index, v, 0, 65535, "GID index");
	 }},
	{"-m", "--mtu", 0,
	 [](Options &o, std::string_view v) -> Refusal {
		 auto n = parse_uint<uint32_t>(v, 256, 4096);
		 if (!n || (*n & (*n - 1)))
			 return "MTU (256, 512, 1024, 2048 or 4096)";
		 o.mtu = *n;
		 return std::nullopt;
	 }},
	{"-n", "--iters", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint(o.iterations, v, 1u, UINT32_MAX, "iteration count");
	 }},
	{"", "--max-size", kGivenMaxSize,
	 [](Options &o, std::string_view v) { return set_size(o.max_size, v); }},
	{"", "--min-size", 0,
	 [](Options &o, std::string_view v) { return set_size(o.min_size, v); }},
	{"", "--depth", kGivenDepth,
	 [](Options &o, std::string_view v) {
		 return set_uint(o.depth, v, 1u, kMaxDepth,
				 "depth (1.." + std::to_string(kMaxDepth) + ")");
	 }},
	{"", "--qp-timeout", kGivenTimeout,
	 [](Options &o, std::string_view v) {
		 return set_uint<uint8_t>(o.qp_timeout, v, 1, 31,
					  "local ACK timeout exponent (1..31)");
	 }},
	{"", "--retry-cnt", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint<uint8_t>(o.retry_cnt, v, 0, 7, "retry count (0..7)");
	 }},
	{"", "--ops", kGivenOps,
	 [](Options &o, std::string_view v) -> Refusal {
		 auto m = parse_ops(v);
		 if (!m)
			 return "operation list";
		 o.ops = *m;
		 return std::nullopt;
	 }},
	{"", "--qps", kGivenQps,
	 [](Options &o, std::string_view v) {
		 return set_uint(o.qps, v, 1u, kMaxNcclQps,
				 "QP count (1.." + std::to_string(kMaxNcclQps) + ")");
	 }},
	{"", "--ar-threshold", kGivenAr,
	 [](Options &o, std::string_view v) { return set_size(o.ar_threshold, v); }},
	{"", "--initiator", 0,
	 [](Options &o, std::string_view v) -> Refusal {
		 if (v == "any")
			 o.initiators = Initiators::Any;
		 else if (v == "client")
			 o.initiators = Initiators::Client;
		 else if (v == "server")
			 o.initiators = Initiators::Server;
		 else
			 return "initiator (client, server or any)";
		 return std::nullopt;
	 }},
	{"", "--seed", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint<uint64_t>(o.seed, v, 0, UINT64_MAX, "seed");
	 }},
	{"-p", "--port", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint<uint16_t>(o.port, v, 1, 65535, "port");
	 }},
	{"", "--timeout", 0,
	 [](Options &o, std::string_view v) {
		 return set_uint(o.timeout_s, v, 1u, 3600u, "timeout");
	 }},
};

const ValueOption *find_value_option(std::string_view name)
{
	for (const auto &opt : kValueOptions)
		if (name == opt.long_name || (!opt.short_name.empty() && name == opt.short_name))
			return &opt;
	return nullptr;
}

}  // namespace

std::variant<Options, Help, UsageError> parse_options(const std::vector<std::string_view> &args)
{
	Options o;
	bool have_server = false;
	unsigned given = 0;  // Given bits
	for (size_t i = 0; i < args.size(); i++) {
		std::string_view a = args[i];
		std::optional<std::string_view> val;  // --name=value form
		if (a.starts_with("--") && a.find('=') != std::string_view::npos) {
			val = a.substr(a.find('=') + 1);
			a = a.substr(0, a.find('='));
		}

		if (a == "-h" || a == "--help")
			return Help{usage_text()};
		if (a == "-v" || a == "--verbose") {
			o.verbose = true;
			continue;
		}
		if (a == "--nccl") {
			o.nccl = true;
			continue;
		}
		if (a.starts_with("-") && a.size() > 1) {
			const ValueOption *opt = find_value_option(a);
			if (!opt)
				return UsageError{"unknown option " + std::string(a)};
			if (!val) {
				if (i + 1 >= args.size())
					return UsageError{"option " + std::string(a) +
							  " needs a value"};
				val = args[++i];
			}
			if (auto refused = opt->set(o, *val))
				return UsageError{"invalid " + *refused + " for " + std::string(a)};
			given |= opt->given;
			continue;
		}
		if (have_server)
			return UsageError{"more than one server address"};
		o.server = std::string(a);
		have_server = true;
	}
	if (o.nccl) {
		if (given & kGivenOps)
			return UsageError{
				"--ops and --nccl: NCCL moves data with RDMA WRITEs only"};
		if (!(given & kGivenDepth))
			o.depth = kNcclDepth;
		if (!(given & kGivenMaxSize))
			o.max_size = kNcclMaxSize;
		if (!(given & kGivenTimeout))
			o.qp_timeout = kNcclQpTimeout;
	} else if (given & (kGivenQps | kGivenAr)) {
		return UsageError{"--qps and --ar-threshold need --nccl"};
	}
	if (o.min_size > o.max_size)
		return UsageError{"--min-size exceeds --max-size"};
	return o;
}

}  // namespace sroce::verify
