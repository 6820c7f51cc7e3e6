// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The RC responder's classification of a request packet
// (kernel/proto/sroce_rc_resp.h, compiled as C into sroce.ko and called by
// responder.c): new and in opcode sequence, out of opcode sequence (NAK
// invalid request), out of PSN sequence (one PSN sequence NAK per gap),
// duplicate (READ and atomics replayed, SEND and WRITE re-ACKed).
// Table-driven, each row naming its IBTA rule (Volume 1, 9.7 "Reliable
// service", 9.8.3.1 opcode sequence); PSNs are 24-bit (9.7.1), rows across
// the wrap.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "sroce_opcode.h"
#include "sroce_psn.h"
#include "sroce_rc_resp.h"

namespace {

constexpr std::uint32_t kTop = SROCE_PSN_MASK;

enum In { kNone, kSend, kWrite };

struct RespRow {
	const char *rule;
	std::uint32_t epsn;
	bool nak_sent;
	In in;
	std::uint32_t psn;
	std::uint8_t opcode;
	sroce_rc_req cls;
};

const std::vector<RespRow> kRespRows = {
	// the expected PSN: opcode sequence (9.8.3.1)
	{"expected PSN, SEND ONLY outside a message: execute", 10, false, kNone, 10,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_NEW},
	{"expected PSN, SEND MIDDLE inside a SEND: execute", 10, false, kSend, 10,
	 SROCE_OP_RC_SEND_MIDDLE, SROCE_RC_REQ_NEW},
	{"expected PSN, WRITE LAST inside a WRITE: execute", 10, false, kWrite, 10,
	 SROCE_OP_RC_WRITE_LAST_IMM, SROCE_RC_REQ_NEW},
	{"expected PSN, READ request outside a message: execute", 10, false, kNone, 10,
	 SROCE_OP_RC_READ_REQUEST, SROCE_RC_REQ_NEW},
	{"expected PSN, FetchAdd outside a message: execute", 10, false, kNone, 10,
	 SROCE_OP_RC_FETCH_ADD, SROCE_RC_REQ_NEW},
	{"9.8.3.1: SEND MIDDLE outside a message: NAK invalid request", 10, false, kNone, 10,
	 SROCE_OP_RC_SEND_MIDDLE, SROCE_RC_REQ_BAD_SEQ},
	{"9.8.3.1: WRITE LAST outside a message: NAK invalid request", 10, false, kNone, 10,
	 SROCE_OP_RC_WRITE_LAST, SROCE_RC_REQ_BAD_SEQ},
	{"9.8.3.1: SEND FIRST inside a SEND: NAK invalid request", 10, false, kSend, 10,
	 SROCE_OP_RC_SEND_FIRST, SROCE_RC_REQ_BAD_SEQ},
	{"9.8.3.1: WRITE MIDDLE inside a SEND: NAK invalid request", 10, false, kSend, 10,
	 SROCE_OP_RC_WRITE_MIDDLE, SROCE_RC_REQ_BAD_SEQ},
	{"9.8.3.1: READ request inside a WRITE: NAK invalid request", 10, false, kWrite, 10,
	 SROCE_OP_RC_READ_REQUEST, SROCE_RC_REQ_BAD_SEQ},
	{"9.8.3.1: SEND ONLY inside a WRITE: NAK invalid request", 10, false, kWrite, 10,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_BAD_SEQ},
	// ahead: out of PSN sequence
	{"9.7 out of sequence: the first packet of a gap draws a PSN sequence NAK", 10, false,
	 kNone, 11, SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_GAP_NAK},
	{"9.7 out of sequence: one NAK per gap, the next packets are dropped", 10, true, kNone, 12,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_GAP},
	{"out of sequence beats opcode sequence: a MIDDLE ahead is a gap, not invalid", 10, false,
	 kNone, 15, SROCE_OP_RC_SEND_MIDDLE, SROCE_RC_REQ_GAP_NAK},
	{"a READ ahead is a gap too", 10, false, kNone, 11, SROCE_OP_RC_READ_REQUEST,
	 SROCE_RC_REQ_GAP_NAK},
	// behind: duplicates
	{"9.7 duplicate READ: answered again (its responses may be what was lost)", 10, false,
	 kNone, 9, SROCE_OP_RC_READ_REQUEST, SROCE_RC_REQ_DUP_READ},
	{"9.7 duplicate CmpSwap: its saved result replayed, not executed again", 10, false, kNone,
	 5, SROCE_OP_RC_COMPARE_SWAP, SROCE_RC_REQ_DUP_ATOMIC},
	{"9.7 duplicate FetchAdd: replayed", 10, false, kNone, 9, SROCE_OP_RC_FETCH_ADD,
	 SROCE_RC_REQ_DUP_ATOMIC},
	{"duplicate ATOMIC WRITE: replayed", 10, false, kNone, 9, SROCE_OP_RC_ATOMIC_WRITE,
	 SROCE_RC_REQ_DUP_ATOMIC_WRITE},
	{"duplicate FLUSH: replayed", 10, false, kNone, 9, SROCE_OP_RC_FLUSH,
	 SROCE_RC_REQ_DUP_FLUSH},
	{"9.7 duplicate SEND: ACKed again, never executed twice", 10, false, kNone, 9,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_DUP_ACK},
	{"9.7 duplicate WRITE MIDDLE: ACKed again", 10, false, kWrite, 3, SROCE_OP_RC_WRITE_MIDDLE,
	 SROCE_RC_REQ_DUP_ACK},
	{"a duplicate out of opcode sequence is a duplicate, not invalid", 10, false, kSend, 9,
	 SROCE_OP_RC_WRITE_FIRST, SROCE_RC_REQ_DUP_ACK},
	{"a duplicate during a NAK'd gap is still answered", 10, true, kNone, 9,
	 SROCE_OP_RC_READ_REQUEST, SROCE_RC_REQ_DUP_READ},
	// 9.7.1: 24-bit PSN arithmetic
	{"9.7.1 wrap: expected 0xffffff, PSN 0xffffff executes", kTop, false, kNone, kTop,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_NEW},
	{"9.7.1 wrap: expected 0xffffff, PSN 0 is ahead", kTop, false, kNone, 0,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_GAP_NAK},
	{"9.7.1 wrap: expected 0, PSN 0xffffff is a duplicate", 0, false, kNone, kTop,
	 SROCE_OP_RC_READ_REQUEST, SROCE_RC_REQ_DUP_READ},
	{"9.7.1 wrap: expected 1, PSN 0xfffffe is a duplicate", 1, false, kNone, kTop - 1,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_DUP_ACK},
	{"9.7.1: half the space away counts as behind (a duplicate)", 0, false, kNone,
	 SROCE_PSN_HALF, SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_DUP_ACK},
	{"9.7.1: one less than half the space ahead is a gap", 0, false, kNone, SROCE_PSN_HALF - 1,
	 SROCE_OP_RC_SEND_ONLY, SROCE_RC_REQ_GAP_NAK},
};

TEST(RcResp, ClassTable)
{
	for (const RespRow &r : kRespRows) {
		SCOPED_TRACE(r.rule);
		const sroce_opcode_info *info = sroce_opcode(r.opcode);
		ASSERT_NE(info, nullptr);
		sroce_rc_recv s{r.epsn, r.nak_sent, r.in == kSend, r.in == kWrite};
		EXPECT_EQ(sroce_rc_resp_class(&s, r.psn, info->flags), r.cls);
	}
}

// One NAK per gap: a run of packets past a gap, with the responder's
// nak_sent as responder.c keeps it, draws exactly one NAK until the
// expected PSN arrives, and the next gap draws one again.
TEST(RcResp, OneSequenceNakPerGap)
{
	const std::uint32_t flags = sroce_opcode(SROCE_OP_RC_SEND_ONLY)->flags;
	sroce_rc_recv s{kTop - 1, false, false, false};	 // the run crosses the wrap
	int naks = 0;

	for (std::uint32_t psn = kTop; psn != 20; psn = sroce_psn_inc(psn)) {
		if (sroce_rc_resp_class(&s, psn, flags) == SROCE_RC_REQ_GAP_NAK) {
			naks++;
			s.nak_sent = true;
		}
	}
	EXPECT_EQ(naks, 1);
	// the resend: the expected PSN executes and ends the gap
	ASSERT_EQ(sroce_rc_resp_class(&s, kTop - 1, flags), SROCE_RC_REQ_NEW);
	s.nak_sent = false;
	s.epsn = kTop;
	EXPECT_EQ(sroce_rc_resp_class(&s, 5, flags), SROCE_RC_REQ_GAP_NAK);
}

}  // namespace
