# SPDX-License-Identifier: GPL-2.0
"""Zero-copy transmit between two sroce devices across the veth, one case
per run:

    python3 zcopy_verbs.py DEV_A DEV_B CASE [EXPECT]

DEV_A requests, DEV_B responds (GID index 1 on both). Cases:

    data      SEND, WRITE and READ of 64 KiB, from one SGE at an odd offset
              and from SGEs of odd lengths crossing pages, byte-exact; a
              packet of 16 SGEs that each cross a page (32 pages: more
              fragments than an skb has) is copied instead, byte-exact
              too. EXPECT "on": the requests (DEV_A) and READ responses
              (DEV_B) went by reference (tx_zcopy_pkts), the 32-page
              packets were copied (tx_zcopy_fallbacks); "off": nothing
              went by reference.
    uc_reuse  (the path delays packets) a UC WRITE completes once sent, so
              its buffer is the user's again while the packets are still
              on their way: it is rewritten at once, and the responder
              still gets the bytes as they were when posted.
    dereg     (the path delays packets) an RC WRITE of 1 MiB, then its MR
              deregistered and its buffer freed while packets that refer
              to its pages wait in the path, then 64 MiB allocated and
              filled with 0xcc: dereg returns within 2 s, the WRITE ends
              (any status) within 15 s, and every packet's worth of the
              responder's memory holds the posted bytes or is untouched
              (zero), never the bytes of the memory allocated after.

Exit 0 when the case behaves, 1 (with a message) otherwise.
"""
import mmap
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

from rc_verbs import ACCESS, GID_INDEX, Fail, Node, connect_qp, counter, pattern

MTU = 1024      # connect_qp()'s path MTU
WIDE_SEG = 1408  # SEND/WRITE packets, READ responses between sroce peers (wide_segments)


class End:
    """One device's QP (RC or UC), CQ and MR."""

    def __init__(self, dev, size, uc=False, sges=1, sig_all=1):
        self.dev = dev
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.qp = QP(self.pd, QPInitAttr(
            qp_type=e.IBV_QPT_UC if uc else e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
            cap=QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=sges, max_recv_sge=1),
            sq_sig_all=sig_all))
        self.mr = MR(self.pd, size, ACCESS)
        self.gid = self.ctx.query_gid(1, GID_INDEX)
        self.uc = uc

    def connect(self, other):
        connect_qp(self.qp, other.gid, GID_INDEX, other.qp.qp_num, uc=self.uc)

    def post(self, op, sges, raddr=0, rkey=0, imm=0):
        w = SendWR(wr_id=1, opcode=op, num_sge=len(sges), send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(self.mr.buf + off, n, self.mr.lkey) for off, n in sges])
        if op != e.IBV_WR_SEND:
            w.set_wr_rdma(rkey, raddr)
        if op == e.IBV_WR_RDMA_WRITE_WITH_IMM:
            w.imm_data = imm
        self.qp.post_send(w)

    def recv(self, off, n):
        self.qp.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(self.mr.buf + off, n, self.mr.lkey)]))

    wait = Node.wait     # (it uses self.cq only)


def pair(dev_a, dev_b, size, uc=False, sges=1, sig_all=1):
    a, b = End(dev_a, size, uc, sges, sig_all), End(dev_b, size, uc)
    a.connect(b)
    b.connect(a)
    return a, b


def gathered(a, sges):
    return b''.join(a.mr.read(n, off) for off, n in sges)


def transfer(a, b, sges, seed, what):
    """SEND, WRITE and READ of the bytes SGES name on A, checked on B (and back)."""
    total = sum(n for _, n in sges)
    far = 1 << 20           # B's landing zone
    for op, name in ((e.IBV_WR_SEND, 'SEND'), (e.IBV_WR_RDMA_WRITE, 'WRITE')):
        src = pattern(seed, a.mr.length)
        seed += 1
        a.mr.write(src, len(src), 0)
        b.mr.write(bytes(total), total, far)
        if op == e.IBV_WR_SEND:
            b.recv(far, total)
        a.post(op, sges, b.mr.buf + far, b.mr.rkey)
        a.wait('%s %s (requester)' % (what, name))
        if op == e.IBV_WR_SEND:
            wc = b.wait('%s SEND (responder)' % what)
            if wc.byte_len != total:
                raise Fail('%s SEND: byte_len %d, expected %d' % (what, wc.byte_len, total))
        if b.mr.read(total, far) != gathered(a, sges):
            raise Fail('%s %s: the responder\'s bytes differ' % (what, name))
    # READ: B's bytes land in A's SGEs
    src = pattern(seed, total)
    b.mr.write(src, total, far)
    a.mr.write(bytes(a.mr.length), a.mr.length, 0)
    a.post(e.IBV_WR_RDMA_READ, sges, b.mr.buf + far, b.mr.rkey)
    a.wait('%s READ' % what)
    if gathered(a, sges) != src:
        raise Fail('%s READ: the requester\'s bytes differ' % what)


def case_data(dev_a, dev_b, expect):
    max_sge = Context(name=dev_a).query_device().max_sge
    if max_sge < 16:
        raise Fail('max_sge %d: too few SGEs for the fallback list' % max_sge)
    a, b = pair(dev_a, dev_b, 4 << 20, sges=16)
    before = {(d, c): counter(d, c) for d in (dev_a, dev_b)
              for c in ('tx_zcopy_pkts', 'tx_zcopy_fallbacks')}
    transfer(a, b, [(3, 65536)], 10, 'one SGE at offset 3')
    transfer(a, b, [(4095, 1000), (9000, 5001), (70001, 59535)], 20, 'three odd SGEs')
    got = {k: counter(*k) - v for k, v in before.items()}
    # 16 SGEs of 64 bytes, each across a page boundary: one packet, 32 pages
    transfer(a, b, [(8192 * (i + 1) - 32, 64) for i in range(16)], 30, 'thirty-two pages')
    fb = counter(dev_a, 'tx_zcopy_fallbacks') - before[(dev_a, 'tx_zcopy_fallbacks')]
    print('# zcopy %s: %s, thirty-two-page fallbacks %d' % (expect, got, fb))
    if expect == 'on':
        # 64 KiB at MTU 1024: per SEND and WRITE 64 packets, or 47 of
        # 1408 bytes between two sroce devices with wide segments
        # (transport.rst), 2 transfers; READ responses likewise, their
        # last one (768 bytes) too short for fragments: 46 by reference
        if (got[(dev_a, 'tx_zcopy_pkts')] < 4 * -(-65536 // WIDE_SEG) or
                got[(dev_b, 'tx_zcopy_pkts')] < 2 * (65536 // WIDE_SEG)):
            raise Fail('requests or READ responses did not go by reference: %s' % got)
        if got[(dev_a, 'tx_zcopy_fallbacks')] or got[(dev_b, 'tx_zcopy_fallbacks')]:
            raise Fail('user MR pages copied: %s' % got)
        if fb < 2:
            raise Fail('the thirty-two-page packets were not copied (fallbacks %d)' % fb)
    elif any(got.values()) or fb:
        raise Fail('zcopy off, yet: %s, fallbacks %d' % (got, fb))


def case_uc_reuse(dev_a, dev_b):
    n = 65536
    a, b = pair(dev_a, dev_b, 2 * n, uc=True)
    posted = pattern(40, n)
    a.mr.write(posted, n, 0)
    b.mr.write(bytes(n), n, 0)
    b.recv(0, 0)
    a.post(e.IBV_WR_RDMA_WRITE_WITH_IMM, [(0, n)], b.mr.buf, b.mr.rkey, imm=0x5a)
    a.wait('UC WRITE (requester)')
    t0 = time.monotonic()
    a.mr.write(b'\xee' * n, n, 0)       # the buffer is the user's again
    b.wait('UC WRITE with immediate (responder)')
    print('# responder completion %.0f ms after the requester\'s' % ((time.monotonic() - t0) * 1e3))
    if b.mr.read(n, 0) != posted:
        raise Fail('the responder got bytes written after the UC WRITE completed')


def case_dereg(dev_a, dev_b):
    n = 1 << 20
    a, b = pair(dev_a, dev_b, n)
    posted = pattern(50, n)
    a.mr.write(posted, n, 0)
    b.mr.write(bytes(n), n, 0)
    a.post(e.IBV_WR_RDMA_WRITE, [(0, n)], b.mr.buf, b.mr.rkey)
    time.sleep(0.1)                     # packets on their way, delayed
    t0 = time.monotonic()
    a.mr.close()                        # dereg_mr, and the buffer freed
    took = time.monotonic() - t0
    if took > 2:
        raise Fail('dereg_mr took %.1f s' % took)
    fill = mmap.mmap(-1, 64 << 20)
    for off in range(0, len(fill), 1 << 20):
        fill[off:off + (1 << 20)] = b'\xcc' * (1 << 20)
    wc = a.wait('the WRITE after dereg', status=None)
    print('# dereg %.0f ms; the WRITE ended with status %d' % (took * 1e3, wc.status))
    time.sleep(1)                       # what is still in the path arrives
    got = b.mr.read(n, 0)
    zero, bad = bytes(MTU), []
    for off in range(0, n, MTU):
        chunk = got[off:off + MTU]
        if chunk != posted[off:off + MTU] and chunk != zero:
            bad.append(off)
    fill.close()
    placed = sum(1 for off in range(0, n, MTU) if got[off:off + MTU] != zero)
    print('# %d of %d packets placed' % (placed, n // MTU))
    if bad:
        raise Fail('%d packets placed bytes never posted (first at offset %d: %s)'
                   % (len(bad), bad[0], got[bad[0]:bad[0] + 8].hex()))


CASES = {'data': case_data, 'uc_reuse': case_uc_reuse, 'dereg': case_dereg}


def main():
    dev_a, dev_b, case = sys.argv[1:4]
    if case not in CASES:
        sys.exit('no case ' + case)
    try:
        CASES[case](dev_a, dev_b, *sys.argv[4:])
    except (Fail, PyverbsRDMAError) as ex:
        sys.exit('%s: %s' % (case, ex))


if __name__ == '__main__':
    main()
