# SPDX-License-Identifier: GPL-2.0
"""Memory windows (IBTA 10.6.7) on one sroce device (loopback), one case per
run:

    python3 mw_verbs.py DEVICE CASE

(GID index 1, the IPv4-mapped one, as rc_verbs.py.)
Two RC QPs, A (requester) and B (owner of the window), connected to each
other; for the cases that need a stranger, a third pair C <-> D in the same
PD. Every transfer through a window is checked byte for byte, every refused
one must complete with the IBTA status and leave the target untouched.
Exit 0 when the case behaves so, 1 (with a message) otherwise.
"""
import sys

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import RecvWR, SendWR, SGE

import rc_verbs
from rc_verbs import Fail, pattern

MR_BIND = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND
MR_SIZE = 1 << 16
WIN_OFF, WIN_LEN = 4096, 8192        # the window: [buf + 4096, buf + 12288)
RW = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


class Rc(rc_verbs.Rc):
    """rc_verbs' RC QP, its MR registered for binding windows only."""

    def __init__(self, ctx, pd):
        super().__init__(ctx, pd, size=MR_SIZE, depth=16)
        self.mr.close()
        self.mr = MR(pd, MR_SIZE, MR_BIND)

    def rdma(self, op, length, raddr, rkey, off=0):
        w = SendWR(wr_id=1, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(self.mr.buf + off, length, self.mr.lkey)])
        w.set_wr_rdma(rkey, raddr)
        self.qp.post_send(w)
        return self.poll()

    def bind2(self, mw, mr, addr, length, access):
        """Bind a type 2 window with a BIND_MW work request: its new rkey."""
        w = SendWR(wr_id=9, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        w.set_bind_wr(mw, MWBindInfo(mr, addr, length, access))
        self.qp.post_send(w)
        return w.rkey, self.poll()

    def bind1(self, mw, mr, addr, length, access):
        self.qp.bind_mw(mw, MWBind(MWBindInfo(mr, addr, length, access),
                                   e.IBV_SEND_SIGNALED))
        return self.poll()

    def local_inv(self, rkey):
        w = SendWR(wr_id=3, opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
        w.imm_data = rkey
        self.qp.post_send(w)
        return self.poll()


def status(wcs, what, want, opcode=None):
    if len(wcs) != 1 or wcs[0].status != want:
        raise Fail('%s: %s, expected status %d' %
                   (what, [(w.status, w.opcode) for w in wcs] or 'no completion', want))
    if opcode is not None and wcs[0].opcode != opcode:
        raise Fail('%s: opcode %d, expected %d' % (what, wcs[0].opcode, opcode))
    return wcs[0]


def win_addr(b):
    return b.mr.buf + WIN_OFF


def through(a, b, rkey, what, seed=1):
    """WRITE into the window, READ it back: both byte for byte."""
    data = pattern(seed, WIN_LEN)
    a.mr.write(data, WIN_LEN, 0)
    b.mr.write(bytes(MR_SIZE), MR_SIZE, 0)
    status(a.rdma(e.IBV_WR_RDMA_WRITE, WIN_LEN, win_addr(b), rkey), what + ' WRITE',
           e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_WRITE)
    if b.mr.read(WIN_LEN, WIN_OFF) != data:
        raise Fail(what + ': WRITE data wrong')
    if b.mr.read(WIN_OFF, 0) != bytes(WIN_OFF):
        raise Fail(what + ': WRITE touched bytes before the window')
    status(a.rdma(e.IBV_WR_RDMA_READ, WIN_LEN, win_addr(b), rkey, off=1 << 15),
           what + ' READ', e.IBV_WC_SUCCESS, e.IBV_WC_RDMA_READ)
    if a.mr.read(WIN_LEN, 1 << 15) != data:
        raise Fail(what + ': READ data wrong')


def refused(a, b, op, length, raddr, rkey, what):
    """A request through a window that must fail with REM_ACCESS_ERR."""
    b.mr.write(bytes(MR_SIZE), MR_SIZE, 0)
    a.mr.write(b'\x5a' * length, length, 0)
    status(a.rdma(op, length, raddr, rkey), what, e.IBV_WC_REM_ACCESS_ERR)
    if b.mr.read(MR_SIZE, 0) != bytes(MR_SIZE):
        raise Fail(what + ': target memory changed')


def case_type1(w):
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_1)
    old = mw.rkey
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, RW), 'type 1 bind', e.IBV_WC_SUCCESS,
           e.IBV_WC_BIND_MW)
    if mw.rkey == old or (mw.rkey >> 8) != (old >> 8):
        raise Fail('type 1 bind: rkey %#x -> %#x' % (old, mw.rkey))
    through(a, b, mw.rkey, 'type 1')
    # rebinding a type 1 window moves it; the old rkey is dead
    first = mw.rkey
    status(b.bind1(mw, b.mr, b.mr.buf, WIN_OFF, RW), 'type 1 rebind', e.IBV_WC_SUCCESS)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), first, 'old rkey after rebind')


def case_type2(w):
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    rkey, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'type 2 bind', e.IBV_WC_SUCCESS, e.IBV_WC_BIND_MW)
    through(a, b, rkey, 'type 2')


def case_bounds(w):
    """One byte before, one byte past, and a wrapping range: refused."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_1)
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, RW), 'bind', e.IBV_WC_SUCCESS)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b) - 1, mw.rkey, 'WRITE from before')
    a, b = w.pair(b)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b) + WIN_LEN - 63, mw.rkey, 'WRITE past')
    a, b = w.pair(b)
    refused(a, b, e.IBV_WR_RDMA_READ, 64, (1 << 64) - 32, mw.rkey, 'READ wrapping')


def case_rights(w):
    """A read-only window refuses WRITE; the MR's own rkey is not usable."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_1)
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, e.IBV_ACCESS_REMOTE_READ), 'bind',
           e.IBV_WC_SUCCESS)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), mw.rkey, 'WRITE to a read-only window')
    a, b = w.pair(b)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), b.mr.rkey,
            'WRITE with the rkey of an MR without remote access')


def case_other_qp(w):
    """A type 2 window serves only the QP that bound it."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    rkey, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'bind', e.IBV_WC_SUCCESS)
    c, d = w.pair(b)    # D's QP, B's memory: the window is B's QP's
    refused(c, d, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), rkey, 'WRITE through another QP')
    through(a, b, rkey, 'the binding QP still')


def case_bind_errors(w):
    """Binds IBTA refuses complete with MW_BIND_ERR."""
    # an MR registered without MW_BIND
    a, b = w.pair()
    plain = MR(w.pd, MR_SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    _, wcs = b.bind2(mw, plain, plain.buf, 4096, RW)
    status(wcs, 'bind to an MR without MW_BIND', e.IBV_WC_MW_BIND_ERR)
    # a window larger than its MR
    a, b = w.pair()
    _, wcs = b.bind2(mw, b.mr, b.mr.buf, MR_SIZE + 1, RW)
    status(wcs, 'bind past the MR', e.IBV_WC_MW_BIND_ERR)
    # remote write through an MR without local write
    a, b = w.pair()
    ro = MR(w.pd, MR_SIZE, e.IBV_ACCESS_MW_BIND)
    _, wcs = b.bind2(mw, ro, ro.buf, 4096, RW)
    status(wcs, 'writable window on an MR without local write', e.IBV_WC_MW_BIND_ERR)
    # a bound type 2 window is bound again
    a, b = w.pair()
    _, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'bind', e.IBV_WC_SUCCESS)
    _, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'second bind of a bound type 2 window', e.IBV_WC_MW_BIND_ERR)
    # a window of another PD
    a, b = w.pair()
    other = PD(w.ctx)
    mw_other = MW(other, e.IBV_MW_TYPE_2)
    _, wcs = b.bind2(mw_other, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'bind of another PD\'s window', e.IBV_WC_MW_BIND_ERR)


def case_invalidate(w):
    """LOCAL_INV and SEND with Invalidate end a type 2 window's access."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    rkey, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'bind', e.IBV_WC_SUCCESS)
    status(b.local_inv(rkey), 'LOCAL_INV', e.IBV_WC_SUCCESS, e.IBV_WC_LOCAL_INV)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), rkey, 'WRITE after LOCAL_INV')
    # bind again (the window is free), then the peer invalidates it
    a, b = w.pair()
    rkey, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'bind after invalidation', e.IBV_WC_SUCCESS)
    b.qp.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(b.mr.buf, 64, b.mr.lkey)]))
    s = SendWR(wr_id=4, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
               send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(a.mr.buf, 16, a.mr.lkey)])
    s.imm_data = rkey
    a.qp.post_send(s)
    status(a.poll(), 'SEND with Invalidate (sender)', e.IBV_WC_SUCCESS, e.IBV_WC_SEND)
    wc = status(b.poll(), 'SEND with Invalidate (receiver)', e.IBV_WC_SUCCESS, e.IBV_WC_RECV)
    if not wc.wc_flags & e.IBV_WC_WITH_INV or wc.imm_data != rkey:
        raise Fail('SEND with Invalidate: flags %#x rkey %#x, expected WITH_INV and %#x' %
                   (wc.wc_flags, wc.imm_data, rkey))
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), rkey, 'WRITE after remote invalidation')
    # a type 1 window cannot be invalidated
    a, b = w.pair()
    mw1 = MW(w.pd, e.IBV_MW_TYPE_1)
    status(b.bind1(mw1, b.mr, win_addr(b), WIN_LEN, RW), 'type 1 bind', e.IBV_WC_SUCCESS)
    wcs = b.local_inv(mw1.rkey)
    if len(wcs) != 1 or wcs[0].status == e.IBV_WC_SUCCESS:
        raise Fail('LOCAL_INV of a type 1 window: %s' % [(x.status, x.opcode) for x in wcs])


def case_teardown(w):
    """Deallocating a window or deregistering its MR ends remote access."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_1)
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, RW), 'bind', e.IBV_WC_SUCCESS)
    rkey = mw.rkey
    mw.close()
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), rkey, 'WRITE after dealloc')
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    victim = MR(w.pd, MR_SIZE, MR_BIND)
    addr = victim.buf
    rkey, wcs = b.bind2(mw, victim, addr, 4096, RW)
    status(wcs, 'bind', e.IBV_WC_SUCCESS)
    through_ok = a.rdma(e.IBV_WR_RDMA_WRITE, 64, addr, rkey)
    status(through_ok, 'WRITE before the MR goes', e.IBV_WC_SUCCESS)
    victim.close()
    status(a.rdma(e.IBV_WR_RDMA_WRITE, 64, addr, rkey), 'WRITE into a deregistered MR',
           e.IBV_WC_REM_ACCESS_ERR)
    mw.close()


def case_stale_key(w):
    """A type 1 bind names its window by the window's current rkey: a bind
    that carries the key the window had before its last rebind (stale) is
    refused with MW_BIND_ERR and leaves the window as it is. (ibv_bind_mw
    takes the next rkey once the bind is posted, refused or not: 255 posts
    that the kernel refuses or flushes walk mw.rkey round its 8 bits back
    to the stale key.)"""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_1)
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, RW), 'type 1 bind', e.IBV_WC_SUCCESS)
    stale = mw.rkey
    status(b.bind1(mw, b.mr, win_addr(b), WIN_LEN, RW), 'type 1 rebind', e.IBV_WC_SUCCESS)
    cur = mw.rkey
    # refused (a window past its MR): the QP goes to ERR, the rest are flushed
    status(b.bind1(mw, b.mr, b.mr.buf, MR_SIZE + 1, RW), 'bind past the MR',
           e.IBV_WC_MW_BIND_ERR)
    while mw.rkey != stale:
        wcs = b.bind1(mw, b.mr, b.mr.buf, MR_SIZE + 1, RW)
        if len(wcs) != 1 or wcs[0].status == e.IBV_WC_SUCCESS:
            raise Fail('a bind posted to a QP in ERR: %s' % [x.status for x in wcs])
    a, b = w.pair(b)
    status(b.bind1(mw, b.mr, b.mr.buf, WIN_OFF, RW), 'bind with the stale rkey %#x '
           '(window at %#x)' % (stale, cur), e.IBV_WC_MW_BIND_ERR)
    a, b = w.pair(b)
    through(a, b, cur, 'the window after a stale bind, under its current rkey')
    a, b = w.pair(b)
    refused(a, b, e.IBV_WR_RDMA_WRITE, 64, win_addr(b), stale, 'WRITE with the stale rkey')


def case_other_qp_inv(w):
    """A bound type 2 window belongs to the QP that bound it: another QP of
    the PD can neither bind it again (MW_BIND_ERR) nor invalidate it with
    LOCAL_INV (an error completion); the window still serves its QP. Once
    its own QP invalidates it, the window is free: another QP binds it."""
    a, b = w.pair()
    mw = MW(w.pd, e.IBV_MW_TYPE_2)
    rkey, wcs = b.bind2(mw, b.mr, win_addr(b), WIN_LEN, RW)
    status(wcs, 'type 2 bind on QP B', e.IBV_WC_SUCCESS)
    c, d = w.pair(b)
    _, wcs = d.bind2(mw, d.mr, win_addr(d), WIN_LEN, RW)
    status(wcs, 'bind from QP D of a window bound on QP B', e.IBV_WC_MW_BIND_ERR)
    c, d = w.pair(b)
    wcs = d.local_inv(rkey)
    if len(wcs) != 1 or wcs[0].status == e.IBV_WC_SUCCESS:
        raise Fail('LOCAL_INV on QP D of a window bound on QP B: %s' %
                   ([(x.status, x.opcode) for x in wcs] or 'no completion'))
    through(a, b, rkey, 'the window on QP B after the other QP\'s attempts')
    status(b.local_inv(rkey), 'LOCAL_INV on QP B', e.IBV_WC_SUCCESS, e.IBV_WC_LOCAL_INV)
    c, d = w.pair(b)
    rkey, wcs = d.bind2(mw, d.mr, win_addr(d), WIN_LEN, RW)
    status(wcs, 'bind from QP D once QP B invalidated the window', e.IBV_WC_SUCCESS)
    through(c, d, rkey, 'the window rebound on QP D')


class World:
    def __init__(self, dev):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.gid = self.ctx.query_gid(1, rc_verbs.GID_INDEX)

    def pair(self, b=None):
        """A fresh connected pair (a refused request leaves QPs in ERR)."""
        a, nb = Rc(self.ctx, self.pd), Rc(self.ctx, self.pd)
        if b is not None:
            nb.mr = b.mr
        a.connect(self.gid, nb.qpn, 0, 0, retry=3, rd=4)
        nb.connect(self.gid, a.qpn, 0, 0, retry=3, rd=4)
        return a, nb


CASES = {'type1': case_type1, 'type2': case_type2, 'bounds': case_bounds,
         'rights': case_rights, 'other_qp': case_other_qp,
         'bind_errors': case_bind_errors, 'invalidate': case_invalidate,
         'teardown': case_teardown, 'stale_key': case_stale_key,
         'other_qp_inv': case_other_qp_inv}


def main():
    dev, case = sys.argv[1], sys.argv[2]
    try:
        CASES[case](World(dev))
    except (Fail, PyverbsRDMAError) as ex:
        print('%s: %s' % (case, ex))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
