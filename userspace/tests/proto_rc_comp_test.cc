// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The RC completer's decisions (kernel/proto/sroce_rc_comp.h, compiled as C
// into sroce.ko and called by completer.c): what an Acknowledge packet is
// and how far it acknowledges, what a NAK does once its implicit ACK is
// applied (go back, RNR wait, fail with which status, nothing), the local
// ACK timeout, the retry and RNR budgets to exhaustion, and the checks of a
// READ response against its READ. Table-driven: each row names the IBTA
// rule it checks (Volume 1, chapter 9.7 "Reliable service" and 9.9 "Error
// handling"; section numbers where the tree already cites them). PSNs are
// 24-bit (9.7.1): rows across the wrap from 0xffffff to 0.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "sroce_psn.h"
#include "sroce_rc_comp.h"
#include "sroce_wire.h"

namespace {

constexpr std::uint32_t kTop = SROCE_PSN_MASK;	// the last PSN before the wrap

std::uint8_t ack()
{
	return sroce_aeth_syn_ack(SROCE_AETH_CREDITS_INVALID);
}
std::uint8_t rnr(std::uint8_t code)
{
	return sroce_aeth_syn_rnr(code);
}
std::uint8_t nak(sroce_nak_code code)
{
	return sroce_aeth_syn_nak(code);
}

// --- 1. what an Acknowledge packet is, and up to where it acknowledges ---

struct KindRow {
	const char *rule;
	std::uint8_t syn;
	std::uint32_t psn, hi_psn;
	sroce_rc_ack kind;
	std::uint32_t upto;  // checked unless dropped
};

const std::vector<KindRow> kKindRows = {
	{"9.7.5.2.1: an ACK acknowledges every request through its PSN", ack(), 10, 20,
	 SROCE_RC_ACK_ACK, 10},
	{"9.7.5.2.1: the ACK of the last PSN sent", ack(), 19, 20, SROCE_RC_ACK_ACK, 19},
	{"duplicate ACK (an old PSN): classified as an ACK, the walk finds nothing", ack(), 3, 20,
	 SROCE_RC_ACK_ACK, 3},
	{"ghost ACK: a PSN never sent (= next PSN) is dropped", ack(), 20, 20, SROCE_RC_ACK_DROP,
	 0},
	{"ghost ACK: far ahead of anything sent is dropped", ack(), 1000, 20, SROCE_RC_ACK_DROP, 0},
	{"9.7.5.2.1: an RNR NAK acknowledges the requests before its PSN", rnr(14), 10, 20,
	 SROCE_RC_ACK_RNR, 9},
	{"9.7.5.2.1: a PSN sequence error NAK acknowledges the requests before it",
	 nak(SROCE_NAK_PSN_SEQ_ERR), 10, 20, SROCE_RC_ACK_SEQ, 9},
	{"NAK code 1, invalid request: fatal", nak(SROCE_NAK_INVALID_REQ), 10, 20,
	 SROCE_RC_ACK_FATAL, 9},
	{"NAK code 2, remote access error: fatal", nak(SROCE_NAK_REM_ACCESS), 10, 20,
	 SROCE_RC_ACK_FATAL, 9},
	{"NAK code 3, remote operational error: fatal", nak(SROCE_NAK_REM_OP), 10, 20,
	 SROCE_RC_ACK_FATAL, 9},
	{"NAK code 4, invalid RD request: fatal", nak(SROCE_NAK_INVALID_RD_REQ), 10, 20,
	 SROCE_RC_ACK_FATAL, 9},
	{"ghost NAK: a PSN never sent is dropped", nak(SROCE_NAK_PSN_SEQ_ERR), 20, 20,
	 SROCE_RC_ACK_DROP, 0},
	{"9.7.5.2.1: the reserved syndrome type (10b) changes nothing",
	 static_cast<std::uint8_t>(SROCE_AETH_RESERVED << 5), 10, 20, SROCE_RC_ACK_DROP, 0},
	{"9.7.1 wrap: an ACK of 0xfffffe with PSNs sent through 1", ack(), kTop - 1, 2,
	 SROCE_RC_ACK_ACK, kTop - 1},
	{"9.7.1 wrap: a NAK of PSN 0 acknowledges through 0xffffff", nak(SROCE_NAK_PSN_SEQ_ERR), 0,
	 2, SROCE_RC_ACK_SEQ, kTop},
	{"9.7.1 wrap: a NAK of 0xffffff acknowledges through 0xfffffe", rnr(1), kTop, 2,
	 SROCE_RC_ACK_RNR, kTop - 1},
	{"9.7.1 wrap: an ACK of the next PSN (2) after the wrap is a ghost", ack(), 2, 2,
	 SROCE_RC_ACK_DROP, 0},
	{"9.7.1: half the PSN space ahead counts as behind (an old ACK), not a ghost", ack(),
	 2 + SROCE_PSN_HALF, 2, SROCE_RC_ACK_ACK, 2 + SROCE_PSN_HALF},
	{"9.7.1: one less than half the space ahead is a ghost", ack(), 2 + SROCE_PSN_HALF - 1, 2,
	 SROCE_RC_ACK_DROP, 0},
};

TEST(RcComp, AckKindTable)
{
	for (const KindRow &r : kKindRows) {
		SCOPED_TRACE(r.rule);
		std::uint32_t upto = 0xdeadbeef;
		EXPECT_EQ(sroce_rc_ack_kind(r.syn, r.psn, r.hi_psn, &upto), r.kind);
		if (r.kind != SROCE_RC_ACK_DROP) {
			EXPECT_EQ(upto, r.upto);
		}
	}
}

// --- 2. what a NAK does, from the state after its implicit ACK -----------

struct NakRow {
	const char *rule;
	sroce_rc_send s;  // heard_psn, una_psn, hi_psn, rnr_wait, retry_left, rnr_left
	std::uint8_t syn;
	std::uint32_t psn;
	sroce_rc_act act;
	sroce_rc_status status;
	std::uint32_t retry_left, rnr_left, rnr_usecs;
};

// the state with the responder's newest answer at the oldest unacknowledged PSN @una
sroce_rc_send st(std::uint32_t una, std::uint32_t retry, std::uint32_t rnr_left,
		 bool rnr_wait = false)
{
	return {una, una, sroce_psn_add(una, 100), rnr_wait, retry, rnr_left};
}

// ... with answers heard up to @heard past @una, which a READ missing
// responses holds back
sroce_rc_send st_read(std::uint32_t una, std::uint32_t heard, std::uint32_t retry)
{
	sroce_rc_send s = st(una, retry, 7);

	s.heard_psn = heard;
	return s;
}

sroce_rc_ack kind_of(std::uint8_t syn, std::uint32_t psn, std::uint32_t hi)
{
	std::uint32_t upto;
	return sroce_rc_ack_kind(syn, psn, hi, &upto);
}

const std::vector<NakRow> kNakRows = {
	// PSN sequence error NAK: go back, one transport retry spent
	{"seq NAK at the oldest unacknowledged PSN: go back, spend a retry", st(10, 7, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 10, SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 6, 7, 0},
	{"seq NAK past it (a READ before it misses responses): go back", st_read(10, 15, 3),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 15, SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 2, 7, 0},
	{"seq NAK overtaken by a later answer while a READ holds una back: nothing",
	 st_read(10, 30, 3), nak(SROCE_NAK_PSN_SEQ_ERR), 20, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 3,
	 7, 0},
	{"RNR NAK overtaken by a later answer: nothing", st_read(10, 30, 3), rnr(1), 20,
	 SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 3, 7, 0},
	{"9.9 retry exhaustion: seq NAK with no retry left fails RETRY_EXC", st(10, 0, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 10, SROCE_RC_ACT_FAIL, SROCE_RC_ST_RETRY_EXC, 0, 7, 0},
	{"duplicate (stale) seq NAK, PSN already acknowledged: nothing", st(10, 7, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 9, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7, 0},
	{"stale seq NAK with no retry left still does nothing", st(10, 0, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 5, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 0, 7, 0},
	{"seq NAK during an RNR wait: the RNR resend is due anyway", st(10, 7, 7, true),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 10, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7, 0},
	// RNR NAK: wait the encoded time, one RNR retry spent
	{"RNR NAK code 1: wait 10 us, spend an RNR retry", st(10, 7, 3), rnr(1), 10,
	 SROCE_RC_ACT_RNR_WAIT, SROCE_RC_ST_NONE, 7, 2, 10},
	{"RNR NAK code 14: wait 1.28 ms", st(10, 7, 3), rnr(14), 10, SROCE_RC_ACT_RNR_WAIT,
	 SROCE_RC_ST_NONE, 7, 2, 1280},
	{"RNR NAK code 31: wait 491.52 ms", st(10, 7, 3), rnr(31), 10, SROCE_RC_ACT_RNR_WAIT,
	 SROCE_RC_ST_NONE, 7, 2, 491520},
	{"RNR NAK code 0: the longest wait, 655.36 ms", st(10, 7, 3), rnr(0), 10,
	 SROCE_RC_ACT_RNR_WAIT, SROCE_RC_ST_NONE, 7, 2, 655360},
	{"rnr_retry 7 retries for ever: the budget is not spent", st(10, 7, 7), rnr(1), 10,
	 SROCE_RC_ACT_RNR_WAIT, SROCE_RC_ST_NONE, 7, 7, 10},
	{"9.9 RNR retry exhaustion: no RNR retry left fails RNR_RETRY_EXC", st(10, 7, 0), rnr(1),
	 10, SROCE_RC_ACT_FAIL, SROCE_RC_ST_RNR_RETRY_EXC, 7, 0, 0},
	{"an RNR NAK spends no transport retry (none left is fine)", st(10, 0, 2), rnr(1), 10,
	 SROCE_RC_ACT_RNR_WAIT, SROCE_RC_ST_NONE, 0, 1, 10},
	{"stale RNR NAK: nothing", st(10, 7, 3), rnr(1), 9, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7,
	 3, 0},
	{"RNR NAK during an RNR wait: one wait at a time", st(10, 7, 3, true), rnr(1), 10,
	 SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 3, 0},
	// the other NAK codes: the request fails with the matching status
	{"9.9 NAK invalid request: REM_INV_REQ", st(10, 7, 7), nak(SROCE_NAK_INVALID_REQ), 10,
	 SROCE_RC_ACT_FAIL, SROCE_RC_ST_REM_INV_REQ, 7, 7, 0},
	{"9.9 NAK remote access error: REM_ACCESS", st(10, 7, 7), nak(SROCE_NAK_REM_ACCESS), 12,
	 SROCE_RC_ACT_FAIL, SROCE_RC_ST_REM_ACCESS, 7, 7, 0},
	{"9.9 NAK remote operational error: REM_OP", st(10, 7, 7), nak(SROCE_NAK_REM_OP), 10,
	 SROCE_RC_ACT_FAIL, SROCE_RC_ST_REM_OP, 7, 7, 0},
	{"9.9 NAK invalid RD request: REM_INV_RD_REQ", st(10, 7, 7), nak(SROCE_NAK_INVALID_RD_REQ),
	 10, SROCE_RC_ACT_FAIL, SROCE_RC_ST_REM_INV_RD_REQ, 7, 7, 0},
	{"a fatal NAK fails even during an RNR wait", st(10, 7, 7, true), nak(SROCE_NAK_REM_ACCESS),
	 10, SROCE_RC_ACT_FAIL, SROCE_RC_ST_REM_ACCESS, 7, 7, 0},
	{"a stale fatal NAK (already acknowledged) does nothing", st(10, 7, 7),
	 nak(SROCE_NAK_REM_ACCESS), 9, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7, 0},
	{"a fatal NAK of a READ repair overtaken by later answers fails REM_ACCESS",
	 st_read(10, 30, 3), nak(SROCE_NAK_REM_ACCESS), 12, SROCE_RC_ACT_FAIL,
	 SROCE_RC_ST_REM_ACCESS, 3, 7, 0},
	{"a fatal NAK before a READ that holds una back: already acknowledged, nothing",
	 st_read(10, 30, 3), nak(SROCE_NAK_REM_OP), 9, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 3, 7,
	 0},
	// an ACK does nothing past its acknowledgement
	{"an ACK: nothing more", st(10, 7, 7), ack(), 10, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7,
	 0},
	// 9.7.1: 24-bit arithmetic across the wrap
	{"9.7.1 wrap: seq NAK of 0xffffff at una 0xffffff goes back", st(kTop, 7, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), kTop, SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 6, 7, 0},
	{"9.7.1 wrap: seq NAK of 1 at una 0xfffffe goes back", st(kTop - 1, 7, 7),
	 nak(SROCE_NAK_PSN_SEQ_ERR), 1, SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 6, 7, 0},
	{"9.7.1 wrap: NAK of 0xffffff at una 0 is stale", st(0, 7, 7), nak(SROCE_NAK_PSN_SEQ_ERR),
	 kTop, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7, 0},
	{"9.7.1 wrap: RNR NAK of 0 at una 0xffffff waits", st(kTop, 7, 3), rnr(1), 0,
	 SROCE_RC_ACT_RNR_WAIT, SROCE_RC_ST_NONE, 7, 2, 10},
	{"9.7.1 wrap: fatal NAK of 0xfffffe at una 0 is stale", st(0, 7, 7), nak(SROCE_NAK_REM_OP),
	 kTop - 1, SROCE_RC_ACT_NONE, SROCE_RC_ST_NONE, 7, 7, 0},
};

TEST(RcComp, NakTable)
{
	for (const NakRow &r : kNakRows) {
		SCOPED_TRACE(r.rule);
		sroce_rc_step out{};
		sroce_rc_ack kind = kind_of(r.syn, r.psn, r.s.hi_psn);

		ASSERT_NE(kind, SROCE_RC_ACK_DROP);
		EXPECT_EQ(sroce_rc_nak(&r.s, kind, r.syn, r.psn, &out), r.act);
		EXPECT_EQ(out.status, r.status);
		EXPECT_EQ(out.retry_left, r.retry_left);
		EXPECT_EQ(out.rnr_left, r.rnr_left);
		EXPECT_EQ(out.rnr_usecs, r.rnr_usecs);
	}
}

// A NAK's kind is the whole verdict's input: the RNR and the sequence NAK of
// the same state differ (the RNR NAK waits and spends the RNR budget).
TEST(RcComp, RnrIsNotASequenceNak)
{
	sroce_rc_send s = st(10, 2, 2);
	sroce_rc_step a{}, b{};

	EXPECT_EQ(sroce_rc_nak(&s, SROCE_RC_ACK_RNR, rnr(5), 10, &a), SROCE_RC_ACT_RNR_WAIT);
	EXPECT_EQ(sroce_rc_nak(&s, SROCE_RC_ACK_SEQ, nak(SROCE_NAK_PSN_SEQ_ERR), 10, &b),
		  SROCE_RC_ACT_GO_BACK);
	EXPECT_EQ(a.retry_left, 2u);
	EXPECT_EQ(a.rnr_left, 1u);
	EXPECT_EQ(b.retry_left, 1u);
	EXPECT_EQ(b.rnr_left, 2u);
}

// --- 3. retry exhaustion: a peer that never makes progress ---------------

// retry_cnt N allows N resends without progress; the next one fails (9.9).
TEST(RcComp, SequenceNaksForEverEndInRetryExceeded)
{
	for (std::uint32_t cnt = 0; cnt <= 7; cnt++) {
		SCOPED_TRACE(cnt);
		sroce_rc_send s = st(kTop - 2, cnt, 7);	 // the NAKs cross the wrap
		sroce_rc_step out{};
		std::uint32_t resends = 0;

		while (sroce_rc_nak(&s, SROCE_RC_ACK_SEQ, nak(SROCE_NAK_PSN_SEQ_ERR), s.heard_psn,
				    &out) == SROCE_RC_ACT_GO_BACK) {
			s.retry_left = out.retry_left;
			ASSERT_LE(++resends, cnt);
		}
		EXPECT_EQ(resends, cnt);
		EXPECT_EQ(out.status, SROCE_RC_ST_RETRY_EXC);
	}
}

TEST(RcComp, RnrNaksForEverEndInRnrRetryExceededUnlessSeven)
{
	for (std::uint32_t cnt = 0; cnt < SROCE_RC_RNR_INFINITE; cnt++) {
		SCOPED_TRACE(cnt);
		sroce_rc_send s = st(10, 7, cnt);
		sroce_rc_step out{};
		std::uint32_t waits = 0;

		while (sroce_rc_nak(&s, SROCE_RC_ACK_RNR, rnr(1), 10, &out) ==
		       SROCE_RC_ACT_RNR_WAIT) {
			s.rnr_left = out.rnr_left;
			ASSERT_LE(++waits, cnt);
		}
		EXPECT_EQ(waits, cnt);
		EXPECT_EQ(out.status, SROCE_RC_ST_RNR_RETRY_EXC);
		EXPECT_EQ(out.retry_left, 7u);	// the transport budget is untouched
	}
	sroce_rc_send s = st(10, 7, SROCE_RC_RNR_INFINITE);
	sroce_rc_step out{};
	for (int i = 0; i < 1000; i++) {
		ASSERT_EQ(sroce_rc_nak(&s, SROCE_RC_ACK_RNR, rnr(1), 10, &out),
			  SROCE_RC_ACT_RNR_WAIT);
		s.rnr_left = out.rnr_left;
	}
}

// --- 4. the local ACK timeout ---------------------------------------------

struct TimeoutRow {
	const char *rule;
	sroce_rc_send s;
	sroce_rc_act act;
	sroce_rc_status status;
	std::uint32_t retry_left;
};

const std::vector<TimeoutRow> kTimeoutRows = {
	{"local ACK timeout: resend everything unacknowledged, spend a retry", st(10, 7, 7),
	 SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 6},
	{"local ACK timeout, last retry", st(10, 1, 7), SROCE_RC_ACT_GO_BACK, SROCE_RC_ST_NONE, 0},
	{"9.9 retry exhaustion: timeout with no retry left fails RETRY_EXC", st(10, 0, 7),
	 SROCE_RC_ACT_FAIL, SROCE_RC_ST_RETRY_EXC, 0},
	{"timeout during an RNR wait: the RNR timer resends", st(10, 0, 7, true), SROCE_RC_ACT_NONE,
	 SROCE_RC_ST_NONE, 0},
};

TEST(RcComp, TimeoutTable)
{
	for (const TimeoutRow &r : kTimeoutRows) {
		SCOPED_TRACE(r.rule);
		sroce_rc_step out{};
		EXPECT_EQ(sroce_rc_timeout(&r.s, &out), r.act);
		EXPECT_EQ(out.status, r.status);
		EXPECT_EQ(out.retry_left, r.retry_left);
		EXPECT_EQ(out.rnr_left, r.s.rnr_left);
	}
}

// --- 5. a READ response against its READ ----------------------------------

struct ReadRow {
	const char *rule;
	sroce_rc_read r;  // first_psn, length, done, mtu, empty
	std::uint32_t psn;
	std::uint8_t opcode;
	std::uint32_t len;
	sroce_rc_rresp verdict;
};

constexpr std::uint8_t kFirst = SROCE_OP_RC_READ_RESPONSE_FIRST;
constexpr std::uint8_t kMiddle = SROCE_OP_RC_READ_RESPONSE_MIDDLE;
constexpr std::uint8_t kLast = SROCE_OP_RC_READ_RESPONSE_LAST;
constexpr std::uint8_t kOnly = SROCE_OP_RC_READ_RESPONSE_ONLY;

// a READ of 3000 bytes at MTU 1024 from PSN @first: responses first..first+2
sroce_rc_read rd(std::uint32_t first, std::uint32_t done, std::uint32_t length = 3000)
{
	return {first, length, done, 1024, false, false};
}

const std::vector<ReadRow> kReadRows = {
	{"READ response FIRST, one MTU: placed", rd(100, 0), 100, kFirst, 1024,
	 SROCE_RC_RRESP_PLACE},
	{"READ response MIDDLE, one MTU: placed", rd(100, 1024), 101, kMiddle, 1024,
	 SROCE_RC_RRESP_PLACE},
	{"READ response LAST ends the data exactly: the READ completes", rd(100, 2048), 102, kLast,
	 952, SROCE_RC_RRESP_LAST},
	{"READ response ONLY of a one-packet READ", rd(100, 0, 600), 100, kOnly, 600,
	 SROCE_RC_RRESP_LAST},
	{"READ of 0 bytes: one ONLY response without data", rd(100, 0, 0), 100, kOnly, 0,
	 SROCE_RC_RRESP_LAST},
	{"out of sequence: a later response, earlier ones lost: ask again", rd(100, 1024), 102,
	 kLast, 952, SROCE_RC_RRESP_GAP},
	{"duplicate response (the answer to a resend already had): dropped", rd(100, 1024), 100,
	 kFirst, 1024, SROCE_RC_RRESP_DUP},
	{"FIRST shorter than the MTU: bad response", rd(100, 0), 100, kFirst, 1000,
	 SROCE_RC_RRESP_BAD},
	{"MIDDLE longer than the MTU: bad response", rd(100, 1024), 101, kMiddle, 1028,
	 SROCE_RC_RRESP_BAD},
	{"LAST beyond the bytes asked for: bad response", rd(100, 2048), 102, kLast, 1024,
	 SROCE_RC_RRESP_BAD},
	{"LAST short of the bytes asked for: bad response", rd(100, 2048), 102, kLast, 900,
	 SROCE_RC_RRESP_BAD},
	{"LAST where a MIDDLE belongs (data ends early): bad response", rd(100, 1024), 101, kLast,
	 1024, SROCE_RC_RRESP_BAD},
	{"ONLY carrying more than asked: bad response", rd(100, 0, 600), 100, kOnly, 700,
	 SROCE_RC_RRESP_BAD},
	{"FLUSH / ATOMIC WRITE: one ONLY without data completes",
	 {100, 8, 0, 1024, true, false},
	 100,
	 kOnly,
	 0,
	 SROCE_RC_RRESP_LAST},
	{"FLUSH / ATOMIC WRITE answered with data: bad response",
	 {100, 8, 0, 1024, true, false},
	 100,
	 kOnly,
	 8,
	 SROCE_RC_RRESP_BAD},
	{"FLUSH / ATOMIC WRITE answered with a FIRST: bad response",
	 {100, 8, 0, 1024, true, false},
	 100,
	 kFirst,
	 0,
	 SROCE_RC_RRESP_BAD},
	{"9.7.1 wrap: the MIDDLE of a READ from 0xffffff is PSN 0", rd(kTop, 1024), 0, kMiddle,
	 1024, SROCE_RC_RRESP_PLACE},
	{"9.7.1 wrap: its LAST is PSN 1", rd(kTop, 2048), 1, kLast, 952, SROCE_RC_RRESP_LAST},
	{"9.7.1 wrap: PSN 0xffffff again after 0 is a duplicate", rd(kTop, 1024), kTop, kFirst,
	 1024, SROCE_RC_RRESP_DUP},
	{"9.7.1 wrap: PSN 1 expected 0 is a gap", rd(kTop, 1024), 1, kLast, 952,
	 SROCE_RC_RRESP_GAP},
};

TEST(RcComp, ReadResponseTable)
{
	for (const ReadRow &r : kReadRows) {
		SCOPED_TRACE(r.rule);
		const sroce_opcode_info *info = sroce_opcode(r.opcode);
		ASSERT_NE(info, nullptr);
		EXPECT_EQ(sroce_rc_read_resp(&r.r, r.psn, info->flags, r.len), r.verdict);
	}
}

// Selective READ: after repairs, a LAST of a full MTU before the end is placed
TEST(RcComp, ReadResponseOfARepair)
{
	sroce_rc_read r = rd(100, 1024);
	const sroce_opcode_info *last = sroce_opcode(kLast);

	ASSERT_NE(last, nullptr);
	EXPECT_EQ(sroce_rc_read_resp(&r, 101, last->flags, 1024), SROCE_RC_RRESP_BAD);
	r.repairs = true;
	EXPECT_EQ(sroce_rc_read_resp(&r, 101, last->flags, 1024), SROCE_RC_RRESP_PLACE);
	EXPECT_EQ(sroce_rc_read_resp(&r, 101, last->flags, 1000), SROCE_RC_RRESP_BAD);
	r.done = 2048;
	EXPECT_EQ(sroce_rc_read_resp(&r, 102, last->flags, 952), SROCE_RC_RRESP_LAST);
}

// Selective READ places a response by its PSN: the length its place allows
TEST(RcComp, ReadResponseAt)
{
	sroce_rc_read r = {kTop, 3000, 0, 1024, false, true};
	std::uint32_t off = 7;

	EXPECT_EQ(sroce_rc_read_resp_at(&r, kTop, 1024, &off), SROCE_RC_RRESP_PLACE);
	EXPECT_EQ(off, 0u);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, 0, 1024, &off), SROCE_RC_RRESP_PLACE);
	EXPECT_EQ(off, 1024u);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, 1, 952, &off), SROCE_RC_RRESP_PLACE);
	EXPECT_EQ(off, 2048u);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, 1, 1024, &off), SROCE_RC_RRESP_BAD);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, 0, 952, &off), SROCE_RC_RRESP_BAD);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, 2, 0, &off), SROCE_RC_RRESP_BAD);
	EXPECT_EQ(sroce_rc_read_resp_at(&r, kTop - 1, 1024, &off), SROCE_RC_RRESP_BAD);
	r.length = 0;
	EXPECT_EQ(sroce_rc_read_resp_at(&r, kTop, 0, &off), SROCE_RC_RRESP_BAD);
	r.length = 8;
	r.empty = true;
	EXPECT_EQ(sroce_rc_read_resp_at(&r, kTop, 8, &off), SROCE_RC_RRESP_BAD);
}

}  // namespace
