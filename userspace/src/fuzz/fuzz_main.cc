// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// sroce-fuzz: send hostile RoCEv2 frames at a device's QPs through a raw
// IPv4 socket. See Documentation/testing.rst (wire fuzzer).
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

}  // namespace

int main(int argc, char **argv)
{
	Target t{};
	std::uint64_t count = 1000000, seed = 1;
	bool have_src = false, have_dst = false;

	for (int i = 1; i < argc; i++) {
		const std::string_view a = argv[i];
		const bool has_val = i + 1 < argc;
		const std::string_view v = has_val ? argv[i + 1] : "";
		bool ok = has_val;
		if (a == "-h" || a == "--help") {
			usage(stdout);
			return 0;
		} else if (a == "--src") {
			ok = ok && inet_pton(AF_INET, argv[i + 1], &t.src_ip) == 1;
			have_src = ok;
		} else if (a == "--dst") {
			ok = ok && inet_pton(AF_INET, argv[i + 1], &t.dst_ip) == 1;
			have_dst = ok;
		} else if (a == "--qpn") {
			ok = ok && parse_qpns(v, t.qpns);
		} else if (a == "--count") {
			ok = ok && parse_num(v, count);
		} else if (a == "--seed") {
			ok = ok && parse_num(v, seed);
		} else if (a == "--rkey") {
			ok = ok && parse_num(v, t.rkey);
		} else if (a == "--va") {
			ok = ok && parse_num(v, t.va);
		} else if (a == "--mr-len") {
			ok = ok && parse_num(v, t.mr_len);
		} else if (a == "--srqn") {
			ok = ok && parse_num(v, t.srqn) && t.srqn < (1u << 24);
		} else if (a == "--mtu") {
			ok = ok && parse_num(v, t.mtu) &&
			     (t.mtu == 256 || t.mtu == 512 || t.mtu == 1024 || t.mtu == 2048 ||
			      t.mtu == 4096);
		} else {
			ok = false;
		}
		if (!ok) {
			std::fprintf(stderr, "sroce-fuzz: bad argument: %s\n", argv[i]);
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (!have_src || !have_dst) {
		usage(stderr);
		return 2;
	}

	sroce::UniqueFd fd(socket(AF_INET, SOCK_RAW, IPPROTO_RAW));
	if (fd.get() < 0) {
		std::perror("sroce-fuzz: raw socket");
		return 1;
	}
	sockaddr_in dst{};
	dst.sin_family = AF_INET;
	dst.sin_addr.s_addr = t.dst_ip;

	constexpr unsigned kBatch = 64;
	std::vector<std::array<std::uint8_t, FrameGen::kMaxFrame>> bufs(kBatch);
	std::array<iovec, kBatch> iov{};
	std::array<mmsghdr, kBatch> msgs{};
	std::array<std::uint64_t, static_cast<std::size_t>(FrameKind::count)> kinds{};
	FrameGen gen(t, seed);
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
			const int r = sendmmsg(fd.get(), msgs.data() + done, n - done, 0);
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
	return 0;
}
