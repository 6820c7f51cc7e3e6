// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "tcp_link.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <thread>

#include "verbs_handles.h"
#include "wire.h"

namespace sroce::verify {

namespace {

using AddrInfoPtr = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

AddrInfoPtr resolve(const char *host, uint16_t port, int flags)
{
	addrinfo hints{};
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = flags;
	addrinfo *res = nullptr;
	std::string service = std::to_string(port);
	int rc = getaddrinfo(host, service.c_str(), &hints, &res);
	if (rc)
		throw Error(std::string("cannot resolve ") + (host ? host : "*") + ": " +
			    gai_strerror(rc));
	return AddrInfoPtr(res, freeaddrinfo);
}

void set_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

TcpLink TcpLink::connect(const std::string &host, uint16_t port, std::chrono::seconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	auto addrs = resolve(host.c_str(), port, 0);
	int last_err = 0;
	for (;;) {
		for (addrinfo *a = addrs.get(); a; a = a->ai_next) {
			UniqueFd fd(socket(a->ai_family, a->ai_socktype, a->ai_protocol));
			if (!fd.valid())
				throw_errno("socket", errno);
			if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
				set_nodelay(fd.get());
				return TcpLink(std::move(fd));
			}
			last_err = errno;
		}
		// the server may not listen yet
		if (std::chrono::steady_clock::now() >= deadline)
			throw_errno("connect to " + host + ":" + std::to_string(port), last_err);
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
}

TcpLink TcpLink::accept_one(uint16_t port)
{
	auto addrs = resolve(nullptr, port, AI_PASSIVE);
	int last_err = 0;
	for (addrinfo *a = addrs.get(); a; a = a->ai_next) {
		UniqueFd lfd(socket(a->ai_family, a->ai_socktype, a->ai_protocol));
		if (!lfd.valid())
			throw_errno("socket", errno);
		int one = 1;
		setsockopt(lfd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd.get(), a->ai_addr, a->ai_addrlen) || listen(lfd.get(), 1)) {
			last_err = errno;
			continue;
		}
		UniqueFd fd(accept(lfd.get(), nullptr, nullptr));
		if (!fd.valid())
			throw_errno("accept", errno);
		set_nodelay(fd.get());
		return TcpLink(std::move(fd));
	}
	throw_errno("listen on port " + std::to_string(port), last_err);
}

void TcpLink::send(std::span<const uint8_t> msg)
{
	WireWriter w;
	w.u32(static_cast<uint32_t>(msg.size()));
	w.bytes(msg);
	auto out = w.data();
	while (!out.empty()) {
		ssize_t n = ::send(fd_.get(), out.data(), out.size(), MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			throw_errno("send to peer", errno);
		out = out.subspan(static_cast<size_t>(n));
	}
}

void TcpLink::read_exact(std::span<uint8_t> out, std::chrono::steady_clock::time_point deadline)
{
	while (!out.empty()) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		pollfd p{fd_.get(), POLLIN, 0};
		int rc = poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			throw_errno("poll", errno);
		if (rc == 0)
			throw Error("timed out waiting for the peer");
		ssize_t n = ::recv(fd_.get(), out.data(), out.size(), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			throw_errno("receive from peer", errno);
		if (n == 0)
			throw Error("peer closed the connection");
		out = out.subspan(static_cast<size_t>(n));
	}
}

std::vector<uint8_t> TcpLink::receive(std::chrono::milliseconds timeout)
{
	auto deadline = std::chrono::steady_clock::now() + timeout;
	uint8_t hdr[4];
	read_exact(hdr, deadline);
	uint32_t len = WireReader(hdr).u32();
	if (len > (1u << 20))
		throw Error("peer message of " + std::to_string(len) + " bytes");
	std::vector<uint8_t> msg(len);
	read_exact(msg, deadline);
	return msg;
}

bool TcpLink::readable()
{
	pollfd p{fd_.get(), POLLIN, 0};
	return poll(&p, 1, 0) > 0;
}

}  // namespace sroce::verify
