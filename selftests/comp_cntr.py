# SPDX-License-Identifier: GPL-2.0
"""Completion counters (rdma-core 65's pyverbs.comp_cntr) on one sroce
device, two RC QPs over loopback:

    python3 comp_cntr.py DEVICE GID_INDEX [abandon]

Prints one line per check, "ok NAME" or "not ok NAME: why", and exits 0
when every check ran (failed ones included), 1 when the run broke off.
"""
import enum
import errno
import os
import subprocess
import sys
import time

import pyverbs.libibverbs_enums
from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttachCompCntrAttr, QPAttr, QPCap, QPInitAttr
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.wr import RecvWR, SendWR, SGE



class _Enums:
    """pyverbs 65's enum classes' members in one namespace, as ints."""

    def __init__(self, mod):
        for name in dir(mod):
            cls = getattr(mod, name)
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                for m, v in cls.__members__.items():
                    setattr(self, m, int(v))


e = _Enums(pyverbs.libibverbs_enums)
N = 8
SIZE = 3000                     # three packets at path MTU 1024
ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
OP = {
    'send': e.IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
    'recv': e.IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
    'read': e.IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ,
    'remote_read': e.IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
    'write': e.IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
    'remote_write': e.IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
}
failed = []


def check(name, cond, why=''):
    print('ok %s' % name if cond else 'not ok %s: %s' % (name, why), flush=True)
    if not cond:
        failed.append(name)


def errno_of(fn):
    """The errno FN raises as a PyverbsRDMAError, 0 if it succeeds."""
    try:
        fn()
    except PyverbsRDMAError as ex:
        return ex.error_code
    return 0


def to_init(qp):
    a = QPAttr()
    a.qp_access_flags = ACCESS
    qp.to_init(a)


def to_rts(qp, gid, gid_index, dest_qpn):
    a = QPAttr()
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = dest_qpn
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gid_index), is_global=1, port_num=1)
    a.max_dest_rd_atomic = 4
    a.min_rnr_timer = 1
    qp.to_rtr(a)
    a = QPAttr()
    a.timeout = 14
    a.retry_cnt = 7
    a.rnr_retry = 7
    a.max_rd_atomic = 4
    qp.to_rts(a)


class Node:
    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=32, max_recv_wr=32), sq_sig_all=0))
        self.mr = MR(pd, SIZE, ACCESS)
        self.cntr = {}

    def attach(self, ctx, *ops):
        """One counter for each class in OPS."""
        for op in ops:
            c = CompCntr(ctx, CompCntrInitAttr())
            self.qp.attach_comp_cntr(c, QPAttachCompCntrAttr(op_mask=OP[op]))
            self.cntr[op] = c

    def wait(self, n, secs=30):
        got, end = [], time.time() + secs
        while len(got) < n and time.time() < end:
            cnt, wcs = self.cq.poll(num_entries=16)
            got += list(wcs[:cnt]) if cnt else []
        return got

    def post(self, op, n, rkey=0, raddr=0):
        """N work requests, only the last signaled: the counters count the
        unsignaled ones too."""
        for i in range(n):
            w = SendWR(wr_id=i, opcode=op, num_sge=1, sg=[SGE(self.mr.buf, SIZE, self.mr.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED if i == n - 1 else 0)
            if op != e.IBV_WR_SEND:
                w.set_wr_rdma(rkey, raddr)
            self.qp.post_send(w)

    def counts(self):
        return {op: (c.read(), c.read_err()) for op, c in self.cntr.items()}


def caps_and_values(ctx):
    caps = ctx.query_comp_cntr_caps()
    check('query_comp_cntr_caps: max_counters > 0, max_value 2^64-1, all six classes',
          caps.max_counters > 0 and caps.max_value == 2**64 - 1 and
          caps.supported_qp_attach_ops == sum(OP.values()),
          'max_counters %d max_value %#x ops %#x' % (caps.max_counters, caps.max_value,
                                                     caps.supported_qp_attach_ops))
    c = CompCntr(ctx, CompCntrInitAttr())
    fresh = (c.read(), c.read_err())
    c.set(5)
    c.inc(3)
    c.set_err(7)
    c.inc_err(2)
    got = (c.read(), c.read_err())
    c.set(2**64 - 1)
    c.inc(2)
    wrapped = c.read()
    c.close()
    check('create, set, inc, read of both entries (and the count wraps)',
          fresh == (0, 0) and got == (8, 9) and wrapped == 1,
          'fresh %s, after set/inc %s, wrapped %d' % (fresh, got, wrapped))
    bad = errno_of(lambda: CompCntr(ctx, CompCntrInitAttr(cntr_type=1)))
    check('a byte counter is refused (EOPNOTSUPP)', bad == errno.EOPNOTSUPP, 'errno %d' % bad)
    return caps.max_counters


def traffic(ctx, pd, gid, gid_index):
    a, b = Node(ctx, pd), Node(ctx, pd)
    a.attach(ctx, 'send', 'write')             # in RESET
    b.attach(ctx, 'recv', 'remote_write')
    to_init(a.qp)
    to_init(b.qp)
    a.attach(ctx, 'read')                      # in INIT
    b.attach(ctx, 'remote_read')
    c = CompCntr(ctx, CompCntrInitAttr())
    ov = errno_of(lambda: a.qp.attach_comp_cntr(c, QPAttachCompCntrAttr(op_mask=OP['send'])))
    check('a class with a counter already is refused (EBUSY)', ov == errno.EBUSY, 'errno %d' % ov)
    to_rts(a.qp, gid, gid_index, b.qp.qp_num)
    to_rts(b.qp, gid, gid_index, a.qp.qp_num)
    late = errno_of(lambda: b.qp.attach_comp_cntr(c, QPAttachCompCntrAttr(op_mask=OP['send'])))
    check('attaching to a QP in RTS is refused (EINVAL)', late == errno.EINVAL, 'errno %d' % late)
    c.close()

    for i in range(N):
        b.qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(b.mr.buf, SIZE, b.mr.lkey)]))
    a.post(e.IBV_WR_SEND, N)
    a.post(e.IBV_WR_RDMA_WRITE, N, b.mr.rkey, b.mr.buf)
    a.post(e.IBV_WR_RDMA_READ, N, b.mr.rkey, b.mr.buf)
    wa, wb = a.wait(3), b.wait(N)
    ok = [w.status for w in wa] == [e.IBV_WC_SUCCESS] * 3 and len(wb) == N
    check('%d SENDs, WRITEs and READs (one signaled each) complete' % N, ok,
          'A %s, B %d receives' % ([w.status for w in wa], len(wb)))
    ca, cb = a.counts(), b.counts()
    want_a = {'send': (N, 0), 'write': (N, 0), 'read': (N, 0)}
    want_b = {'recv': (N, 0), 'remote_write': (N, 0), 'remote_read': (N, 0)}
    check('requester counts %d SEND, RDMA_WRITE, RDMA_READ, none in error' % N,
          ca == want_a, 'got %s' % ca)
    check('responder counts %d RECV, REMOTE_RDMA_WRITE, REMOTE_RDMA_READ, none in error' % N,
          cb == want_b, 'got %s' % cb)

    busy = errno_of(a.cntr['send'].close)
    check('destroying an attached counter is refused (EBUSY)', busy == errno.EBUSY,
          'errno %d' % busy)

    # a WRITE with a bad rkey: REM_ACCESS_ERR at A, refused at B
    a.post(e.IBV_WR_RDMA_WRITE, 1, b.mr.rkey ^ 0x5a5a00, b.mr.buf)
    wa = a.wait(1)
    ca, cb = a.counts(), b.counts()
    check('a WRITE refused: one error at both ends, nothing else counted',
          [w.status for w in wa] == [e.IBV_WC_REM_ACCESS_ERR] and
          ca['write'] == (N, 1) and cb['remote_write'] == (N, 1) and
          ca['send'] == (N, 0) and cb['recv'] == (N, 0),
          'A %s %s, B %s' % ([w.status for w in wa], ca, cb))

    a.qp.close()
    b.qp.close()
    gone = [errno_of(x.close) for n in (a, b) for x in n.cntr.values()]
    check('with their QPs destroyed the counters can go', gone == [0] * 6, 'errnos %s' % gone)


def abandon(dev):
    """A process that exits with a counter attached to a QP: the core's
    cleanup destroys the QP, then the counter (limit() sees none left)."""
    ctx = Context(name=dev)
    n = Node(ctx, PD(ctx))
    n.attach(ctx, 'send', 'recv')
    sys.stdout.flush()
    os._exit(0)


def limit(ctx, max_counters):
    cs, err = [], 0
    while len(cs) <= max_counters:
        try:
            cs.append(CompCntr(ctx, CompCntrInitAttr()))
        except PyverbsRDMAError as ex:
            err = ex.error_code
            break
    n = len(cs)
    for c in cs:
        c.close()
    again = errno_of(lambda: CompCntr(ctx, CompCntrInitAttr()).close())
    check('max_counters (%d) counters, the next refused (ENOMEM), then one again' % max_counters,
          n == max_counters and err == errno.ENOMEM and again == 0,
          'created %d, errno %d, again %d' % (n, err, again))


def main():
    dev, gid_index = sys.argv[1], int(sys.argv[2])
    if sys.argv[3:] == ['abandon']:
        abandon(dev)
    with Context(name=dev) as ctx:
        pd = PD(ctx)
        gid = ctx.query_gid(1, gid_index)
        max_counters = caps_and_values(ctx)
        traffic(ctx, pd, gid, gid_index)
        rc = subprocess.run([sys.executable, __file__, dev, str(gid_index), 'abandon'],
                            timeout=60).returncode
        check('a process exits with a counter attached: exit status 0', rc == 0, 'rc %d' % rc)
        limit(ctx, max_counters)
    return 0


if __name__ == '__main__':
    sys.exit(main())
