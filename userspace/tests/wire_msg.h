// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Test helper: netlink messages built byte by byte, as the kernel sends
// them, for the decoders to parse.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <netlink/attr.h>
#include <rdma/rdma_netlink.h>

namespace sroce::test {

// Builds one netlink message byte by byte, like the kernel's nla_put_*.
class WireMsg {
public:
	WireMsg(std::uint16_t type, std::uint16_t flags = 0, std::uint32_t seq = 1)
		: buf_(sizeof(nlmsghdr))
	{
		nlmsghdr h{};
		h.nlmsg_type = type;
		h.nlmsg_flags = flags;
		h.nlmsg_seq = seq;
		std::memcpy(buf_.data(), &h, sizeof(h));
	}
	WireMsg &attr(std::uint16_t type, const void *data, std::size_t len)
	{
		nlattr a{static_cast<std::uint16_t>(NLA_HDRLEN + len), type};
		std::size_t at = buf_.size();
		buf_.resize(at + NLA_ALIGN(NLA_HDRLEN + len), 0);
		std::memcpy(&buf_[at], &a, sizeof(a));
		if (len)
			std::memcpy(&buf_[at + NLA_HDRLEN], data, len);
		return *this;
	}
	WireMsg &u8(std::uint16_t t, std::uint8_t v) { return attr(t, &v, 1); }
	WireMsg &u32(std::uint16_t t, std::uint32_t v) { return attr(t, &v, 4); }
	// nla_put_u64_64bit() on a strict-alignment kernel: a PAD attribute
	// (type 0, header only) first when the payload would be misaligned.
	WireMsg &u64_padded(std::uint16_t t, std::uint64_t v)
	{
		if ((buf_.size() + NLA_HDRLEN) % 8)
			attr(RDMA_NLDEV_ATTR_PAD, nullptr, 0);
		return attr(t, &v, 8);
	}
	WireMsg &str(std::uint16_t t, const std::string &s) { return attr(t, s.c_str(), s.size() + 1); }

	// nla_nest_start_noflag() / nla_nest_end(): attributes added between
	// the two are the nest's payload.
	WireMsg &begin_nest(std::uint16_t t)
	{
		nests_.push_back(buf_.size());
		return attr(t, nullptr, 0);
	}
	WireMsg &end_nest()
	{
		std::size_t at = nests_.back();
		nests_.pop_back();
		auto len = static_cast<std::uint16_t>(buf_.size() - at);
		std::memcpy(&buf_[at], &len, sizeof(len));
		return *this;
	}

	// The finished message (length filled in).
	std::vector<std::uint8_t> bytes() const
	{
		auto out = buf_;
		auto len = static_cast<std::uint32_t>(out.size());
		std::memcpy(out.data(), &len, sizeof(len));
		return out;
	}

private:
	std::vector<std::uint8_t> buf_;
	std::vector<std::size_t> nests_;  // offsets of the open nests' headers
};

inline const nlmsghdr &hdr(const std::vector<std::uint8_t> &b)
{
	return *reinterpret_cast<const nlmsghdr *>(b.data());
}

}  // namespace sroce::test
