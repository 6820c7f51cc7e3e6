# SPDX-License-Identifier: GPL-2.0
"""RC atomics on one sroce device (loopback): the capability, one good
CMP_SWAP and FETCH_ADD, ATOMIC WRITE (IBTA 1.5, ibv_wr_atomic_write) and
the error paths, every case on fresh QPs:

    python3 rc_atomics.py DEVICE GID_INDEX CASE...

Prints "ok CASE" or "not ok CASE: why" per case (one process for all of
them: under TCG starting Python and pyverbs takes seconds); exit 0 when
every case behaved as the IBTA says, 1 otherwise.
"""
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.wr import SendWR, SGE

from rc_verbs import Fail, connect_qp, run_cases

DATA = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
ATOMIC = DATA | e.IBV_ACCESS_REMOTE_ATOMIC
STATUS = {e.IBV_WC_SUCCESS: 'IBV_WC_SUCCESS', e.IBV_WC_REM_INV_REQ_ERR: 'IBV_WC_REM_INV_REQ_ERR',
          e.IBV_WC_REM_ACCESS_ERR: 'IBV_WC_REM_ACCESS_ERR',
          e.IBV_WC_REM_OP_ERR: 'IBV_WC_REM_OP_ERR', e.IBV_WC_WR_FLUSH_ERR: 'IBV_WC_WR_FLUSH_ERR',
          e.IBV_WC_RETRY_EXC_ERR: 'IBV_WC_RETRY_EXC_ERR',
          e.IBV_WC_LOC_QP_OP_ERR: 'IBV_WC_LOC_QP_OP_ERR'}
ORIG = 0x0123456789abcdef
POISON = 0x5a5a5a5a5a5a5a5a


class Node:
    """An RC QP with its CQ, an MR allowing atomics and one without;
    with EX an extended QP that may post ATOMIC WRITE too."""

    def __init__(self, ctx, pd, qp_access=ATOMIC, ex=False):
        self.cq = CQ(ctx, 16)
        cap = QPCap(max_send_wr=8, max_recv_wr=8)
        if ex:
            self.qp = QPEx(ctx, QPInitAttrEx(
                qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, pd=pd, cap=cap,
                send_ops_flags=e.IBV_QP_EX_WITH_ATOMIC_WRITE | e.IBV_QP_EX_WITH_RDMA_WRITE,
                comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        else:
            self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                                        cap=cap))
        self.mr = MR(pd, 4096, ATOMIC)
        self.plain = MR(pd, 4096, DATA)      # no IBV_ACCESS_REMOTE_ATOMIC
        self.qp_access = qp_access

    def connect(self, gid, gid_index, dest_qpn):
        connect_qp(self.qp, gid, gid_index, dest_qpn, access=self.qp_access)

    def atomic(self, op, raddr, rkey, compare_add, swap=0, wr_id=1):
        w = SendWR(wr_id=wr_id, opcode=op, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                   sg=[SGE(self.mr.buf + 64, 8, self.mr.lkey)])
        w.set_wr_atomic(rkey, raddr, compare_add, swap)
        self.qp.post_send(w)

    def atomic_write(self, raddr, rkey, data, wr_id=1):
        self.qp.wr_start()
        self.qp.wr_id = wr_id
        self.qp.wr_flags = e.IBV_SEND_SIGNALED
        self.qp.wr_atomic_write(rkey, raddr, data)
        self.qp.wr_complete()

    def wait(self, secs=15):
        end = time.time() + secs
        while time.time() < end:
            cnt, wcs = self.cq.poll(num_entries=1)
            if cnt:
                return wcs[0]
            time.sleep(0.001)
        raise Fail('no completion within %d s' % secs)


def put(mr, off, value):
    mr.write(struct.pack('=Q', value), 8, off)


def get(mr, off):
    return struct.unpack('=Q', mr.read(8, off))[0]


def pair(ctx, pd, gid, gid_index, responder_access=ATOMIC, ex=False):
    a, b = Node(ctx, pd, ex=ex), Node(ctx, pd, responder_access)
    a.connect(gid, gid_index, b.qp.qp_num)
    b.connect(gid, gid_index, a.qp.qp_num)
    return a, b


def run_op(a, op, raddr, rkey, compare_add, swap, status, opcode=None):
    """Post one atomic from A, expect STATUS (and OPCODE on success)."""
    put(a.mr, 64, POISON)
    a.atomic(op, raddr, rkey, compare_add, swap)
    wc = a.wait()
    if wc.status != status:
        raise Fail('completion status %s, expected %s' %
                   (STATUS.get(wc.status, str(wc.status)), STATUS.get(status, str(status))))
    if status == e.IBV_WC_SUCCESS and wc.opcode != opcode:
        raise Fail('completion opcode %d, expected %d' % (wc.opcode, opcode))
    return wc


AW = b'\x11\x22\x33\x44\x55\x66\x77\x88'


def run_aw(a, raddr, rkey, status):
    """One ATOMIC WRITE of AW from A, expect STATUS."""
    a.atomic_write(raddr, rkey, AW)
    wc = a.wait()
    if wc.status != status:
        raise Fail('completion status %s, expected %s' %
                   (STATUS.get(wc.status, str(wc.status)), STATUS.get(status, str(status))))
    if status == e.IBV_WC_SUCCESS and wc.opcode != e.IBV_WC_ATOMIC_WRITE:
        raise Fail('completion opcode %d, expected IBV_WC_ATOMIC_WRITE' % wc.opcode)


def case_aw(name, ctx, pd, gid, gid_index):
    """ATOMIC WRITE: the device capability, the 8 bytes stored as they
    are (repeatedly, interleaved with a CMP_SWAP that sees them), and the
    refusals (misaligned: REM_INV_REQ; bad rkey, an MR or a QP without
    IBV_ACCESS_REMOTE_WRITE, beyond the MR: REM_ACCESS), target untouched."""
    if name == 'aw_caps':
        got = ctx.query_device_ex().device_cap_flags_ex
        if not got & (1 << 40):     # IB_UVERBS_DEVICE_ATOMIC_WRITE
            raise Fail('device_cap_flags_ex %#x lacks ATOMIC_WRITE (1 << 40)' % got)
        return
    ro = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ
    a, b = pair(ctx, pd, gid, gid_index,
                ro if name == 'aw_qp_no_write' else ATOMIC, ex=True)
    ro_mr = MR(pd, 4096, ro)
    for mr in (b.mr, ro_mr):
        put(mr, 120, 0)
        put(mr, 128, ORIG)
        put(mr, 136, 0)
    if name == 'aw_good':
        for k in range(3):
            put(b.mr, 128, ORIG + k)
            run_aw(a, b.mr.buf + 128, b.mr.rkey, e.IBV_WC_SUCCESS)
            if b.mr.read(8, 128) != AW or get(b.mr, 120) or get(b.mr, 136):
                raise Fail('round %d: target %r, neighbours %#x %#x' %
                           (k, b.mr.read(8, 128), get(b.mr, 120), get(b.mr, 136)))
        value = struct.unpack('=Q', AW)[0]
        run_op(a, e.IBV_WR_ATOMIC_CMP_AND_SWP, b.mr.buf + 128, b.mr.rkey, value, 3,
               e.IBV_WC_SUCCESS, e.IBV_WC_COMP_SWAP)
        if get(a.mr, 64) != value or get(b.mr, 128) != 3:
            raise Fail('CMP_SWAP after ATOMIC WRITE: returned %#x, target %#x' %
                       (get(a.mr, 64), get(b.mr, 128)))
        return
    if name == 'aw_misaligned':
        run_aw(a, b.mr.buf + 132, b.mr.rkey, e.IBV_WC_REM_INV_REQ_ERR)
        mem = b.mr
    elif name == 'aw_bad_rkey':
        run_aw(a, b.mr.buf + 128, b.mr.rkey ^ 0x5500, e.IBV_WC_REM_ACCESS_ERR)
        mem = b.mr
    elif name == 'aw_mr_no_write':
        run_aw(a, ro_mr.buf + 128, ro_mr.rkey, e.IBV_WC_REM_ACCESS_ERR)
        mem = ro_mr
    elif name == 'aw_qp_no_write':
        run_aw(a, b.mr.buf + 128, b.mr.rkey, e.IBV_WC_REM_ACCESS_ERR)
        mem = b.mr
    elif name == 'aw_out_of_bounds':
        run_aw(a, b.mr.buf + 4096, b.mr.rkey, e.IBV_WC_REM_ACCESS_ERR)
        mem = b.mr
    else:
        raise Fail('unknown case')
    if get(mem, 128) != ORIG or get(mem, 136) != 0 or get(mem, 120) != 0:
        raise Fail('the target changed although the ATOMIC WRITE was refused: %#x' %
                   get(mem, 128))


def case(name, ctx, pd, gid, gid_index):
    if name.startswith('aw_'):
        case_aw(name, ctx, pd, gid, gid_index)
        return
    faa, cas = e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP
    err_access, err_inv = e.IBV_WC_REM_ACCESS_ERR, e.IBV_WC_REM_INV_REQ_ERR
    if name == 'caps':
        got = ctx.query_device().atomic_caps
        if got != e.IBV_ATOMIC_HCA:
            raise Fail('atomic_caps %d, expected IBV_ATOMIC_HCA (%d)' % (got, e.IBV_ATOMIC_HCA))
        return
    a, b = pair(ctx, pd, gid, gid_index,
                DATA if name == 'qp_no_atomic' else ATOMIC)
    for mr in (b.mr, b.plain):
        put(mr, 120, 0)
        put(mr, 128, ORIG)
        put(mr, 136, 0)
    if name == 'good':
        run_op(a, faa, b.mr.buf + 128, b.mr.rkey, 5, 0, e.IBV_WC_SUCCESS, e.IBV_WC_FETCH_ADD)
        if get(a.mr, 64) != ORIG or get(b.mr, 128) != ORIG + 5:
            raise Fail('FETCH_ADD: returned %#x, target %#x' % (get(a.mr, 64), get(b.mr, 128)))
        run_op(a, cas, b.mr.buf + 128, b.mr.rkey, ORIG + 5, 7, e.IBV_WC_SUCCESS,
               e.IBV_WC_COMP_SWAP)
        if get(a.mr, 64) != ORIG + 5 or get(b.mr, 128) != 7:
            raise Fail('CMP_SWAP (equal): returned %#x, target %#x' % (get(a.mr, 64),
                                                                     get(b.mr, 128)))
        run_op(a, cas, b.mr.buf + 128, b.mr.rkey, 8, 9, e.IBV_WC_SUCCESS, e.IBV_WC_COMP_SWAP)
        if get(a.mr, 64) != 7 or get(b.mr, 128) != 7:
            raise Fail('CMP_SWAP (differs): returned %#x, target %#x' % (get(a.mr, 64),
                                                                       get(b.mr, 128)))
        return
    if name == 'misaligned':
        run_op(a, faa, b.mr.buf + 132, b.mr.rkey, 1, 0, err_inv)
        mem = b.mr
    elif name == 'bad_rkey':
        run_op(a, faa, b.mr.buf + 128, b.mr.rkey ^ 0x5500, 1, 0, err_access)
        mem = b.mr
    elif name == 'mr_no_atomic':
        run_op(a, cas, b.plain.buf + 128, b.plain.rkey, ORIG, 1, err_access)
        mem = b.plain
    elif name == 'qp_no_atomic':
        run_op(a, faa, b.mr.buf + 128, b.mr.rkey, 1, 0, err_access)
        mem = b.mr
    elif name == 'out_of_bounds':
        run_op(a, faa, b.mr.buf + 4096, b.mr.rkey, 1, 0, err_access)
        mem = b.mr
    else:
        raise Fail('unknown case')
    # a refused atomic executed nothing
    if get(mem, 128) != ORIG or get(mem, 136) != 0 or get(mem, 120) != 0:
        raise Fail('the target changed although the atomic was refused: %#x' % get(mem, 128))


def main():
    dev, gid_index, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, gid_index)
    run_cases(cases, lambda name: case(name, ctx, pd, gid, gid_index))


main()
