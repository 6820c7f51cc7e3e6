// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce protocol core: RoCEv2 transport header codecs, AETH timers and the
 * UDP source port hash.
 */
#include "sroce_wire.h"

/* BTH byte 1 */
#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x3
#define SROCE_BTH_TVER_MASK	0xf
/* BTH byte 4 (Resv8a) */
#define SROCE_BTH_FECN		0x80
#define SROCE_BTH_BECN		0x40
/* BTH byte 8 */
#define SROCE_BTH_ACKREQ	0x80
#define SROCE_BTH_RESV7_MASK	0x7f

void sroce_bth_get(const u8 *p, struct sroce_bth *bth)
{
	bth->opcode = p[0];
	bth->se = !!(p[1] & SROCE_BTH_SE);
	bth->mig = !!(p[1] & SROCE_BTH_MIG);
	bth->pad = (p[1] >> SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK;
	bth->tver = p[1] & SROCE_BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(p + 2);
	bth->fecn = !!(p[4] & SROCE_BTH_FECN);
	bth->becn = !!(p[4] & SROCE_BTH_BECN);
	bth->dqpn = sroce_get_be24(p + 5);
	bth->ack_req = !!(p[8] & SROCE_BTH_ACKREQ);
	bth->resv7 = p[8] & SROCE_BTH_RESV7_MASK;
	bth->psn = sroce_get_be24(p + 9);
}

void sroce_bth_put(u8 *p, const struct sroce_bth *bth)
{
	p[0] = bth->opcode;
	p[1] = (u8)((bth->se ? SROCE_BTH_SE : 0) |
		    (bth->mig ? SROCE_BTH_MIG : 0) |
		    ((bth->pad & SROCE_BTH_PAD_MASK) << SROCE_BTH_PAD_SHIFT) |
		    (bth->tver & SROCE_BTH_TVER_MASK));
	sroce_put_be16(p + 2, bth->pkey);
	p[4] = (u8)((bth->fecn ? SROCE_BTH_FECN : 0) |
		    (bth->becn ? SROCE_BTH_BECN : 0));
	sroce_put_be24(p + 5, bth->dqpn);
	p[8] = (u8)((bth->ack_req ? SROCE_BTH_ACKREQ : 0) | (bth->resv7 & SROCE_BTH_RESV7_MASK));
	sroce_put_be24(p + 9, bth->psn);
}

void sroce_reth_get(const u8 *p, struct sroce_reth *reth)
{
	reth->va = sroce_get_be64(p);
	reth->rkey = sroce_get_be32(p + 8);
	reth->dma_len = sroce_get_be32(p + 12);
}

void sroce_reth_put(u8 *p, const struct sroce_reth *reth)
{
	sroce_put_be64(p, reth->va);
	sroce_put_be32(p + 8, reth->rkey);
	sroce_put_be32(p + 12, reth->dma_len);
}

void sroce_aeth_get(const u8 *p, struct sroce_aeth *aeth)
{
	aeth->syndrome = p[0];
	aeth->msn = sroce_get_be24(p + 1);
}

void sroce_aeth_put(u8 *p, const struct sroce_aeth *aeth)
{
	p[0] = aeth->syndrome;
	sroce_put_be24(p + 1, aeth->msn);
}

void sroce_atmeth_get(const u8 *p, struct sroce_atmeth *atm)
{
	atm->va = sroce_get_be64(p);
	atm->rkey = sroce_get_be32(p + 8);
	atm->swap_add = sroce_get_be64(p + 12);
	atm->compare = sroce_get_be64(p + 20);
}

void sroce_atmeth_put(u8 *p, const struct sroce_atmeth *atm)
{
	sroce_put_be64(p, atm->va);
	sroce_put_be32(p + 8, atm->rkey);
	sroce_put_be64(p + 12, atm->swap_add);
	sroce_put_be64(p + 20, atm->compare);
}

void sroce_deth_get(const u8 *p, struct sroce_deth *deth)
{
	deth->qkey = sroce_get_be32(p);
	deth->src_qpn = sroce_get_be24(p + 5);
}

void sroce_deth_put(u8 *p, const struct sroce_deth *deth)
{
	sroce_put_be32(p, deth->qkey);
	p[4] = 0;
	sroce_put_be24(p + 5, deth->src_qpn);
}

const char *sroce_pkt_strerror(int err)
{
	switch (err) {
	case SROCE_PKT_OK:
		return "ok";
	case SROCE_PKT_ETRUNC:
		return "truncated";
	case SROCE_PKT_EOPCODE:
		return "unknown opcode";
	case SROCE_PKT_ETVER:
		return "bad transport version";
	case SROCE_PKT_EPAD:
		return "bad pad count";
	case SROCE_PKT_ELEN:
		return "bad payload length";
	case SROCE_PKT_EAETH:
		return "bad AETH syndrome";
	default:
		return "unknown error";
	}
}

/*
 * Extension headers follow the BTH in this fixed order (IBTA 9.2):
 * DETH, XRCETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH. Only the
 * combinations in the opcode table occur.
 */
static u32 sroce_ext_decode(const u8 *p, u32 flags, struct sroce_pkt_hdr *h)
{
	u32 off = SROCE_HDR_BTH_LEN;

	if (flags & SROCE_OPF_DETH) {
		sroce_deth_get(p + off, &h->deth);
		off += SROCE_HDR_DETH_LEN;
	}
	if (flags & SROCE_OPF_XRCETH) {
		h->xrc_srqn = sroce_get_be24(p + off + 1);
		off += SROCE_HDR_XRCETH_LEN;
	}
	if (flags & SROCE_OPF_FETH) {
		h->feth = sroce_get_be32(p + off) & (SROCE_FETH_SEL_MASK | SROCE_FETH_PLT_MASK);
		off += SROCE_HDR_FETH_LEN;
	}
	if (flags & SROCE_OPF_RETH) {
		sroce_reth_get(p + off, &h->reth);
		off += SROCE_HDR_RETH_LEN;
	}
	if (flags & SROCE_OPF_ATMETH) {
		sroce_atmeth_get(p + off, &h->atmeth);
		off += SROCE_HDR_ATMETH_LEN;
	}
	if (flags & SROCE_OPF_AETH) {
		sroce_aeth_get(p + off, &h->aeth);
		off += SROCE_HDR_AETH_LEN;
	}
	if (flags & SROCE_OPF_ATMACK) {
		h->atmack = sroce_get_be64(p + off);
		off += SROCE_HDR_ATMACK_LEN;
	}
	if (flags & SROCE_OPF_IMMDT) {
		h->immdt = sroce_get_be32(p + off);
		off += SROCE_HDR_IMMDT_LEN;
	}
	if (flags & SROCE_OPF_IETH) {
		h->ieth_rkey = sroce_get_be32(p + off);
		off += SROCE_HDR_IETH_LEN;
	}
	return off;
}

static u32 sroce_ext_encode(u8 *p, u32 flags, const struct sroce_pkt_hdr *h)
{
	u32 off = SROCE_HDR_BTH_LEN;

	if (flags & SROCE_OPF_DETH) {
		sroce_deth_put(p + off, &h->deth);
		off += SROCE_HDR_DETH_LEN;
	}
	if (flags & SROCE_OPF_XRCETH) {
		p[off] = 0;
		sroce_put_be24(p + off + 1, h->xrc_srqn);
		off += SROCE_HDR_XRCETH_LEN;
	}
	if (flags & SROCE_OPF_FETH) {
		sroce_put_be32(p + off, h->feth & (SROCE_FETH_SEL_MASK | SROCE_FETH_PLT_MASK));
		off += SROCE_HDR_FETH_LEN;
	}
	if (flags & SROCE_OPF_RETH) {
		sroce_reth_put(p + off, &h->reth);
		off += SROCE_HDR_RETH_LEN;
	}
	if (flags & SROCE_OPF_ATMETH) {
		sroce_atmeth_put(p + off, &h->atmeth);
		off += SROCE_HDR_ATMETH_LEN;
	}
	if (flags & SROCE_OPF_AETH) {
		sroce_aeth_put(p + off, &h->aeth);
		off += SROCE_HDR_AETH_LEN;
	}
	if (flags & SROCE_OPF_ATMACK) {
		sroce_put_be64(p + off, h->atmack);
		off += SROCE_HDR_ATMACK_LEN;
	}
	if (flags & SROCE_OPF_IMMDT) {
		sroce_put_be32(p + off, h->immdt);
		off += SROCE_HDR_IMMDT_LEN;
	}
	if (flags & SROCE_OPF_IETH) {
		sroce_put_be32(p + off, h->ieth_rkey);
		off += SROCE_HDR_IETH_LEN;
	}
	return off;
}

int sroce_pkt_parse(const u8 *pkt, size_t len, struct sroce_pkt_hdr *out)
{
	const struct sroce_opcode_info *info;
	u32 data;	/* payload + pad */

	if (len < SROCE_HDR_BTH_LEN + SROCE_PKT_ICRC_LEN)
		return SROCE_PKT_ETRUNC;
	if (len > SROCE_PKT_MAX_LEN)
		return SROCE_PKT_ELEN;

	sroce_bth_get(pkt, &out->bth);
	info = sroce_opcode(out->bth.opcode);
	if (!info)
		return SROCE_PKT_EOPCODE;
	if (out->bth.tver != 0)
		return SROCE_PKT_ETVER;
	if (len < (size_t)info->hdr_len + SROCE_PKT_ICRC_LEN)
		return SROCE_PKT_ETRUNC;

	out->info = info;
	out->hdr_len = sroce_ext_decode(pkt, info->flags, out);
	if (out->hdr_len != info->hdr_len)	/* table inconsistency */
		return SROCE_PKT_EOPCODE;

	data = (u32)len - info->hdr_len - SROCE_PKT_ICRC_LEN;
	out->sack_len = 0;
	if (!(info->flags & SROCE_OPF_PAYLOAD)) {
		if (out->bth.pad)
			return SROCE_PKT_EPAD;
		/*
		 * sroce selective repeat: an RC/XRC Acknowledge flagged
		 * SROCE_BTH_SACK carries exactly one SACK block (sroce_sr.h)
		 */
		if ((pkt[4] & SROCE_BTH_SACK_FLAG) && (info->flags & SROCE_OPF_ACK) &&
		    !(info->flags & SROCE_OPF_ATMACK)) {
			if (data != SROCE_SACK_BLOCK_LEN)
				return SROCE_PKT_ELEN;
			out->sack_len = data;
			data = 0;
		}
		if (data)
			return SROCE_PKT_ELEN;
	} else {
		/* IBTA 9.3: payload + pad is always a multiple of 4 bytes */
		if (data & 3)
			return SROCE_PKT_ELEN;
		if (out->bth.pad > data)
			return SROCE_PKT_EPAD;
		/* FIRST and MIDDLE carry a whole PMTU: never empty or padded */
		if (info->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) {
			if (out->bth.pad)
				return SROCE_PKT_EPAD;
			if (!data)
				return SROCE_PKT_ELEN;
		}
	}
	out->payload_len = data - out->bth.pad;

	if ((info->flags & SROCE_OPF_AETH) &&
	    !sroce_aeth_syn_valid(out->aeth.syndrome))
		return SROCE_PKT_EAETH;
	return SROCE_PKT_OK;
}

int sroce_pkt_build_hdrs(u8 *buf, size_t size, const struct sroce_pkt_hdr *hdr)
{
	const struct sroce_opcode_info *info = sroce_opcode(hdr->bth.opcode);

	if (!info)
		return SROCE_PKT_EOPCODE;
	if (size < info->hdr_len)
		return SROCE_PKT_ETRUNC;
	sroce_bth_put(buf, &hdr->bth);
	return (int)sroce_ext_encode(buf, info->flags, hdr);
}

int sroce_cnp_build(u8 *buf, size_t size, u32 dqpn)
{
	struct sroce_bth bth = {
		.opcode = SROCE_OP_CNP,
		.pkey = SROCE_DEFAULT_PKEY,
		.becn = true,
		.dqpn = dqpn & SROCE_QPN_MASK,
	};
	size_t i;

	if (size < SROCE_CNP_HDR_LEN)
		return SROCE_PKT_ETRUNC;
	sroce_bth_put(buf, &bth);
	for (i = SROCE_HDR_BTH_LEN; i < SROCE_CNP_HDR_LEN; i++)
		buf[i] = 0;
	return SROCE_CNP_HDR_LEN;
}

int sroce_cnp_parse(const u8 *pkt, size_t len, u32 *dqpn)
{
	struct sroce_bth bth;

	if (len < SROCE_HDR_BTH_LEN)
		return SROCE_PKT_ETRUNC;
	sroce_bth_get(pkt, &bth);
	if (bth.opcode != SROCE_OP_CNP)
		return SROCE_PKT_EOPCODE;
	if (len < SROCE_CNP_HDR_LEN + SROCE_PKT_ICRC_LEN)
		return SROCE_PKT_ETRUNC;
	if (len != SROCE_CNP_HDR_LEN + SROCE_PKT_ICRC_LEN)
		return SROCE_PKT_ELEN;
	if (bth.tver != 0)
		return SROCE_PKT_ETVER;
	if (bth.pad)
		return SROCE_PKT_EPAD;
	*dqpn = bth.dqpn;
	return SROCE_PKT_OK;
}

/*
 * IBTA "Encoding for RNR NAK Timer Field", in microseconds. From 20 us on
 * the codes grow by alternating factors of 1.5 and 4/3; code 0 is the
 * longest.
 */
static const u32 sroce_rnr_usecs[SROCE_RNR_TIMER_CODES] = {
	655360,     10,     20,     30,     40,     60,     80,    120,
	   160,    240,    320,    480,    640,    960,   1280,   1920,
	  2560,   3840,   5120,   7680,  10240,  15360,  20480,  30720,
	 40960,  61440,  81920, 122880, 163840, 245760, 327680, 491520,
};

u32 sroce_rnr_timer_usecs(u8 code)
{
	return sroce_rnr_usecs[code & (SROCE_RNR_TIMER_CODES - 1)];
}

u8 sroce_rnr_timer_code(u32 usecs)
{
	u8 code;

	for (code = 1; code < SROCE_RNR_TIMER_CODES; code++)
		if (sroce_rnr_usecs[code] >= usecs)
			return code;
	return 0;
}

/* 32-bit avalanche: every input bit flips each output bit with p ~ 1/2 */
static u32 sroce_mix32(u32 h)
{
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	h *= 0x846ca68bu;
	h ^= h >> 16;
	return h;
}

u16 sroce_udp_sport(u32 src_qpn, u32 dst_qpn)
{
	u32 h;

	h = sroce_mix32((src_qpn & SROCE_QPN_MASK) ^ 0x5bd1e995u);
	h = sroce_mix32(h ^ (dst_qpn & SROCE_QPN_MASK));
	h ^= h >> 14;	/* fold the high bits into the 14 we keep */
	return (u16)(SROCE_UDP_SPORT_MIN | (h & 0x3fff));
}
