/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce protocol core: the BTH OpCode table (IBTA 9.2.1, Annex A17).
 *
 * The opcode's top three bits select the transport (RC 000, UC 001,
 * UD 011, XRC 101), the low five bits the operation. One table indexed by the full
 * 8-bit opcode describes every opcode sroce understands; all other entries
 * are zero and sroce_opcode() returns NULL for them.
 */
#ifndef SROCE_OPCODE_H
#define SROCE_OPCODE_H

#include "sroce_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Transport prefixes (opcode bits 7-5) */
#define SROCE_OP_TRANSPORT_MASK	0xe0
#define SROCE_OP_PREFIX_RC	0x00
#define SROCE_OP_PREFIX_UC	0x20
#define SROCE_OP_PREFIX_UD	0x60
#define SROCE_OP_PREFIX_XRC	0xa0
/* Operation bits (4-0): the same for RC, UC and XRC */
#define SROCE_OP_OPERATION_MASK	0x1f

enum sroce_opcode_num {
	SROCE_OP_RC_SEND_FIRST			= 0x00,
	SROCE_OP_RC_SEND_MIDDLE			= 0x01,
	SROCE_OP_RC_SEND_LAST			= 0x02,
	SROCE_OP_RC_SEND_LAST_IMM		= 0x03,
	SROCE_OP_RC_SEND_ONLY			= 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_RC_WRITE_FIRST			= 0x06,
	SROCE_OP_RC_WRITE_MIDDLE		= 0x07,
	SROCE_OP_RC_WRITE_LAST			= 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_RC_WRITE_ONLY			= 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_RC_READ_REQUEST		= 0x0c,
	SROCE_OP_RC_READ_RESPONSE_FIRST		= 0x0d,
	SROCE_OP_RC_READ_RESPONSE_MIDDLE	= 0x0e,
	SROCE_OP_RC_READ_RESPONSE_LAST		= 0x0f,
	SROCE_OP_RC_READ_RESPONSE_ONLY		= 0x10,
	SROCE_OP_RC_ACKNOWLEDGE			= 0x11,
	SROCE_OP_RC_ATOMIC_ACKNOWLEDGE		= 0x12,
	SROCE_OP_RC_COMPARE_SWAP		= 0x13,
	SROCE_OP_RC_FETCH_ADD			= 0x14,
	SROCE_OP_RC_SEND_LAST_INV		= 0x16,
	SROCE_OP_RC_SEND_ONLY_INV		= 0x17,
	SROCE_OP_RC_FLUSH			= 0x1c,
	SROCE_OP_RC_ATOMIC_WRITE		= 0x1d,

	SROCE_OP_UC_SEND_FIRST			= 0x20,
	SROCE_OP_UC_SEND_MIDDLE			= 0x21,
	SROCE_OP_UC_SEND_LAST			= 0x22,
	SROCE_OP_UC_SEND_LAST_IMM		= 0x23,
	SROCE_OP_UC_SEND_ONLY			= 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM		= 0x25,
	SROCE_OP_UC_WRITE_FIRST			= 0x26,
	SROCE_OP_UC_WRITE_MIDDLE		= 0x27,
	SROCE_OP_UC_WRITE_LAST			= 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM		= 0x29,
	SROCE_OP_UC_WRITE_ONLY			= 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM		= 0x2b,

	SROCE_OP_UD_SEND_ONLY			= 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM		= 0x65,

	/* XRC: the RC operations with prefix 101b (IBTA 9.2.1, XRC annex) */
	SROCE_OP_XRC_SEND_FIRST			= 0xa0,
	SROCE_OP_XRC_SEND_MIDDLE		= 0xa1,
	SROCE_OP_XRC_SEND_LAST			= 0xa2,
	SROCE_OP_XRC_SEND_LAST_IMM		= 0xa3,
	SROCE_OP_XRC_SEND_ONLY			= 0xa4,
	SROCE_OP_XRC_SEND_ONLY_IMM		= 0xa5,
	SROCE_OP_XRC_WRITE_FIRST		= 0xa6,
	SROCE_OP_XRC_WRITE_MIDDLE		= 0xa7,
	SROCE_OP_XRC_WRITE_LAST			= 0xa8,
	SROCE_OP_XRC_WRITE_LAST_IMM		= 0xa9,
	SROCE_OP_XRC_WRITE_ONLY			= 0xaa,
	SROCE_OP_XRC_WRITE_ONLY_IMM		= 0xab,
	SROCE_OP_XRC_READ_REQUEST		= 0xac,
	SROCE_OP_XRC_READ_RESPONSE_FIRST	= 0xad,
	SROCE_OP_XRC_READ_RESPONSE_MIDDLE	= 0xae,
	SROCE_OP_XRC_READ_RESPONSE_LAST		= 0xaf,
	SROCE_OP_XRC_READ_RESPONSE_ONLY		= 0xb0,
	SROCE_OP_XRC_ACKNOWLEDGE		= 0xb1,
	SROCE_OP_XRC_ATOMIC_ACKNOWLEDGE		= 0xb2,
	SROCE_OP_XRC_COMPARE_SWAP		= 0xb3,
	SROCE_OP_XRC_FETCH_ADD			= 0xb4,
	SROCE_OP_XRC_SEND_LAST_INV		= 0xb6,
	SROCE_OP_XRC_SEND_ONLY_INV		= 0xb7,
};

/**
 * enum sroce_opcode_flags - properties of an opcode
 * @SROCE_OPF_RC: Reliable Connected transport
 * @SROCE_OPF_UC: Unreliable Connected transport
 * @SROCE_OPF_UD: Unreliable Datagram transport
 * @SROCE_OPF_REQ: request packet (requester to responder)
 * @SROCE_OPF_RESP: RDMA READ response packet (carries data back)
 * @SROCE_OPF_ACK: Acknowledge or ATOMIC Acknowledge packet
 * @SROCE_OPF_FIRST: first packet of a multi-packet message
 * @SROCE_OPF_MIDDLE: middle packet of a multi-packet message
 * @SROCE_OPF_LAST: last packet of a multi-packet message
 * @SROCE_OPF_ONLY: the only packet of its message (single-packet messages,
 *                  including READ requests, atomics and acknowledges)
 * @SROCE_OPF_PAYLOAD: the packet may (LAST/ONLY) or must (FIRST/MIDDLE)
 *                     carry payload; without the flag it carries none
 * @SROCE_OPF_RETH: RDMA Extended Transport Header present
 * @SROCE_OPF_AETH: ACK Extended Transport Header present
 * @SROCE_OPF_IMMDT: Immediate Data present
 * @SROCE_OPF_IETH: Invalidate Extended Transport Header present
 * @SROCE_OPF_ATMETH: Atomic Extended Transport Header present
 * @SROCE_OPF_ATMACK: Atomic ACK Extended Transport Header present
 * @SROCE_OPF_DETH: Datagram Extended Transport Header present
 * @SROCE_OPF_SEND: SEND operation
 * @SROCE_OPF_WRITE: RDMA WRITE operation
 * @SROCE_OPF_READ: RDMA READ request or response
 * @SROCE_OPF_ATOMIC: CmpSwap/FetchAdd request or ATOMIC Acknowledge
 * @SROCE_OPF_NEEDS_ACK: RC or XRC request; the requester must see it
 *                       acknowledged (explicitly or coalesced) before
 *                       completing it
 * @SROCE_OPF_XRC: eXtended Reliable Connected transport (requests,
 *                 responses and acknowledges alike)
 * @SROCE_OPF_XRCETH: XRC Extended Transport Header present (XRC requests:
 *                    the destination XRC SRQ number)
 * @SROCE_OPF_FETH: FLUSH Extended Transport Header present (IBTA 1.5)
 * @SROCE_OPF_FLUSH: RDMA FLUSH request
 * @SROCE_OPF_ATOMIC_WRITE: ATOMIC WRITE request (8 bytes of payload)
 */
enum sroce_opcode_flags {
	SROCE_OPF_RC		= 1u << 0,
	SROCE_OPF_UC		= 1u << 1,
	SROCE_OPF_UD		= 1u << 2,
	SROCE_OPF_REQ		= 1u << 3,
	SROCE_OPF_RESP		= 1u << 4,
	SROCE_OPF_ACK		= 1u << 5,
	SROCE_OPF_FIRST		= 1u << 6,
	SROCE_OPF_MIDDLE	= 1u << 7,
	SROCE_OPF_LAST		= 1u << 8,
	SROCE_OPF_ONLY		= 1u << 9,
	SROCE_OPF_PAYLOAD	= 1u << 10,
	SROCE_OPF_RETH		= 1u << 11,
	SROCE_OPF_AETH		= 1u << 12,
	SROCE_OPF_IMMDT		= 1u << 13,
	SROCE_OPF_IETH		= 1u << 14,
	SROCE_OPF_ATMETH	= 1u << 15,
	SROCE_OPF_ATMACK	= 1u << 16,
	SROCE_OPF_DETH		= 1u << 17,
	SROCE_OPF_SEND		= 1u << 18,
	SROCE_OPF_WRITE		= 1u << 19,
	SROCE_OPF_READ		= 1u << 20,
	SROCE_OPF_ATOMIC	= 1u << 21,
	SROCE_OPF_NEEDS_ACK	= 1u << 22,
	SROCE_OPF_XRC		= 1u << 23,
	SROCE_OPF_XRCETH	= 1u << 24,
	SROCE_OPF_FETH		= 1u << 25,
	SROCE_OPF_FLUSH		= 1u << 26,
	SROCE_OPF_ATOMIC_WRITE	= 1u << 27,
};

#define SROCE_OPF_TRANSPORT	(SROCE_OPF_RC | SROCE_OPF_UC | SROCE_OPF_UD | \
				 SROCE_OPF_XRC)
/* The reliable connected transports: RC and XRC share one protocol */
#define SROCE_OPF_RELIABLE	(SROCE_OPF_RC | SROCE_OPF_XRC)
#define SROCE_OPF_KIND		(SROCE_OPF_REQ | SROCE_OPF_RESP | SROCE_OPF_ACK)
#define SROCE_OPF_POSITION	(SROCE_OPF_FIRST | SROCE_OPF_MIDDLE | \
				 SROCE_OPF_LAST | SROCE_OPF_ONLY)
#define SROCE_OPF_EXT_HDRS	(SROCE_OPF_RETH | SROCE_OPF_AETH | \
				 SROCE_OPF_IMMDT | SROCE_OPF_IETH | \
				 SROCE_OPF_ATMETH | SROCE_OPF_ATMACK | \
				 SROCE_OPF_DETH | SROCE_OPF_XRCETH | SROCE_OPF_FETH)
#define SROCE_OPF_OPERATION	(SROCE_OPF_SEND | SROCE_OPF_WRITE | \
				 SROCE_OPF_READ | SROCE_OPF_ATOMIC | \
				 SROCE_OPF_FLUSH | SROCE_OPF_ATOMIC_WRITE)
/*
 * Requests answered from the responder's READ/atomic resources (they count
 * against max_dest_rd_atomic; READ responses or an ATOMIC ACK answer them)
 */
#define SROCE_OPF_RD_ATOMIC	(SROCE_OPF_READ | SROCE_OPF_ATOMIC | \
				 SROCE_OPF_FLUSH | SROCE_OPF_ATOMIC_WRITE)
/* Packets that start / end a message */
#define SROCE_OPF_START		(SROCE_OPF_FIRST | SROCE_OPF_ONLY)
#define SROCE_OPF_END		(SROCE_OPF_LAST | SROCE_OPF_ONLY)

/**
 * struct sroce_opcode_info - one opcode table entry
 * @name: human readable name, NULL for invalid opcodes
 * @flags: enum sroce_opcode_flags bits, 0 for invalid opcodes
 * @hdr_len: BTH plus all extension headers, in bytes
 */
struct sroce_opcode_info {
	const char *name;
	u32 flags;
	u8 hdr_len;
};

extern const struct sroce_opcode_info sroce_opcode_table[256];

/**
 * sroce_opcode() - table entry for a BTH OpCode
 * @op: the opcode byte from the wire
 *
 * Return: the entry, or NULL if sroce does not implement @op.
 */
static inline const struct sroce_opcode_info *sroce_opcode(u8 op)
{
	const struct sroce_opcode_info *info = &sroce_opcode_table[op];

	return info->flags ? info : NULL;
}

/**
 * enum sroce_msg_op - the message operations a requester cuts into packets
 * @SROCE_MSG_SEND: SEND
 * @SROCE_MSG_SEND_IMM: SEND with Immediate (on its last packet)
 * @SROCE_MSG_SEND_INV: SEND with Invalidate (IETH on its last packet)
 * @SROCE_MSG_WRITE: RDMA WRITE
 * @SROCE_MSG_WRITE_IMM: RDMA WRITE with Immediate (on its last packet)
 * @SROCE_MSG_NR: number of operations
 */
enum sroce_msg_op {
	SROCE_MSG_SEND,
	SROCE_MSG_SEND_IMM,
	SROCE_MSG_SEND_INV,
	SROCE_MSG_WRITE,
	SROCE_MSG_WRITE_IMM,
	SROCE_MSG_NR,
};

/**
 * sroce_msg_opcode() - the RC OpCode of one packet of a message
 * @op: the message's operation
 * @first: the packet starts the message
 * @last: the packet ends it (both: a single-packet message)
 *
 * UC and XRC packets take the same opcode with their transport prefix
 * (IBTA 9.2.1: the low five bits name the operation for every transport).
 *
 * Return: the opcode, SROCE_OP_RC_SEND_ONLY for an @op out of range.
 */
u8 sroce_msg_opcode(enum sroce_msg_op op, bool first, bool last);

/**
 * sroce_opcode_follows() - may this packet come next? (IBTA 9.8.3.1)
 * @in_send: the responder is inside a multi-packet SEND
 * @in_write: it is inside a multi-packet RDMA WRITE
 * @flags: the packet's opcode flags (enum sroce_opcode_flags)
 *
 * Inside a message only its own MIDDLE or LAST packets may follow; outside
 * one, only a packet that starts a message (FIRST or ONLY).
 *
 * Return: true if the packet is in sequence.
 */
bool sroce_opcode_follows(bool in_send, bool in_write, u32 flags);

#ifdef __cplusplus
}
#endif

#endif /* SROCE_OPCODE_H */
