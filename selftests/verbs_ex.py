# SPDX-License-Identifier: GPL-2.0
"""The extended verbs on one sroce device (loopback), one case per run:

    python3 verbs_ex.py DEVICE GID_INDEX CASE

CASE: batch | abort | errors | refused | timestamps. Exit 0 when the case behaves as
the verbs API says (ibv_wr_*, ibv_create_cq_ex/ibv_start_poll), 1 with a
message otherwise.
"""
import errno
import socket
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import DataBuffer, QP, QPAttr, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.wr import RecvWR, SendWR, SGE

from rc_verbs import Fail, connect_qp

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM |
       e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_READ)
RBUF = 1 << 16          # receiver's buffers start here in the MR
IMM = 0x12345678


def poll_ex(cq, n, secs=10):
    """Up to N completions of an extended CQ, as dicts."""
    got, end = [], time.time() + secs
    while len(got) < n and time.time() < end:
        if cq.start_poll(PollCqAttr()) != 0:
            time.sleep(0.001)
            continue
        while True:
            got.append({'wr_id': cq.wr_id, 'status': cq.status, 'opcode': cq.read_opcode(),
                        'byte_len': cq.read_byte_len(), 'qp_num': cq.read_qp_num(),
                        'flags': cq.read_wc_flags(),
                        'imm': socket.ntohl(cq.read_imm_data())})
            if len(got) >= n or cq.poll_next() != 0:
                break
        cq.end_poll()
    return got


def expect_errno(what, code, fn, *args):
    try:
        fn(*args)
    except PyverbsRDMAError as ex:
        if ex.error_code != code:
            raise Fail('%s: errno %d, expected %d' % (what, ex.error_code, code))
        return
    raise Fail('%s: succeeded, expected errno %d' % (what, code))


class Bed:
    """Sender S (extended QP, extended CQ) connected to receiver R
    (plain QP on an extended CQ), one MR for both."""

    def __init__(self, dev, gid_index, max_send_wr=16, wc_flags=e.IBV_WC_STANDARD_FLAGS):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.scq = CQEX(self.ctx, CqInitAttrEx(cqe=256, wc_flags=wc_flags))
        self.rcq = CQEX(self.ctx, CqInitAttrEx(cqe=256, wc_flags=wc_flags))
        self.mr = MR(self.pd, 1 << 17, ACCESS)
        gid = self.ctx.query_gid(1, gid_index)
        cap = QPCap(max_send_wr=max_send_wr, max_recv_wr=64, max_send_sge=2,
                    max_inline_data=64)
        self.s = QPEx(self.ctx, QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.scq,
                                             rcq=self.scq, pd=self.pd, cap=cap,
                                             send_ops_flags=OPS,
                                             comp_mask=e.IBV_QP_INIT_ATTR_PD |
                                             e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        self.r = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.rcq, rcq=self.rcq,
                                        cap=QPCap(max_recv_wr=64)))
        connect_qp(self.s, gid, gid_index, self.r.qp_num)
        connect_qp(self.r, gid, gid_index, self.s.qp_num)
        self.cap = self.s.query(e.IBV_QP_CAP)[0].cap

    def sge(self, off, length):
        return SGE(self.mr.buf + off, length, self.mr.lkey)

    def recv(self, n, size=1024):
        for k in range(n):
            self.r.post_recv(RecvWR(wr_id=100 + k, num_sge=1,
                                    sg=[self.sge(RBUF + k * size, size)]))

    def send_one(self, wr_id):
        self.s.wr_start()
        self.s.wr_id = wr_id
        self.s.wr_flags = e.IBV_SEND_SIGNALED
        self.s.wr_send()
        self.s.wr_set_sge(self.sge(0, 8))
        self.s.wr_complete()

    def quiet(self, what):
        """Nothing completes on either side."""
        got = poll_ex(self.scq, 1, 0.3) + poll_ex(self.rcq, 1, 0.1)
        if got:
            raise Fail('%s: unexpected completion %s' % (what, got[0]))


def case_batch(b):
    """One batch: SEND of inline data from two buffers, RDMA WRITE from two
    SGEs, SEND with immediate; completions in order with the right fields."""
    b.recv(2)
    b.mr.write(b'a' * 16, 16, 0)
    b.mr.write(b'b' * 16, 16, 16)
    b.mr.write(b'c' * 100, 100, 4096)
    b.mr.write(b'd' * 28, 28, 8192)
    b.mr.write(b'e' * 64, 64, 12288)
    s = b.s
    s.wr_start()
    s.wr_id, s.wr_flags = 1, e.IBV_SEND_SIGNALED
    s.wr_send()
    s.wr_set_inline_data_list(2, [DataBuffer(b.mr.buf, 16), DataBuffer(b.mr.buf + 16, 16)])
    s.wr_id = 2
    s.wr_rdma_write(b.mr.rkey, b.mr.buf + RBUF + 32768)
    s.wr_set_sge_list(2, [b.sge(4096, 100), b.sge(8192, 28)])
    s.wr_id = 3
    s.wr_send_imm(IMM)
    s.wr_set_sge(b.sge(12288, 64))
    s.wr_complete()

    sent = poll_ex(b.scq, 3)
    if [w['wr_id'] for w in sent] != [1, 2, 3] or any(w['status'] for w in sent):
        raise Fail('send completions: %s' % sent)
    if [w['opcode'] for w in sent] != [e.IBV_WC_SEND, e.IBV_WC_RDMA_WRITE, e.IBV_WC_SEND]:
        raise Fail('send opcodes: %s' % [w['opcode'] for w in sent])
    got = poll_ex(b.rcq, 2)
    if len(got) != 2 or any(w['status'] or w['opcode'] != e.IBV_WC_RECV for w in got):
        raise Fail('receive completions: %s' % got)
    if got[0]['byte_len'] != 32 or got[0]['flags'] & e.IBV_WC_WITH_IMM:
        raise Fail('inline SEND received as %s' % got[0])
    if (got[1]['byte_len'] != 64 or not got[1]['flags'] & e.IBV_WC_WITH_IMM or
            got[1]['imm'] != IMM or got[1]['qp_num'] != b.r.qp_num):
        raise Fail('SEND with immediate received as %s' % got[1])
    if b.mr.read(32, RBUF) != b'a' * 16 + b'b' * 16:
        raise Fail('inline data differs')
    if b.mr.read(128, RBUF + 32768) != b'c' * 100 + b'd' * 28:
        raise Fail('RDMA WRITE data differs')
    if b.mr.read(64, RBUF + 1024) != b'e' * 64:
        raise Fail('SEND with immediate data differs')


def case_abort(b):
    """wr_abort discards the batch; the next one reuses its slots."""
    b.recv(2)
    b.s.wr_start()
    b.s.wr_id, b.s.wr_flags = 9, e.IBV_SEND_SIGNALED
    b.s.wr_send()
    b.s.wr_set_sge(b.sge(0, 8))
    b.s.wr_abort()
    b.quiet('after wr_abort')
    b.send_one(10)
    got = poll_ex(b.scq, 2, 1)
    if [w['wr_id'] for w in got] != [10] or got[0]['status']:
        raise Fail('after an aborted batch: completions %s, expected wr_id 10' % got)


def case_errors(b):
    """A batch with an error posts nothing and wr_complete says why."""
    s = b.s
    b.recv(8)

    def batch(*wrs):
        s.wr_start()
        for fn in wrs:
            s.wr_id, s.wr_flags = 7, e.IBV_SEND_SIGNALED
            fn()
        s.wr_complete()

    def good():
        s.wr_send()
        s.wr_set_sge(b.sge(0, 8))

    def many_sges():
        s.wr_send()
        n = b.cap.max_send_sge + 1
        s.wr_set_sge_list(n, [b.sge(64 * k, 8) for k in range(n)])

    def big_inline():
        s.wr_send()
        s.wr_set_inline_data(b.mr.buf, b.cap.max_inline_data + 1)

    expect_errno('SGEs beyond max_send_sge', errno.EINVAL, batch, good, many_sges)
    expect_errno('inline data beyond max_inline_data', errno.EINVAL, batch, good, big_inline)
    # the flags are taken when the WR starts, so set them before wr_send
    s.wr_start()
    s.wr_id, s.wr_flags = 7, 1 << 7
    s.wr_send()
    s.wr_set_sge(b.sge(0, 8))
    expect_errno('unknown send flag', errno.EINVAL, s.wr_complete)
    expect_errno('more WRs than the SQ holds', errno.ENOMEM, batch,
                 *([good] * (2 * b.cap.max_send_wr + 1)))
    b.quiet('after failed batches')
    b.send_one(11)
    got = poll_ex(b.scq, 2, 1)
    if [w['wr_id'] for w in got] != [11]:
        raise Fail('after failed batches: completions %s, expected wr_id 11' % got)
    poll_ex(b.rcq, 1)

    a = QPAttr(qp_state=e.IBV_QPS_RESET)
    s.modify(a, e.IBV_QP_STATE)
    expect_errno('ibv_wr_complete in RESET', errno.EINVAL, batch, good)
    expect_errno('ibv_post_send in RESET', errno.EINVAL, s.post_send,
                 SendWR(wr_id=12, num_sge=1, sg=[b.sge(0, 8)]))
    expect_errno('ibv_post_recv in RESET', errno.EINVAL, s.post_recv,
                 RecvWR(wr_id=13, num_sge=1, sg=[b.sge(0, 8)]))


TS_FLAGS = (e.IBV_WC_STANDARD_FLAGS | e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
            e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)


def poll_ts(cq, secs=10):
    """One completion of an extended CQ: (wr_id, status, device time, wall clock)."""
    end = time.time() + secs
    while cq.start_poll(PollCqAttr()) != 0:
        if time.time() > end:
            raise Fail('no completion within %d s' % secs)
        time.sleep(0.001)
    got = (cq.wr_id, cq.status, cq.read_timestamp(), cq.read_completion_wallclock_ns())
    cq.end_poll()
    return got


def device_ns(ctx):
    sec, nsec = ctx.query_rt_values_ex()
    return sec * 1000000000 + nsec


def case_timestamps(dev, gid_index):
    """Completion time stamps: the device clock is 1 GHz with a full mask;
    a SEND's two completions carry device times between two
    ibv_query_rt_values_ex() readings around it, in order, and wall clocks
    between two time.time_ns() readings."""
    b = Bed(dev, gid_index, wc_flags=TS_FLAGS)
    attr = b.ctx.query_device_ex()
    if attr.hca_core_clock != 1000000 or attr.completion_timestamp_mask != (1 << 64) - 1:
        raise Fail('hca_core_clock %d kHz, completion_timestamp_mask %#x: expected 1000000, 2^64-1'
                   % (attr.hca_core_clock, attr.completion_timestamp_mask))
    b.recv(1)
    d0, w0 = device_ns(b.ctx), time.time_ns()
    b.send_one(0x7501)
    s = poll_ts(b.scq)
    r = poll_ts(b.rcq)
    d1, w1 = device_ns(b.ctx), time.time_ns()
    for what, (wr_id, status, ts, wall) in (('send', s), ('recv', r)):
        if status != e.IBV_WC_SUCCESS:
            raise Fail('%s: status %d' % (what, status))
        if not d0 <= ts <= d1:
            raise Fail('%s: device time %d outside [%d, %d]' % (what, ts, d0, d1))
        if not w0 <= wall <= w1:
            raise Fail('%s: wall clock %d outside [%d, %d]' % (what, wall, w0, w1))


def case_refused(dev, gid_index):
    """What the provider cannot do is refused with EOPNOTSUPP."""
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQEX(ctx, CqInitAttrEx(cqe=16, wc_flags=0))

    def qp(qpt, ops, create_flags=None):
        mask = e.IBV_QP_INIT_ATTR_PD
        if ops is not None:
            mask |= e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
        if create_flags is not None:
            mask |= e.IBV_QP_INIT_ATTR_CREATE_FLAGS
        QPEx(ctx, QPInitAttrEx(qp_type=qpt, scq=cq, rcq=cq, pd=pd, cap=QPCap(),
                               send_ops_flags=ops or 0, create_flags=create_flags or 0,
                               comp_mask=mask)).close()

    qp(e.IBV_QPT_RC, OPS, 0)            # create_flags 0 is fine
    qp(e.IBV_QPT_UD, e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM)
    # memory windows and invalidation: RC (and UC but for SEND_WITH_INV)
    qp(e.IBV_QPT_RC, e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_LOCAL_INV |
       e.IBV_QP_EX_WITH_SEND_WITH_INV)
    qp(e.IBV_QPT_UC, e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_LOCAL_INV)
    for name, qpt, ops in (('UD BIND_MW', e.IBV_QPT_UD, e.IBV_QP_EX_WITH_BIND_MW),
                           ('UD LOCAL_INV', e.IBV_QPT_UD, e.IBV_QP_EX_WITH_LOCAL_INV),
                           ('UC SEND_WITH_INV', e.IBV_QPT_UC, e.IBV_QP_EX_WITH_SEND_WITH_INV),
                           ('TSO', e.IBV_QPT_RC, e.IBV_QP_EX_WITH_TSO),
                           ('UD RDMA_WRITE', e.IBV_QPT_UD, e.IBV_QP_EX_WITH_RDMA_WRITE),
                           ('UD RDMA_READ', e.IBV_QPT_UD, e.IBV_QP_EX_WITH_RDMA_READ)):
        expect_errno('send_ops_flags ' + name, errno.EOPNOTSUPP, qp, qpt, ops)
    expect_errno('create_flags BLOCK_SELF_MCAST_LB', errno.EOPNOTSUPP, qp,
                 e.IBV_QPT_UD, None, e.IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
    for name, flag in (('CVLAN', e.IBV_WC_EX_WITH_CVLAN),
                       ('FLOW_TAG', e.IBV_WC_EX_WITH_FLOW_TAG)):
        expect_errno('CQ wc_flags ' + name, errno.EOPNOTSUPP, CQEX, ctx,
                     CqInitAttrEx(cqe=16, wc_flags=flag))
    expect_errno('CQ flags IGNORE_OVERRUN', errno.EOPNOTSUPP, CQEX, ctx,
                 CqInitAttrEx(cqe=16, wc_flags=0, comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
                              flags=e.IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
    CQEX(ctx, CqInitAttrEx(cqe=16, wc_flags=e.IBV_WC_STANDARD_FLAGS,
                           comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
                           flags=e.IBV_CREATE_CQ_ATTR_SINGLE_THREADED)).close()


def main():
    dev, gid_index, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        if case == 'refused':
            case_refused(dev, gid_index)
        elif case == 'timestamps':
            case_timestamps(dev, gid_index)
        else:
            {'batch': case_batch, 'abort': case_abort,
             'errors': case_errors}[case](Bed(dev, gid_index))
    except Fail as ex:
        print('verbs_ex %s: %s' % (case, ex))
        sys.exit(1)


main()
