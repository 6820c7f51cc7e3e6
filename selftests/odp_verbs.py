# SPDX-License-Identifier: GPL-2.0
"""On-demand paging (ODP) MRs on one sroce device (loopback):

    python3 odp_verbs.py DEVICE CASE...

Prints "ok CASE" or "not ok CASE: why" per case (one process for all of
them: starting Python and pyverbs takes seconds under TCG); exit 0 when
every case behaved, 1 otherwise.

The ODP buffers are shared memfd mappings: after MADV_DONTNEED their page
table entries are gone (the MR's pages are invalidated) while the data stays
in the page cache, so the next transfer meets pages that are not present
and must fault them in - and still move exactly the bytes the process sees.

caps        ODP with RC SEND/RECV/WRITE/READ/ATOMIC/SRQ_RECV (and FLUSH and
            ATOMIC_WRITE, both or neither: where the kernel names them), XRC the same but
            RECV, UC SEND/RECV/WRITE/SRQ_RECV, UD SEND/RECV/SRQ_RECV; implicit
write       RDMA WRITE into a dropped ODP MR, byte-exact, odp_faults counted,
            rdma res shows its pages mapped
read        RDMA READ out of a dropped ODP MR into a dropped ODP MR
send        SEND from a dropped ODP MR into a dropped ODP receive buffer
atomic      FETCH_ADD and CMP_SWAP on a word of a dropped ODP MR
invalidate  WRITE, drop the pages, WRITE again: the process sees the second
            data, never stale pages; a pinned MR would not follow
advise      ibv_advise_mr PREFETCH_WRITE then WRITE; refused on a pinned MR
            (EINVAL) and past the MR's end (EINVAL)
huge        an ODP HUGETLB MR on private anonymous 2 MiB pages: WRITE across
            the huge-page boundary, byte-exact; the pages dropped (freed,
            the process sees zeros): the next WRITE and READ fault in the
            new pages and see the process' own bytes, never the freed ones
refused     HUGETLB without ON_DEMAND: EOPNOTSUPP
unmapped    an ODP MR whose memory was unmapped: a WRITE into it completes with
            REM_ACCESS_ERR, a WRITE out of it with LOC_PROT_ERR (the fault
            fails; nothing waits for ever)
hole        cold memory on both sides of an unmapped hole, written at once
            by two QPs through an explicit ODP MR over all three and through
            an implicit one: every WRITE succeeds (the fault work maps the
            two ranges, not the hole between them)
implicit    an implicit ODP MR (addr NULL, length SIZE_MAX) used as lkey and
            rkey on dropped memory: WRITE, READ, SEND/RECV, FETCH_ADD,
            byte-exact; a WRITE across a 2 MiB boundary (two children; rdma
            res shows odp_implicit, its children and mapped pages);
            invalidation (the process' own writes seen); prefetch (no fault
            after it); unmapped memory and a kernel address through its rkey
            complete with REM_ACCESS_ERR, through its lkey with LOC_PROT_ERR
uc          UC QPs (no RNR NAK: the receive waits for the fault, its packet
            held): three rounds of a 64 KiB + 37 SEND, a 1 MiB WRITE and a
            WRITE with immediate between dropped ODP MRs, none lost, all
            byte-exact, odp_rx_waits counted; a SEND into a dropped ODP
            buffer of an SRQ; a WRITE into unmapped ODP memory is dropped
            (UC: silently), the QP stays RTS and the next WRITE lands
budget      ODP ranges span at most 4 x RAM's pages (the core's page
            lists cost 16 bytes a page, mapped or not): 1 GiB ODP MRs at
            unmapped addresses until ENOMEM, then 2 MiB ones; an implicit
            MR's new 2 MiB child is then refused (REM_ACCESS_ERR), fits
            once one 2 MiB MR goes (at the address refused before); after
            deregistration as many 1 GiB MRs as before; 4 KiB HUGETLB ODP
            MRs charge their whole 2 MiB page
ud          UD QPs: eight datagrams from a dropped ODP MR into eight receive
            buffers in dropped ODP pages, each byte-exact with its GRH, none
            lost; the same through an SRQ; a receive buffer in unmapped ODP
            memory completes with LOC_PROT_ERR (no endless wait)
"""
import ctypes
import errno
import mmap
import os
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

import rc_verbs
from rc_verbs import Fail, expect_wc, pattern

SIZE = 1 << 20
ODP = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
       e.IBV_ACCESS_REMOTE_ATOMIC | e.IBV_ACCESS_ON_DEMAND)
PLAIN = ODP & ~e.IBV_ACCESS_ON_DEMAND


class Buf:
    """A shared memfd mapping of SIZE bytes and an ODP MR on it."""

    def __init__(self, pd, access=ODP):
        self.fd = os.memfd_create('sroce-odp')
        os.ftruncate(self.fd, SIZE)
        self.map = mmap.mmap(self.fd, SIZE, mmap.MAP_SHARED)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        self.mr = MR(pd, SIZE, access, address=self.addr)

    def put(self, off, data):
        self.map[off:off + len(data)] = data

    def get(self, off, n):
        return bytes(self.map[off:off + n])

    def drop(self):
        """Unmap the pages from the process (the data stays in the memfd)."""
        self.map.madvise(mmap.MADV_DONTNEED)

    def sge(self, off, n):
        return SGE(self.addr + off, n, self.mr.lkey)


HUGE = 2 << 21                  # two 2 MiB pages
MAP_HUGETLB = 0x40000           # x86


class HugeBuf(Buf):
    """Private anonymous huge pages and an ODP HUGETLB MR on them. A drop
    frees the pages: what the process touches next are new (zero) pages."""

    def __init__(self, pd):       # pylint: disable=super-init-not-called
        self.fd = -1
        self.map = mmap.mmap(-1, HUGE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        self.mr = MR(pd, HUGE, ODP | e.IBV_ACCESS_HUGETLB, address=self.addr)


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def unmapped_mr(pd):
    """An ODP MR over anonymous memory that is then unmapped."""
    addr = LIBC.mmap(None, SIZE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise Fail('mmap failed')
    mr = MR(pd, SIZE, ODP, address=addr)
    if LIBC.munmap(addr, SIZE):
        raise Fail('munmap failed')
    return addr, mr


def faults(dev):
    return rc_verbs.counter(dev, 'odp_faults')


def res_mr(dev, mr):
    """The driver attributes of @mr in `rdma resource show mr -dd`."""
    out = subprocess.run(['rdma', 'resource', 'show', 'mr', 'dev', dev, '-dd'],
                         capture_output=True, text=True, timeout=30, check=False).stdout
    for line in out.splitlines():
        f = line.split()
        if 'lkey' in f and int(f[f.index('lkey') + 1], 16) == mr.lkey:
            return {k[4:]: v for k, v in zip(f, f[1:]) if k.startswith('drv_')}
    raise Fail('rdma resource show mr: no MR with lkey %#x' % mr.lkey)


def pair(ctx, pd, gid):
    a, b = rc_verbs.Rc(ctx, pd, size=4096), rc_verbs.Rc(ctx, pd, size=4096)
    for x in (a, b):
        x.init()
    a.connect(gid, b.qpn, 0, 0)
    b.connect(gid, a.qpn, 0, 0)
    return a, b


def post(rc, op, sge, raddr=0, rkey=0, compare_add=0, swap=0):
    w = SendWR(wr_id=1, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED, sg=[sge])
    if op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
        w.set_wr_rdma(rkey, raddr)
    elif op in (e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP):
        w.set_wr_atomic(rkey, raddr, compare_add, swap)
    rc.qp.post_send(w)


def rdma(a, op, src, off, n, dst, doff, what):
    post(a, op, src.sge(off, n), dst.addr + doff, dst.mr.rkey)
    expect_wc(a, what, secs=20)


def expect_errno(what, code, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except PyverbsRDMAError as ex:
        if ex.error_code != code:
            raise Fail('%s: errno %d, expected %d' % (what, ex.error_code, code)) from ex
        return
    raise Fail('%s: succeeded, expected errno %d' % (what, code))


def implicit(dev, ctx, pd, gid, a, b, src, dst):
    """The implicit case: one MR over the whole address space."""
    imr = MR(pd, 0, ODP, implicit=True)

    def isge(buf, off, n):
        return SGE(buf.addr + off, n, imr.lkey)

    # WRITE through its rkey
    data = pattern(30, SIZE)
    src.put(0, data)
    dst.drop()
    before = faults(dev)
    post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, SIZE), dst.addr, imr.rkey)
    expect_wc(a, 'WRITE into an implicit MR', secs=20)
    if dst.get(0, SIZE) != data:
        raise Fail('WRITE through the implicit rkey: the process does not see the data')
    if faults(dev) <= before:
        raise Fail('WRITE through the implicit rkey: odp_faults did not grow')
    # READ through its rkey into memory named by its lkey
    data = pattern(31, SIZE)
    dst.put(0, data)
    dst.drop()
    src.drop()
    post(a, e.IBV_WR_RDMA_READ, isge(src, 0, SIZE), dst.addr, imr.rkey)
    expect_wc(a, 'READ out of and into an implicit MR', secs=20)
    if src.get(0, SIZE) != data:
        raise Fail('READ through the implicit MR: the data read differs')
    # SEND from and into it
    n = 65536
    data = pattern(32, n)
    src.put(4096, data)
    src.drop()
    dst.drop()
    b.qp.post_recv(rc_verbs.RecvWR(wr_id=7, num_sge=1, sg=[isge(dst, 8192, n)]))
    post(a, e.IBV_WR_SEND, isge(src, 4096, n))
    expect_wc(a, 'SEND from an implicit MR', secs=20)
    wc = expect_wc(b, 'receive into an implicit MR', secs=20)
    if wc.byte_len != n or dst.get(8192, n) != data:
        raise Fail('SEND through the implicit MR: %d bytes, data %s' %
                   (wc.byte_len, 'same' if dst.get(8192, n) == data else 'differs'))
    # FETCH_ADD on a dropped word
    dst.put(64, (2000).to_bytes(8, sys.byteorder))
    dst.drop()
    post(a, e.IBV_WR_ATOMIC_FETCH_AND_ADD, isge(src, 0, 8), dst.addr + 64, imr.rkey, 9)
    expect_wc(a, 'FETCH_ADD through an implicit MR', secs=20)
    old = int.from_bytes(src.get(0, 8), sys.byteorder)
    new = int.from_bytes(dst.get(64, 8), sys.byteorder)
    if (old, new) != (2000, 2009):
        raise Fail('FETCH_ADD 9 on 2000: returned %d, target %d' % (old, new))
    # across a 2 MiB boundary: two child ranges
    big = mmap.mmap(-1, 6 << 20)
    base = ctypes.addressof(ctypes.c_char.from_buffer(big))
    off = (-base) % (2 << 20) + (2 << 20) - 3 * 4096 + 100
    data = pattern(33, SIZE)
    src.put(0, data)
    post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, SIZE), base + off, imr.rkey)
    expect_wc(a, 'WRITE across 2 MiB in an implicit MR', secs=20)
    if bytes(big[off:off + SIZE]) != data:
        raise Fail('WRITE across a 2 MiB boundary: the process does not see the data')
    res = res_mr(dev, imr)
    if (res.get('mr_type') != 'odp_implicit' or int(res.get('odp_children', 0)) < 3 or
            int(res.get('odp_mapped', 0)) < SIZE >> 12):
        raise Fail('rdma res of the implicit MR: %s (want odp_implicit, >= 3 children,'
                   ' >= %d pages mapped)' % (res, SIZE >> 12))
    # invalidation: the process' own writes after a drop
    big.madvise(mmap.MADV_DONTNEED)
    big[off + 5000:off + 5007] = b'process'
    post(a, e.IBV_WR_RDMA_READ, src.sge(300, 7), base + off + 5000, imr.rkey)
    expect_wc(a, 'READ after invalidation', secs=20)
    if src.get(300, 7) != b'process':
        raise Fail('READ after invalidation returned %r' % src.get(300, 7))
    # prefetch: no fault after it
    dst.drop()
    pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, e._IBV_ADVISE_MR_FLAG_FLUSH,
                 [isge(dst, 0, SIZE)])
    before = faults(dev)
    post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, SIZE), dst.addr, imr.rkey)
    expect_wc(a, 'WRITE after an implicit prefetch', secs=20)
    if faults(dev) != before:
        raise Fail('a prefetched implicit range still faulted (%d -> %d)' %
                   (before, faults(dev)))
    # memory that is not there: errors, not an endless wait
    addr, mr = unmapped_mr(pd)
    del mr
    kernel = 0xffff888000000000
    for where, target in (('unmapped memory', addr), ('a kernel address', kernel)):
        post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, 4096), target, imr.rkey)
        expect_wc(a, 'WRITE into %s through the implicit rkey' % where,
                  e.IBV_WC_REM_ACCESS_ERR, secs=20)
        c, d = pair(ctx, pd, gid)
        post(c, e.IBV_WR_RDMA_WRITE, SGE(target, 4096, imr.lkey), dst.addr, dst.mr.rkey)
        expect_wc(c, 'WRITE out of %s through the implicit lkey' % where,
                  e.IBV_WC_LOC_PROT_ERR, secs=20)
        a, b = pair(ctx, pd, gid)
        del c, d
    del big


def fill(pd, size, base, most, access=ODP, stride=0):
    """ODP MRs of @size bytes at unmapped addresses from @base, @stride
    (default @size) apart, until the budget refuses one (ENOMEM), at most
    @most. Return: the MRs."""
    held = []
    while len(held) < most:
        try:
            held.append(MR(pd, size, access, address=base + len(held) * (stride or size)))
        except PyverbsRDMAError as ex:
            if ex.error_code != errno.ENOMEM:
                raise Fail('ODP MR %d of %d bytes: errno %d, expected ENOMEM' %
                           (len(held), size, ex.error_code)) from ex
            return held
    return held


def budget(ctx, pd, gid, a, src):
    """The budget case: ODP ranges span at most 4 x RAM's pages."""
    gib, two_mib = 1 << 30, 2 << 20
    limit = 4 * os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
    big = fill(pd, gib, 1 << 40, 64)
    if len(big) == 64 or len(big) > limit // gib:
        raise Fail('%d ODP MRs of 1 GiB registered (budget %d GiB): not bounded' %
                   (len(big), limit // gib))
    small = fill(pd, two_mib, 1 << 41, 2 * gib // two_mib)
    if len(small) >= gib // two_mib:
        raise Fail('%d ODP MRs of 2 MiB after the 1 GiB ones were refused' % len(small))
    print('info budget: %d MiB of RAM x 4: %d ODP MRs of 1 GiB, then %d of 2 MiB' %
          (limit >> 22, len(big), len(small)), flush=True)
    # the budget is full: an implicit MR's new 2 MiB child is refused
    imr = MR(pd, 0, ODP, implicit=True)
    fresh = mmap.mmap(-1, 2 * two_mib)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(fresh))
    addr += (-addr) % two_mib
    data = pattern(40, 4096)
    src.put(0, data)
    post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, 4096), addr, imr.rkey)
    expect_wc(a, 'WRITE through an implicit MR, budget full', e.IBV_WC_REM_ACCESS_ERR, secs=20)
    # one 2 MiB range less: the child fits, at the address refused before
    small.pop().close()
    c, d = pair(ctx, pd, gid)
    post(c, e.IBV_WR_RDMA_WRITE, src.sge(0, 4096), addr, imr.rkey)
    expect_wc(c, 'WRITE through an implicit MR, 2 MiB freed', secs=20)
    off = addr - ctypes.addressof(ctypes.c_char.from_buffer(fresh))
    if bytes(fresh[off:off + 4096]) != data:
        raise Fail('WRITE through the implicit MR after 2 MiB freed: data differs')
    # everything freed: the whole budget again
    for mr in big + small + [imr]:
        mr.close()
    again = fill(pd, gib, 1 << 40, 64)
    n = len(again)
    del c, d
    if n != len(big):
        raise Fail('after deregistration %d ODP MRs of 1 GiB, before %d: budget leaked' %
                   (n, len(big)))
    # less than 1 GiB left: a HUGETLB ODP MR's lists cover whole 2 MiB
    # pages, so 4 KiB ones stop within 512
    most = gib // two_mib + 8
    huge = fill(pd, 4096, 1 << 41, most, ODP | e.IBV_ACCESS_HUGETLB, two_mib)
    for mr in again + huge:
        mr.close()
    if len(huge) > gib // two_mib:
        raise Fail('%d HUGETLB ODP MRs of 4 KiB in under 1 GiB of budget: each charged'
                   ' less than its 2 MiB page' % len(huge))


def hole(ctx, pd, gid, a, src):
    """The hole case: [A | hole | B], A and B cold, written together."""
    mib = 1 << 20
    base = LIBC.mmap(None, 3 * mib, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        raise Fail('mmap failed')
    try:
        explicit = MR(pd, 3 * mib, ODP, address=base)
        if LIBC.munmap(base + mib, mib):
            raise Fail('munmap failed')
        imr = MR(pd, 0, ODP, implicit=True)
        c, _ = pair(ctx, pd, gid)
        data = pattern(40, 65536)
        src.put(0, data)
        for what, mr in (('explicit', explicit), ('implicit', imr)):
            for q, off in ((a, 0), (c, 2 * mib + 4096)):
                post(q, e.IBV_WR_RDMA_WRITE, src.sge(0, len(data)), base + off + 8192 * (mr is imr),
                     mr.rkey)
            for q in (a, c):
                expect_wc(q, 'WRITE beside a hole through the %s MR' % what, secs=20)
            for off in (0, 2 * mib + 4096):
                got = ctypes.string_at(base + off + 8192 * (mr is imr), len(data))
                if got != data:
                    raise Fail('%s MR: the data at +%#x differs' % (what, off))
            # cold again for the next round
            LIBC.madvise(base, mib, 4)                  # MADV_DONTNEED
            LIBC.madvise(base + 2 * mib, mib, 4)
    finally:
        LIBC.munmap(base, mib)
        LIBC.munmap(base + 2 * mib, mib)


class Qp:
    """A UC or UD QP with its CQ, on an SRQ if one is given."""

    def __init__(self, ctx, pd, qpt, srq=None):
        self.cq = CQ(ctx, 64)
        self.qp = QP(pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, srq=srq,
                                    cap=QPCap(max_send_wr=16, max_recv_wr=16)))
        self.qpn = self.qp.qp_num

    def poll(self, n=1, secs=10.0):
        return rc_verbs.Rc.poll(self, n, secs)


UC_ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
UC_SEND = 65536 + 37            # 65 packets at MTU 1024


def uc_pair(ctx, pd, gid, srq=None):
    a, b = Qp(ctx, pd, e.IBV_QPT_UC), Qp(ctx, pd, e.IBV_QPT_UC, srq)
    rc_verbs.connect_qp(a.qp, gid, rc_verbs.GID_INDEX, b.qpn, access=UC_ACCESS, uc=True)
    rc_verbs.connect_qp(b.qp, gid, rc_verbs.GID_INDEX, a.qpn, access=UC_ACCESS, uc=True)
    return a, b


def waits(dev):
    return rc_verbs.counter(dev, 'odp_rx_waits')


def same(got, want):
    return 'same' if got == want else 'differs'


def await_bytes(buf, off, want, what):
    """UC: the sender's completion says nothing of the receiver, and a READ
    cannot check either: wait (bounded) for the bytes to be there."""
    end = time.monotonic() + 20
    while buf.get(off, len(want)) != want and time.monotonic() < end:
        time.sleep(0.05)
    if buf.get(off, len(want)) != want:
        raise Fail('%s: the data did not all arrive' % what)


def uc(dev, ctx, pd, gid, src, dst):
    a, b = uc_pair(ctx, pd, gid)
    before = faults(dev), waits(dev)
    for k in range(3):
        data = pattern(40 + k, SIZE)
        src.put(0, data)
        src.drop()
        dst.drop()
        b.qp.post_recv(RecvWR(wr_id=k, num_sge=1, sg=[dst.sge(8192, UC_SEND)]))
        post(a, e.IBV_WR_SEND, src.sge(4096, UC_SEND))
        expect_wc(a, 'UC SEND round %d' % k, secs=20)
        wc = expect_wc(b, 'UC receive into dropped ODP pages, round %d' % k, secs=20)
        want = data[4096:4096 + UC_SEND]
        if wc.byte_len != UC_SEND or dst.get(8192, UC_SEND) != want:
            raise Fail('UC SEND round %d: %d bytes, data %s' % (
                k, wc.byte_len, same(dst.get(8192, UC_SEND), want)))
        src.drop()
        dst.drop()
        rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, SIZE, dst, 0, 'UC WRITE round %d' % k)
        await_bytes(dst, 0, data, 'UC WRITE round %d' % k)
        dst.drop()
        b.qp.post_recv(RecvWR(wr_id=100 + k, num_sge=1, sg=[dst.sge(0, 0)]))
        w = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE_WITH_IMM, num_sge=1,
                   send_flags=e.IBV_SEND_SIGNALED, sg=[src.sge(0, 4096)])
        w.set_wr_rdma(dst.mr.rkey, dst.addr + 3 * 4096)
        w.imm_data = 0x1234 + k
        a.qp.post_send(w)
        expect_wc(a, 'UC WRITE with immediate round %d' % k, secs=20)
        wc = expect_wc(b, 'its receive completion, round %d' % k, secs=20)
        if wc.imm_data != 0x1234 + k or dst.get(3 * 4096, 4096) != data[:4096]:
            raise Fail('UC WRITE with immediate round %d: imm %#x, data %s' % (
                k, wc.imm_data, same(dst.get(3 * 4096, 4096), data[:4096])))
    got = faults(dev) - before[0], waits(dev) - before[1]
    print('info uc: 3 rounds of SEND, WRITE, WRITE with immediate: %d odp_faults, '
          '%d odp_rx_waits' % got, flush=True)
    if not got[0] or not got[1]:
        raise Fail('odp_faults +%d, odp_rx_waits +%d: the receive did not wait' % got)
    # through an SRQ
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    c, d = uc_pair(ctx, pd, gid, srq)
    data = pattern(50, UC_SEND)
    src.put(0, data)
    src.drop()
    dst.drop()
    srq.post_recv(RecvWR(wr_id=9, num_sge=1, sg=[dst.sge(4096, UC_SEND)]))
    post(c, e.IBV_WR_SEND, src.sge(0, UC_SEND))
    expect_wc(c, 'UC SEND to an SRQ QP', secs=20)
    wc = expect_wc(d, 'UC receive into a dropped ODP buffer of an SRQ', secs=20)
    if wc.byte_len != UC_SEND or dst.get(4096, UC_SEND) != data:
        raise Fail('UC SEND to an SRQ: %d bytes, data %s' % (
            wc.byte_len, same(dst.get(4096, UC_SEND), data)))
    # a fault that fails: the message is dropped, the QP goes on
    addr, mr = unmapped_mr(pd)
    post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, 4096), addr, mr.rkey)
    expect_wc(a, 'UC WRITE into unmapped ODP memory (sender)', secs=20)
    dst.put(0, bytes(4096))
    dst.drop()
    src.put(0, b'after' * 819)
    rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, 4095, dst, 0, 'UC WRITE after it')
    await_bytes(dst, 0, src.get(0, 4095), 'the WRITE after one into unmapped memory')
    for x in (a, b):
        if x.qp.query(e.IBV_QP_STATE)[0].qp_state != e.IBV_QPS_RTS:
            raise Fail('a UC QP left RTS after a failed ODP fault')


UD_QKEY = 0x11223344
UD_LEN = 1000


def ud_qp(ctx, pd, srq=None):
    x = Qp(ctx, pd, e.IBV_QPT_UD, srq)
    a = QPAttr()
    a.qkey = UD_QKEY
    a.pkey_index = 0
    a.port_num = 1
    x.qp.to_rts(a)
    return x


def ud_send(x, ah, dqpn, src, off, n):
    w = SendWR(wr_id=3, opcode=e.IBV_WR_SEND, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
               sg=[src.sge(off, n)])
    w.set_wr_ud(ah, dqpn, UD_QKEY)
    x.qp.post_send(w)


def ud_round(what, s, r, post_recv, ah, src, dst, n, seed):
    data = pattern(seed, n * 8192)
    src.put(0, data)
    for k in range(n):
        post_recv(RecvWR(wr_id=k, num_sge=1, sg=[dst.sge(k * 8192 + 100, 40 + UD_LEN)]))
    src.drop()
    dst.drop()
    for k in range(n):
        ud_send(s, ah, r.qpn, src, k * 8192 + 4000, UD_LEN)
    wcs = r.poll(n, 20)
    sent = s.poll(n, 20)
    if len(sent) != n or any(w.status != e.IBV_WC_SUCCESS for w in sent):
        raise Fail('%s: send completions %s' % (what, [w.status for w in sent]))
    if len(wcs) != n:
        raise Fail('%s: %d of %d datagrams received' % (what, len(wcs), n))
    for w in wcs:
        k = w.wr_id
        if w.status != e.IBV_WC_SUCCESS or w.byte_len != 40 + UD_LEN:
            raise Fail('%s: receive %d status %d, %d bytes' % (what, k, w.status, w.byte_len))
        got = dst.get(k * 8192 + 140, UD_LEN)
        if got != data[k * 8192 + 4000:k * 8192 + 4000 + UD_LEN]:
            raise Fail('%s: datagram %d differs' % (what, k))
        # the GRH's IPv4 header (last 20 bytes): version 4
        if dst.get(k * 8192 + 120, 1)[0] >> 4 != 4:
            raise Fail('%s: datagram %d has no IPv4 header in its GRH' % (what, k))


def ud(dev, ctx, pd, gid, src, dst):
    ah = AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=rc_verbs.GID_INDEX),
                            is_global=1, port_num=1))
    s, r = ud_qp(ctx, pd), ud_qp(ctx, pd)
    before = faults(dev), waits(dev)
    ud_round('UD', s, r, r.qp.post_recv, ah, src, dst, 8, 60)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    q = ud_qp(ctx, pd, srq)
    ud_round('UD through an SRQ', s, q, srq.post_recv, ah, src, dst, 4, 61)
    got = faults(dev) - before[0], waits(dev) - before[1]
    print('info ud: 12 datagrams into dropped ODP buffers: %d odp_faults, %d odp_rx_waits' %
          got, flush=True)
    if not got[0] or not got[1]:
        raise Fail('odp_faults +%d, odp_rx_waits +%d: the receive did not wait' % got)
    addr, mr = unmapped_mr(pd)
    r.qp.post_recv(RecvWR(wr_id=77, num_sge=1, sg=[SGE(addr, 40 + UD_LEN, mr.lkey)]))
    ud_send(s, ah, r.qpn, src, 0, UD_LEN)
    wc = expect_wc(r, 'UD receive into unmapped ODP memory', e.IBV_WC_LOC_PROT_ERR, secs=20)
    if wc.wr_id != 77:
        raise Fail('UD: completion of wr_id %d, expected 77' % wc.wr_id)


def case(name, dev, ctx, pd, gid):
    if name == 'caps':
        c = ctx.query_device_ex().odp_caps
        rc = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV | e.IBV_ODP_SUPPORT_WRITE |
              e.IBV_ODP_SUPPORT_READ | e.IBV_ODP_SUPPORT_ATOMIC | e.IBV_ODP_SUPPORT_SRQ_RECV)
        xrc = rc & ~e.IBV_ODP_SUPPORT_RECV
        ucc = rc & ~(e.IBV_ODP_SUPPORT_READ | e.IBV_ODP_SUPPORT_ATOMIC)
        udc = e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV | e.IBV_ODP_SUPPORT_SRQ_RECV
        general = e.IBV_ODP_SUPPORT | e.IBV_ODP_SUPPORT_IMPLICIT
        # FLUSH and ATOMIC_WRITE (rdma-core 45+ names them): RC, where the
        # kernel's uAPI has the bits (7.x); both or neither
        rc_new = (1 << 6) | (1 << 7)
        if c.rc_odp_caps & rc_new == rc_new:
            rc |= rc_new
        got = (c.general_caps & general, c.rc_odp_caps, c.xrc_odp_caps, c.ud_odp_caps,
               c.uc_odp_caps)
        want = (general, rc, xrc, udc, ucc)
        if got != want:
            raise Fail('odp caps general/rc/xrc/ud/uc %s, expected %s' %
                       ([hex(x) for x in got], [hex(x) for x in want]))
        return
    if name == 'refused':
        buf = Buf(pd)
        expect_errno('MR with HUGETLB but not ON_DEMAND', errno.EOPNOTSUPP, MR, pd, SIZE,
                     PLAIN | e.IBV_ACCESS_HUGETLB, address=buf.addr)
        return
    src, dst = Buf(pd), Buf(pd)
    if name == 'uc':
        uc(dev, ctx, pd, gid, src, dst)
        return
    if name == 'ud':
        ud(dev, ctx, pd, gid, src, dst)
        return
    a, b = pair(ctx, pd, gid)
    if name == 'implicit':
        implicit(dev, ctx, pd, gid, a, b, src, dst)
        return
    if name == 'hole':
        hole(ctx, pd, gid, a, src)
        return
    if name == 'budget':
        budget(ctx, pd, gid, a, src)
        return
    if name == 'unmapped':
        addr, mr = unmapped_mr(pd)
        post(a, e.IBV_WR_RDMA_WRITE, src.sge(0, 4096), addr, mr.rkey)
        expect_wc(a, 'WRITE into an unmapped ODP MR', e.IBV_WC_REM_ACCESS_ERR, secs=20)
        c, d = pair(ctx, pd, gid)
        post(c, e.IBV_WR_RDMA_WRITE, SGE(addr, 4096, mr.lkey), dst.addr, dst.mr.rkey)
        expect_wc(c, 'WRITE out of an unmapped ODP MR', e.IBV_WC_LOC_PROT_ERR, secs=20)
        return
    if name == 'write':
        data = pattern(1, SIZE)
        src.put(0, data)
        before = faults(dev)
        dst.drop()
        rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, SIZE, dst, 0, 'WRITE into a dropped ODP MR')
        if dst.get(0, SIZE) != data:
            raise Fail('WRITE: the process does not see the data written')
        if faults(dev) <= before:
            raise Fail('odp_faults did not grow (%d)' % before)
        res = res_mr(dev, dst.mr)
        if res.get('mr_type') != 'odp' or int(res.get('odp_mapped', 0)) != SIZE >> 12:
            raise Fail('rdma res after a 1 MiB WRITE: %s (want odp, %d mapped)' %
                       (res, SIZE >> 12))
    elif name == 'read':
        data = pattern(2, SIZE)
        dst.put(0, data)
        dst.drop()
        src.drop()
        before = faults(dev), rc_verbs.counter(dev, 'retransmits')
        rdma(a, e.IBV_WR_RDMA_READ, src, 0, SIZE, dst, 0, 'READ from a dropped ODP MR')
        if src.get(0, SIZE) != data:
            raise Fail('READ: the data read differs')
        print('info read: a %d KiB READ, both sides cold: %d odp_faults, %d retransmits' %
              (SIZE >> 10, faults(dev) - before[0],
               rc_verbs.counter(dev, 'retransmits') - before[1]), flush=True)
    elif name == 'send':
        n = 65536
        data = pattern(3, n)
        src.put(4096, data)
        src.drop()
        dst.drop()
        b.qp.post_recv(rc_verbs.RecvWR(wr_id=7, num_sge=1, sg=[dst.sge(8192, n)]))
        post(a, e.IBV_WR_SEND, src.sge(4096, n))
        expect_wc(a, 'SEND from a dropped ODP MR', secs=20)
        wc = expect_wc(b, 'receive into a dropped ODP MR', secs=20)
        if wc.byte_len != n or dst.get(8192, n) != data:
            raise Fail('SEND: %d bytes received, data %s' %
                       (wc.byte_len, 'same' if dst.get(8192, n) == data else 'differs'))
    elif name == 'atomic':
        dst.put(64, (1000).to_bytes(8, sys.byteorder))
        dst.drop()
        src.drop()
        post(a, e.IBV_WR_ATOMIC_FETCH_AND_ADD, src.sge(0, 8), dst.addr + 64, dst.mr.rkey, 5)
        expect_wc(a, 'FETCH_ADD on a dropped ODP MR', secs=20)
        if int.from_bytes(src.get(0, 8), sys.byteorder) != 1000:
            raise Fail('FETCH_ADD returned %d' % int.from_bytes(src.get(0, 8), sys.byteorder))
        dst.drop()
        post(a, e.IBV_WR_ATOMIC_CMP_AND_SWP, src.sge(8, 8), dst.addr + 64, dst.mr.rkey,
             1005, 7)
        expect_wc(a, 'CMP_SWAP on a dropped ODP MR', secs=20)
        got = int.from_bytes(dst.get(64, 8), sys.byteorder)
        if got != 7:
            raise Fail('the target is %d after FETCH_ADD 5 and CMP_SWAP 1005->7' % got)
    elif name == 'invalidate':
        for k in range(3):
            data = pattern(10 + k, SIZE)
            src.put(0, data)
            rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, SIZE, dst, 0, 'WRITE round %d' % k)
            if dst.get(0, SIZE) != data:
                raise Fail('round %d: the process sees stale data' % k)
            dst.drop()
            # the process writes too: the MR must see its bytes, not old pages
            dst.put(100, b'process')
            rdma(a, e.IBV_WR_RDMA_READ, src, 200, 7, dst, 100, 'READ back round %d' % k)
            if src.get(200, 7) != b'process':
                raise Fail('round %d: READ returned %r, not what the process wrote' %
                           (k, src.get(200, 7)))
    elif name == 'huge':
        h = HugeBuf(pd)
        off = (1 << 21) - 3 * 4096 + 100     # unaligned, across the huge-page boundary
        for k in range(2):
            data = pattern(20 + k, SIZE)
            src.put(0, data)
            before = faults(dev)
            rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, SIZE, h, off, 'WRITE into huge pages %d' % k)
            if h.get(off, SIZE) != data:
                raise Fail('round %d: the process does not see the data written' % k)
            if faults(dev) <= before:
                raise Fail('round %d: no odp_faults for fresh huge pages' % k)
            h.drop()
            if h.get(off, 16) != bytes(16):
                raise Fail('round %d: MADV_DONTNEED did not free the huge pages' % k)
            h.put(off + 5000, b'process')
            rdma(a, e.IBV_WR_RDMA_READ, src, 300, 7, h, off + 5000, 'READ huge round %d' % k)
            if src.get(300, 7) != b'process':
                raise Fail('round %d: READ returned %r, not what the process wrote' %
                           (k, src.get(300, 7)))
            h.drop()
    elif name == 'advise':
        data = pattern(4, SIZE)
        src.put(0, data)
        src.drop()
        dst.drop()
        pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH, e._IBV_ADVISE_MR_FLAG_FLUSH,
                     [src.sge(0, SIZE)])
        pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, e._IBV_ADVISE_MR_FLAG_FLUSH,
                     [dst.sge(0, SIZE)])
        before = faults(dev)
        rdma(a, e.IBV_WR_RDMA_WRITE, src, 0, SIZE, dst, 0, 'WRITE after a prefetch')
        if dst.get(0, SIZE) != data:
            raise Fail('WRITE after prefetch: data differs')
        if faults(dev) != before:
            raise Fail('a prefetched MR still faulted (%d -> %d)' % (before, faults(dev)))
        pinned = MR(pd, 4096, PLAIN)
        expect_errno('advise_mr on a pinned MR', errno.EINVAL, pd.advise_mr,
                     e._IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
                     [SGE(pinned.buf, 4096, pinned.lkey)])
        expect_errno('advise_mr past the MR', errno.EINVAL, pd.advise_mr,
                     e._IBV_ADVISE_MR_ADVICE_PREFETCH, 0, [dst.sge(SIZE - 4096, 8192)])
    else:
        raise Fail('unknown case')


def main():
    dev, cases = sys.argv[1], sys.argv[2:]
    # the QPs (rc_verbs.Rc) allow remote atomics too
    rc_verbs.ACCESS |= e.IBV_ACCESS_REMOTE_ATOMIC
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, rc_verbs.GID_INDEX)
    rc_verbs.run_cases(cases, lambda name: case(name, dev, ctx, pd, gid))


main()
