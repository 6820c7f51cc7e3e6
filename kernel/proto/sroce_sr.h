/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: selective repeat between two sroce peers
 * (Documentation/multipath.rst, "Selective repeat").
 *
 * A responder that negotiated selective repeat keeps request packets that
 * arrive up to SROCE_SR_WINDOW - 1 PSNs past the expected one, and its
 * PSN sequence NAK carries a SACK block after the AETH that says which of
 * the PSNs after the NAK'd one it holds. The requester then resends only
 * the others. The block is sroce-only: it is sent only to a peer that
 * negotiated selective repeat, and flagged by a Resv8a bit of the BTH.
 *
 * When a packet it would hold finds no room (its bounds), the responder
 * sends the block again, once per gap, as SROCE_SACK_KIND_UPDATE: what it
 * holds is all it has room for, which bounds how much the requester's
 * window counts as held (sroce_rc_sack_window()); an update asks for no
 * resend. A peer that knows only SROCE_SACK_KIND drops it as malformed
 * (counted, nothing else happens).
 *
 * SACK block (20 bytes, after the AETH of an RC Acknowledge):
 *   byte 0     kind, SROCE_SACK_KIND or SROCE_SACK_KIND_UPDATE
 *   byte 1     length in 4-byte words, SROCE_SACK_LEN / 4
 *   bytes 2-3  reserved, 0
 *   bytes 4-19 two big-endian 64-bit words: bit i (word i / 64, bit i % 64
 *              from the least significant) set = PSN (BTH PSN + 1 + i) held
 */
#ifndef SROCE_SR_H
#define SROCE_SR_H

#include "sroce_types.h"
#include "sroce_psn.h"
#include "sroce_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PSNs a responder holds past the expected one: offsets 1..WINDOW-1 */
#define SROCE_SR_WINDOW		128u
/* BTH Resv8a: the sender's QP does selective repeat (next to ICRC ADV/NONE) */
#define SROCE_BTH_SR_ADV	0x04
/* BTH Resv8a of an RC Acknowledge: a SACK block follows the AETH */
#define SROCE_BTH_SACK		SROCE_BTH_SACK_FLAG
#define SROCE_SACK_LEN		SROCE_SACK_BLOCK_LEN
#define SROCE_SACK_KIND		1
#define SROCE_SACK_KIND_UPDATE	2

/*
 * BTH Resv8a of a request: sent by a QP in adaptive routing mode (sysfs
 * adaptive_routing), whose packets may take different paths and arrive out
 * of order; its RC WRITEs go as one WRITE ONLY per path MTU, each with its
 * own RETH (Documentation/transport.rst, "Adaptive routing"). NVIDIA's
 * description of the NIC side (US patent 12328251) marks AR packets with
 * "a reserved bit of the RoCE BTH" without naming it publicly, so sroce
 * picks one: a bit of Resv8a, because RoCEv2's ICRC masks that byte (as it
 * does for FECN and BECN), so a switch may set or clear it without
 * breaking the ICRC, and sroce's other extension bits live there already
 * (0x01, 0x02, 0x04, 0x08). Other implementations ignore it.
 */
#define SROCE_BTH_AR		0x10
/*
 * Wide SEND and WRITE segments (sroce_wide_seg()) are negotiated in two
 * steps. A QP that allows them marks its SEND and WRITE requests
 * SROCE_BTH_WIDE_ASK (the bit a READ request uses for a repair and an ACK
 * for a SACK, free on these); a responder that takes them marks every
 * response (ACK, NAK, READ response, atomic ACK) to such a requester
 * SROCE_BTH_WIDE_ADV (the adaptive routing bit, which only requests
 * carry). Only then do its SENDs and WRITEs go wide. A sroce without wide
 * segments never asks, so it never meets 0x10 on a response (it would
 * take it for adaptive routing); rdma_rxe and hardware ignore both.
 */
#define SROCE_BTH_WIDE_ASK	SROCE_BTH_SACK_FLAG
#define SROCE_BTH_WIDE_ADV	SROCE_BTH_AR
/*
 * Wide READ responses take the BTH's Resv7 (beside AckReq; IBTA: sent as
 * zero, ignored on receipt, so rdma_rxe and hardware ignore them; the
 * ICRC covers them), as Resv8a has no bit left on a READ request. Every
 * request of a QP that takes them carries SROCE_BTH7_WIDE_RD_ASK (so the
 * first answer, to whatever came first, offers); a responder that sends
 * them marks every response to such a requester SROCE_BTH7_WIDE_RD_ADV.
 * A READ entry fetched after that offer asks for wide responses with
 * SROCE_BTH7_WIDE_RD on its requests (resends and repairs included): its
 * PSNs count sroce_wide_seg() bytes each, on both ends. A sroce without
 * them never offers, so never gets asked.
 */
#define SROCE_BTH7_WIDE_RD_ASK	0x01
#define SROCE_BTH7_WIDE_RD_ADV	0x01
#define SROCE_BTH7_WIDE_RD	0x02
/* Offset of the AckReq/Resv7 byte inside the BTH */
#define SROCE_BTH_RESV7_OFF	8
/*
 * BTH Resv8a of every packet of a QP that offers selective repeat and
 * answers a READ repair (below) ahead of its queued READ answers, keeping
 * them: its requester may take READ responses out of order (selective
 * READ, Documentation/transport.rst). Other implementations ignore it.
 */
#define SROCE_BTH_SELRD_ADV	0x20
/*
 * BTH Resv8a of a READ request that asks again for READ responses lost
 * after a hole (a repair): the later answers the responder has queued are
 * still wanted. The SACK flag's bit, which means a SACK only on an RC
 * Acknowledge: the byte's two high bits are FECN and BECN, and its other
 * free bit is SROCE_BTH_SELRD_ADV. Only sent to a peer that advertised
 * SROCE_BTH_SELRD_ADV; any other responder takes it for a plain
 * duplicate READ.
 */
#define SROCE_BTH_REPAIR	SROCE_BTH_SACK_FLAG
/*
 * BTH Resv7 of every packet of a QP that offers selective repeat and
 * answers a READ probe (below) behind the READ answers it has queued.
 */
#define SROCE_BTH7_RD_PROBE_ADV	0x04
/*
 * BTH Resv7 of a READ repair that asks for one response after the resend
 * timer expired with nothing past the oldest missing response in hand (a
 * probe): answered in order, behind the answers queued before it, so that
 * when its answer comes every response sent before it is in or lost. Only
 * sent to a peer that advertised SROCE_BTH7_RD_PROBE_ADV.
 */
#define SROCE_BTH7_RD_PROBE	0x08
/* PSNs past the oldest unacknowledged one a selective READ requester maps */
#define SROCE_SELRD_BITS	1024u
/* sysfs ar_paths: UDP source ports an AR QP spreads its requests over */
#define SROCE_AR_PATHS_MIN	1u
#define SROCE_AR_PATHS_MAX	64u
#define SROCE_AR_PATHS_DEFAULT	8u
/**
 * sroce_ar_sport() - the UDP source port of path @path of a QP
 * @base: the QP's own source port, 0xc000..0xffff (path 0)
 * @path: 0..SROCE_AR_PATHS_MAX-1
 *
 * RoCEv2's source port is the ECMP entropy field (Annex A17): each path is
 * another port of the IANA dynamic range, path 0 the QP's usual one. The
 * paths' ports differ in their low bits only, by XOR: switch and LAG hashes
 * (XOR folds, CRCs) are linear in those bits, so 2^n paths fall evenly on
 * 2^k < 2^n links for every QP (a bond's layer3+4 hash), where an
 * additive step split two links 5:3 (measured).
 *
 * Return: the port, in 0xc000..0xffff.
 */
static inline u16 sroce_ar_sport(u16 base, u32 path)
{
	return (u16)(0xc000u | ((base ^ path) & 0x3fffu));
}

/**
 * struct sroce_sack - the PSNs a responder holds after a gap
 * @map: bit i set: PSN (gap PSN + 1 + i) is held; bits 0..SROCE_SR_WINDOW-2
 */
struct sroce_sack {
	u64 map[2];
};

/**
 * sroce_sr_offset() - where @psn lies in the hold window after @epsn
 * @psn: a request's PSN
 * @epsn: the expected PSN
 *
 * Return: 1..SROCE_SR_WINDOW-1 if @psn may be held, 0 otherwise (in
 * order, a duplicate, or too far ahead).
 */
static inline u32 sroce_sr_offset(u32 psn, u32 epsn)
{
	int d = sroce_psn_diff(psn, epsn);

	return d > 0 && (u32)d < SROCE_SR_WINDOW ? (u32)d : 0;
}

/** sroce_sack_set() - mark offset @off (1..SROCE_SR_WINDOW-1) held */
static inline void sroce_sack_set(struct sroce_sack *s, u32 off)
{
	u32 i = off - 1;

	if (off && off < SROCE_SR_WINDOW)
		s->map[i >> 6] |= (u64)1 << (i & 63);
}

/** sroce_sack_test() - is offset @off (from the gap PSN) held? */
static inline bool sroce_sack_test(const struct sroce_sack *s, u32 off)
{
	u32 i = off - 1;

	if (!off || off >= SROCE_SR_WINDOW)
		return false;
	return (s->map[i >> 6] >> (i & 63)) & 1;
}

/** sroce_sack_span() - the largest offset held, 0 if none */
static inline u32 sroce_sack_span(const struct sroce_sack *s)
{
	int w, b;

	for (w = 1; w >= 0; w--)
		for (b = 63; b >= 0; b--)
			if ((s->map[w] >> b) & 1)
				return (u32)(w * 64 + b + 1);
	return 0;
}

/** sroce_sack_count() - how many PSNs @s holds */
static inline u32 sroce_sack_count(const struct sroce_sack *s)
{
	u32 n = 0;
	u64 w;
	int i;

	for (i = 0; i < 2; i++)
		for (w = s->map[i]; w; w &= w - 1)
			n++;
	return n;
}

/** sroce_sack_put() - write the SROCE_SACK_LEN-byte block of @s, @kind, at @p */
static inline void sroce_sack_put(u8 *p, const struct sroce_sack *s, u8 kind)
{
	p[0] = kind;
	p[1] = SROCE_SACK_LEN / 4;
	p[2] = 0;
	p[3] = 0;
	sroce_put_be64(p + 4, s->map[0]);
	sroce_put_be64(p + 12, s->map[1]);
}

/**
 * sroce_sack_get() - decode and check a SACK block (hostile input)
 * @p: the block
 * @len: its length in bytes
 * @s: the decoded block
 *
 * Return: its kind (SROCE_SACK_KIND, SROCE_SACK_KIND_UPDATE), or -1 when
 * malformed: wrong length, kind or reserved bits, a bit past the window,
 * or no bit at all.
 */
static inline int sroce_sack_get(const u8 *p, u32 len, struct sroce_sack *s)
{
	if (len != SROCE_SACK_LEN ||
	    (p[0] != SROCE_SACK_KIND && p[0] != SROCE_SACK_KIND_UPDATE) ||
	    p[1] != SROCE_SACK_LEN / 4 || p[2] || p[3])
		return -1;
	s->map[0] = sroce_get_be64(p + 4);
	s->map[1] = sroce_get_be64(p + 12);
	if (sroce_sack_span(s) >= SROCE_SR_WINDOW || !sroce_sack_span(s))
		return -1;
	return p[0];
}

/**
 * sroce_sr_write_at() - where an early MIDDLE of the WRITE in progress goes
 * @off: its PSN's distance from the expected PSN (1..SROCE_SR_WINDOW-1)
 * @mtu: the WRITE's payload per packet but the last (its FIRST's: the path
 *	MTU, or a wide segment, sroce_wide_seg())
 * @wleft: bytes of the WRITE still to come from the expected PSN on
 * @len: its payload length
 * @at: set to its byte offset from the expected PSN's place
 *
 * Every packet of a message but the last carries exactly @mtu bytes, so the
 * packet @off PSNs ahead belongs to the WRITE in progress exactly when its
 * bytes start before @wleft runs out. Only a full MIDDLE that ends before
 * the WRITE does is placed early: the packet that ends the WRITE is held
 * and written in order, after every byte before it, so that a protocol
 * polling a WRITE's last bytes sees them last (Documentation/multipath.rst).
 * Anything else is left to the in-order path, which rejects it if it must.
 *
 * Return: true if the packet may be placed at @at now.
 */
static inline bool sroce_sr_write_at(u32 off, u32 mtu, u32 wleft, u32 len, u64 *at)
{
	u64 start = (u64)off * mtu;

	if (!off || off >= SROCE_SR_WINDOW || !mtu || len != mtu || start + len >= wleft)
		return false;
	*at = start;
	return true;
}

#ifdef __cplusplus
}
#endif

#endif /* SROCE_SR_H */
