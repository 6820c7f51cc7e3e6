# SPDX-License-Identifier: GPL-2.0
"""pyverbs helpers shared by the verbs tests: connecting an RC/UC QP, an RC
QP with its CQ (and MR), data patterns, checked transfers, port counters.
Not a test by itself.
"""
import errno
import json
import random
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
GID_INDEX = 1           # the IPv4-mapped GID


class Fail(Exception):
    """A check failed; the message says which and why."""


def err_of(fn, *args):
    """The errno FN(*ARGS) fails with, 0 when it succeeds (closing what it made)."""
    try:
        obj = fn(*args)
    except PyverbsRDMAError as ex:
        return ex.error_code
    except PyverbsError as ex:
        return getattr(ex, 'error_code', -1) or -1
    if hasattr(obj, 'close'):
        obj.close()
    return 0


def expect_errno(what, want, fn, *args):
    """FN(*ARGS) must fail with WANT (an errno, or a tuple of allowed ones)."""
    got = err_of(fn, *args)
    wants = want if isinstance(want, tuple) else (want,)
    if got not in wants:
        raise Fail('%s: errno %s, expected %s' % (
            what, errno.errorcode.get(got, got), '/'.join(errno.errorcode.get(w, str(w)) for w in wants)))


def connect_qp(qp, gid, gid_index, dest_qpn, access=ACCESS, rq_psn=0, sq_psn=0,
               timeout=14, retry=7, rnr_retry=7, rnr_timer=1, rd=4, uc=False):
    """RESET -> INIT -> RTR -> RTS of an RC QP (with UC, of a UC QP: no
    timeouts, retries or RDMA READ/atomic resources), path MTU 1024,
    addressed by GID (RoCE: every path has a GRH)."""
    a = QPAttr()
    a.qp_access_flags = access
    qp.to_init(a)
    a = QPAttr()
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = dest_qpn
    a.rq_psn = rq_psn
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gid_index), is_global=1, port_num=1)
    if not uc:
        a.max_dest_rd_atomic = rd
        a.min_rnr_timer = rnr_timer
    qp.to_rtr(a)
    a = QPAttr()
    a.sq_psn = sq_psn
    if not uc:
        a.timeout = timeout
        a.retry_cnt = retry
        a.rnr_retry = rnr_retry
        a.max_rd_atomic = rd
    qp.to_rts(a)


class Node:
    """An RC QP with its CQ, no MR of its own: the tests of memory kinds
    (device memory, dma-buf) bring theirs."""

    def __init__(self, ctx, pd, access):
        self.cq = CQ(ctx, 32)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=16, max_recv_wr=16)))
        self.access = access
        self.gid = ctx.query_gid(1, GID_INDEX)

    def connect(self, other):
        connect_qp(self.qp, other.gid, GID_INDEX, other.qp.qp_num, access=self.access)

    def post(self, op, addr, length, lkey, raddr=0, rkey=0, cmp_add=0, swap=0, wr_id=1):
        w = SendWR(wr_id=wr_id, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(addr, length, lkey)])
        if op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
            w.set_wr_rdma(rkey, raddr)
        elif op in (e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP):
            w.set_wr_atomic(rkey, raddr, cmp_add, swap)
        self.qp.post_send(w)

    def recv(self, addr, length, lkey):
        self.qp.post_recv(RecvWR(wr_id=7, num_sge=1, sg=[SGE(addr, length, lkey)]))

    def wait(self, what, status=e.IBV_WC_SUCCESS, secs=15):
        """The next completion; with STATUS None, whatever its status."""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            cnt, wcs = self.cq.poll(num_entries=1)
            if cnt:
                if status is not None and wcs[0].status != status:
                    raise Fail('%s: status %d, expected %d' % (what, wcs[0].status, status))
                return wcs[0]
            time.sleep(0.001)
        raise Fail('%s: no completion within %d s' % (what, secs))

    def close(self):
        self.qp.close()
        self.cq.close()


class Rc:
    """An RC QP with its CQ and one MR (remote read and write allowed)."""

    def __init__(self, ctx, pd, size=1 << 20, depth=64):
        self.cq = CQ(ctx, 2 * depth)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=depth, max_recv_wr=depth)))
        self.mr = MR(pd, size, ACCESS)
        self.qpn = self.qp.qp_num
        self.size = size

    def init(self):
        a = QPAttr()
        a.qp_access_flags = ACCESS
        self.qp.to_init(a)

    def connect(self, gid, dqpn, rq_psn, sq_psn, timeout=14, retry=7, rd=16):
        a = QPAttr()
        a.qp_access_flags = ACCESS
        a.path_mtu = e.IBV_MTU_1024
        a.dest_qp_num = dqpn
        a.rq_psn = rq_psn
        a.max_dest_rd_atomic = rd
        a.min_rnr_timer = 1
        a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=GID_INDEX), is_global=1,
                           port_num=1)
        a.sq_psn = sq_psn
        a.timeout = timeout
        a.retry_cnt = retry
        a.rnr_retry = 7
        a.max_rd_atomic = rd
        self.qp.to_rts(a)

    def set_state(self, state):
        a = QPAttr()
        a.qp_state = state
        self.qp.modify(a, e.IBV_QP_STATE)

    def state(self):
        return self.qp.query(e.IBV_QP_STATE)[0].qp_state

    def send(self, op, length, offset=0, raddr=0, rkey=0, wr_id=1):
        w = SendWR(wr_id=wr_id, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(self.mr.buf + offset, length, self.mr.lkey)])
        if op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
            w.set_wr_rdma(rkey, raddr)
        self.qp.post_send(w)

    def recv(self, length, offset=0, wr_id=7):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                                 sg=[SGE(self.mr.buf + offset, length, self.mr.lkey)]))

    def poll(self, n=1, secs=10.0):
        got, end = [], time.monotonic() + secs
        while len(got) < n and time.monotonic() < end:
            cnt, wcs = self.cq.poll(num_entries=8)
            if cnt:
                got += list(wcs[:cnt])
            else:
                time.sleep(0.001)
        return got


def run_cases(names, run):
    """Runs RUN(NAME) for each of NAMES and prints "ok NAME", or "not ok
    NAME: why" for one that raised; exits 1 if any did, else 0."""
    failed = 0
    for name in names:
        try:
            run(name)
            print('ok %s' % name, flush=True)
        except Exception as ex:      # pylint: disable=broad-except
            failed += 1
            print('not ok %s: %s' % (name, ex), flush=True)
    sys.exit(1 if failed else 0)


def pattern(seed, n):
    """N bytes that depend on SEED (C speed: a Python loop over MiBs takes
    seconds under TCG)."""
    return random.Random(seed).randbytes(n)


def expect_wc(rc, what, status=e.IBV_WC_SUCCESS, secs=10.0):
    wcs = rc.poll(1, secs)
    if not wcs:
        raise Fail('%s: no completion within %.0f s' % (what, secs))
    if wcs[0].status != status:
        raise Fail('%s: completion status %d, expected %d' % (what, wcs[0].status, status))
    return wcs[0]


def counters(dev):
    """The port counters of DEV. Over netlink: in another namespace than
    init_net, sysfs shows no hw_counters of an RDMA device."""
    out = subprocess.run(['rdma', '-j', 'statistic', 'show', 'link', dev + '/1'],
                         capture_output=True, text=True, check=True).stdout
    stats = {}
    for entry in json.loads(out):
        stats.update({k: v for k, v in entry.items() if isinstance(v, int)})
    return stats


def drops(dev):
    return sum(v for k, v in counters(dev).items() if k.startswith('rx_drop_'))


def counter(dev, name):
    return counters(dev).get(name, -1)


def traffic(a, b, tag, seed=1):
    """A -> B: SEND, WRITE and READ of a few KiB, every byte checked."""
    n = 16384
    data = pattern(seed, n)
    a.mr.write(data, n, 0)
    b.mr.write(bytes(n), n, 0)
    b.recv(n, 0)
    a.send(e.IBV_WR_SEND, n, 0)
    expect_wc(a, tag + ': SEND (sender)')
    wc = expect_wc(b, tag + ': SEND (receiver)')
    if wc.byte_len != n or b.mr.read(n, 0) != data:
        raise Fail(tag + ': SEND data or length wrong')
    data = pattern(seed + 1, n)
    a.mr.write(data, n, 0)
    a.send(e.IBV_WR_RDMA_WRITE, n, 0, b.mr.buf + n, b.mr.rkey)
    expect_wc(a, tag + ': RDMA WRITE')
    if b.mr.read(n, n) != data:
        raise Fail(tag + ': RDMA WRITE data wrong')
    data = pattern(seed + 2, n)
    b.mr.write(data, n, 2 * n)
    a.send(e.IBV_WR_RDMA_READ, n, 3 * n, b.mr.buf + 2 * n, b.mr.rkey)
    expect_wc(a, tag + ': RDMA READ')
    if a.mr.read(n, 3 * n) != data:
        raise Fail(tag + ': RDMA READ data wrong')
