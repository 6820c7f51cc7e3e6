# SPDX-License-Identifier: GPL-2.0
"""RC error paths on one sroce device (loopback), one case per run:

    python3 rc_errors.py DEVICE GID_INDEX CASE

Exit 0 when the case behaves as the IBTA says, 1 (with a message) otherwise.
"""
import os
import select
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

from rc_verbs import connect_qp

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ


class Node:
    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=16, max_recv_wr=16)))
        self.mr = MR(pd, 4096, ACCESS)
        self.ro = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)   # no remote rights

    def connect(self, gid, gid_index, dest_qpn, timeout=14, retry=7, rnr_retry=7, rnr_timer=1):
        connect_qp(self.qp, gid, gid_index, dest_qpn, timeout=timeout, retry=retry,
                   rnr_retry=rnr_retry, rnr_timer=rnr_timer)

    def wait(self, n=1, secs=15):
        got, end = [], time.time() + secs
        while len(got) < n and time.time() < end:
            cnt, wcs = self.cq.poll(num_entries=8)
            got += list(wcs[:cnt]) if cnt else []
        return got

    def send(self, size, wr_id=1):
        self.qp.post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                                 sg=[SGE(self.mr.buf, size, self.mr.lkey)]))

    def rdma(self, op, size, raddr, rkey, wr_id=1):
        w = SendWR(wr_id=wr_id, opcode=op, num_sge=1, sg=[SGE(self.mr.buf, size, self.mr.lkey)])
        w.set_wr_rdma(rkey, raddr)
        self.qp.post_send(w)

    def recv(self, size, wr_id=7):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[SGE(self.mr.buf, size, self.mr.lkey)]))


def async_fd():
    """The context's async event file (this process opens no completion
    channel, so it is the one "[infinibandevent]" file)."""
    for fd in os.listdir('/proc/self/fd'):
        try:
            if os.readlink('/proc/self/fd/' + fd) == 'anon_inode:[infinibandevent]':
                return int(fd)
        except OSError:
            pass
    sys.exit('no async event file')


def event_within(ctx, fd, secs):
    """The next async event's type if one comes within SECS, else None."""
    if not select.select([fd], [], [], secs)[0]:
        return None
    ev = ctx.get_async_event()
    ev.ack()
    return ev.event_type


def sqd_drain(ctx, a, b):
    """IBTA SQD semantics: messages in flight when the QP enters SQD are
    still retried until acknowledged, none posted after is started, and
    the SQ Drained event comes only when all are acknowledged, and only
    when asked for. Here the two in flight wait on RNR NAKs (no receive
    posted at B)."""
    fd = async_fd()
    a.send(100, wr_id=1)
    a.send(100, wr_id=2)
    time.sleep(0.2)                  # RNR NAKs meanwhile
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_SQD
    attr.en_sqd_async_notify = 1
    a.qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_EN_SQD_ASYNC_NOTIFY)
    a.send(100, wr_id=3)             # posted in SQD: waits for RTS
    ev = event_within(ctx, fd, 0.5)
    if ev is not None:
        sys.exit('sqd_drain: event %d while both SENDs are unacknowledged' % ev)
    if a.wait(1, secs=0.1):
        sys.exit('sqd_drain: a completion before any receive was posted')
    for i in range(3):
        b.recv(100, wr_id=10 + i)
    ev = event_within(ctx, fd, 15)
    if ev != e.IBV_EVENT_SQ_DRAINED:
        sys.exit('sqd_drain: event %s, expected SQ_DRAINED' % ev)
    wcs = a.wait(3, secs=0.5)        # both retired before the event; not #3
    expect(wcs, [e.IBV_WC_SUCCESS] * 2, 'sqd_drain (in flight at SQD)')
    if [w.wr_id for w in wcs] != [1, 2]:
        sys.exit('sqd_drain: completions %s, expected wr_id 1, 2 only'
                 % [w.wr_id for w in wcs])
    if len(b.wait(3, secs=0.5)) != 2:
        sys.exit('sqd_drain: the SEND posted in SQD was sent')
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RTS
    a.qp.modify(attr, e.IBV_QP_STATE)
    expect(a.wait(), [e.IBV_WC_SUCCESS], 'sqd_drain (posted in SQD, after RTS)')
    expect(b.wait(), [e.IBV_WC_SUCCESS], 'sqd_drain (its receive)')
    # SQD again without en_sqd_async_notify: drained at once, no event
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_SQD
    a.qp.modify(attr, e.IBV_QP_STATE)
    ev = event_within(ctx, fd, 0.5)
    if ev is not None:
        sys.exit('sqd_drain: event %d, none asked for' % ev)
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RTS
    a.qp.modify(attr, e.IBV_QP_STATE)


def expect(wcs, statuses, what):
    got = [w.status for w in wcs]
    if got[:len(statuses)] != statuses:
        sys.exit('%s: completions %s, expected %s' % (what, got, statuses))


def main():
    dev, gid_index, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, gid_index)
    a, b = Node(ctx, pd), Node(ctx, pd)
    kw = {}
    if case == 'rnr_exhausted':
        kw = dict(rnr_retry=0)
    if case == 'retry_exceeded':
        # a peer QP that does not exist: every packet is dropped (no_qp)
        a.connect(gid, gid_index, 0xabcde, timeout=8, retry=2)
    else:
        a.connect(gid, gid_index, b.qp.qp_num, **kw)
    b.connect(gid, gid_index, a.qp.qp_num)

    if case == 'rem_access_write':
        a.rdma(e.IBV_WR_RDMA_WRITE, 64, b.mr.buf, b.mr.rkey ^ 0x5500)
        a.send(8, wr_id=2)          # behind the failed one: flushed
        expect(a.wait(2), [e.IBV_WC_REM_ACCESS_ERR, e.IBV_WC_WR_FLUSH_ERR], case)
    elif case == 'rem_access_read':
        a.rdma(e.IBV_WR_RDMA_READ, 64, b.ro.buf, b.ro.rkey)
        expect(a.wait(), [e.IBV_WC_REM_ACCESS_ERR], case)
    elif case == 'out_of_bounds':
        a.rdma(e.IBV_WR_RDMA_WRITE, 64, b.mr.buf + 4096 - 32, b.mr.rkey)
        expect(a.wait(), [e.IBV_WC_REM_ACCESS_ERR], case)
    elif case == 'one_past_end':
        # up to the MR's last byte is fine, one byte past it is not: a bounds
        # check off by one passes out_of_bounds' 32 (scripts/check-breakage)
        a.rdma(e.IBV_WR_RDMA_WRITE, 64, b.mr.buf + 4096 - 64, b.mr.rkey)
        expect(a.wait(), [e.IBV_WC_SUCCESS], case + ' (WRITE up to the end)')
        a.rdma(e.IBV_WR_RDMA_READ, 64, b.mr.buf + 4096 - 63, b.mr.rkey, wr_id=2)
        expect(a.wait(), [e.IBV_WC_REM_ACCESS_ERR], case + ' (READ one byte past)')
    elif case == 'rnr_recover':
        a.send(100)
        time.sleep(0.5)              # the responder NAKs (RNR) meanwhile
        b.recv(100)
        expect(a.wait(), [e.IBV_WC_SUCCESS], case + ' (sender)')
        wcs = b.wait()
        expect(wcs, [e.IBV_WC_SUCCESS], case + ' (receiver)')
        if wcs[0].byte_len != 100 or wcs[0].opcode != e.IBV_WC_RECV:
            sys.exit('rnr_recover: bad receive completion')
    elif case == 'rnr_exhausted':
        a.send(100)
        expect(a.wait(), [e.IBV_WC_RNR_RETRY_EXC_ERR], case)
    elif case == 'retry_exceeded':
        a.send(100)
        expect(a.wait(secs=30), [e.IBV_WC_RETRY_EXC_ERR], case)
    elif case == 'len_err':
        b.recv(64)
        a.send(200)
        expect(b.wait(), [e.IBV_WC_LOC_LEN_ERR], case + ' (receiver)')
        expect(a.wait(), [e.IBV_WC_REM_INV_REQ_ERR], case + ' (sender)')
    elif case == 'sqd_drain':
        sqd_drain(ctx, a, b)
    elif case == 'flush_on_err':
        for i in range(3):
            b.recv(64, wr_id=10 + i)
        a2 = QPAttr()
        a2.qp_state = e.IBV_QPS_ERR
        b.qp.modify(a2, e.IBV_QP_STATE)
        wcs = b.wait(3)
        expect(wcs, [e.IBV_WC_WR_FLUSH_ERR] * 3, case)
        if sorted(w.wr_id for w in wcs) != [10, 11, 12]:
            sys.exit('flush_on_err: wrong wr_ids')
        b.recv(64, wr_id=20)         # posted in ERR: flushed too
        expect(b.wait(), [e.IBV_WC_WR_FLUSH_ERR], case + ' (posted in ERR)')
    else:
        sys.exit('unknown case ' + case)


main()
