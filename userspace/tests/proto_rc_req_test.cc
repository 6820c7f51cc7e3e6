// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The RC requester's resend decisions (kernel/proto/sroce_rc_req.h,
// compiled as C into sroce.ko and called by requester.c): where a go-back
// restarts inside an SQ entry, and which packets a resend after a NAK with
// a SACK block skips. Table-driven, each row naming its rule (IBTA Volume 1,
// 9.7 "Reliable service"; selective repeat is sroce's own,
// Documentation/transport.rst); PSNs are 24-bit (9.7.1), rows across the
// wrap.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <gtest/gtest.h>

#include "sroce_psn.h"
#include "sroce_rc_req.h"

namespace {

constexpr std::uint32_t kTop = SROCE_PSN_MASK;
constexpr std::uint32_t kMtu = 1024;

struct RestartRow {
	const char *rule;
	sroce_rc_entry e;  // first_psn, response, resp_done
	std::uint32_t psn;
	std::uint32_t restart, off;
};

const std::vector<RestartRow> kRestartRows = {
	{"go-back-N: a SEND/WRITE resends from the NAK'd PSN", {100, false, 0}, 103, 103, 3 * kMtu},
	{"go-back-N: from its first packet", {100, false, 0}, 100, 100, 0},
	{"a PSN before the entry (acknowledged earlier): its first packet",
	 {100, false, 0},
	 90,
	 100,
	 0},
	{"RDMA READ retry: ask only for the bytes not received yet",
	 {100, true, 2 * kMtu},
	 100,
	 102,
	 2 * kMtu},
	{"RDMA READ retry: whatever PSN the go-back named inside the READ",
	 {100, true, 2 * kMtu},
	 104,
	 102,
	 2 * kMtu},
	{"RDMA READ retry with nothing received: the whole READ again",
	 {100, true, 0},
	 100,
	 100,
	 0},
	{"atomic: resent whole (its response carries everything)", {100, true, 0}, 100, 100, 0},
	{"9.7.1 wrap: a WRITE from 0xfffffe resent from PSN 1",
	 {kTop - 1, false, 0},
	 1,
	 1,
	 3 * kMtu},
	{"9.7.1 wrap: a READ from 0xffffff with 1 MTU received asks from PSN 0",
	 {kTop, true, kMtu},
	 2,
	 0,
	 kMtu},
	{"9.7.1 wrap: PSN 0xffffff before an entry starting at 0", {0, false, 0}, kTop, 0, 0},
};

TEST(RcReq, RestartTable)
{
	for (const RestartRow &r : kRestartRows) {
		SCOPED_TRACE(r.rule);
		std::uint32_t off = 0xdeadbeef;
		EXPECT_EQ(sroce_rc_restart(&r.e, r.psn, kMtu, &off), r.restart);
		EXPECT_EQ(off, r.off);
	}
}

// Wide segments (sroce_wire.h): path MTU 1024 only, within a 1500-byte
// frame with every header; a SEND or WRITE of them resends from the PSN's
// byte, the segment times the PSNs before it
TEST(RcReq, WideSegments)
{
	EXPECT_EQ(sroce_wide_seg(1024), 1408u);
	EXPECT_LE(sroce_wide_seg(1024) + SROCE_WIDE_OVERHEAD, 1500u);
	EXPECT_EQ(sroce_wide_seg(4096), 7168u);
	EXPECT_LE(sroce_wide_seg(4096) + SROCE_WIDE_OVERHEAD, 9000u);
	for (std::uint32_t mtu : {256u, 512u, 2048u})
		EXPECT_EQ(sroce_wide_seg(mtu), 0u) << mtu;
	const sroce_rc_entry e{kTop - 1, false, 0};
	std::uint32_t off = 0;
	EXPECT_EQ(sroce_rc_restart(&e, 2, sroce_wide_seg(1024), &off), 2u);
	EXPECT_EQ(off, 4 * 1408u);
}

// a SACK for gap PSN @gap holding offsets @held, NAK'd with PSNs sent
// through @end - 1
sroce_rc_sacked sack(std::uint32_t gap, std::initializer_list<std::uint32_t> held,
		     std::uint32_t end)
{
	sroce_rc_sacked s{};
	sroce_sack map{};
	s.psn = gap;
	for (std::uint32_t off : held)
		sroce_sack_set(&map, off);
	sroce_rc_sacked_set(&s, &map);
	s.end = end;
	return s;
}

struct SkipRow {
	const char *rule;
	sroce_rc_sacked s;
	std::uint32_t psn;
	bool skip;
};

const std::vector<SkipRow> kSkipRows = {
	{"the gap PSN itself is always resent", sack(100, {1, 2}, 110), 100, false},
	{"a PSN before the gap is resent (not the SACK's)", sack(100, {1, 2}, 110), 99, false},
	{"a held PSN is skipped", sack(100, {1, 2, 5}, 110), 101, true},
	{"a hole between held PSNs is resent", sack(100, {1, 2, 5}, 110), 103, false},
	{"the last held PSN is skipped", sack(100, {1, 2, 5}, 110), 105, true},
	{"past the last held, sent before the NAK: in flight, skipped", sack(100, {1, 2, 5}, 110),
	 109, true},
	{"past the last held and not sent before the NAK: sent", sack(100, {1, 2, 5}, 110), 110,
	 false},
	{"the window's last offset (127) held: skipped", sack(100, {127}, 300), 227, true},
	{"9.7.1 wrap: gap 0xfffffe, held offset 2 is PSN 0", sack(kTop - 1, {2}, 5), 0, true},
	{"9.7.1 wrap: gap 0xfffffe, offset 1 (0xffffff) not held: resent", sack(kTop - 1, {2}, 5),
	 kTop, false},
	{"9.7.1 wrap: past the last held, before the end across 0", sack(kTop - 1, {2}, 5), 4,
	 true},
	{"9.7.1 wrap: at the end across 0: sent", sack(kTop - 1, {2}, 5), 5, false},
};

TEST(RcReq, SackSkipTable)
{
	for (const SkipRow &r : kSkipRows) {
		SCOPED_TRACE(r.rule);
		EXPECT_EQ(sroce_rc_sack_skip(&r.s, r.psn), r.skip);
	}
}

struct WindowRow {
	const char *rule;
	sroce_rc_sacked s;
	std::uint32_t psn, una, cwnd, room;
	bool open;
};

// the hole at 100, window 40; sack(gap, held, end): PSNs through end - 1
// sent when the NAK came; room 0: the responder never said it was full
const std::vector<WindowRow> kWindowRows = {
	{"39 sent behind the hole: 39 past the plain window", sack(100, {1}, 140), 178, 100, 40, 0,
	 true},
	{"39 sent behind the hole: not 40", sack(100, {1}, 140), 179, 100, 40, 0, false},
	{"room for 60: a span up to 59 past the hole", sack(100, {1}, 140), 159, 100, 40, 60, true},
	{"room for 60: 60 past the hole never", sack(100, {1}, 140), 160, 100, 40, 60, false},
	{"room for 30, less than the window: nothing past the plain window", sack(100, {1}, 140),
	 140, 100, 40, 30, false},
	{"the NAK names 20 held, none sent since it: 20 past",
	 sack(100, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 100),
	 159, 100, 40, 0, true},
	{"the NAK names 20 held: not 21",
	 sack(100, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 100),
	 160, 100, 40, 0, false},
	{"nothing sent or held behind the hole: the plain window", sack(100, {}, 101), 140, 100, 40,
	 0, false},
	{"no further than the responder holds (126 past the hole)", sack(100, {1}, 200), 226, 100,
	 40, 0, true},
	{"127 past the hole (the responder's last slot): left alone", sack(100, {1}, 200), 227, 100,
	 40, 0, false},
	{"the hole acknowledged: the plain window again", sack(100, {1}, 140), 141, 101, 40, 0,
	 false},
	{"a PSN before the oldest unacknowledged: never", sack(100, {1}, 140), 99, 100, 40, 0,
	 false},
	{"9.7.1 wrap: hole 0xfffff0, 45 sent behind it", sack(kTop - 15, {1}, 30), 68, kTop - 15,
	 40, 0, true},
	{"9.7.1 wrap: one past that", sack(kTop - 15, {1}, 30), 69, kTop - 15, 40, 0, false},
	{"9.7.1 wrap: room for 50", sack(kTop - 15, {1}, 30), 33, kTop - 15, 40, 50, true},
	{"9.7.1 wrap: room for 50, at it", sack(kTop - 15, {1}, 30), 34, kTop - 15, 40, 50, false},
};

TEST(RcReq, SackWindowTable)
{
	for (const WindowRow &r : kWindowRows) {
		SCOPED_TRACE(r.rule);
		EXPECT_EQ(sroce_rc_sack_window(&r.s, r.psn, r.una, r.cwnd, r.room), r.open);
	}
}

TEST(RcReq, SrReach)
{
	EXPECT_TRUE(sroce_rc_sr_reach(100, 100));	 // the oldest itself
	EXPECT_TRUE(sroce_rc_sr_reach(226, 100));	 // 126 ahead: held if 100 is lost
	EXPECT_FALSE(sroce_rc_sr_reach(227, 100));	 // the responder's last slot: left alone
	EXPECT_FALSE(sroce_rc_sr_reach(1124, 100));	 // a full loss window ahead
	EXPECT_TRUE(sroce_rc_sr_reach(110, kTop - 15));	 // 9.7.1 wrap: 126 ahead
	EXPECT_FALSE(sroce_rc_sr_reach(111, kTop - 15));
	EXPECT_TRUE(sroce_rc_sr_reach(99, 100));  // behind the oldest (a resend)
}

}  // namespace
