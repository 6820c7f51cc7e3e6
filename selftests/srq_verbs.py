# SPDX-License-Identifier: GPL-2.0
"""Shared receive queue behaviour on one sroce device (loopback), one case
per run:

    python3 srq_verbs.py DEVICE GID_INDEX CASE

CASE: shared | limit | rnr | flush | errors. Exit 0 when the case behaves
as the IBTA and the verbs API say, 1 (with a message) otherwise.
"""
import errno
import fcntl
import os
import select
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

from rc_verbs import Fail, connect_qp

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
MSG = 256


def poll(cq, n, secs=15):
    got, end = [], time.time() + secs
    while len(got) < n and time.time() < end:
        cnt, wcs = cq.poll(num_entries=16)
        if cnt:
            got += list(wcs[:cnt])
        else:
            time.sleep(0.001)
    return got


class Events:
    """Async events of a context. pyverbs' get_async_event() blocks holding
    the GIL, so it is only called once the context's async fd (the
    "[infinibandevent]" anon inode, made non-blocking) is readable."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.got = []
        self.fd = None
        for name in os.listdir('/proc/self/fd'):
            try:
                if 'infinibandevent' in os.readlink('/proc/self/fd/' + name):
                    self.fd = int(name)
            except OSError:
                pass
        if self.fd is None:
            raise Fail('no async event fd found')
        fcntl.fcntl(self.fd, fcntl.F_SETFL, fcntl.fcntl(self.fd, fcntl.F_GETFL) | os.O_NONBLOCK)

    def wait(self, etype, secs=10):
        end = time.time() + secs
        while etype not in self.got:
            left = end - time.time()
            if left <= 0:
                return False
            if not select.select([self.fd], [], [], left)[0]:
                continue
            ev = self.ctx.get_async_event()
            self.got.append(ev.event_type)
            ev.ack()
        return True


class Bed:
    """Senders S0..S(n-1), each connected to its receiver R(i); every R
    takes its receive buffers from one SRQ. All on one device."""

    def __init__(self, dev, gid_index, nqp=2, max_wr=16, rnr_retry=7):
        self.ctx = Context(name=dev)
        self.events = Events(self.ctx)
        self.pd = PD(self.ctx)
        self.scq = CQ(self.ctx, 256)
        self.rcq = CQ(self.ctx, 256)
        self.srq = SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=max_wr, max_sge=1)))
        self.mr = MR(self.pd, 1 << 20, ACCESS)
        gid = self.ctx.query_gid(1, gid_index)
        cap = QPCap(max_send_wr=64, max_recv_wr=64)
        self.snd, self.rcv = [], []
        for _ in range(nqp):
            self.snd.append(QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.scq,
                                                   rcq=self.scq, cap=cap)))
            self.rcv.append(QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.rcq,
                                                   rcq=self.rcq, srq=self.srq, cap=cap)))
        for s, r in zip(self.snd, self.rcv):
            connect_qp(s, gid, gid_index, r.qp_num, rnr_retry=rnr_retry)
            connect_qp(r, gid, gid_index, s.qp_num)
        self.posted = 0

    def post(self, n):
        """N receive buffers of MSG bytes, at 512 KiB + k * MSG."""
        for _ in range(n):
            k = self.posted
            self.srq.post_recv(RecvWR(wr_id=1000 + k, num_sge=1,
                                      sg=[SGE(self.mr.buf + (1 << 19) + k * MSG, MSG,
                                              self.mr.lkey)]))
            self.posted += 1

    def send(self, i, tag):
        """Sender I sends MSG bytes, filled with TAG."""
        off = tag * MSG
        self.mr.write(bytes([tag & 0xff]) * MSG, MSG, off)
        self.snd[i].post_send(SendWR(wr_id=tag, opcode=e.IBV_WR_SEND, num_sge=1,
                                     send_flags=e.IBV_SEND_SIGNALED,
                                     sg=[SGE(self.mr.buf + off, MSG, self.mr.lkey)]))


def expect_ok(wcs, n, what):
    if len(wcs) != n:
        raise Fail('%s: %d completions, expected %d' % (what, len(wcs), n))
    for wc in wcs:
        if wc.status != e.IBV_WC_SUCCESS:
            raise Fail('%s: completion status %d' % (what, wc.status))


def case_shared(b):
    """Messages of two QPs land in one SRQ's buffers, in posting order."""
    b.post(12)
    tags = []
    for k in range(12):
        b.send(k % 2, k + 1)
        tags.append(k + 1)
    expect_ok(poll(b.scq, 12), 12, 'sends')
    wcs = poll(b.rcq, 12)
    expect_ok(wcs, 12, 'receives')
    seen = {}
    for wc in wcs:
        if wc.byte_len != MSG or wc.opcode != e.IBV_WC_RECV:
            raise Fail('receive: byte_len %d opcode %d' % (wc.byte_len, wc.opcode))
        if wc.qp_num not in (b.rcv[0].qp_num, b.rcv[1].qp_num):
            raise Fail('receive on QP %d, not one of the SRQ QPs' % wc.qp_num)
        k = wc.wr_id - 1000
        data = b.mr.read(MSG, (1 << 19) + k * MSG)
        if len(set(data)) != 1:
            raise Fail('buffer %d holds a torn message' % k)
        seen[data[0]] = wc.qp_num
    if sorted(seen) != tags:
        raise Fail('messages received: %s, sent: %s' % (sorted(seen), tags))
    if set(seen.values()) != {b.rcv[0].qp_num, b.rcv[1].qp_num}:
        raise Fail('not both QPs received')


def case_limit(b):
    """srq_limit arms IBV_EVENT_SRQ_LIMIT_REACHED once; query shows it."""
    b.post(10)
    b.srq.modify(SrqAttr(srq_limit=8), e.IBV_SRQ_LIMIT)
    attr = b.srq.query()
    if attr.srq_limit != 8 or attr.max_wr < 16:
        raise Fail('query: srq_limit %d max_wr %d' % (attr.srq_limit, attr.max_wr))
    b.send(0, 1)
    expect_ok(poll(b.rcq, 1), 1, 'first receive')
    if b.events.wait(e.IBV_EVENT_SRQ_LIMIT_REACHED, 1):
        raise Fail('limit event with 9 of 10 buffers left (limit 8)')
    b.send(1, 2)
    b.send(1, 3)
    expect_ok(poll(b.rcq, 2), 2, 'receives below the limit')
    if not b.events.wait(e.IBV_EVENT_SRQ_LIMIT_REACHED, 10):
        raise Fail('no IBV_EVENT_SRQ_LIMIT_REACHED with 7 buffers left (limit 8)')
    if b.srq.query().srq_limit != 0:
        raise Fail('the limit is still armed after its event')
    expect_ok(poll(b.scq, 3), 3, 'sends')


def case_rnr(b):
    """An empty SRQ: RNR NAK, and the send completes once a buffer is posted."""
    b.send(0, 5)
    time.sleep(1.0)
    if poll(b.scq, 1, 0.1):
        raise Fail('the send completed with no receive buffer posted')
    b.post(1)
    expect_ok(poll(b.scq, 1), 1, 'send after the RNR wait')
    expect_ok(poll(b.rcq, 1), 1, 'receive after the RNR wait')


def case_flush(b):
    """A receiver QP in ERR: LAST_WQE_REACHED; the SRQ's buffers stay for
    the other QP."""
    b.post(4)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_ERR
    b.rcv[0].modify(a, e.IBV_QP_STATE)
    if not b.events.wait(e.IBV_EVENT_QP_LAST_WQE_REACHED, 10):
        raise Fail('no IBV_EVENT_QP_LAST_WQE_REACHED for a QP of the SRQ in ERR')
    if poll(b.rcq, 1, 0.5):
        raise Fail('SRQ buffers flushed by one QP going to ERR')
    for k in range(4):
        b.send(1, k + 1)
    expect_ok(poll(b.rcq, 4), 4, 'receives of the other QP')


def expect_in_order(b, wcs, first, n, what):
    """N receives into buffers FIRST.. in posting order, each holding the
    tag its send carried (tag = buffer index + 1)."""
    expect_ok(wcs, n, what)
    got = [wc.wr_id - 1000 for wc in wcs]
    if got != list(range(first, first + n)):
        raise Fail('%s: buffers %s, expected %d..%d in order' % (what, got, first, first + n - 1))
    for k in got:
        data = b.mr.read(MSG, (1 << 19) + k * MSG)
        if data != bytes([(k + 1) & 0xff]) * MSG:
            raise Fail('%s: buffer %d does not hold message %d' % (what, k, k + 1))


def send_n(b, first, n):
    """Messages FIRST+1.. FIRST+N from sender 0 (one QP: the SRQ's buffers
    are taken in the order the messages arrive), all completed."""
    for k in range(first, first + n):
        b.send(0, k + 1)
        if (k - first) % 32 == 31:
            expect_ok(poll(b.scq, 32), 32, 'sends')
    rest = n % 32
    if rest:
        expect_ok(poll(b.scq, rest), rest, 'sends')


def case_resize(b):
    """IBV_SRQ_MAX_WR replaces the ring: buffers posted before it are taken
    after it, in order; the new depth holds more than the old; a depth
    below what is posted, 0 or above max_srq_wr is refused and changes
    nothing; a limit given with it is checked against the new depth."""
    b.post(10)
    send_n(b, 0, 3)
    expect_in_order(b, poll(b.rcq, 3), 0, 3, 'receives before the resize')
    b.srq.modify(SrqAttr(max_wr=64), e.IBV_SRQ_MAX_WR)
    if b.srq.query().max_wr < 64:
        raise Fail('query after resizing to 64: max_wr %d' % b.srq.query().max_wr)
    b.post(50)      # 57 posted: more than the old 16 entries
    send_n(b, 3, 57)
    expect_in_order(b, poll(b.rcq, 57), 3, 57, 'receives after the resize')
    # shrinking: 5 posted
    b.post(5)
    must_fail('resizing to 4 with 5 posted',
              lambda: b.srq.modify(SrqAttr(max_wr=4), e.IBV_SRQ_MAX_WR), (errno.EINVAL,))
    must_fail('resizing to 0', lambda: b.srq.modify(SrqAttr(max_wr=0), e.IBV_SRQ_MAX_WR),
              (errno.EINVAL,))
    max_srq_wr = b.ctx.query_device().max_srq_wr
    must_fail('resizing above max_srq_wr',
              lambda: b.srq.modify(SrqAttr(max_wr=max_srq_wr + 1), e.IBV_SRQ_MAX_WR),
              (errno.EINVAL,))
    if b.srq.query().max_wr < 64:
        raise Fail('a refused resize changed max_wr to %d' % b.srq.query().max_wr)
    b.srq.modify(SrqAttr(max_wr=8), e.IBV_SRQ_MAX_WR)
    if not 8 <= b.srq.query().max_wr < 64:
        raise Fail('query after shrinking to 8: max_wr %d' % b.srq.query().max_wr)
    must_fail('srq_limit above the new max_wr in the same modify',
              lambda: b.srq.modify(SrqAttr(max_wr=16, srq_limit=17),
                                   e.IBV_SRQ_MAX_WR | e.IBV_SRQ_LIMIT), (errno.EINVAL,))
    b.srq.modify(SrqAttr(max_wr=32, srq_limit=20), e.IBV_SRQ_MAX_WR | e.IBV_SRQ_LIMIT)
    attr = b.srq.query()
    if attr.max_wr < 32 or attr.srq_limit != 20:
        raise Fail('query after max_wr 32 + srq_limit 20: %d, %d' % (attr.max_wr, attr.srq_limit))
    b.srq.modify(SrqAttr(srq_limit=0), e.IBV_SRQ_LIMIT)
    send_n(b, 60, 5)
    expect_in_order(b, poll(b.rcq, 5), 60, 5, 'receives after shrinking')


def must_fail(what, fn, codes):
    try:
        fn()
    except PyverbsRDMAError as ex:
        if ex.error_code not in codes:
            raise Fail('%s: errno %d, expected one of %s' % (what, ex.error_code, codes))
        return
    raise Fail('%s succeeded' % what)


def case_errors(b):
    """What must be refused, with the errno."""
    max_wr = b.srq.query().max_wr
    must_fail('srq_limit above max_wr',
              lambda: b.srq.modify(SrqAttr(srq_limit=max_wr + 1), e.IBV_SRQ_LIMIT),
              (errno.EINVAL,))
    must_fail('post_recv on a QP of the SRQ',
              lambda: b.rcv[0].post_recv(RecvWR(wr_id=1, num_sge=1,
                                                sg=[SGE(b.mr.buf, 8, b.mr.lkey)])),
              (errno.EINVAL,))
    must_fail('an SRQ of more than max_srq_wr',
              lambda: SRQ(b.pd, SrqInitAttr(SrqAttr(max_wr=1 << 20, max_sge=1))),
              (errno.EINVAL,))
    # a full SRQ refuses the next post
    b.post(max_wr)
    must_fail('posting to a full SRQ', lambda: b.post(1), (errno.ENOMEM,))


def main():
    dev, gid_index, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    cases = {'shared': case_shared, 'limit': case_limit, 'rnr': case_rnr,
             'flush': case_flush, 'errors': case_errors, 'resize': case_resize}
    b = Bed(dev, gid_index)
    try:
        cases[case](b)
    except (Fail, PyverbsRDMAError) as ex:
        print('%s: %s' % (case, ex))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
