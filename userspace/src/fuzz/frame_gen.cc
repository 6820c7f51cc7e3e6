// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "frame_gen.h"

#include <algorithm>
#include <cstring>

extern "C" {
#include "sroce_icrc.h"
#include "sroce_opcode.h"
#include "sroce_sr.h"
#include "sroce_wire.h"
}

namespace sroce::fuzz {

namespace {

constexpr std::size_t kIpLen = 20;
constexpr std::size_t kUdpLen = 8;
constexpr std::uint16_t kRocePort = 4791;

void put16(std::uint8_t *p, std::uint16_t v)
{
	p[0] = static_cast<std::uint8_t>(v >> 8);
	p[1] = static_cast<std::uint8_t>(v);
}

}  // namespace

FrameGen::FrameGen(Target target, std::uint64_t seed) : t_(std::move(target)), rng_(seed)
{
	for (unsigned op = 0; op < 256; op++)
		if (sroce_opcode(static_cast<std::uint8_t>(op)))
			opcodes_.push_back(static_cast<std::uint8_t>(op));
}

std::uint32_t FrameGen::pick_qpn()
{
	if (t_.qpns.empty() || chance(5))
		return chance(50) ? 1 : static_cast<std::uint32_t>(below(1u << 24));
	return t_.qpns[below(t_.qpns.size())];
}

// The targets start at PSN 0: most PSNs near it, some anywhere.
std::uint32_t FrameGen::pick_psn()
{
	if (chance(70))
		return static_cast<std::uint32_t>(below(64));
	if (chance(50))
		return static_cast<std::uint32_t>((1u << 24) - 1 - below(64));
	return static_cast<std::uint32_t>(below(1u << 24));
}

// BTH onwards: headers of a random known opcode with random (often
// plausible) fields, a payload the opcode allows, pad. Returns the length.
std::size_t FrameGen::build_valid(std::span<std::uint8_t> out)
{
	sroce_pkt_hdr hdr{};
	const std::uint8_t op = opcodes_[below(opcodes_.size())];
	const sroce_opcode_info *info = sroce_opcode(op);

	hdr.bth.opcode = op;
	hdr.bth.se = chance(20);
	hdr.bth.mig = chance(5);
	hdr.bth.pkey = chance(95) ? 0xffff : static_cast<std::uint16_t>(below(0x10000));
	hdr.bth.dqpn = pick_qpn();
	hdr.bth.ack_req = chance(50);
	// sroce's Resv7 READ marks: wide READ responses asked for or offered
	hdr.bth.resv7 = chance(20) ? static_cast<std::uint8_t>(below(0x80)) : 0;
	hdr.bth.psn = pick_psn();
	const bool real_mr = t_.rkey && chance(60);
	const std::uint64_t va = real_mr ? t_.va + below(t_.mr_len + 64) : rng_();
	const std::uint32_t rkey = real_mr ? t_.rkey : static_cast<std::uint32_t>(rng_());
	hdr.reth.va = va;
	hdr.reth.rkey = rkey;
	hdr.reth.dma_len = chance(70) ? static_cast<std::uint32_t>(below(8192))
				      : static_cast<std::uint32_t>(rng_());
	hdr.aeth.syndrome = static_cast<std::uint8_t>(below(128));
	hdr.aeth.msn = static_cast<std::uint32_t>(below(1u << 24));
	hdr.atmeth.va = chance(50) ? (va & ~7ull) : va;
	hdr.atmeth.rkey = rkey;
	hdr.atmeth.swap_add = rng_();
	hdr.atmeth.compare = rng_();
	hdr.atmack = rng_();
	hdr.immdt = static_cast<std::uint32_t>(rng_());
	hdr.ieth_rkey = rkey;
	hdr.deth.qkey = chance(50) ? 0x80010000u : static_cast<std::uint32_t>(rng_());
	hdr.deth.src_qpn = static_cast<std::uint32_t>(below(1u << 24));
	hdr.xrc_srqn =
		t_.srqn && chance(60) ? t_.srqn : static_cast<std::uint32_t>(below(1u << 24));

	std::uint32_t payload = 0;
	if (info->flags & SROCE_OPF_PAYLOAD) {
		const bool full = info->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE);
		payload =
			full || chance(30) ? t_.mtu : static_cast<std::uint32_t>(below(t_.mtu + 1));
		if (full && payload == 0)
			payload = t_.mtu;
	}
	// adaptive routing's form: a WRITE ONLY whose RETH names exactly its
	// payload inside the real MR (placed at arrival when it comes early)
	const std::uint32_t wo = SROCE_OPF_WRITE | SROCE_OPF_ONLY;
	if ((info->flags & wo) == wo && real_mr && chance(60)) {
		const std::uint32_t in = std::min(payload, t_.mr_len);
		hdr.reth.dma_len = payload;
		hdr.reth.va = t_.va + below(t_.mr_len - in + 1) + (chance(10) ? t_.mtu : 0);
	}
	hdr.bth.pad = sroce_pad_len(payload);
	hdr.info = info;
	const int hlen = sroce_pkt_build_hdrs(out.data(), out.size(), &hdr);
	if (hlen < 0)
		return 0;
	std::size_t len = static_cast<std::size_t>(hlen);
	// sroce's Resv8a marks: selective repeat offered, adaptive routing
	if (chance(30))
		out[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SR_ADV | (chance(70) ? SROCE_BTH_AR : 0);
	for (std::uint32_t i = 0; i < payload + hdr.bth.pad; i++)
		out[len + i] = static_cast<std::uint8_t>(rng_());
	return len + payload + hdr.bth.pad;
}

std::size_t FrameGen::next(std::span<std::uint8_t> buf, FrameKind &kind)
{
	std::uint8_t *ip = buf.data();
	std::uint8_t *udp = ip + kIpLen;
	std::uint8_t *bth = udp + kUdpLen;
	const std::size_t room = buf.size() - kIpLen - kUdpLen - 4;
	std::size_t len;  // bytes after the UDP header, ICRC excluded
	bool icrc = true, good_icrc = true;

	const unsigned roll = static_cast<unsigned>(below(100));
	if (roll < 5) {
		kind = FrameKind::garbage;
		len = below(300);
		for (std::size_t i = 0; i < len; i++)
			bth[i] = static_cast<std::uint8_t>(rng_());
		icrc = chance(50);
	} else {
		len = build_valid({bth, room});
		if (len == 0) {	 // the encoder refused the combination
			kind = FrameKind::garbage;
			len = 12 + below(64);
			for (std::size_t i = 0; i < len; i++)
				bth[i] = static_cast<std::uint8_t>(rng_());
		} else if (roll < 20) {
			kind = FrameKind::valid;
		} else if (roll < 25) {
			kind = FrameKind::bad_icrc;
			good_icrc = false;
		} else {
			kind = FrameKind::mutated;
			const std::size_t hdr_span = std::min<std::size_t>(len, 48);
			const unsigned flips = 1 + static_cast<unsigned>(below(8));
			for (unsigned i = 0; i < flips; i++)
				bth[below(hdr_span)] ^= static_cast<std::uint8_t>(1u << below(8));
			if (chance(20)) {  // truncate or extend
				if (chance(50))
					len = below(len + 1);
				else
					for (std::size_t n = below(64); n-- && len < room;)
						bth[len++] = static_cast<std::uint8_t>(rng_());
			}
		}
	}

	const std::size_t udp_len = kUdpLen + len + (icrc ? 4 : 0);
	const std::size_t total = kIpLen + udp_len;
	std::memset(ip, 0, kIpLen);
	ip[0] = 0x45;
	put16(ip + 2, static_cast<std::uint16_t>(total));
	// never 0: the kernel would pick an ID after the ICRC was computed
	if (++ip_id_ == 0)
		ip_id_ = 1;
	put16(ip + 4, ip_id_);
	put16(ip + 6, 0x4000);	// DF
	ip[8] = 64;
	ip[9] = 17;  // UDP
	std::memcpy(ip + 12, &t_.src_ip, 4);
	std::memcpy(ip + 16, &t_.dst_ip, 4);
	put16(udp, static_cast<std::uint16_t>(0xc000 | below(0x4000)));
	put16(udp + 2, kRocePort);
	put16(udp + 4, static_cast<std::uint16_t>(udp_len));
	put16(udp + 6, 0);
	if (icrc) {
		std::uint32_t crc = 0;
		if (sroce_icrc_compute(&crc, ip, kIpLen, udp, kUdpLen + len) != 0 || !good_icrc)
			crc = static_cast<std::uint32_t>(rng_()) | 1u;
		sroce_icrc_put(bth + len, crc);
	}
	return total;
}

}  // namespace sroce::fuzz
