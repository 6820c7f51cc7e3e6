# SPDX-License-Identifier: GPL-2.0
"""XRC behaviour on one sroce device (loopback), one case per run:

    python3 xrc_verbs.py DEVICE GID_INDEX CASE

CASE:
  send     two XRC INI QPs, each connected to an XRC TGT QP of one XRC
           domain holding two XRC SRQs: every SEND lands (byte-exact, one-
           and multi-packet, with immediate) in the SRQ its WR names, the
           completion on that SRQ's CQ with the TGT QP's number; the SRQ
           limit event of an XRC SRQ
  rdma     RDMA WRITE and READ through an XRC TGT QP, byte-exact, with an
           MR of the XRC SRQ's PD; an MR of another PD is a remote access
           error
  badsrq   a SEND naming no XRC SRQ, or one of another XRC domain, is a
           remote invalid request error (the QPs go to ERR)
  refuse   what must be refused: an XRC INI QP with a receive queue or an
           SRQ, posting receives to INI or TGT QPs, posting sends to a TGT
           QP, the SRQ number of a basic SRQ
  raw      the same posts as raw uverbs write() commands (uverbs_raw.py),
           past the provider: the driver refuses them (EINVAL)

Exit 0 when the case behaves as the IBTA and the verbs API say, 1 (with a
message) otherwise.
"""
import errno
import os
import sys
import tempfile

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr, SrqInitAttrEx
from pyverbs.wr import RecvWR, SendWR, SGE
from pyverbs.xrcd import XRCD, XRCDInitAttr

from rc_verbs import Fail, connect_qp
from srq_verbs import Events, poll

ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
BUF = 1 << 20


class Xrc:
    """INI QPs S(i) connected to TGT QPs T(i) of one XRC domain; XRC SRQs
    of that domain are added with srq(). All on one device."""

    def __init__(self, dev, gid_index, nqp=2):
        self.ctx = Context(name=dev)
        self.gid_index = gid_index
        self.gid = self.ctx.query_gid(1, gid_index)
        self.pd = PD(self.ctx)
        self.scq = CQ(self.ctx, 256)
        self.mr = MR(self.pd, BUF, ACCESS)
        self.files, self.domains = [], []
        self.xrcd = self.domain()
        self.snd, self.tgt = [], []
        for _ in range(nqp):
            self.snd.append(self.ini())
            self.tgt.append(self.target(self.xrcd))
        for s, t in zip(self.snd, self.tgt):
            connect_qp(s, self.gid, gid_index, t.qp_num)
            connect_qp(t, self.gid, gid_index, s.qp_num)

    def domain(self):
        f = tempfile.NamedTemporaryFile()
        self.files.append(f)
        fd = os.open(f.name, os.O_RDONLY | os.O_CREAT)
        try:
            xrcd = XRCD(self.ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD |
                                               e.IBV_XRCD_INIT_ATTR_OFLAGS,
                                               os.O_CREAT, fd))
        finally:
            os.close(fd)
        # pyverbs closes a domain's SRQs and QPs with it: keep it alive
        self.domains.append(xrcd)
        return xrcd

    def ini(self, cap=None, srq=None):
        cap = cap or QPCap(max_send_wr=64, max_recv_wr=0, max_recv_sge=0)
        return QP(self.ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_SEND, scq=self.scq,
                                         pd=self.pd, cap=cap, srq=srq,
                                         comp_mask=e.IBV_QP_INIT_ATTR_PD))

    def target(self, xrcd):
        return QP(self.ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV, xrcd=xrcd,
                                         comp_mask=e.IBV_QP_INIT_ATTR_XRCD))

    def srq(self, xrcd=None, pd=None, max_wr=16):
        """An XRC SRQ and its own CQ."""
        cq = CQ(self.ctx, 256)
        a = SrqInitAttrEx(max_wr=max_wr, max_sge=2)
        a.srq_type = e.IBV_SRQT_XRC
        a.pd = pd or self.pd
        a.xrcd = xrcd or self.xrcd
        a.cq = cq
        a.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | \
            e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_XRCD
        return SRQ(self.ctx, a), cq

    def send(self, i, srqn, off, length, wr_id, imm=None):
        wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND if imm is None else
                    e.IBV_WR_SEND_WITH_IMM, num_sge=1, send_flags=e.IBV_SEND_SIGNALED,
                    sg=[SGE(self.mr.buf + off, length, self.mr.lkey)])
        if imm is not None:
            wr.imm_data = imm
        wr.set_qp_type_xrc(srqn)
        self.snd[i].post_send(wr)


def pattern(tag, n):
    return bytes((tag * 7 + k) & 0xff for k in range(n))


def expect_status(wcs, n, status, what):
    if len(wcs) != n:
        raise Fail('%s: %d completions, expected %d' % (what, len(wcs), n))
    for wc in wcs:
        if wc.status != status:
            raise Fail('%s: completion status %d, expected %d' % (what, wc.status, status))


def case_send(dev, gid_index):
    x = Xrc(dev, gid_index)
    events = Events(x.ctx)
    (sa, ca), (sb, cb) = x.srq(), x.srq()
    na, nb = sa.get_srq_num(), sb.get_srq_num()
    if na == nb or not 0 < na < 1 << 24 or not 0 < nb < 1 << 24:
        raise Fail('XRC SRQ numbers %#x and %#x' % (na, nb))
    # receive buffers at 512 KiB + slot * 8 KiB (two SGEs: 1 KiB + 7 KiB)
    slot = [0]

    def post(srq, n):
        for _ in range(n):
            base = x.mr.buf + (1 << 19) + slot[0] * 8192
            srq.post_recv(RecvWR(wr_id=slot[0], num_sge=2,
                                 sg=[SGE(base, 1024, x.mr.lkey),
                                     SGE(base + 1024, 7168, x.mr.lkey)]))
            slot[0] += 1

    post(sa, 4)
    post(sb, 4)
    # (sender, SRQ, length, immediate): one packet, several, with immediate
    plan = [(0, sb, 100, None), (1, sa, 5000, None), (0, sa, 1, 0x12345678),
            (1, sb, 8192, None), (0, sb, 0, None), (1, sa, 3333, 0x0badcafe)]
    for k, (i, srq, n, imm) in enumerate(plan):
        x.mr.write(pattern(k, n) or b'\0', max(n, 1), k * 8192)
        x.send(i, srq.get_srq_num(), k * 8192, n, 100 + k, imm)
    expect_status(poll(x.scq, len(plan)), len(plan), e.IBV_WC_SUCCESS, 'sends')
    got = {id(ca): poll(ca, 3), id(cb): poll(cb, 3)}
    for cq in (ca, cb):
        expect_status(got[id(cq)], 3, e.IBV_WC_SUCCESS, 'receives')
    # two senders race each other: the lengths (all different) say which is which
    for k, (i, srq, n, imm) in enumerate(plan):
        cq = ca if srq is sa else cb
        wcs = [wc for wc in got[id(cq)] if wc.byte_len == n]
        if len(wcs) != 1:
            raise Fail('message %d (%d bytes) not received once by its SRQ' % (k, n))
        wc = wcs[0]
        if wc.qp_num != x.tgt[i].qp_num:
            raise Fail('message %d: wc.qp_num %#x, expected the TGT QP %#x' %
                       (k, wc.qp_num, x.tgt[i].qp_num))
        if imm is not None and (not wc.wc_flags & e.IBV_WC_WITH_IMM or
                                wc.imm_data != imm):
            raise Fail('message %d: immediate %#x flags %#x' % (k, wc.imm_data, wc.wc_flags))
        if n:
            data = x.mr.read(n, (1 << 19) + wc.wr_id * 8192)
            if data != pattern(k, n):
                raise Fail('message %d: received data differs' % k)
    # the limit event of an XRC SRQ
    sa.modify(SrqAttr(srq_limit=3), e.IBV_SRQ_LIMIT)
    post(sa, 2)		# 3 posted now (1 left + 2)
    x.mr.write(pattern(9, 64), 64, 0)
    x.send(0, na, 0, 64, 200)
    expect_status(poll(x.scq, 1), 1, e.IBV_WC_SUCCESS, 'send under the limit')
    expect_status(poll(ca, 1), 1, e.IBV_WC_SUCCESS, 'receive under the limit')
    if not events.wait(e.IBV_EVENT_SRQ_LIMIT_REACHED):
        raise Fail('no SRQ limit event from the XRC SRQ')


def case_rdma(dev, gid_index):
    x = Xrc(dev, gid_index, nqp=1)
    srq, _ = x.srq()
    srqn = srq.get_srq_num()
    src, dst = 0, 1 << 19
    n = 9000
    x.mr.write(pattern(3, n), n, src)
    wr = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(x.mr.buf + src, n, x.mr.lkey)])
    wr.set_wr_rdma(x.mr.rkey, x.mr.buf + dst)
    wr.set_qp_type_xrc(srqn)
    x.snd[0].post_send(wr)
    expect_status(poll(x.scq, 1), 1, e.IBV_WC_SUCCESS, 'RDMA WRITE')
    if x.mr.read(n, dst) != pattern(3, n):
        raise Fail('RDMA WRITE through XRC: data differs')
    # READ it back elsewhere
    back = 3 << 18
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(x.mr.buf + back, n, x.mr.lkey)])
    wr.set_wr_rdma(x.mr.rkey, x.mr.buf + dst)
    wr.set_qp_type_xrc(srqn)
    x.snd[0].post_send(wr)
    expect_status(poll(x.scq, 1), 1, e.IBV_WC_SUCCESS, 'RDMA READ')
    if x.mr.read(n, back) != pattern(3, n):
        raise Fail('RDMA READ through XRC: data differs')
    # the rkey is checked against the XRC SRQ's PD: an MR of another PD fails
    other = MR(PD(x.ctx), 4096, ACCESS)
    other.write(b'\x55' * 64, 64, 0)
    wr = SendWR(wr_id=3, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(x.mr.buf, 64, x.mr.lkey)])
    wr.set_wr_rdma(other.rkey, other.buf)
    wr.set_qp_type_xrc(srqn)
    x.snd[0].post_send(wr)
    expect_status(poll(x.scq, 1), 1, e.IBV_WC_REM_ACCESS_ERR, 'WRITE to an MR of another PD')
    if other.read(64, 0) != b'\x55' * 64:
        raise Fail('a refused WRITE changed the memory')


def case_badsrq(dev, gid_index):
    x = Xrc(dev, gid_index)
    srq, cq = x.srq()
    srq.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(x.mr.buf + (1 << 19), 4096, x.mr.lkey)]))
    # an XRC SRQ of another XRC domain, same device, same PD
    alien, acq = x.srq(xrcd=x.domain())
    alien.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(x.mr.buf + (1 << 19), 4096,
                                                       x.mr.lkey)]))
    free = max(srq.get_srq_num(), alien.get_srq_num()) + 1000
    for i, srqn, what in ((0, free, 'a SEND to a nonexistent XRC SRQ'),
                          (1, alien.get_srq_num(), 'a SEND to an XRC SRQ of another domain')):
        x.mr.write(b'\xaa' * 64, 64, 0)
        x.send(i, srqn, 0, 64, 10 + i)
        expect_status(poll(x.scq, 1), 1, e.IBV_WC_REM_INV_REQ_ERR, what)
    for c, what in ((cq, 'the good SRQ'), (acq, 'the foreign SRQ')):
        if poll(c, 1, secs=1):
            raise Fail('%s completed a receive' % what)
    if x.mr.read(64, 1 << 19) == b'\xaa' * 64:
        raise Fail('a refused SEND was placed')


def refused(what, fn, errnos=(errno.EINVAL, errno.EOPNOTSUPP)):
    try:
        fn()
    except (PyverbsRDMAError, PyverbsError) as ex:
        code = getattr(ex, 'error_code', None)
        if code is not None and code not in errnos:
            raise Fail('%s: refused with errno %d' % (what, code))
        return
    raise Fail('%s was not refused' % what)


def case_refuse(dev, gid_index):
    x = Xrc(dev, gid_index, nqp=1)
    basic = SRQ(x.pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    refused('an XRC INI QP with receive WRs', lambda: x.ini(
        cap=QPCap(max_send_wr=4, max_recv_wr=4, max_recv_sge=1)))
    refused('an XRC INI QP on an SRQ', lambda: x.ini(
        cap=QPCap(max_send_wr=4, max_recv_wr=0, max_recv_sge=0), srq=basic))
    rwr = RecvWR(wr_id=1, num_sge=1, sg=[SGE(x.mr.buf, 64, x.mr.lkey)])
    refused('post_recv on an XRC INI QP', lambda: x.snd[0].post_recv(rwr))
    refused('post_recv on an XRC TGT QP', lambda: x.tgt[0].post_recv(rwr))
    swr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                 sg=[SGE(x.mr.buf, 64, x.mr.lkey)])
    refused('post_send on an XRC TGT QP', lambda: x.tgt[0].post_send(swr))
    refused('the SRQ number of a basic SRQ', basic.get_srq_num)
    # local operations are not XRC's: LOCAL_INV on an INI QP
    inv = SendWR(wr_id=2, opcode=e.IBV_WR_LOCAL_INV, num_sge=0)
    refused('LOCAL_INV on an XRC INI QP', lambda: x.snd[0].post_send(inv))


def case_raw(dev, gid_index):
    """A hostile program's legacy write() commands on an XRC TGT QP's
    handle: work requests reach the driver (through the core's shared
    handle, on the real QP) and must be refused, not posted."""
    import struct
    import uverbs_raw as U
    CREATE_QP, DESTROY_QP, POST_SEND, POST_RECV = 24, 27, 28, 29
    OPEN_XRCD, CLOSE_XRCD = 37, 38
    QPT_XRC_TGT, WR_SEND = 10, 2
    uv = U.Uverbs(dev)
    try:
        xrcd = struct.unpack_from('<I', uv.cmd(OPEN_XRCD, struct.pack(
            '<II', 0xffffffff, os.O_CREAT), 8, True))[0]
        body = struct.pack('<QIIIIIIIIIBBBB', 0, xrcd, 0, 0, 0, 0, 0, 0, 0, 0,
                           0, QPT_XRC_TGT, 0, 0)
        qp = struct.unpack_from('<I', uv.cmd(CREATE_QP, body, 32, True))[0]
        sge = struct.pack('<QII', 0xffff888000000000, 64, 0)
        wr = struct.pack('<QIIII', 1, 1, WR_SEND, 0, 0) + bytes(32)
        err = U.errno_of(uv.cmd, POST_SEND, struct.pack('<IIII', qp, 1, 1, len(wr)) +
                         wr + sge, 8, True)
        if err != errno.EINVAL:
            raise Fail('raw POST_SEND on an XRC TGT QP: errno %d, expected EINVAL' % err)
        rwr = struct.pack('<QII', 1, 1, 0)
        err = U.errno_of(uv.cmd, POST_RECV, struct.pack('<IIII', qp, 1, 1, len(rwr)) +
                         rwr + sge, 8, True)
        if err != errno.EINVAL:
            raise Fail('raw POST_RECV on an XRC TGT QP: errno %d, expected EINVAL' % err)
        # an empty post (a doorbell) is harmless
        uv.cmd(POST_SEND, struct.pack('<IIII', qp, 0, 0, len(wr)), 8, True)
        uv.cmd(DESTROY_QP, struct.pack('<II', qp, 0), 8, True)
        uv.cmd(CLOSE_XRCD, struct.pack('<I', xrcd))
    finally:
        uv.close()


CASES = {'send': case_send, 'rdma': case_rdma, 'badsrq': case_badsrq,
         'refuse': case_refuse, 'raw': case_raw}


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.exit('usage: xrc_verbs.py DEVICE GID_INDEX %s' % '|'.join(CASES))
    try:
        CASES[sys.argv[3]](sys.argv[1], int(sys.argv[2]))
    except Fail as ex:
        print('FAIL: %s' % ex)
        sys.exit(1)


if __name__ == '__main__':
    main()
