// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The RoCEv2 protocol core: opcode table, PSN arithmetic, header codecs,
// AETH/timer encodings, UDP source port and ICRC (kernel/proto, compiled
// as C), checked against frames captured from Linux rdma_rxe.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sroce_icrc.h"
#include "sroce_opcode.h"
#include "sroce_proto.h"
#include "sroce_psn.h"
#include "sroce_sr.h"
#include "sroce_wire.h"

namespace {

using Bytes = std::vector<std::uint8_t>;

// One golden frame split into its layers (offsets into bytes).
struct Frame {
	Bytes bytes;
	bool ipv6 = false;
	size_t ip_off = 0, ip_len = 0;
	size_t udp_off = 0, udp_len = 0;  // UDP header .. ICRC
	size_t bth_off = 0, bth_len = 0;  // BTH .. ICRC

	const std::uint8_t *ip() const { return bytes.data() + ip_off; }
	const std::uint8_t *udp() const { return bytes.data() + udp_off; }
	const std::uint8_t *bth() const { return bytes.data() + bth_off; }
};

Bytes from_hex(const std::string &s)
{
	Bytes out;
	for (size_t i = 0; i + 1 < s.size(); i += 2)
		out.push_back(static_cast<std::uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
	return out;
}

// Ethernet -> IPv4/IPv6 -> UDP, parsed independently of the code under test.
Frame split(Bytes b)
{
	Frame f;
	f.bytes = std::move(b);
	const auto &p = f.bytes;
	EXPECT_GE(p.size(), 14u);
	unsigned ethertype = p[12] << 8 | p[13];
	f.ip_off = 14;
	size_t ip_total;
	if (ethertype == 0x0800) {
		f.ip_len = (p[14] & 0xf) * 4u;
		ip_total = p[16] << 8 | p[17];
		EXPECT_EQ(p[14 + 9], 17);  // UDP
	} else {
		EXPECT_EQ(ethertype, 0x86ddu);
		f.ipv6 = true;
		f.ip_len = 40;
		ip_total = 40u + (p[18] << 8 | p[19]);
		EXPECT_EQ(p[14 + 6], 17);
	}
	EXPECT_EQ(f.ip_off + ip_total, p.size());
	f.udp_off = f.ip_off + f.ip_len;
	f.udp_len = p[f.udp_off + 4] << 8 | p[f.udp_off + 5];
	EXPECT_EQ(f.udp_off + f.udp_len, p.size());
	EXPECT_EQ(p[f.udp_off + 2] << 8 | p[f.udp_off + 3], SROCE_UDP_PORT);
	f.bth_off = f.udp_off + 8;
	f.bth_len = f.udp_len - 8;
	return f;
}

const std::vector<Frame> &golden()
{
	static const std::vector<Frame> frames = [] {
		std::vector<Frame> v;
		std::ifstream in(SROCE_TEST_DATA_DIR "/rxe-golden.hex");
		std::string line;
		while (std::getline(in, line)) {
			if (line.empty() || line[0] == '#')
				continue;
			v.push_back(split(from_hex(line)));
		}
		return v;
	}();
	return frames;
}

// Frames 1, 3: RC SEND Only; 2, 4: RC RDMA WRITE Only with Immediate.
bool is_write_imm(size_t i)
{
	return i % 2 == 1;
}

TEST(Golden, FourFrames)
{
	ASSERT_EQ(golden().size(), 4u);
	EXPECT_FALSE(golden()[0].ipv6);
	EXPECT_FALSE(golden()[1].ipv6);
	EXPECT_TRUE(golden()[2].ipv6);
	EXPECT_TRUE(golden()[3].ipv6);
}

// --- ICRC -------------------------------------------------------------------

TEST(Crc32, HostImplementation)
{
	const char *check = "123456789";
	EXPECT_EQ(~sroce_crc32_le(~0u, reinterpret_cast<const std::uint8_t *>(check), 9),
		  0xcbf43926u);
	EXPECT_EQ(sroce_crc32_le(0x1234u, nullptr, 0), 0x1234u);

	// Slicing-by-8 equals a bitwise reference for every length and alignment.
	std::mt19937 rng(7);
	Bytes buf(300);
	for (auto &b : buf)
		b = static_cast<std::uint8_t>(rng());
	for (size_t off = 0; off < 8; off++) {
		for (size_t len = 0; len + off <= buf.size(); len += 7) {
			std::uint32_t ref = ~0u;
			for (size_t i = 0; i < len; i++) {
				ref ^= buf[off + i];
				for (int k = 0; k < 8; k++)
					ref = (ref >> 1) ^ ((ref & 1) ? 0xedb88320u : 0);
			}
			EXPECT_EQ(sroce_crc32_le(~0u, buf.data() + off, len), ref)
				<< off << " " << len;
		}
	}
}

TEST(Icrc, GoldenFramesVerify)
{
	// CRC values; the wire carries them least significant byte first.
	const std::uint32_t expect[4] = {0x0d70038e, 0xad584b29, 0xd01bbf88, 0xb087732c};

	for (size_t i = 0; i < golden().size(); i++) {
		const Frame &f = golden()[i];
		std::uint32_t icrc = 0;

		ASSERT_EQ(sroce_icrc_compute(&icrc, f.ip(), f.ip_len, f.udp(), f.udp_len - 4), 0);
		EXPECT_EQ(icrc, expect[i]) << "frame " << i;
		std::uint8_t wire[4];
		sroce_icrc_put(wire, icrc);
		EXPECT_EQ(std::memcmp(wire, f.bytes.data() + f.bytes.size() - 4, 4), 0);
		EXPECT_EQ(sroce_icrc_get(wire), icrc);
		EXPECT_TRUE(sroce_icrc_verify(f.ip(), f.ip_len, f.udp(), f.udp_len));
	}
}

TEST(Icrc, IncrementalEqualsContiguous)
{
	for (const Frame &f : golden()) {
		const size_t len = f.udp_len - 4;
		for (size_t split = 20; split <= len; split++) {
			std::uint32_t crc;
			ASSERT_EQ(sroce_icrc_start(&crc, f.ip(), f.ip_len, f.udp(), split), 0);
			crc = sroce_icrc_update(crc, f.udp() + split, len - split);
			EXPECT_TRUE(sroce_icrc_final(crc) == sroce_icrc_get(f.udp() + len));
		}
	}
}

// Every byte outside the masked fields is covered; masked ones are not.
TEST(Icrc, CoverageAndMasking)
{
	for (const Frame &f : golden()) {
		std::set<size_t> masked;  // offsets into the IP header / UDP datagram
		if (f.ipv6)
			masked = {1, 2, 3, 7};	// (byte 0 low nibble tested below)
		else
			masked = {1, 8, 10, 11};
		for (size_t off = 0; off < f.ip_len + f.udp_len - 4; off++) {
			Frame g = f;
			bool in_ip = off < f.ip_len;
			size_t at = in_ip ? f.ip_off + off : f.udp_off + off - f.ip_len;
			size_t udp_at = off - f.ip_len;
			bool is_masked = in_ip ? masked.count(off) != 0
					       : (udp_at == 6 || udp_at == 7 || udp_at == 12);
			g.bytes[at] ^= 0x01;
			if (in_ip && off == 0)
				g.bytes[at] ^= f.ipv6 ? 0x09 : 0x00;  // v6: net ^0x08, a TC bit
			bool ok = sroce_icrc_verify(g.ip(), g.ip_len, g.udp(), g.udp_len);
			if (in_ip && off == 0 && !f.ipv6) {
				EXPECT_FALSE(ok);  // IHL changed: header length mismatch
				continue;
			}
			if (in_ip && off == 0 && f.ipv6) {
				EXPECT_TRUE(ok);  // Traffic Class high nibble is masked
				continue;
			}
			EXPECT_EQ(ok, is_masked) << "offset " << off;
		}
		// Corrupt ICRC, short or non-IP input
		Frame g = f;
		g.bytes.back() ^= 0x80;
		EXPECT_FALSE(sroce_icrc_verify(g.ip(), g.ip_len, g.udp(), g.udp_len));
		EXPECT_FALSE(sroce_icrc_verify(f.ip(), f.ip_len, f.udp(), 23));
		EXPECT_FALSE(sroce_icrc_verify(f.ip(), f.ip_len, f.udp(), 3));
		EXPECT_FALSE(sroce_icrc_verify(f.ip(), f.ip_len - 1, f.udp(), f.udp_len));
		EXPECT_FALSE(sroce_icrc_verify(f.ip(), 0, f.udp(), f.udp_len));
	}
	std::uint32_t crc;
	const std::uint8_t v5[40] = {0x50};
	const std::uint8_t udp[20] = {};
	EXPECT_EQ(sroce_icrc_start(&crc, v5, sizeof(v5), udp, sizeof(udp)), SROCE_ICRC_EIP);
	EXPECT_EQ(sroce_icrc_start(&crc, v5, sizeof(v5), udp, 19), SROCE_ICRC_ESHORT);
}

// --- decoding the golden frames ----------------------------------------------

TEST(Wire, GoldenDecode)
{
	for (size_t i = 0; i < golden().size(); i++) {
		const Frame &f = golden()[i];
		sroce_pkt_hdr h{};

		ASSERT_EQ(sroce_pkt_parse(f.bth(), f.bth_len, &h), SROCE_PKT_OK) << i;
		EXPECT_EQ(h.bth.tver, 0);
		EXPECT_FALSE(h.bth.se);
		EXPECT_FALSE(h.bth.mig);
		EXPECT_FALSE(h.bth.fecn);
		EXPECT_FALSE(h.bth.becn);
		EXPECT_EQ(h.bth.pkey, SROCE_DEFAULT_PKEY);
		EXPECT_EQ(h.bth.dqpn, 0x000123u);
		EXPECT_TRUE(h.bth.ack_req);
		EXPECT_EQ(h.bth.pad, 3);
		EXPECT_EQ(h.info, sroce_opcode(h.bth.opcode));
		const std::uint8_t *payload = f.bth() + h.hdr_len;
		if (!is_write_imm(i)) {
			EXPECT_EQ(h.bth.opcode, SROCE_OP_RC_SEND_ONLY);
			EXPECT_STREQ(h.info->name, "RC SEND Only");
			EXPECT_EQ(h.bth.psn, 0x123456u);
			EXPECT_EQ(h.hdr_len, 12u);
			EXPECT_EQ(h.payload_len, 37u);
		} else {
			EXPECT_EQ(h.bth.opcode, SROCE_OP_RC_WRITE_ONLY_IMM);
			EXPECT_STREQ(h.info->name, "RC RDMA WRITE Only with Immediate");
			EXPECT_EQ(h.bth.psn, 0x123457u);
			EXPECT_EQ(h.hdr_len, 32u);
			EXPECT_EQ(h.reth.va, 0x1122334455667788ull);
			EXPECT_EQ(h.reth.rkey, 0x5678u);
			EXPECT_EQ(h.reth.dma_len, 5u);
			// The capture program stored 0x0badcafe into the __be32
			// imm_data without cpu_to_be32() on a little-endian host, so
			// the wire carries fe ca ad 0b: read big-endian, 0xfecaad0b.
			EXPECT_EQ(h.immdt, 0xfecaad0bu);
			EXPECT_EQ(__builtin_bswap32(h.immdt), 0x0badcafeu);
			EXPECT_EQ(h.payload_len, 5u);
		}
		for (std::uint32_t k = 0; k < h.payload_len; k++)
			EXPECT_EQ(payload[k], 0x41 + k);
		for (std::uint32_t k = 0; k < h.bth.pad; k++)
			EXPECT_EQ(payload[h.payload_len + k], 0);
		EXPECT_EQ(h.hdr_len + h.payload_len + h.bth.pad + SROCE_PKT_ICRC_LEN, f.bth_len);
	}
}

TEST(Wire, GoldenReencode)
{
	for (const Frame &f : golden()) {
		sroce_pkt_hdr h{};
		ASSERT_EQ(sroce_pkt_parse(f.bth(), f.bth_len, &h), SROCE_PKT_OK);
		std::uint8_t out[SROCE_HDR_MAX_LEN];
		std::memset(out, 0xaa, sizeof(out));
		ASSERT_EQ(sroce_pkt_build_hdrs(out, sizeof(out), &h), static_cast<int>(h.hdr_len));
		EXPECT_EQ(std::memcmp(out, f.bth(), h.hdr_len), 0);
	}
}

// Build the WRITE Only with Immediate frame from scratch, whole packet and
// ICRC included, and compare it with what rdma_rxe sent.
TEST(Wire, GoldenBuildFromScratch)
{
	const Frame &f = golden()[3];
	sroce_pkt_hdr h{};
	h.bth.opcode = SROCE_OP_RC_WRITE_ONLY_IMM;
	h.bth.pkey = 0xffff;
	h.bth.dqpn = 0x123;
	h.bth.ack_req = true;
	h.bth.psn = 0x123457;
	h.bth.pad = sroce_pad_len(5);
	h.reth = {0x1122334455667788ull, 0x5678, 5};
	h.immdt = 0xfecaad0b;

	Bytes pkt(f.bytes.begin(), f.bytes.begin() + f.bth_off);  // Eth/IP/UDP
	std::uint8_t hdrs[SROCE_HDR_MAX_LEN];
	int n = sroce_pkt_build_hdrs(hdrs, sizeof(hdrs), &h);
	ASSERT_EQ(n, 32);
	pkt.insert(pkt.end(), hdrs, hdrs + n);
	for (int k = 0; k < 5; k++)
		pkt.push_back(static_cast<std::uint8_t>(0x41 + k));
	pkt.insert(pkt.end(), h.bth.pad, 0);
	std::uint32_t icrc;
	ASSERT_EQ(sroce_icrc_compute(&icrc, pkt.data() + f.ip_off, f.ip_len, pkt.data() + f.udp_off,
				     pkt.size() - f.udp_off),
		  0);
	pkt.resize(pkt.size() + 4);
	sroce_icrc_put(pkt.data() + pkt.size() - 4, icrc);
	EXPECT_EQ(pkt, f.bytes);
}

// --- opcode table ------------------------------------------------------------

unsigned popcount(std::uint32_t v)
{
	return static_cast<unsigned>(__builtin_popcount(v));
}

TEST(Opcode, ExactlyTheIbtaSet)
{
	std::set<unsigned> expect;
	for (unsigned op = 0x00; op <= 0x14; op++)
		expect.insert(op);
	expect.insert(0x16);
	expect.insert(0x17);
	expect.insert(0x1c);  // FLUSH (IBTA 1.5)
	expect.insert(0x1d);  // ATOMIC WRITE (IBTA 1.5)
	for (unsigned op = 0x20; op <= 0x2b; op++)
		expect.insert(op);
	expect.insert(0x64);
	expect.insert(0x65);
	for (unsigned op = 0xa0; op <= 0xb4; op++)
		expect.insert(op);
	expect.insert(0xb6);
	expect.insert(0xb7);
	for (unsigned op = 0; op < 256; op++) {
		const sroce_opcode_info *info = sroce_opcode(static_cast<std::uint8_t>(op));
		EXPECT_EQ(info != nullptr, expect.count(op) == 1) << std::hex << op;
		if (!info) {
			EXPECT_EQ(sroce_opcode_table[op].name, nullptr);
			EXPECT_EQ(sroce_opcode_table[op].hdr_len, 0);
		}
	}
}

// The header length the flags fl call for
unsigned hdr_len_of(std::uint32_t fl)
{
	unsigned len = SROCE_HDR_BTH_LEN;
	len += (fl & SROCE_OPF_RETH) ? SROCE_HDR_RETH_LEN : 0;
	len += (fl & SROCE_OPF_AETH) ? SROCE_HDR_AETH_LEN : 0;
	len += (fl & SROCE_OPF_IMMDT) ? SROCE_HDR_IMMDT_LEN : 0;
	len += (fl & SROCE_OPF_IETH) ? SROCE_HDR_IETH_LEN : 0;
	len += (fl & SROCE_OPF_ATMETH) ? SROCE_HDR_ATMETH_LEN : 0;
	len += (fl & SROCE_OPF_ATMACK) ? SROCE_HDR_ATMACK_LEN : 0;
	len += (fl & SROCE_OPF_DETH) ? SROCE_HDR_DETH_LEN : 0;
	len += (fl & SROCE_OPF_FETH) ? SROCE_HDR_FETH_LEN : 0;
	len += (fl & SROCE_OPF_XRCETH) ? SROCE_HDR_XRCETH_LEN : 0;
	return len;
}

// An opcode's transport: its prefix, its name's and its flags agree
void expect_transport(unsigned op, const sroce_opcode_info *info)
{
	const std::uint32_t fl = info->flags;
	const unsigned prefix = op & SROCE_OP_TRANSPORT_MASK;
	const std::string name = info->name;
	if (fl & SROCE_OPF_RC) {
		EXPECT_EQ(prefix, SROCE_OP_PREFIX_RC);
		EXPECT_EQ(name.substr(0, 3), "RC ");
	} else if (fl & SROCE_OPF_XRC) {
		EXPECT_EQ(prefix, SROCE_OP_PREFIX_XRC);
		EXPECT_EQ(name.substr(0, 4), "XRC ");
	} else if (fl & SROCE_OPF_UC) {
		EXPECT_EQ(prefix, SROCE_OP_PREFIX_UC);
		EXPECT_EQ(name.substr(0, 3), "UC ");
		EXPECT_TRUE(fl & SROCE_OPF_REQ);
	} else {
		EXPECT_EQ(prefix, SROCE_OP_PREFIX_UD);
		EXPECT_EQ(name.substr(0, 3), "UD ");
		EXPECT_TRUE(fl & SROCE_OPF_DETH);
		EXPECT_TRUE(fl & SROCE_OPF_ONLY);
	}
	EXPECT_EQ((fl & SROCE_OPF_DETH) != 0, (fl & SROCE_OPF_UD) != 0);
	// every XRC request, and nothing else, names its XRC SRQ
	EXPECT_EQ((fl & SROCE_OPF_XRCETH) != 0, (fl & SROCE_OPF_XRC) && (fl & SROCE_OPF_REQ));
}

// Every request and READ response names its operation, which decides
// whether it is acknowledged and carries a payload
void expect_operation(std::uint32_t fl)
{
	if (fl & (SROCE_OPF_REQ | SROCE_OPF_RESP)) {
		EXPECT_EQ(popcount(fl & SROCE_OPF_OPERATION), 1u);
	}
	EXPECT_EQ((fl & SROCE_OPF_NEEDS_ACK) != 0,
		  (fl & SROCE_OPF_RELIABLE) && (fl & SROCE_OPF_REQ));
	EXPECT_EQ((fl & SROCE_OPF_PAYLOAD) != 0,
		  (fl & (SROCE_OPF_SEND | SROCE_OPF_WRITE | SROCE_OPF_ATOMIC_WRITE)) ||
			  (fl & SROCE_OPF_RESP));
	EXPECT_EQ((fl & SROCE_OPF_FETH) != 0, (fl & SROCE_OPF_FLUSH) != 0);
	if (fl & (SROCE_OPF_FLUSH | SROCE_OPF_ATOMIC_WRITE)) {
		EXPECT_TRUE((fl & SROCE_OPF_RC) && (fl & SROCE_OPF_ONLY) && (fl & SROCE_OPF_RETH));
	}
	if (fl & SROCE_OPF_RESP) {
		EXPECT_TRUE(fl & SROCE_OPF_READ);
	}
}

// Extension headers sit where IBTA puts them
void expect_ext_headers(const sroce_opcode_info *info)
{
	const std::uint32_t fl = info->flags;
	if (fl & SROCE_OPF_RETH) {
		EXPECT_TRUE(fl & SROCE_OPF_START);
	}
	if (fl & (SROCE_OPF_IMMDT | SROCE_OPF_IETH)) {
		EXPECT_TRUE(fl & SROCE_OPF_END);
	}
	EXPECT_FALSE((fl & SROCE_OPF_IMMDT) && (fl & SROCE_OPF_IETH));
	if (fl & SROCE_OPF_IETH) {
		EXPECT_TRUE((fl & SROCE_OPF_RELIABLE) && (fl & SROCE_OPF_SEND));
	}
	if ((fl & SROCE_OPF_WRITE) && (fl & SROCE_OPF_START)) {
		EXPECT_TRUE(fl & SROCE_OPF_RETH);
	}
	if (fl & SROCE_OPF_AETH) {
		EXPECT_TRUE((fl & SROCE_OPF_ACK) ||
			    ((fl & SROCE_OPF_RESP) && !(fl & SROCE_OPF_MIDDLE)));
	}
	if (fl & (SROCE_OPF_ACK | SROCE_OPF_RESP)) {
		EXPECT_TRUE(fl & SROCE_OPF_RELIABLE);
	}
	if (fl & SROCE_OPF_ACK) {
		EXPECT_TRUE(fl & SROCE_OPF_AETH);
	}
	EXPECT_EQ((fl & SROCE_OPF_ATMETH) != 0, (fl & SROCE_OPF_ATOMIC) && (fl & SROCE_OPF_REQ));
	EXPECT_EQ((fl & SROCE_OPF_ATMACK) != 0, (fl & SROCE_OPF_ATOMIC) && (fl & SROCE_OPF_ACK));
	if (fl & SROCE_OPF_MIDDLE) {
		EXPECT_EQ(info->hdr_len,
			  SROCE_HDR_BTH_LEN + ((fl & SROCE_OPF_XRCETH) ? SROCE_HDR_XRCETH_LEN : 0));
	}
	if ((fl & SROCE_OPF_READ) && (fl & SROCE_OPF_REQ)) {
		EXPECT_TRUE((fl & SROCE_OPF_RETH) && !(fl & SROCE_OPF_PAYLOAD));
	}
}

TEST(Opcode, Invariants)
{
	for (unsigned op = 0; op < 256; op++) {
		const sroce_opcode_info *info = sroce_opcode(static_cast<std::uint8_t>(op));
		if (!info)
			continue;
		const std::uint32_t fl = info->flags;
		SCOPED_TRACE(info->name);

		EXPECT_EQ(info->hdr_len, hdr_len_of(fl));
		EXPECT_LE(info->hdr_len, SROCE_HDR_MAX_LEN);

		ASSERT_NE(info->name, nullptr);
		EXPECT_EQ(popcount(fl & SROCE_OPF_TRANSPORT), 1u);
		EXPECT_EQ(popcount(fl & SROCE_OPF_KIND), 1u);
		EXPECT_EQ(popcount(fl & SROCE_OPF_POSITION), 1u);
		EXPECT_LE(popcount(fl & SROCE_OPF_OPERATION), 1u);

		expect_transport(op, info);
		expect_operation(fl);
		expect_ext_headers(info);
	}
}

// Every packet of every message operation gets an RC request opcode of that
// operation, at that position, with the immediate or invalidate header only
// where the message ends.
TEST(MsgOpcode, OperationPositionAndTrailers)
{
	struct Case {
		sroce_msg_op op;
		std::uint32_t kind;	// SEND or WRITE
		std::uint32_t trailer;	// IMMDT, IETH or 0, on the last packet
	};
	const Case cases[] = {
		{SROCE_MSG_SEND, SROCE_OPF_SEND, 0},
		{SROCE_MSG_SEND_IMM, SROCE_OPF_SEND, SROCE_OPF_IMMDT},
		{SROCE_MSG_SEND_INV, SROCE_OPF_SEND, SROCE_OPF_IETH},
		{SROCE_MSG_WRITE, SROCE_OPF_WRITE, 0},
		{SROCE_MSG_WRITE_IMM, SROCE_OPF_WRITE, SROCE_OPF_IMMDT},
	};
	for (const Case &c : cases) {
		for (int pos = 0; pos < 4; pos++) {
			const bool first = pos & 2, last = pos & 1;
			const std::uint8_t op = sroce_msg_opcode(c.op, first, last);
			const sroce_opcode_info *info = sroce_opcode(op);
			ASSERT_NE(info, nullptr) << c.op << " " << pos;
			SCOPED_TRACE(info->name);
			const std::uint32_t fl = info->flags;
			EXPECT_TRUE(fl & SROCE_OPF_RC);
			EXPECT_TRUE(fl & SROCE_OPF_REQ);
			EXPECT_TRUE(fl & c.kind);
			const std::uint32_t want = first && last ? SROCE_OPF_ONLY
						   : first	 ? SROCE_OPF_FIRST
						   : last	 ? SROCE_OPF_LAST
								 : SROCE_OPF_MIDDLE;
			EXPECT_EQ(fl & SROCE_OPF_POSITION, want);
			EXPECT_EQ(fl & (SROCE_OPF_IMMDT | SROCE_OPF_IETH), last ? c.trailer : 0u);
			// a WRITE's RETH rides on the packet that starts it
			if (c.kind == SROCE_OPF_WRITE) {
				EXPECT_EQ((fl & SROCE_OPF_RETH) != 0, first);
			}
		}
	}
	EXPECT_EQ(sroce_msg_opcode(SROCE_MSG_NR, true, true), SROCE_OP_RC_SEND_ONLY);
}

// The responder's sequence rule against the whole table: outside a
// message only a start; inside a SEND (WRITE) only a SEND (WRITE) MIDDLE or
// LAST, whatever its transport.
TEST(MsgOpcode, Follows)
{
	for (unsigned op = 0; op < 256; op++) {
		const sroce_opcode_info *info = sroce_opcode(static_cast<std::uint8_t>(op));
		if (!info)
			continue;
		SCOPED_TRACE(info->name);
		const std::uint32_t fl = info->flags;
		const bool cont = fl & (SROCE_OPF_MIDDLE | SROCE_OPF_LAST);
		EXPECT_EQ(sroce_opcode_follows(false, false, fl), (fl & SROCE_OPF_START) != 0);
		EXPECT_EQ(sroce_opcode_follows(true, false, fl), cont && (fl & SROCE_OPF_SEND));
		EXPECT_EQ(sroce_opcode_follows(false, true, fl), cont && (fl & SROCE_OPF_WRITE));
	}
	// a message's own packets, in order
	for (sroce_msg_op m : {SROCE_MSG_SEND_IMM, SROCE_MSG_WRITE}) {
		const bool send = m == SROCE_MSG_SEND_IMM;
		EXPECT_TRUE(sroce_opcode_follows(
			false, false, sroce_opcode(sroce_msg_opcode(m, true, false))->flags));
		EXPECT_TRUE(sroce_opcode_follows(
			send, !send, sroce_opcode(sroce_msg_opcode(m, false, false))->flags));
		EXPECT_TRUE(sroce_opcode_follows(
			send, !send, sroce_opcode(sroce_msg_opcode(m, false, true))->flags));
		EXPECT_FALSE(sroce_opcode_follows(
			send, !send, sroce_opcode(sroce_msg_opcode(m, true, true))->flags));
	}
}

// UC SEND / RDMA WRITE opcodes mirror RC 0x00..0x0b with the transport bits
// swapped (UC requests are never acknowledged).
TEST(Opcode, UcMirrorsRc)
{
	for (unsigned low = 0; low <= 0x0b; low++) {
		const sroce_opcode_info *rc = sroce_opcode(static_cast<std::uint8_t>(low));
		const sroce_opcode_info *uc = sroce_opcode(static_cast<std::uint8_t>(0x20 | low));
		ASSERT_TRUE(rc && uc);
		EXPECT_EQ(uc->flags,
			  (rc->flags & ~(SROCE_OPF_RC | SROCE_OPF_NEEDS_ACK)) | SROCE_OPF_UC);
		EXPECT_EQ(uc->hdr_len, rc->hdr_len);
		EXPECT_EQ(std::string(uc->name).substr(3), std::string(rc->name).substr(3));
	}
}

// XRC opcodes mirror every RC one with prefix 101b; requests gain the
// 4-byte XRCETH, responses and acknowledges are the same as RC's.
TEST(Opcode, XrcMirrorsRc)
{
	for (unsigned low = 0; low < 0x20; low++) {
		const sroce_opcode_info *rc = sroce_opcode(static_cast<std::uint8_t>(low));
		const sroce_opcode_info *xrc = sroce_opcode(static_cast<std::uint8_t>(0xa0 | low));
		// FLUSH and ATOMIC WRITE (IBTA 1.5) are offered on RC only
		if (low == SROCE_OP_RC_FLUSH || low == SROCE_OP_RC_ATOMIC_WRITE) {
			EXPECT_EQ(xrc, nullptr) << std::hex << low;
			continue;
		}
		ASSERT_EQ(rc != nullptr, xrc != nullptr) << std::hex << low;
		if (!rc)
			continue;
		const bool req = rc->flags & SROCE_OPF_REQ;
		EXPECT_EQ(xrc->flags,
			  (rc->flags & ~SROCE_OPF_RC) | SROCE_OPF_XRC |
				  (req ? static_cast<std::uint32_t>(SROCE_OPF_XRCETH) : 0u));
		EXPECT_EQ(xrc->hdr_len, rc->hdr_len + (req ? SROCE_HDR_XRCETH_LEN : 0));
		EXPECT_EQ(std::string(xrc->name).substr(4), std::string(rc->name).substr(3));
	}
}

// XRCETH sits right after the BTH, before RETH/AtomicETH/ImmDt: 8 reserved
// bits (written 0, ignored) and the 24-bit XRC SRQ number.
TEST(Wire, XrcethLayout)
{
	sroce_pkt_hdr h{};
	h.bth.opcode = SROCE_OP_XRC_WRITE_ONLY_IMM;
	h.bth.dqpn = 0x123;
	h.xrc_srqn = 0xffabcdef;  // wider than 24 bits: truncated
	h.reth = {0x1122334455667788ull, 0x5678, 4};
	h.immdt = 0xdeadbeef;
	std::uint8_t b[SROCE_HDR_MAX_LEN];
	std::memset(b, 0xaa, sizeof(b));
	ASSERT_EQ(sroce_pkt_build_hdrs(b, sizeof(b), &h), 36);
	EXPECT_EQ(b[0], 0xab);
	EXPECT_EQ(b[12], 0);  // reserved
	EXPECT_EQ(sroce_get_be24(b + 13), 0xabcdefu);
	EXPECT_EQ(sroce_get_be64(b + 16), 0x1122334455667788ull);
	EXPECT_EQ(sroce_get_be32(b + 24), 0x5678u);
	EXPECT_EQ(sroce_get_be32(b + 28), 4u);
	EXPECT_EQ(sroce_get_be32(b + 32), 0xdeadbeefu);

	Bytes p(36 + 4 + SROCE_PKT_ICRC_LEN, 0);  // headers, payload, ICRC
	std::memcpy(p.data(), b, 36);
	p[12] = 0xff;  // reserved bits are ignored
	for (int k = 0; k < 4; k++)
		p[36 + k] = static_cast<std::uint8_t>(k + 1);
	sroce_pkt_hdr out{};
	ASSERT_EQ(sroce_pkt_parse(p.data(), p.size(), &out), SROCE_PKT_OK);
	EXPECT_EQ(out.xrc_srqn, 0xabcdefu);
	EXPECT_EQ(out.reth.va, 0x1122334455667788ull);
	EXPECT_EQ(out.immdt, 0xdeadbeefu);
	EXPECT_EQ(out.hdr_len, 36u);
	EXPECT_EQ(out.payload_len, 4u);

	// an XRC atomic is the longest header; one byte short is truncated
	h = {};
	h.bth.opcode = SROCE_OP_XRC_COMPARE_SWAP;
	EXPECT_EQ(sroce_pkt_build_hdrs(b, SROCE_HDR_MAX_LEN, &h), SROCE_HDR_MAX_LEN);
	EXPECT_EQ(sroce_pkt_build_hdrs(b, SROCE_HDR_MAX_LEN - 1, &h), SROCE_PKT_ETRUNC);
	Bytes a(b, b + SROCE_HDR_MAX_LEN - 1);
	a.resize(a.size() + 4);
	EXPECT_EQ(sroce_pkt_parse(a.data(), a.size(), &out), SROCE_PKT_ETRUNC);

	// responses carry no XRCETH
	EXPECT_EQ(sroce_opcode(SROCE_OP_XRC_ACKNOWLEDGE)->hdr_len, 16);
	EXPECT_EQ(sroce_opcode(SROCE_OP_XRC_READ_RESPONSE_MIDDLE)->hdr_len, 12);
}

TEST(Opcode, SpotChecks)
{
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_COMPARE_SWAP)->hdr_len, 40);
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_ATOMIC_ACKNOWLEDGE)->hdr_len, 24);
	EXPECT_EQ(sroce_opcode(SROCE_OP_UD_SEND_ONLY_IMM)->hdr_len, 24);
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_READ_REQUEST)->hdr_len, 28);
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_SEND_ONLY_INV)->flags & SROCE_OPF_IETH, SROCE_OPF_IETH);
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_FLUSH)->hdr_len, 32);
	EXPECT_EQ(sroce_opcode(SROCE_OP_RC_ATOMIC_WRITE)->hdr_len, 28);
	EXPECT_EQ(sroce_opcode(0x15), nullptr);
	EXPECT_EQ(sroce_opcode(0x1b), nullptr);
	EXPECT_EQ(sroce_opcode(0x1e), nullptr);
	EXPECT_EQ(sroce_opcode(0x2c), nullptr);
	EXPECT_EQ(sroce_opcode(0x40), nullptr);	 // RD: not implemented
	EXPECT_EQ(sroce_opcode(0xff), nullptr);
}

// --- PSN -----------------------------------------------------------------------

TEST(Psn, Wrap)
{
	EXPECT_EQ(sroce_psn_add(0xffffff, 1), 0u);
	EXPECT_EQ(sroce_psn_inc(0xffffff), 0u);
	EXPECT_EQ(sroce_psn_add(0xfffff0, 0x20), 0x10u);
	EXPECT_EQ(sroce_psn_add(5, 0xffffff), 4u);  // + (2^24 - 1) == - 1
}

TEST(Psn, Diff)
{
	EXPECT_EQ(sroce_psn_diff(0, 0xffffff), 1);
	EXPECT_EQ(sroce_psn_diff(0xffffff, 0), -1);
	EXPECT_EQ(sroce_psn_diff(0x10, 0xfffff0), 0x20);
	EXPECT_EQ(sroce_psn_diff(0xfffff0, 0x10), -0x20);
	EXPECT_EQ(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	EXPECT_EQ(sroce_psn_diff(0x800000, 0), -0x800000);
	EXPECT_EQ(sroce_psn_diff(0x123456, 0x123456), 0);
	// high bits of the inputs are ignored
	EXPECT_EQ(sroce_psn_diff(0xff000001, 0x00000000), 1);
	std::mt19937 rng(3);
	for (int i = 0; i < 10000; i++) {
		std::uint32_t a = rng() & SROCE_PSN_MASK;
		int d = static_cast<int>(rng() % 0x1000000) - 0x800000;
		EXPECT_EQ(sroce_psn_diff(sroce_psn_add(a, static_cast<std::uint32_t>(d)), a), d);
	}
}

// --- AETH and timers ----------------------------------------------------------

TEST(Aeth, Syndromes)
{
	EXPECT_EQ(sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID), 0x1f);
	EXPECT_EQ(sroce_aeth_syn_ack(0), 0x00);
	EXPECT_EQ(sroce_aeth_syn_rnr(14), 0x2e);
	EXPECT_EQ(sroce_aeth_syn_rnr(0xff), 0x3f);  // only 5 bits
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ), 0x61);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS), 0x62);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REM_OP), 0x63);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INVALID_RD_REQ), 0x64);

	EXPECT_EQ(sroce_aeth_syn_type(0x2e), SROCE_AETH_RNR_NAK);
	EXPECT_EQ(sroce_aeth_syn_value(0x2e), 14);
	EXPECT_EQ(sroce_aeth_syn_type(0x63), SROCE_AETH_NAK);
	EXPECT_EQ(sroce_aeth_syn_value(0x63), SROCE_NAK_REM_OP);
	EXPECT_EQ(sroce_aeth_syn_type(0x1f), SROCE_AETH_ACK);

	for (unsigned s = 0; s < 256; s++) {
		bool valid = s < 0x40 || (s >= 0x60 && s <= 0x64);
		EXPECT_EQ(sroce_aeth_syn_valid(static_cast<std::uint8_t>(s)), valid) << s;
	}
}

TEST(Timers, RnrTable)
{
	EXPECT_EQ(sroce_rnr_timer_usecs(0), 655360u);
	EXPECT_EQ(sroce_rnr_timer_usecs(1), 10u);
	EXPECT_EQ(sroce_rnr_timer_usecs(2), 20u);
	EXPECT_EQ(sroce_rnr_timer_usecs(5), 60u);
	EXPECT_EQ(sroce_rnr_timer_usecs(14), 1280u);
	EXPECT_EQ(sroce_rnr_timer_usecs(18), 5120u);
	EXPECT_EQ(sroce_rnr_timer_usecs(24), 40960u);
	EXPECT_EQ(sroce_rnr_timer_usecs(31), 491520u);
	EXPECT_EQ(sroce_rnr_timer_usecs(32 + 1), 10u);	// 5-bit field
	for (std::uint8_t c = 2; c < SROCE_RNR_TIMER_CODES; c++)
		EXPECT_GT(sroce_rnr_timer_usecs(c), sroce_rnr_timer_usecs(c - 1));
	EXPECT_GT(sroce_rnr_timer_usecs(0), sroce_rnr_timer_usecs(31));
	// 4 doublings per 8 codes from 20 us on
	for (std::uint8_t c = 2; c + 2 < SROCE_RNR_TIMER_CODES; c++)
		EXPECT_EQ(sroce_rnr_timer_usecs(c + 2), 2 * sroce_rnr_timer_usecs(c));
}

TEST(Timers, RnrCodeFromUsecs)
{
	for (std::uint8_t c = 1; c < SROCE_RNR_TIMER_CODES; c++) {
		EXPECT_EQ(sroce_rnr_timer_code(sroce_rnr_timer_usecs(c)), c);
		EXPECT_EQ(sroce_rnr_timer_code(sroce_rnr_timer_usecs(c) - 1), c);
	}
	EXPECT_EQ(sroce_rnr_timer_code(0), 1);
	EXPECT_EQ(sroce_rnr_timer_code(491521), 0);
	EXPECT_EQ(sroce_rnr_timer_code(0xffffffff), 0);
}

TEST(Timers, LocalAckTimeout)
{
	EXPECT_EQ(sroce_local_ack_timeout_ns(0), 0u);  // infinite
	EXPECT_EQ(sroce_local_ack_timeout_ns(1), 8192u);
	EXPECT_EQ(sroce_local_ack_timeout_ns(14), 67108864u);	   // ~67 ms
	EXPECT_EQ(sroce_local_ack_timeout_ns(31), 4096ull << 31);  // ~2.4 h
	EXPECT_EQ(sroce_local_ack_timeout_ns(51), 1ull << 63);
	EXPECT_EQ(sroce_local_ack_timeout_ns(52), UINT64_MAX);
	EXPECT_EQ(sroce_local_ack_timeout_ns(255), UINT64_MAX);
}

TEST(Timers, RetryWaitBackoff)
{
	// timeout 0 stays infinite whatever the backoff
	EXPECT_EQ(sroce_retry_wait_ns(0, 3), 0u);
	// a short timeout doubles per expiry without progress
	const std::uint64_t t14 = sroce_local_ack_timeout_ns(14);  // ~67 ms
	for (unsigned b = 0; b <= 3; b++)
		EXPECT_EQ(sroce_retry_wait_ns(14, b), t14 << b) << b;
	// the doubling that would cross 1 s ends at 1 s
	EXPECT_EQ(sroce_retry_wait_ns(17, 0), sroce_local_ack_timeout_ns(17));	// ~537 ms
	EXPECT_EQ(sroce_retry_wait_ns(17, 1), SROCE_RETRY_WAIT_CEIL_NS);
	EXPECT_EQ(sroce_retry_wait_ns(17, 3), SROCE_RETRY_WAIT_CEIL_NS);
	EXPECT_EQ(sroce_retry_wait_ns(16, 1), sroce_local_ack_timeout_ns(17));	// ~537 ms
	EXPECT_EQ(sroce_retry_wait_ns(16, 2), SROCE_RETRY_WAIT_CEIL_NS);
	// a long timeout (NCCL's IB_TIMEOUT 20: ~4.3 s) is never stretched
	for (unsigned b = 0; b <= 3; b++) {
		EXPECT_EQ(sroce_retry_wait_ns(18, b), sroce_local_ack_timeout_ns(18)) << b;
		EXPECT_EQ(sroce_retry_wait_ns(20, b), sroce_local_ack_timeout_ns(20)) << b;
		EXPECT_EQ(sroce_retry_wait_ns(51, b), sroce_local_ack_timeout_ns(51)) << b;
		EXPECT_EQ(sroce_retry_wait_ns(255, b), UINT64_MAX) << b;
	}
	// never shorter than the timeout, never longer than max(timeout, 1 s)
	for (unsigned t = 1; t < 64; t++)
		for (unsigned b = 0; b <= 8; b++) {
			const std::uint64_t base =
				sroce_local_ack_timeout_ns(static_cast<std::uint8_t>(t));
			const std::uint64_t w =
				sroce_retry_wait_ns(static_cast<std::uint8_t>(t), b);
			EXPECT_GE(w, base);
			EXPECT_LE(w, std::max<std::uint64_t>(base, SROCE_RETRY_WAIT_CEIL_NS));
		}
}

// --- UDP source port ---------------------------------------------------------

TEST(UdpSport, RangeAndDeterminism)
{
	std::mt19937 rng(11);
	for (int i = 0; i < 100000; i++) {
		std::uint32_t s = rng(), d = rng();
		std::uint16_t p = sroce_udp_sport(s, d);
		EXPECT_GE(p, SROCE_UDP_SPORT_MIN);
		EXPECT_EQ(p, sroce_udp_sport(s, d));
		// only the 24-bit QPNs matter
		EXPECT_EQ(p, sroce_udp_sport(s & SROCE_QPN_MASK, d & SROCE_QPN_MASK));
	}
}

TEST(UdpSport, WellMixed)
{
	// Consecutive QPNs to one peer: 4096 random throws into 16384 ports
	// leave ~3625 distinct values.
	std::set<std::uint16_t> ports;
	for (std::uint32_t q = 1; q <= 4096; q++)
		ports.insert(sroce_udp_sport(q, 0x11));
	EXPECT_GT(ports.size(), 3450u);
	ports.clear();
	for (std::uint32_t q = 1; q <= 4096; q++)
		ports.insert(sroce_udp_sport(0x11, q));
	EXPECT_GT(ports.size(), 3450u);
	EXPECT_NE(sroce_udp_sport(1, 2), sroce_udp_sport(2, 1));

	// Each of the 14 entropy bits is set about half of the time.
	unsigned ones[14] = {};
	const unsigned n = 1u << 16;
	for (std::uint32_t q = 0; q < n; q++) {
		std::uint16_t p = sroce_udp_sport(q & 0xff, q >> 8);
		for (int b = 0; b < 14; b++)
			ones[b] += (p >> b) & 1;
	}
	for (int b = 0; b < 14; b++) {
		EXPECT_GT(ones[b], n / 2 - n / 50) << b;
		EXPECT_LT(ones[b], n / 2 + n / 50) << b;
	}
}

// --- parser rules --------------------------------------------------------------

// BTH + extension headers for op, then data bytes of payload+pad, then ICRC.
Bytes make_pkt(std::uint8_t op, std::uint32_t data, std::uint8_t pad, std::uint8_t tver = 0)
{
	const sroce_opcode_info *info = sroce_opcode(op);
	size_t hl = info ? info->hdr_len : SROCE_HDR_BTH_LEN;
	Bytes p(hl + data + SROCE_PKT_ICRC_LEN, 0);
	p[0] = op;
	p[1] = static_cast<std::uint8_t>((pad << 4) | tver);
	return p;
}

int parse(const Bytes &p)
{
	// exact-size heap copy so that sanitizers see any overread
	std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[p.size()]);
	if (!p.empty())
		std::memcpy(buf.get(), p.data(), p.size());
	sroce_pkt_hdr h{};
	return sroce_pkt_parse(buf.get(), p.size(), &h);
}

TEST(Parse, Rules)
{
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 0, 0)), SROCE_PKT_OK);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 4, 3)), SROCE_PKT_OK);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 0, 1)), SROCE_PKT_EPAD);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 5, 3)), SROCE_PKT_ELEN);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 0, 0, 1)), SROCE_PKT_ETVER);
	EXPECT_EQ(parse(make_pkt(0x15, 0, 0)), SROCE_PKT_EOPCODE);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_FIRST, 256, 0)), SROCE_PKT_OK);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_FIRST, 256, 1)), SROCE_PKT_EPAD);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_MIDDLE, 0, 0)), SROCE_PKT_ELEN);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_READ_RESPONSE_MIDDLE, 4, 2)), SROCE_PKT_EPAD);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_READ_REQUEST, 0, 0)), SROCE_PKT_OK);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_READ_REQUEST, 4, 0)), SROCE_PKT_ELEN);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_READ_REQUEST, 0, 1)), SROCE_PKT_EPAD);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_ACKNOWLEDGE, 0, 0)), SROCE_PKT_OK);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_ACKNOWLEDGE, 4, 0)), SROCE_PKT_ELEN);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_FETCH_ADD, 1, 0)), SROCE_PKT_ELEN);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_UD_SEND_ONLY_IMM, 8, 1)), SROCE_PKT_OK);

	Bytes ack = make_pkt(SROCE_OP_RC_ACKNOWLEDGE, 0, 0);
	ack[12] = 0x41;	 // reserved AETH type
	EXPECT_EQ(parse(ack), SROCE_PKT_EAETH);
	ack[12] = 0x65;	 // reserved NAK code
	EXPECT_EQ(parse(ack), SROCE_PKT_EAETH);
	ack[12] = 0x80;
	EXPECT_EQ(parse(ack), SROCE_PKT_EAETH);
	ack[12] = 0x64;
	EXPECT_EQ(parse(ack), SROCE_PKT_OK);

	// header without room for the ICRC
	Bytes ro = make_pkt(SROCE_OP_RC_WRITE_ONLY, 0, 0);
	ro.pop_back();
	EXPECT_EQ(parse(ro), SROCE_PKT_ETRUNC);
	EXPECT_EQ(parse(Bytes{}), SROCE_PKT_ETRUNC);
	EXPECT_EQ(parse(Bytes(15, 0)), SROCE_PKT_ETRUNC);
	EXPECT_EQ(parse(make_pkt(SROCE_OP_RC_SEND_ONLY, 0x10000, 0)), SROCE_PKT_ELEN);

	EXPECT_STREQ(sroce_pkt_strerror(SROCE_PKT_EPAD), "bad pad count");
	EXPECT_STREQ(sroce_pkt_strerror(-100), "unknown error");
}

TEST(Build, Errors)
{
	sroce_pkt_hdr h{};
	std::uint8_t buf[SROCE_HDR_MAX_LEN];
	h.bth.opcode = 0x15;
	EXPECT_EQ(sroce_pkt_build_hdrs(buf, sizeof(buf), &h), SROCE_PKT_EOPCODE);
	h.bth.opcode = SROCE_OP_RC_COMPARE_SWAP;
	EXPECT_EQ(sroce_pkt_build_hdrs(buf, 39, &h), SROCE_PKT_ETRUNC);
	EXPECT_EQ(sroce_pkt_build_hdrs(buf, 40, &h), 40);
}

// Random values in every field of a header of opcode op (pad 0)
sroce_pkt_hdr random_hdr(std::mt19937_64 &rng, unsigned op)
{
	sroce_pkt_hdr in{};
	in.bth.opcode = static_cast<std::uint8_t>(op);
	in.bth.se = rng() & 1;
	in.bth.mig = rng() & 1;
	in.bth.pkey = static_cast<std::uint16_t>(rng());
	in.bth.fecn = rng() & 1;
	in.bth.becn = rng() & 1;
	in.bth.dqpn = rng() & SROCE_QPN_MASK;
	in.bth.ack_req = rng() & 1;
	in.bth.resv7 = rng() & 0x7f;  // sroce's READ marks (sroce_sr.h)
	in.bth.psn = rng() & SROCE_PSN_MASK;
	in.reth = {rng(), static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
	in.aeth = {sroce_aeth_syn_rnr(static_cast<std::uint8_t>(rng())),
		   static_cast<std::uint32_t>(rng() & SROCE_AETH_MSN_MASK)};
	in.atmeth = {rng(), static_cast<std::uint32_t>(rng()), rng(), rng()};
	in.atmack = rng();
	in.immdt = static_cast<std::uint32_t>(rng());
	in.ieth_rkey = static_cast<std::uint32_t>(rng());
	in.deth = {static_cast<std::uint32_t>(rng()),
		   static_cast<std::uint32_t>(rng() & SROCE_QPN_MASK)};
	in.feth = static_cast<std::uint32_t>(rng()) & (SROCE_FETH_SEL_MASK | SROCE_FETH_PLT_MASK);
	in.xrc_srqn = static_cast<std::uint32_t>(rng() & SROCE_QPN_MASK);
	return in;
}

// out, parsed from what in built, has every field of in its flags fl carry
void expect_same_fields(const sroce_pkt_hdr &in, const sroce_pkt_hdr &out, std::uint32_t fl)
{
	EXPECT_EQ(out.bth.se, in.bth.se);
	EXPECT_EQ(out.bth.mig, in.bth.mig);
	EXPECT_EQ(out.bth.pad, in.bth.pad);
	EXPECT_EQ(out.bth.pkey, in.bth.pkey);
	EXPECT_EQ(out.bth.fecn, in.bth.fecn);
	EXPECT_EQ(out.bth.becn, in.bth.becn);
	EXPECT_EQ(out.bth.dqpn, in.bth.dqpn);
	EXPECT_EQ(out.bth.ack_req, in.bth.ack_req);
	EXPECT_EQ(out.bth.resv7, in.bth.resv7);
	EXPECT_EQ(out.bth.psn, in.bth.psn);
	if (fl & SROCE_OPF_RETH) {
		EXPECT_EQ(out.reth.va, in.reth.va);
		EXPECT_EQ(out.reth.rkey, in.reth.rkey);
		EXPECT_EQ(out.reth.dma_len, in.reth.dma_len);
	}
	if (fl & SROCE_OPF_AETH) {
		EXPECT_EQ(out.aeth.syndrome, in.aeth.syndrome);
		EXPECT_EQ(out.aeth.msn, in.aeth.msn);
	}
	if (fl & SROCE_OPF_ATMETH) {
		EXPECT_EQ(out.atmeth.va, in.atmeth.va);
		EXPECT_EQ(out.atmeth.rkey, in.atmeth.rkey);
		EXPECT_EQ(out.atmeth.swap_add, in.atmeth.swap_add);
		EXPECT_EQ(out.atmeth.compare, in.atmeth.compare);
	}
	if (fl & SROCE_OPF_ATMACK) {
		EXPECT_EQ(out.atmack, in.atmack);
	}
	if (fl & SROCE_OPF_IMMDT) {
		EXPECT_EQ(out.immdt, in.immdt);
	}
	if (fl & SROCE_OPF_IETH) {
		EXPECT_EQ(out.ieth_rkey, in.ieth_rkey);
	}
	if (fl & SROCE_OPF_DETH) {
		EXPECT_EQ(out.deth.qkey, in.deth.qkey);
		EXPECT_EQ(out.deth.src_qpn, in.deth.src_qpn);
	}
	if (fl & SROCE_OPF_XRCETH) {
		EXPECT_EQ(out.xrc_srqn, in.xrc_srqn);
	}
	if (fl & SROCE_OPF_FETH) {
		EXPECT_EQ(out.feth, in.feth);
	}
}

// Every opcode: random field values survive build -> parse unchanged.
TEST(Build, RoundTripEveryOpcode)
{
	std::mt19937_64 rng(42);
	for (unsigned op = 0; op < 256; op++) {
		const sroce_opcode_info *info = sroce_opcode(static_cast<std::uint8_t>(op));
		if (!info)
			continue;
		SCOPED_TRACE(info->name);
		for (int iter = 0; iter < 50; iter++) {
			sroce_pkt_hdr in = random_hdr(rng, op);
			std::uint32_t payload = 0;
			if (info->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))
				payload = 256;
			else if (info->flags & SROCE_OPF_PAYLOAD)
				payload = static_cast<std::uint32_t>(rng() % 64);
			in.bth.pad = sroce_pad_len(payload);

			Bytes pkt(info->hdr_len + payload + in.bth.pad + SROCE_PKT_ICRC_LEN);
			ASSERT_EQ(sroce_pkt_build_hdrs(pkt.data(), pkt.size(), &in), info->hdr_len);
			sroce_pkt_hdr out{};
			ASSERT_EQ(sroce_pkt_parse(pkt.data(), pkt.size(), &out), SROCE_PKT_OK);
			EXPECT_EQ(out.info, info);
			EXPECT_EQ(out.hdr_len, info->hdr_len);
			EXPECT_EQ(out.payload_len, payload);
			expect_same_fields(in, out, info->flags);
			// and re-encoding gives the same bytes
			Bytes again(info->hdr_len);
			ASSERT_EQ(sroce_pkt_build_hdrs(again.data(), again.size(), &out),
				  info->hdr_len);
			EXPECT_TRUE(std::equal(again.begin(), again.end(), pkt.begin()));
		}
	}
}

TEST(Build, ReservedBitsZeroAndIgnored)
{
	sroce_pkt_hdr h{};
	h.bth.opcode = SROCE_OP_UD_SEND_ONLY;
	h.bth.dqpn = 0xffffffff;  // wider than 24 bits: truncated
	h.bth.psn = 0xffffffff;
	h.deth = {0x80000000u, 0xffffffff};
	std::uint8_t b[20];
	ASSERT_EQ(sroce_pkt_build_hdrs(b, sizeof(b), &h), 20);
	EXPECT_EQ(b[4], 0);   // Resv6
	EXPECT_EQ(b[8], 0);   // Resv7
	EXPECT_EQ(b[16], 0);  // DETH reserved byte
	EXPECT_EQ(sroce_get_be24(b + 5), 0xffffffu);

	Bytes p(b, b + sizeof(b));
	p.resize(p.size() + 4);
	p[4] |= 0x3f;
	p[8] |= 0x7f;
	p[16] = 0xff;
	sroce_pkt_hdr out{};
	ASSERT_EQ(sroce_pkt_parse(p.data(), p.size(), &out), SROCE_PKT_OK);
	EXPECT_FALSE(out.bth.fecn);
	EXPECT_FALSE(out.bth.becn);
	EXPECT_FALSE(out.bth.ack_req);
	EXPECT_EQ(out.bth.resv7, 0x7f);	 // kept apart from AckReq, for the READ marks
	EXPECT_EQ(out.deth.src_qpn, 0xffffffu);
	EXPECT_EQ(out.deth.qkey, SROCE_QKEY_PRIVILEGED);
}

// IBTA 1.5 FLUSH: BTH, FETH (selectivity bits 5:4, placement bits 3:0), RETH;
// the FETH's reserved bits are written as zero and ignored on receipt.
TEST(Build, FlushHeaderLayout)
{
	sroce_pkt_hdr h{};
	h.bth.opcode = SROCE_OP_RC_FLUSH;
	h.feth = (SROCE_FETH_SEL_MR << SROCE_FETH_SEL_SHIFT) | SROCE_FETH_PLT_GLOBAL;
	h.reth = {0x1122334455667788ull, 0xabcdef01u, 4096};
	Bytes p(32 + SROCE_PKT_ICRC_LEN);
	ASSERT_EQ(sroce_pkt_build_hdrs(p.data(), p.size(), &h), 32);
	EXPECT_EQ(sroce_get_be32(p.data() + 12), 0x11u);
	EXPECT_EQ(sroce_get_be32(p.data() + 24), 0xabcdef01u);	// RETH R_Key
	EXPECT_EQ(sroce_get_be32(p.data() + 28), 4096u);	// RETH DMA length
	p[12] = 0xff;						// reserved bits
	p[15] |= 0xc0;
	sroce_pkt_hdr out{};
	ASSERT_EQ(sroce_pkt_parse(p.data(), p.size(), &out), SROCE_PKT_OK);
	EXPECT_EQ(out.feth, h.feth);
	EXPECT_EQ(out.reth.va, h.reth.va);
	// ATOMIC WRITE: BTH, RETH, then the 8 bytes to write as payload
	h = {};
	h.bth.opcode = SROCE_OP_RC_ATOMIC_WRITE;
	Bytes a(28 + 8 + SROCE_PKT_ICRC_LEN);
	ASSERT_EQ(sroce_pkt_build_hdrs(a.data(), a.size(), &h), 28);
	ASSERT_EQ(sroce_pkt_parse(a.data(), a.size(), &out), SROCE_PKT_OK);
	EXPECT_EQ(out.payload_len, 8u);
}

// --- robustness --------------------------------------------------------------

// A successful parse must describe exactly the buffer it was given.
void expect_consistent(const std::uint8_t *p, size_t len)
{
	sroce_pkt_hdr h{};
	int err = sroce_pkt_parse(p, len, &h);
	if (err == SROCE_PKT_OK) {
		ASSERT_NE(h.info, nullptr);
		EXPECT_EQ(static_cast<size_t>(h.hdr_len) + h.payload_len + h.bth.pad + h.sack_len +
				  SROCE_PKT_ICRC_LEN,
			  len);
		if (h.sack_len) {
			EXPECT_EQ(h.sack_len, SROCE_SACK_LEN);
			EXPECT_EQ(h.payload_len, 0u);
		}
		EXPECT_EQ(len % 4, 0u);
		EXPECT_EQ(h.bth.tver, 0);
	} else {
		EXPECT_LT(err, 0);
		EXPECT_GE(err, SROCE_PKT_EAETH);
	}
}

TEST(Robustness, EveryTruncation)
{
	for (const Frame &f : golden()) {
		for (size_t len = 0; len < f.bth_len; len++) {
			std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[len ? len : 1]);
			std::memcpy(buf.get(), f.bth(), len);
			sroce_pkt_hdr h{};
			int err = sroce_pkt_parse(buf.get(), len, &h);
			expect_consistent(buf.get(), len);
			// Only a cut by a multiple of 4 bytes that leaves the padded
			// payload in place can look well formed; the ICRC catches
			// that one.
			if (err == SROCE_PKT_OK) {
				EXPECT_EQ((f.bth_len - len) % 4, 0u);
				Bytes udp(f.udp(), f.udp() + 8);
				udp.insert(udp.end(), buf.get(), buf.get() + len);
				EXPECT_FALSE(sroce_icrc_verify(f.ip(), f.ip_len, udp.data(),
							       udp.size()));
			} else if (len < f.bth_len - 4) {
				EXPECT_NE(err, SROCE_PKT_EOPCODE);
			}
		}
	}
}

TEST(Robustness, RandomBuffers)
{
	std::mt19937 rng(0x5eed);
	static const std::uint8_t valid_ops[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
		0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x20, 0x24, 0x2b, 0x64, 0x65};
	unsigned ok = 0;
	for (int i = 0; i < 100000; i++) {
		size_t len = rng() % 97;
		std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[len ? len : 1]);
		for (size_t k = 0; k < len; k++)
			buf[k] = static_cast<std::uint8_t>(rng());
		// Half of the buffers start with a plausible BTH to get deeper.
		if (len >= 2 && (i & 1)) {
			buf[0] = valid_ops[rng() % sizeof(valid_ops)];
			buf[1] &= 0xf0;
		}
		sroce_pkt_hdr h{};
		if (sroce_pkt_parse(buf.get(), len, &h) == SROCE_PKT_OK)
			ok++;
		expect_consistent(buf.get(), len);

		// ICRC over arbitrary bytes must stay in bounds too.
		size_t iph_len = len < 60 ? len : 60;
		std::uint32_t icrc;
		(void)sroce_icrc_compute(&icrc, buf.get(), iph_len, buf.get(), len);
		(void)sroce_icrc_verify(buf.get(), iph_len, buf.get(), len);
	}
	EXPECT_GT(ok, 100u);  // the generator does reach the accept path
}

TEST(Robustness, MutatedGoldenPackets)
{
	std::mt19937 rng(99);
	for (const Frame &f : golden()) {
		for (int i = 0; i < 20000; i++) {
			Bytes p(f.bth(), f.bth() + f.bth_len);
			int flips = 1 + static_cast<int>(rng() % 4);
			for (int k = 0; k < flips; k++)
				p[rng() % p.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
			std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[p.size()]);
			std::memcpy(buf.get(), p.data(), p.size());
			expect_consistent(buf.get(), p.size());
		}
	}
}

// --- CNP (Annex A17, DCQCN) -----------------------------------------------------

TEST(Cnp, BuildLayout)
{
	std::uint8_t buf[SROCE_CNP_HDR_LEN + SROCE_PKT_ICRC_LEN];
	std::memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0x1234567), SROCE_CNP_HDR_LEN);
	const std::uint8_t bth[12] = {0x81, 0x00, 0xff, 0xff, 0x40, 0x23, 0x45, 0x67, 0, 0, 0, 0};
	EXPECT_EQ(std::memcmp(buf, bth, sizeof(bth)), 0);
	for (unsigned i = 12; i < SROCE_CNP_HDR_LEN; i++)
		EXPECT_EQ(buf[i], 0) << i;
	EXPECT_EQ(sroce_cnp_build(buf, SROCE_CNP_HDR_LEN - 1, 1), SROCE_PKT_ETRUNC);
	// not a transport opcode: the transport parser refuses it
	sroce_pkt_hdr h;
	EXPECT_EQ(sroce_pkt_parse(buf, sizeof(buf), &h), SROCE_PKT_EOPCODE);
}

TEST(Cnp, ParseAcceptsExactlyACnp)
{
	std::uint8_t buf[64] = {};
	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0xabcdef), SROCE_CNP_HDR_LEN);
	const size_t len = SROCE_CNP_HDR_LEN + SROCE_PKT_ICRC_LEN;
	std::uint32_t qpn = 0;
	EXPECT_EQ(sroce_cnp_parse(buf, len, &qpn), SROCE_PKT_OK);
	EXPECT_EQ(qpn, 0xabcdefu);
	EXPECT_EQ(sroce_cnp_parse(buf, len - 1, &qpn), SROCE_PKT_ETRUNC);
	EXPECT_EQ(sroce_cnp_parse(buf, 11, &qpn), SROCE_PKT_ETRUNC);
	EXPECT_EQ(sroce_cnp_parse(buf, len + 4, &qpn), SROCE_PKT_ELEN);
	buf[1] = 0x01;	// TVer 1
	EXPECT_EQ(sroce_cnp_parse(buf, len, &qpn), SROCE_PKT_ETVER);
	buf[1] = 0x10;	// PadCnt 1
	EXPECT_EQ(sroce_cnp_parse(buf, len, &qpn), SROCE_PKT_EPAD);
	buf[1] = 0;
	buf[0] = SROCE_OP_RC_ACKNOWLEDGE;
	EXPECT_EQ(sroce_cnp_parse(buf, len, &qpn), SROCE_PKT_EOPCODE);
}

}  // namespace

// --- selective repeat: hold window and SACK block (kernel/proto/sroce_sr.h) ---

namespace {

TEST(Sr, OffsetWindow)
{
	EXPECT_EQ(sroce_sr_offset(100, 100), 0u);  // in order: not held
	EXPECT_EQ(sroce_sr_offset(99, 100), 0u);   // duplicate
	EXPECT_EQ(sroce_sr_offset(101, 100), 1u);
	EXPECT_EQ(sroce_sr_offset(100 + SROCE_SR_WINDOW - 1, 100), SROCE_SR_WINDOW - 1);
	EXPECT_EQ(sroce_sr_offset(100 + SROCE_SR_WINDOW, 100), 0u);  // too far ahead
	// across the 24-bit wrap
	EXPECT_EQ(sroce_sr_offset(2, SROCE_PSN_MASK - 1), 4u);
	EXPECT_EQ(sroce_sr_offset(SROCE_PSN_MASK, 3), 0u);
}

TEST(Sr, WriteAtPlacesOnlyTheMiddlesOfTheWriteInProgress)
{
	u64 at = 0;

	// 10 packets of 1024 left, the last one 100 bytes: 9 * 1024 + 100
	const u32 left = 9 * 1024 + 100;
	EXPECT_TRUE(sroce_sr_write_at(1, 1024, left, 1024, &at));
	EXPECT_EQ(at, 1024u);
	EXPECT_TRUE(sroce_sr_write_at(8, 1024, left, 1024, &at));
	EXPECT_EQ(at, 8u * 1024);
	// the packet that ends the WRITE (its LAST) is held, never placed early
	EXPECT_FALSE(sroce_sr_write_at(9, 1024, left, 100, &at));
	// the LAST's position with a full packet, or a short one anywhere
	EXPECT_FALSE(sroce_sr_write_at(9, 1024, left, 1024, &at));
	EXPECT_FALSE(sroce_sr_write_at(9, 1024, left, 99, &at));
	EXPECT_FALSE(sroce_sr_write_at(9, 1024, left, 0, &at));
	// a short MIDDLE, or past the end: a later message's packet
	EXPECT_FALSE(sroce_sr_write_at(3, 1024, left, 1000, &at));
	EXPECT_FALSE(sroce_sr_write_at(10, 1024, left, 1024, &at));
	EXPECT_FALSE(sroce_sr_write_at(10, 1024, left, 4, &at));
	// exact multiple of the MTU: the full last packet ends the WRITE, held too
	EXPECT_FALSE(sroce_sr_write_at(3, 256, 4 * 256, 256, &at));
	EXPECT_TRUE(sroce_sr_write_at(2, 256, 4 * 256, 256, &at));
	EXPECT_EQ(at, 2u * 256);
	// offset 0 (in order), the window's end, no MTU
	EXPECT_FALSE(sroce_sr_write_at(0, 1024, left, 1024, &at));
	EXPECT_FALSE(sroce_sr_write_at(SROCE_SR_WINDOW, 256, 0xffffffffu, 256, &at));
	EXPECT_FALSE(sroce_sr_write_at(1, 0, left, 0, &at));
	// a huge WRITE: no overflow of offset * MTU
	EXPECT_TRUE(sroce_sr_write_at(SROCE_SR_WINDOW - 1, 4096, 0xffffffffu, 4096, &at));
	EXPECT_EQ(at, (u64)(SROCE_SR_WINDOW - 1) * 4096);
}

// Adaptive routing's spraying: every path's source port is in the dynamic
// range, path 0 is the QP's own, and up to SROCE_AR_PATHS_MAX paths are
// distinct ports, whatever the QP's port.
TEST(Sr, ArSourcePorts)
{
	for (u32 base : {0xc000u, 0xc001u, 0xdeadu, 0xfffeu, 0xffffu}) {
		std::set<u16> seen;
		EXPECT_EQ(sroce_ar_sport(static_cast<u16>(base), 0), base);
		for (u32 p = 0; p < SROCE_AR_PATHS_MAX; p++) {
			const u16 port = sroce_ar_sport(static_cast<u16>(base), p);
			EXPECT_GE(port, 0xc000u);
			seen.insert(port);
		}
		EXPECT_EQ(seen.size(), SROCE_AR_PATHS_MAX) << std::hex << base;
	}
	EXPECT_EQ(sroce_ar_sport(sroce_udp_sport(1, 2), 0), sroce_udp_sport(1, 2));
}

// The path a port takes on a two- or four-link LAG hashing layer3+4 as
// Linux's bonding does (addresses and ports XOR-folded, then modulo the
// link count; a model of it, in host byte order): with at least twice as
// many paths as links (the hash drops the port's bit 0) the paths' ports
// spread evenly for every QP's base port, where an additive step did not.
static unsigned BondLink(u16 sport, unsigned links)
{
	u32 h = (static_cast<u32>(sport) << 16 | 4791u) ^ 0xc0000201u ^ 0xc0000202u;

	h ^= h >> 16;
	h ^= h >> 8;
	return (h >> 1) % links;
}

TEST(Sr, ArSourcePortsSpreadEvenly)
{
	for (u32 base = 0xc000u; base <= 0xffffu; base += 0x3d) {
		for (unsigned links : {2u, 4u}) {
			for (u32 paths : {4u, 8u, 16u}) {
				std::vector<unsigned> n(links);

				if (paths < 2 * links)
					continue;  // the hash drops bit 0

				for (u32 p = 0; p < paths; p++)
					n[BondLink(sroce_ar_sport(static_cast<u16>(base), p),
						   links)]++;
				for (unsigned l = 0; l < links; l++)
					EXPECT_EQ(n[l], paths / links)
						<< std::hex << base << std::dec << " paths "
						<< paths << " links " << links;
			}
		}
	}
}

TEST(Sr, BitmapSetTestSpan)
{
	sroce_sack s{};
	EXPECT_EQ(sroce_sack_span(&s), 0u);
	sroce_sack_set(&s, 0);	// out of range: ignored
	sroce_sack_set(&s, SROCE_SR_WINDOW);
	EXPECT_EQ(s.map[0] | s.map[1], 0u);
	sroce_sack_set(&s, 1);
	sroce_sack_set(&s, 64);
	sroce_sack_set(&s, 65);
	sroce_sack_set(&s, SROCE_SR_WINDOW - 1);
	EXPECT_TRUE(sroce_sack_test(&s, 1));
	EXPECT_FALSE(sroce_sack_test(&s, 2));
	EXPECT_TRUE(sroce_sack_test(&s, 64));
	EXPECT_TRUE(sroce_sack_test(&s, 65));
	EXPECT_TRUE(sroce_sack_test(&s, SROCE_SR_WINDOW - 1));
	EXPECT_FALSE(sroce_sack_test(&s, 0));
	EXPECT_FALSE(sroce_sack_test(&s, SROCE_SR_WINDOW));
	EXPECT_EQ(sroce_sack_span(&s), SROCE_SR_WINDOW - 1);
}

TEST(Sr, SackBlockRoundTripAndHostileBlocks)
{
	sroce_sack s{}, out{};
	sroce_sack_set(&s, 3);
	sroce_sack_set(&s, 70);
	std::uint8_t b[SROCE_SACK_LEN];
	sroce_sack_put(b, &s, SROCE_SACK_KIND);
	EXPECT_EQ(b[0], SROCE_SACK_KIND);
	EXPECT_EQ(b[1], SROCE_SACK_LEN / 4);
	ASSERT_EQ(sroce_sack_get(b, sizeof(b), &out), SROCE_SACK_KIND);
	EXPECT_EQ(out.map[0], s.map[0]);
	EXPECT_EQ(out.map[1], s.map[1]);
	EXPECT_EQ(sroce_sack_count(&out), 2u);
	std::uint8_t upd[SROCE_SACK_LEN];
	sroce_sack_put(upd, &s, SROCE_SACK_KIND_UPDATE);  // the gap still open
	EXPECT_EQ(sroce_sack_get(upd, sizeof(upd), &out), SROCE_SACK_KIND_UPDATE);
	EXPECT_EQ(out.map[1], s.map[1]);

	EXPECT_EQ(sroce_sack_get(b, sizeof(b) - 4, &out), -1);	// length
	std::uint8_t bad[SROCE_SACK_LEN];
	std::memcpy(bad, b, sizeof(b));
	bad[0] = 3;  // kind
	EXPECT_EQ(sroce_sack_get(bad, sizeof(bad), &out), -1);
	bad[0] = 0;
	EXPECT_EQ(sroce_sack_get(bad, sizeof(bad), &out), -1);
	std::memcpy(bad, b, sizeof(b));
	bad[3] = 1;  // reserved
	EXPECT_EQ(sroce_sack_get(bad, sizeof(bad), &out), -1);
	std::memcpy(bad, b, sizeof(b));
	bad[12] = 0x80;	 // bit 127: past the window
	EXPECT_EQ(sroce_sack_get(bad, sizeof(bad), &out), -1);
	sroce_sack none{};
	sroce_sack_put(bad, &none, SROCE_SACK_KIND);  // holds nothing
	EXPECT_EQ(sroce_sack_get(bad, sizeof(bad), &out), -1);
}

// An Acknowledge flagged SACK carries exactly one block; nothing else may.
TEST(Sr, ParseSackAck)
{
	Bytes ack = make_pkt(SROCE_OP_RC_ACKNOWLEDGE, SROCE_SACK_LEN, 0);
	ack[12] = 0x60;				// NAK, PSN sequence error
	EXPECT_EQ(parse(ack), SROCE_PKT_ELEN);	// data, no flag
	ack[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
	sroce_pkt_hdr h{};
	ASSERT_EQ(sroce_pkt_parse(ack.data(), ack.size(), &h), SROCE_PKT_OK);
	EXPECT_EQ(h.sack_len, SROCE_SACK_LEN);
	EXPECT_EQ(h.payload_len, 0u);

	Bytes shortack = make_pkt(SROCE_OP_RC_ACKNOWLEDGE, SROCE_SACK_LEN - 4, 0);
	shortack[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
	EXPECT_EQ(parse(shortack), SROCE_PKT_ELEN);
	Bytes empty = make_pkt(SROCE_OP_RC_ACKNOWLEDGE, 0, 0);
	empty[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
	EXPECT_EQ(parse(empty), SROCE_PKT_ELEN);
	// the flag means nothing on other opcodes
	Bytes atm = make_pkt(SROCE_OP_RC_ATOMIC_ACKNOWLEDGE, SROCE_SACK_LEN, 0);
	atm[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
	EXPECT_EQ(parse(atm), SROCE_PKT_ELEN);
	Bytes send = make_pkt(SROCE_OP_RC_SEND_ONLY, 0, 0);
	send[SROCE_BTH_RESV8A_OFF] |= SROCE_BTH_SACK;
	ASSERT_EQ(sroce_pkt_parse(send.data(), send.size(), &h), SROCE_PKT_OK);
	EXPECT_EQ(h.sack_len, 0u);
}

}  // namespace
