# SPDX-License-Identifier: GPL-2.0
"""Hostile UD packets on the wire: hand-made RoCEv2 datagrams (valid ICRC)
sent with a raw IPv4 socket to a sroce device, one case per run:

    python3 ud_wire.py SRC_IP DST_IP DEVICE CASE

Each case sends a burst of packets that sroce must drop, and checks that the
named rx_drop_* counter of DEVICE grew by at least the burst (the drop
counters are module-wide, so any sroce device shows them). Exit 0 on
success, 1 with a message otherwise.

Not a test by itself (selftests/run only runs NN-*.sh); used by 97-rdmacm.sh.
"""
import os
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
UD_SEND_ONLY = 0x64
RC_SEND_ONLY = 0x04
GSI_QKEY = 0x80010000
BURST = 8


def ip_hdr(src, dst, payload_len, ident):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + payload_len, ident, 0x4000,
                    64, socket.IPPROTO_UDP, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    s = sum(struct.unpack('!10H', h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return h[:10] + struct.pack('!H', ~s & 0xffff) + h[12:]


def bth(opcode, dqpn, pad=0, pkey=0xffff, psn=0):
    return struct.pack('!BBHI I', opcode, pad << 4, pkey, dqpn & 0xffffff,
                       psn & 0xffffff)


def deth(qkey, sqpn):
    return struct.pack('!II', qkey, sqpn & 0xffffff)


def icrc(iph, udp_and_rest):
    """RoCEv2 ICRC (IBTA A17.3.3): CRC32 over masked headers, LE on the wire."""
    ip = bytearray(iph)
    ip[1] = 0xff            # TOS
    ip[8] = 0xff            # TTL
    ip[10:12] = b'\xff\xff'  # header checksum
    u = bytearray(udp_and_rest)
    u[6:8] = b'\xff\xff'     # UDP checksum
    u[8 + 4] = 0xff          # BTH Resv8a (FECN/BECN)
    crc = zlib.crc32(b'\xff' * 8 + bytes(ip) + bytes(u))
    return struct.pack('<I', crc)


def packet(src, dst, transport, ident, bad_icrc=False):
    udp_len = 8 + len(transport) + 4
    udp = struct.pack('!HHHH', 0xc123, ROCE_PORT, udp_len, 0) + transport
    iph = ip_hdr(src, dst, udp_len, ident)
    crc = icrc(iph, udp)
    if bad_icrc:
        crc = bytes(b ^ 0xff for b in crc)
    return iph + udp + crc


def counter(dev, name):
    with open('/sys/class/infiniband/%s/ports/1/hw_counters/%s' % (dev, name)) as f:
        return int(f.read())


def cases():
    mad = bytes(range(256))
    return {
        # name: (counter, transport header + payload, bad ICRC[, packets])
        'qkey': ('rx_drop_qkey', bth(UD_SEND_ONLY, 1) + deth(0x12345678, 7) + mad, False),
        'reserved_qpn': ('rx_drop_no_qp', bth(UD_SEND_ONLY, 5) + deth(GSI_QKEY, 7) + mad, False),
        'unknown_qpn': ('rx_drop_no_qp', bth(UD_SEND_ONLY, 0xfffffe) + deth(1, 7) + mad, False),
        'pkey': ('rx_drop_hdr', bth(UD_SEND_ONLY, 1, pkey=0x1234) + deth(GSI_QKEY, 7) + mad, False),
        'short_deth': ('rx_drop_hdr', bth(UD_SEND_ONLY, 1) + b'\x80\x01', False),
        'bad_pad': ('rx_drop_hdr', bth(UD_SEND_ONLY, 1, pad=3) + deth(GSI_QKEY, 7), False),
        'odd_len': ('rx_drop_hdr', bth(UD_SEND_ONLY, 1) + deth(GSI_QKEY, 7) + b'abc', False),
        'too_long': ('rx_drop_len', bth(UD_SEND_ONLY, 1) + deth(GSI_QKEY, 7) + bytes(4100), False),
        # longer than a MAD, more than ib_mad's 512 QP1 buffers: each would
        # complete a buffer with a length error, which ib_mad never reposts
        # (rdma_cm dead on the device: 97-rdmacm's rping after these)
        'big_mad': ('rx_drop_len', bth(UD_SEND_ONLY, 1) + deth(GSI_QKEY, 7) + bytes(1024), False,
                    640),
        'icrc': ('rx_drop_icrc', bth(UD_SEND_ONLY, 1) + deth(GSI_QKEY, 7) + mad, True),
        # a GSI datagram with the right Q_Key but garbage for a MAD: ib_mad
        # must reject it; only a clean dmesg shows that
        'garbage_mad': (None, bth(UD_SEND_ONLY, 1) + deth(GSI_QKEY, 7) + os.urandom(256), False),
    }


def main():
    src, dst, dev, case = sys.argv[1:5]
    table = cases()
    if case not in table:
        print('unknown case %s (have: %s)' % (case, ' '.join(table)))
        return 1
    name, transport, bad, *more = table[case]
    burst = more[0] if more else BURST
    before = counter(dev, name) if name else 0
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for i in range(burst):
        s.sendto(packet(src, dst, transport, 0x1000 + i, bad), (dst, 0))
    s.close()
    if not name:
        time.sleep(0.5)
        return 0
    for _ in range(50):
        got = counter(dev, name) - before
        if got >= burst:
            return 0
        time.sleep(0.1)
    print('%s: %s grew by %d, expected %d' % (case, name, got, burst))
    return 1


if __name__ == '__main__':
    sys.exit(main())
