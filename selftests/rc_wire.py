# SPDX-License-Identifier: GPL-2.0
"""Hand-made RoCEv2 RC packets for the hostile-peer tests (rc_hostile.py):
BTH/RETH/AETH encoding, a raw-socket sender whose packets carry a valid
ICRC (ud_wire.icrc()), and a scapy sniffer for what a victim sends back.
Not a test by itself.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ud_wire  # noqa: E402  (ICRC)

from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.sendrecv import AsyncSniffer  # noqa: E402

ROCE_PORT = 4791
MTU = 1024

# BTH opcodes (RC) and AETH syndromes
SEND_ONLY, WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY = 0x04, 0x06, 0x07, 0x08, 0x0a
READ_REQ, RD_FIRST, RD_MIDDLE, RD_LAST, RD_ONLY, ACK = 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11
SYN_ACK, SYN_NAK_SEQ, SYN_NAK_ACCESS = 0x1f, 0x60, 0x62


def bth(op, dqpn, psn, ackreq=False):
    return struct.pack('!BBHII', op, 0, 0xffff, dqpn & 0xffffff,
                       (psn & 0xffffff) | (0x80000000 if ackreq else 0))


def reth(va, rkey, length):
    return struct.pack('!QII', va, rkey, length)


def aeth(syn, msn=0):
    return struct.pack('!I', (syn << 24) | (msn & 0xffffff))


class Wire:
    """Sends RoCEv2 packets from SRC to DST with a raw IPv4 socket."""

    def __init__(self, src, dst):
        self.src, self.dst, self.ident = src, dst, 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)

    def build(self, transport):
        """IP/UDP (scapy) + TRANSPORT (4-byte aligned) + a valid ICRC."""
        self.ident = (self.ident + 1) & 0xffff
        pkt = bytes(IP(src=self.src, dst=self.dst, id=self.ident, flags='DF', ttl=64) /
                    UDP(sport=0xc0de, dport=ROCE_PORT, chksum=0) / Raw(transport + bytes(4)))
        return pkt[:-4] + ud_wire.icrc(pkt[:20], pkt[20:-4])

    def send(self, *transports):
        for t in transports:
            self.sock.sendto(self.build(t), (self.dst, 0))

    def send_raw(self, packets):
        for p in packets:
            self.sock.sendto(p, (self.dst, 0))


def roce_bths(pkts, src):
    """(opcode, AckReq, PSN) of the RoCEv2 packets from SRC among scapy packets."""
    out = []
    for p in pkts:
        if IP in p and UDP in p and p[IP].src == src and p[UDP].dport == ROCE_PORT:
            op, _, _, _, w = struct.unpack('!BBHII', bytes(p[UDP].payload)[:12])
            out.append((op, bool(w & 0x80000000), w & 0xffffff))
    return out


def roce_opcodes(pkts, src):
    """BTH opcodes of the RoCEv2 packets from SRC among scapy packets."""
    return [op for op, _, _ in roce_bths(pkts, src)]


def sniffer(iface):
    """An AsyncSniffer of RoCEv2 packets on IFACE, started; .seen lists
    what it caught so far (its thread appends), .results once stopped."""
    seen = []
    s = AsyncSniffer(iface=iface, store=True, prn=seen.append,
                     lfilter=lambda p: UDP in p and p[UDP].dport == ROCE_PORT)
    s.seen = seen
    s.start()
    time.sleep(0.3)      # let the thread open its socket
    return s
