/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: RoCEv2 transport header layouts and codecs
 * (IBTA 9.2 -- 9.5, Annex A17).
 *
 * Headers are read and written byte by byte in network order; no struct
 * ever overlays the wire. The decoded structs hold host-order values with
 * each field in its own member.
 */
#ifndef SROCE_WIRE_H
#define SROCE_WIRE_H

#include "sroce_types.h"
#include "sroce_opcode.h"
#include "sroce_psn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extension header lengths (BTH, RETH, ImmDt, ICRC: see sroce_proto.h) */
#define SROCE_HDR_BTH_LEN	12
#define SROCE_HDR_RETH_LEN	16
#define SROCE_HDR_AETH_LEN	4
#define SROCE_HDR_ATMETH_LEN	28
#define SROCE_HDR_ATMACK_LEN	8
#define SROCE_HDR_IMMDT_LEN	4
#define SROCE_HDR_IETH_LEN	4
#define SROCE_HDR_DETH_LEN	8
#define SROCE_HDR_XRCETH_LEN	4
#define SROCE_HDR_FETH_LEN	4
#define SROCE_PKT_ICRC_LEN	4
/* Largest transport header: BTH + XRCETH + AtomicETH */
#define SROCE_HDR_MAX_LEN	(SROCE_HDR_BTH_LEN + SROCE_HDR_XRCETH_LEN + \
				 SROCE_HDR_ATMETH_LEN)
/* The UDP length field bounds every RoCEv2 packet */
#define SROCE_PKT_MAX_LEN	0xffffu

/* Offset of the Resv8a (FECN/BECN) byte inside the BTH */
#define SROCE_BTH_RESV8A_OFF	4

/*
 * Resv8a bit of an RC Acknowledge: a selective repeat SACK block of
 * SROCE_SACK_BLOCK_LEN bytes follows the AETH (sroce-only, sroce_sr.h)
 */
#define SROCE_BTH_SACK_FLAG	0x08
#define SROCE_SACK_BLOCK_LEN	20u

/*
 * Wide segments (sroce-only): an RC QP's SEND and WRITE packets carry
 * sroce_wide_seg() bytes each but the last instead of the path MTU, when
 * the responder marked its responses SROCE_BTH_WIDE_ADV (sroce_sr.h).
 * IBTA path MTUs are powers of two: a 1500-byte Ethernet MTU gives 1024,
 * where 1408 bytes use the frame; a 9000-byte one gives 4096, where 7168
 * do. Not 8192: a receive buffer is sized by the frame, and Linux holds a
 * frame of up to about 7.5 KiB in 8 KiB (a UDP socket behind a
 * hypervisor's backend held 25 frames of 4 KiB or 7 KiB payload, 12 of
 * 8 KiB), so 8 KiB packets lost 2-10 % where 7 KiB ones lost none. A
 * responder offers them only when its netdev takes SROCE_WIDE_OVERHEAD
 * bytes more: IPv6 40, UDP 8, BTH 12, RETH 16, ImmDt or IETH 4, ICRC 4.
 */
#define SROCE_WIDE_OVERHEAD	84u

/**
 * sroce_wide_seg() - the wide segment of a path MTU
 * @pmtu: the path MTU in bytes
 *
 * Return: its SEND/WRITE payload per packet between two sroce peers that
 * offer wide segments, 0 when the path MTU has none.
 */
static inline u32 sroce_wide_seg(u32 pmtu)
{
	switch (pmtu) {
	case 1024:
		return 1408;
	case 4096:
		return 7168;
	default:
		return 0;
	}
}

/* Q_Key with the high-order bit set: use the QP's own Q_Key (IBTA 10.2.4) */
#define SROCE_QKEY_PRIVILEGED	0x80000000u
#define SROCE_QPN_MASK		0xffffffu
#define SROCE_DEFAULT_PKEY	0xffffu

/* --- byte helpers (big-endian unless named _le) ------------------------- */

static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)((p[0] << 8) | p[1]);
}

static inline u32 sroce_get_be24(const u8 *p)
{
	return ((u32)p[0] << 16) | ((u32)p[1] << 8) | p[2];
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return ((u64)sroce_get_be32(p) << 32) | sroce_get_be32(p + 4);
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 16);
	p[1] = (u8)(v >> 8);
	p[2] = (u8)v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, (u32)(v >> 32));
	sroce_put_be32(p + 4, (u32)v);
}

static inline void sroce_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/* --- headers ---------------------------------------------------------- */

/**
 * struct sroce_bth - Base Transport Header (12 bytes)
 * @opcode: OpCode
 * @se: Solicited Event
 * @mig: MigReq
 * @pad: PadCnt, 0..3 bytes of pad after the payload
 * @tver: Transport Header Version, 0
 * @pkey: P_Key
 * @fecn: Forward ECN (RoCEv2 reuses a bit of the Resv8a byte)
 * @becn: Backward ECN
 * @dqpn: DestQP, 24 bits
 * @ack_req: AckReq
 * @resv7: the seven reserved bits after AckReq, sroce's READ marks
 *	(SROCE_BTH7_WIDE_RD*, sroce_sr.h) or zero
 * @psn: PSN, 24 bits
 *
 * The six bits after BECN are reserved: written as zero, ignored on
 * receipt (sroce's marks in them go in after the build, sroce_sr.h).
 */
struct sroce_bth {
	u8 opcode;
	bool se;
	bool mig;
	u8 pad;
	u8 tver;
	u16 pkey;
	bool fecn;
	bool becn;
	u32 dqpn;
	bool ack_req;
	u8 resv7;
	u32 psn;
};

/** struct sroce_reth - RDMA Extended Transport Header (16 bytes) */
struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 dma_len;
};

/*
 * FLUSH Extended Transport Header (IBTA 1.5, 4 bytes): bits 3:0 the
 * placement type (bit 0 global visibility, bit 1 persistence), bits 5:4
 * the selectivity level (0 the RETH's range, 1 the whole memory region).
 */
#define SROCE_FETH_PLT_GLOBAL		0x01u
#define SROCE_FETH_PLT_PERSISTENT	0x02u
#define SROCE_FETH_PLT_MASK		0x0fu
#define SROCE_FETH_SEL_SHIFT		4
#define SROCE_FETH_SEL_MASK		0x30u
#define SROCE_FETH_SEL_RANGE		0u
#define SROCE_FETH_SEL_MR		1u

/** struct sroce_aeth - ACK Extended Transport Header (4 bytes) */
struct sroce_aeth {
	u8 syndrome;
	u32 msn;
};

/** struct sroce_atmeth - Atomic Extended Transport Header (28 bytes) */
struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

/**
 * struct sroce_deth - Datagram Extended Transport Header (8 bytes)
 * @qkey: Q_Key
 * @src_qpn: SrcQP, 24 bits (the reserved byte before it is ignored)
 */
struct sroce_deth {
	u32 qkey;
	u32 src_qpn;
};

void sroce_bth_get(const u8 *p, struct sroce_bth *bth);
void sroce_bth_put(u8 *p, const struct sroce_bth *bth);
void sroce_reth_get(const u8 *p, struct sroce_reth *reth);
void sroce_reth_put(u8 *p, const struct sroce_reth *reth);
void sroce_aeth_get(const u8 *p, struct sroce_aeth *aeth);
void sroce_aeth_put(u8 *p, const struct sroce_aeth *aeth);
void sroce_atmeth_get(const u8 *p, struct sroce_atmeth *atm);
void sroce_atmeth_put(u8 *p, const struct sroce_atmeth *atm);
void sroce_deth_get(const u8 *p, struct sroce_deth *deth);
void sroce_deth_put(u8 *p, const struct sroce_deth *deth);

/* --- whole transport header -------------------------------------------- */

/**
 * struct sroce_pkt_hdr - a decoded RoCEv2 transport packet
 * @bth: Base Transport Header
 * @info: opcode table entry for @bth.opcode (set by sroce_pkt_parse())
 * @reth: valid when @info->flags has SROCE_OPF_RETH
 * @aeth: valid with SROCE_OPF_AETH
 * @atmeth: valid with SROCE_OPF_ATMETH
 * @atmack: AtomicAckETH original remote data, valid with SROCE_OPF_ATMACK
 * @immdt: Immediate Data as a host-order number read big-endian from the
 *         wire, valid with SROCE_OPF_IMMDT (the verbs layer stores it
 *         back as big-endian __be32 imm_data)
 * @ieth_rkey: IETH R_Key to invalidate, valid with SROCE_OPF_IETH
 * @deth: valid with SROCE_OPF_DETH
 * @xrc_srqn: XRCETH XRC SRQ number (24 bits; the reserved byte before it
 *            is ignored), valid with SROCE_OPF_XRCETH
 * @feth: FETH placement type and selectivity level (SROCE_FETH_*), valid
 *        with SROCE_OPF_FETH; reserved bits are dropped
 * @hdr_len: BTH + extension headers; the payload starts there
 * @payload_len: payload bytes, excluding pad and ICRC
 * @sack_len: bytes of a sroce SACK block after the AETH of an Acknowledge
 *            flagged SROCE_BTH_SACK_FLAG (then SROCE_SACK_BLOCK_LEN), else 0
 *
 * Offsets and lengths are relative to the start of the BTH.
 */
struct sroce_pkt_hdr {
	struct sroce_bth bth;
	const struct sroce_opcode_info *info;
	struct sroce_reth reth;
	struct sroce_aeth aeth;
	struct sroce_atmeth atmeth;
	u64 atmack;
	u32 immdt;
	u32 ieth_rkey;
	struct sroce_deth deth;
	u32 xrc_srqn;
	u32 feth;
	u32 hdr_len;
	u32 payload_len;
	u32 sack_len;
};

/**
 * enum sroce_pkt_err - sroce_pkt_parse() / sroce_pkt_build_hdrs() results
 * @SROCE_PKT_OK: success
 * @SROCE_PKT_ETRUNC: buffer shorter than the headers + ICRC it must hold
 * @SROCE_PKT_EOPCODE: opcode not in the table
 * @SROCE_PKT_ETVER: BTH TVer is not 0
 * @SROCE_PKT_EPAD: PadCnt on a packet that may not be padded, or larger
 *                  than the data
 * @SROCE_PKT_ELEN: payload length breaks the opcode's rules (data on a
 *                  header-only packet, empty FIRST/MIDDLE, payload + pad
 *                  not a multiple of 4, or longer than a UDP datagram)
 * @SROCE_PKT_EAETH: AETH syndrome with bit 7 set, the reserved type 10b,
 *                   or a reserved NAK code
 */
enum sroce_pkt_err {
	SROCE_PKT_OK		= 0,
	SROCE_PKT_ETRUNC	= -1,
	SROCE_PKT_EOPCODE	= -2,
	SROCE_PKT_ETVER		= -3,
	SROCE_PKT_EPAD		= -4,
	SROCE_PKT_ELEN		= -5,
	SROCE_PKT_EAETH		= -6,
};

/** sroce_pkt_strerror() - short description of an enum sroce_pkt_err */
const char *sroce_pkt_strerror(int err);

/**
 * sroce_pkt_parse() - decode and validate a RoCEv2 transport packet
 * @pkt: the UDP payload: BTH, extension headers, payload, pad, ICRC
 * @len: bytes at @pkt, ICRC included
 * @out: decoded fields; undefined on error
 *
 * Reads nothing outside [@pkt, @pkt + @len). The ICRC itself is not
 * checked here (see sroce_icrc_verify()).
 *
 * Return: SROCE_PKT_OK or a negative enum sroce_pkt_err.
 */
int sroce_pkt_parse(const u8 *pkt, size_t len, struct sroce_pkt_hdr *out);

/**
 * sroce_pkt_build_hdrs() - encode BTH and extension headers
 * @buf: destination
 * @size: bytes available at @buf
 * @hdr: fields to encode; @hdr->bth.opcode selects the extension headers
 *       (@hdr->info, @hdr->hdr_len and @hdr->payload_len are ignored)
 *
 * Fields are truncated to their wire width; reserved bits are written as
 * zero. The caller computes @hdr->bth.pad (sroce_pad_len()).
 *
 * Return: the header length written, or a negative enum sroce_pkt_err
 * (SROCE_PKT_EOPCODE, or SROCE_PKT_ETRUNC when @size is too small).
 */
int sroce_pkt_build_hdrs(u8 *buf, size_t size, const struct sroce_pkt_hdr *hdr);

/*
 * RoCEv2 Congestion Notification Packet (IBTA Annex A17, DCQCN): BTH with
 * OpCode 0x81 (prefix 100b, outside the transport opcode table), BECN set,
 * DestQP the QP whose packets met congestion, PSN 0; then 16 reserved
 * bytes and the ICRC. No other extension header, no payload.
 */
#define SROCE_OP_CNP		0x81
#define SROCE_HDR_CNP_RSVD_LEN	16
#define SROCE_CNP_HDR_LEN	(SROCE_HDR_BTH_LEN + SROCE_HDR_CNP_RSVD_LEN)

/**
 * sroce_cnp_build() - encode a CNP's BTH and reserved bytes
 * @buf: destination
 * @size: bytes available at @buf
 * @dqpn: the destination QP (the sender of the congested packets)
 *
 * Return: SROCE_CNP_HDR_LEN, or SROCE_PKT_ETRUNC when @size is too small.
 */
int sroce_cnp_build(u8 *buf, size_t size, u32 dqpn);

/**
 * sroce_cnp_parse() - validate a received CNP
 * @pkt: the packet from the BTH on
 * @len: its length, ICRC included
 * @dqpn: set to the destination QP on success
 *
 * Return: SROCE_PKT_OK; SROCE_PKT_EOPCODE when it is no CNP,
 * SROCE_PKT_ETVER on a TVer other than 0, SROCE_PKT_EPAD on a PadCnt,
 * SROCE_PKT_ETRUNC / SROCE_PKT_ELEN when it is not exactly a CNP long.
 */
int sroce_cnp_parse(const u8 *pkt, size_t len, u32 *dqpn);

/** sroce_pad_len() - PadCnt that brings @payload_len to a multiple of 4 */
static inline u8 sroce_pad_len(u32 payload_len)
{
	return (u8)((4 - (payload_len & 3)) & 3);
}

/* --- AETH syndrome (IBTA 9.7.5.2.1) ------------------------------------ */

enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0,
	SROCE_AETH_RNR_NAK	= 1,
	SROCE_AETH_RESERVED	= 2,
	SROCE_AETH_NAK		= 3,
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REM_ACCESS	= 2,
	SROCE_NAK_REM_OP	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
	SROCE_NAK_CODE_MAX	= SROCE_NAK_INVALID_RD_REQ,
};

/* Credit count 31: end-to-end flow control credits are not tracked */
#define SROCE_AETH_CREDITS_INVALID	0x1f
#define SROCE_AETH_VALUE_MASK		0x1f
#define SROCE_AETH_MSN_MASK		0xffffffu

/** sroce_aeth_syn_ack() - ACK syndrome carrying a credit count (0..31) */
static inline u8 sroce_aeth_syn_ack(u8 credits)
{
	return (u8)((SROCE_AETH_ACK << 5) | (credits & SROCE_AETH_VALUE_MASK));
}

/** sroce_aeth_syn_rnr() - RNR NAK syndrome carrying a 5-bit timer code */
static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return (u8)((SROCE_AETH_RNR_NAK << 5) |
		    (timer_code & SROCE_AETH_VALUE_MASK));
}

/** sroce_aeth_syn_nak() - NAK syndrome for an enum sroce_nak_code */
static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return (u8)((SROCE_AETH_NAK << 5) |
		    ((unsigned int)code & SROCE_AETH_VALUE_MASK));
}

/** sroce_aeth_syn_type() - enum sroce_aeth_type of a syndrome */
static inline enum sroce_aeth_type sroce_aeth_syn_type(u8 syn)
{
	return (enum sroce_aeth_type)((syn >> 5) & 3);
}

/** sroce_aeth_syn_value() - credit count, RNR timer code or NAK code */
static inline u8 sroce_aeth_syn_value(u8 syn)
{
	return syn & SROCE_AETH_VALUE_MASK;
}

/**
 * sroce_aeth_syn_valid() - may a receiver act on this syndrome?
 * @syn: AETH syndrome byte
 *
 * Return: false for bit 7 set, the reserved type, or a reserved NAK code.
 */
static inline bool sroce_aeth_syn_valid(u8 syn)
{
	if (syn & 0x80)
		return false;
	switch (sroce_aeth_syn_type(syn)) {
	case SROCE_AETH_ACK:
	case SROCE_AETH_RNR_NAK:
		return true;
	case SROCE_AETH_NAK:
		return sroce_aeth_syn_value(syn) <= SROCE_NAK_CODE_MAX;
	default:
		return false;
	}
}

/* --- timers ------------------------------------------------------------- */

#define SROCE_RNR_TIMER_CODES	32

/**
 * sroce_rnr_timer_usecs() - RNR NAK timer code to microseconds
 * @code: 5-bit code (IBTA table "Encoding for RNR NAK Timer Field");
 *        higher bits are ignored
 *
 * Return: the minimum delay before retrying, e.g. code 1 = 10 us,
 * code 31 = 491520 us, code 0 = 655360 us.
 */
u32 sroce_rnr_timer_usecs(u8 code);

/**
 * sroce_rnr_timer_code() - smallest RNR timer code waiting at least @usecs
 * @usecs: wanted minimum delay
 *
 * Return: a code 0..31; code 0 (655.36 ms, the longest) when @usecs
 * exceeds every other code.
 */
u8 sroce_rnr_timer_code(u32 usecs);

/**
 * sroce_local_ack_timeout_ns() - IBTA Local ACK Timeout in nanoseconds
 * @timeout: the QP attribute, 4.096 us * 2^@timeout; 0 disables the timer
 *
 * Return: 0 for "infinite" (@timeout 0), else 4096 << @timeout ns,
 * saturated at the largest u64 for exponents that would overflow
 * (the valid range 1..31 never does).
 */
static inline u64 sroce_local_ack_timeout_ns(u8 timeout)
{
	if (timeout == 0)
		return 0;
	if (timeout > 51)	/* 4096 = 2^12; 2^12 << 52 overflows */
		return ~(u64)0;
	return (u64)4096 << timeout;
}

/* the longest wait expiries without progress stretch a short timeout to */
#define SROCE_RETRY_WAIT_CEIL_NS	1000000000ull	/* 1 s */

/**
 * sroce_retry_wait_ns() - local ACK wait after expiries without progress
 * @timeout: the QP attribute (sroce_local_ack_timeout_ns())
 * @backoff: expiries since the last progress (the caller bounds it)
 *
 * Each expiry without progress doubles the wait while it stays within
 * SROCE_RETRY_WAIT_CEIL_NS, so that a short timeout outlasts a backlog
 * of answers on a slow host; the doubling that would cross the ceiling
 * ends at the ceiling. A timeout already at or above the ceiling is never
 * stretched: the requester retries every timeout, as hardware does, so
 * a few consecutive losses cost a few timeouts, not an exponential wait.
 *
 * Return: the wait in ns, 0 for "infinite" (@timeout 0).
 */
static inline u64 sroce_retry_wait_ns(u8 timeout, unsigned int backoff)
{
	u64 ns = sroce_local_ack_timeout_ns(timeout);

	while (backoff-- && ns < SROCE_RETRY_WAIT_CEIL_NS) {
		if (ns > SROCE_RETRY_WAIT_CEIL_NS / 2)
			return SROCE_RETRY_WAIT_CEIL_NS;
		ns <<= 1;
	}
	return ns;
}

/* --- UDP source port ---------------------------------------------------- */

#define SROCE_UDP_SPORT_MIN	0xc000u
#define SROCE_UDP_SPORT_MAX	0xffffu

/**
 * sroce_udp_sport() - UDP source port giving ECMP entropy to a QP pair
 * @src_qpn: local QP number (24 bits used)
 * @dst_qpn: remote QP number (24 bits used)
 *
 * Annex A17 leaves the source port free for flow entropy. The result is a
 * deterministic, well mixed hash of both QPNs in the IANA dynamic range
 * 0xc000..0xffff, so one connection stays on one path.
 */
u16 sroce_udp_sport(u32 src_qpn, u32 dst_qpn);

#ifdef __cplusplus
}
#endif

#endif /* SROCE_WIRE_H */
