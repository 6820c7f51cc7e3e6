// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-fuzz: send hostile RoCEv2 frames at a device's QPs through a raw
// IPv4 socket. See Documentation/selftests.rst (99-fuzz).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "frame_gen.h"
#include "unique_fd.h"

using sroce::fuzz::FrameGen;
using sroce::fuzz::FrameKind;
using sroce::fuzz::Target;

namespace {

void usage(FILE *f)
{
	std::fputs("usage: sroce-fuzz --src IPV4 --dst IPV4 [--qpn N[,N...]] [--count N]\n"
		   "                  [--seed N] [--rkey K --va V --mr-len L] [--srqn S]\n"
		   "                  [--mtu M]\n"
		   "Sends COUNT (default 1000000) hostile RoCEv2 frames from SRC to DST's\n"
		   "UDP port 4791 (raw socket: run as root, in the namespace owning SRC).\n",
		   f);
}

template <typename T> bool parse_num(std::string_view s, T &v)
{
	int base = 10;
	if (s.starts_with("0x")) {
		s.remove_prefix(2);
		base = 16;
	}
	auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
	return ec == std::errc() && p == s.data() + s.size();
}

bool parse_qpns(std::string_view s, std::vector<std::uint32_t> &out)
{
	while (!s.empty()) {
		const auto comma = s.find(',');
		std::uint32_t q;
		if (!parse_num(s.substr(0, comma), q) || q >= (1u << 24))
			return false;
		out.push_back(q);
		if (comma == std::string_view::npos)
			break;
		s.remove_prefix(comma + 1);
	}
	return true;
}

struct Args {
	Target t{};
	std::uint64_t count = 1000000, seed = 1;
	bool have_src = false, have_dst = false;
};

// Option a with its value v (the C string cv): whether both are good
bool parse_option(std::string_view a, const char *cv, std::string_view v, Args &args)
{
	Target &t = args.t;
	if (a == "--src")
		return args.have_src = inet_pton(AF_INET, cv, &t.src_ip) == 1;
	if (a == "--dst")
		return args.have_dst = inet_pton(AF_INET, cv, &t.dst_ip) == 1;
	if (a == "--qpn")
		return parse_qpns(v, t.qpns);
	if (a == "--count")
		return parse_num(v, args.count);
	if (a == "--seed")
		return parse_num(v, args.seed);
	if (a == "--rkey")
		return parse_num(v, t.rkey);
	if (a == "--va")
		return parse_num(v, t.va);
	if (a == "--mr-len")
		return parse_num(v, t.mr_len);
	if (a == "--srqn")
		return parse_num(v, t.srqn) && t.srqn < (1u << 24);
	if (a == "--mtu")
		return parse_num(v, t.mtu) && (t.mtu == 256 || t.mtu == 512 || t.mtu == 1024 ||
					       t.mtu == 2048 || t.mtu == 4096);
	return false;
}

// The command line into args: -1 to go on, else the exit status
int parse_args(int argc, char **argv, Args &args)
{
	for (int i = 1; i < argc; i++) {
		const std::string_view a = argv[i];
		const bool has_val = i + 1 < argc;
		if (a == "-h" || a == "--help") {
			usage(stdout);
			return 0;
		}
		if (!has_val || !parse_option(a, argv[i + 1], argv[i + 1], args)) {
			std::fprintf(stderr, "sroce-fuzz: bad argument: %s\n", argv[i]);
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (!args.have_src || !args.have_dst) {
		usage(stderr);
		return 2;
	}
	return -1;
}

// count frames of gen to dst over fd, kBatch to a sendmmsg()
void send_frames(int fd, sockaddr_in &dst, FrameGen &gen, std::uint64_t count)
{
	constexpr unsigned kBatch = 64;
	std::vector<std::array<std::uint8_t, FrameGen::kMaxFrame>> bufs(kBatch);
	std::array<iovec, kBatch> iov{};
	std::array<mmsghdr, kBatch> msgs{};
	std::array<std::uint64_t, static_cast<std::size_t>(FrameKind::count)> kinds{};
	std::uint64_t sent = 0, failed = 0;  // frames made; refused by our own stack

	while (sent < count) {
		const unsigned n =
			static_cast<unsigned>(std::min<std::uint64_t>(kBatch, count - sent));
		for (unsigned i = 0; i < n; i++) {
			FrameKind k;
			iov[i].iov_base = bufs[i].data();
			iov[i].iov_len = gen.next(bufs[i], k);
			kinds[static_cast<std::size_t>(k)]++;
			msgs[i] = {};
			msgs[i].msg_hdr.msg_name = &dst;
			msgs[i].msg_hdr.msg_namelen = sizeof(dst);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		unsigned done = 0;
		while (done < n) {
			const int r = sendmmsg(fd, msgs.data() + done, n - done, 0);
			if (r > 0) {
				done += static_cast<unsigned>(r);
				continue;
			}
			if (r < 0 && (errno == ENOBUFS || errno == EAGAIN))
				continue;
			failed++;  // this frame was refused by the local stack
			done++;
		}
		sent += n;
	}
	std::printf(
		"sroce-fuzz: %llu frames (%llu valid, %llu mutated, %llu bad ICRC, %llu garbage), "
		"%llu refused locally\n",
		static_cast<unsigned long long>(sent), static_cast<unsigned long long>(kinds[0]),
		static_cast<unsigned long long>(kinds[1]),
		static_cast<unsigned long long>(kinds[2]),
		static_cast<unsigned long long>(kinds[3]), static_cast<unsigned long long>(failed));
}

}  // namespace

int main(int argc, char **argv)
{
	Args args;
	const int rc = parse_args(argc, argv, args);
	if (rc >= 0)
		return rc;

	sroce::UniqueFd fd(socket(AF_INET, SOCK_RAW, IPPROTO_RAW));
	if (fd.get() < 0) {
		std::perror("sroce-fuzz: raw socket");
		return 1;
	}
	sockaddr_in dst{};
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = args.t.dst_ip;
	FrameGen gen(args.t, args.seed);
	send_frames(fd.get(), dst, gen, args.count);
	return 0;
}
