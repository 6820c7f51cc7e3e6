# SPDX-License-Identifier: GPL-2.0
"""UC (unreliable connected) semantics on one sroce device (loopback), one
case per run:

    python3 uc_verbs.py DEVICE GID_INDEX CASE

CASE: no_rqe | bad_rkey | write_imm | refused. UC has no ACK, no NAK, no
RNR and no retransmission: a message the responder cannot take is dropped
and the QPs go on. Exit 0 when the case behaves so, 1 (with a message)
otherwise.
"""
import errno
import random
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

from rc_verbs import Fail, connect_qp

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
SIZE = 65536 + 37       # many packets at MTU 1024


class Uc:
    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UC, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=16, max_recv_wr=16)))
        self.mr = MR(pd, 1 << 20, ACCESS)

    def connect(self, gid, gid_index, dqpn):
        connect_qp(self.qp, gid, gid_index, dqpn, access=ACCESS, uc=True)

    def poll(self, n=1, secs=10.0):
        got, end = [], time.time() + secs
        while len(got) < n and time.time() < end:
            cnt, wcs = self.cq.poll(num_entries=8)
            if cnt:
                got += list(wcs[:cnt])
            else:
                time.sleep(0.001)
        return got

    def state(self):
        return self.qp.query(e.IBV_QP_STATE)[0].qp_state

    def post(self, op, length, raddr=0, rkey=0, imm=0, wr_id=1):
        w = SendWR(wr_id=wr_id, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(self.mr.buf, length, self.mr.lkey)])
        if op in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_WRITE_WITH_IMM, e.IBV_WR_RDMA_READ):
            w.set_wr_rdma(rkey, raddr)
        if op == e.IBV_WR_RDMA_WRITE_WITH_IMM:
            w.imm_data = imm
        self.qp.post_send(w)

    def recv(self, length, offset=0, wr_id=7):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                                 sg=[SGE(self.mr.buf + offset, length, self.mr.lkey)]))


def ok_wc(wcs, what, opcode=None):
    if len(wcs) != 1 or wcs[0].status != e.IBV_WC_SUCCESS:
        raise Fail('%s: %s' % (what, [(w.status, w.opcode) for w in wcs] or 'no completion'))
    if opcode is not None and wcs[0].opcode != opcode:
        raise Fail('%s: opcode %d, expected %d' % (what, wcs[0].opcode, opcode))
    return wcs[0]


def send_checked(a, b, seed, what):
    """A SEND of SIZE bytes that B must receive byte for byte."""
    data = random.Random(seed).randbytes(SIZE)
    a.mr.write(data, SIZE, 0)
    b.mr.write(bytes(SIZE), SIZE, 1 << 19)
    b.recv(SIZE, 1 << 19)
    a.post(e.IBV_WR_SEND, SIZE)
    ok_wc(a.poll(), what + ' (sender)', e.IBV_WC_SEND)
    wc = ok_wc(b.poll(), what + ' (receiver)', e.IBV_WC_RECV)
    if wc.byte_len != SIZE or b.mr.read(SIZE, 1 << 19) != data:
        raise Fail(what + ': data or length wrong')


def still_rts(*qps):
    for q in qps:
        if q.state() != e.IBV_QPS_RTS:
            raise Fail('QP state %d after a dropped message, expected RTS' % q.state())


def case_no_rqe(a, b):
    """No receive buffer: the SEND completes at the sender, is dropped at
    the receiver (no RNR), and the next one arrives."""
    a.post(e.IBV_WR_SEND, SIZE, wr_id=5)
    ok_wc(a.poll(), 'SEND without a receive buffer (sender)', e.IBV_WC_SEND)
    if b.poll(1, 1.0):
        raise Fail('a completion at the receiver for a SEND it had no buffer for')
    still_rts(a, b)
    send_checked(a, b, 1, 'the next SEND')


def case_bad_rkey(a, b):
    """A WRITE with a bad rkey is dropped without NAK; the QPs go on."""
    b.mr.write(bytes(SIZE), SIZE, 0)
    a.post(e.IBV_WR_RDMA_WRITE, SIZE, b.mr.buf, b.mr.rkey + 1)
    ok_wc(a.poll(), 'WRITE with a bad rkey (sender)', e.IBV_WC_RDMA_WRITE)
    time.sleep(0.5)
    if b.mr.read(SIZE, 0) != bytes(SIZE):
        raise Fail('a WRITE with a bad rkey changed memory')
    still_rts(a, b)
    send_checked(a, b, 2, 'a SEND after the refused WRITE')


def case_write_imm(a, b):
    """A multi-packet WRITE with immediate: data placed, RECV_RDMA_WITH_IMM."""
    data = random.Random(3).randbytes(SIZE)
    a.mr.write(data, SIZE, 0)
    b.recv(0)
    a.post(e.IBV_WR_RDMA_WRITE_WITH_IMM, SIZE, b.mr.buf + 4096, b.mr.rkey, imm=0x12345678)
    ok_wc(a.poll(), 'WRITE with immediate (sender)', e.IBV_WC_RDMA_WRITE)
    wc = ok_wc(b.poll(), 'WRITE with immediate (receiver)', e.IBV_WC_RECV_RDMA_WITH_IMM)
    if b.mr.read(SIZE, 4096) != data:
        raise Fail('WRITE with immediate: data wrong')
    if not wc.wc_flags & e.IBV_WC_WITH_IMM:
        raise Fail('WRITE with immediate: no IBV_WC_WITH_IMM')


def case_refused(a, b):
    """READ and atomics are RC only: refused at post time."""
    for op in (e.IBV_WR_RDMA_READ, e.IBV_WR_ATOMIC_FETCH_AND_ADD):
        try:
            a.post(op, 8, b.mr.buf, b.mr.rkey)
        except PyverbsRDMAError as ex:
            if ex.error_code != errno.EINVAL:
                raise Fail('opcode %d on UC: errno %d, expected EINVAL' % (op, ex.error_code))
            continue
        raise Fail('opcode %d posted on a UC QP' % op)
    send_checked(a, b, 4, 'a SEND after the refused posts')


def main():
    dev, gid_index, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    a, b = Uc(ctx, pd), Uc(ctx, pd)
    gid = ctx.query_gid(1, gid_index)
    a.connect(gid, gid_index, b.qp.qp_num)
    b.connect(gid, gid_index, a.qp.qp_num)
    cases = {'no_rqe': case_no_rqe, 'bad_rkey': case_bad_rkey,
             'write_imm': case_write_imm, 'refused': case_refused}
    try:
        cases[case](a, b)
    except (Fail, PyverbsRDMAError) as ex:
        print('%s: %s' % (case, ex))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
