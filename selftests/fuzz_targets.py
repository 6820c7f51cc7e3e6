# SPDX-License-Identifier: GPL-2.0
"""Live QPs of every type and state for the wire fuzzer (99-fuzz.sh):

    python3 fuzz_targets.py DEVICE GID_INDEX PEER_IPV4

Creates on DEVICE: RC QPs in RESET, INIT, RTR, RTS (with READs and WRITEs
outstanding towards a peer that never answers), SQD and ERR, an XRC TGT QP
in RTS (its XRC domain holding an XRC SRQ with receives posted) and an XRC
INI QP in RTS (requests outstanding), all connected to PEER_IPV4 so that
frames from there pass the peer check; a UD QP in RTS; receives posted
wherever they may be. Prints one line

    targets qpns=Q1,Q2,... rkey=K va=V len=L srqn=S

then, until a line arrives on stdin, polls the CQ and brings every RTR, RTS
or SQD QP that a hostile frame moved to ERR back through RESET to its state
(so frames keep reaching live transports, and resets race with them).
Then it tears everything down and prints "teardown N ms"; it exits 1 if a
verb failed or teardown took over 5 s.
Not a test by itself (selftests/run only runs NN-*.sh).
"""
import os
import select
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqInitAttrEx
from pyverbs.wr import RecvWR, SendWR, SGE
from pyverbs.xrcd import XRCD, XRCDInitAttr

ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
MR_LEN = 1 << 16


def mapped_gid(ipv4):
    a, b, c, d = (int(x) for x in ipv4.split('.'))
    return GID('0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' % (a, b, c, d))


def main():
    dev, gid_index, peer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 1024)
    mr = MR(pd, MR_LEN, ACCESS)
    dgid = mapped_gid(peer)
    qps = {}

    def rc():
        return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                 cap=QPCap(max_send_wr=64, max_recv_wr=64)))

    def to_init(qp):
        a = QPAttr()
        a.qp_access_flags = ACCESS
        qp.to_init(a)

    def to_rtr(qp, dqpn):
        a = QPAttr()
        a.path_mtu = e.IBV_MTU_1024
        a.dest_qp_num = dqpn
        a.rq_psn = 0
        a.max_dest_rd_atomic = 16
        a.min_rnr_timer = 1
        a.ah_attr = AHAttr(gr=GlobalRoute(dgid=dgid, sgid_index=gid_index),
                           is_global=1, port_num=1)
        qp.to_rtr(a)

    def to_rts(qp):
        a = QPAttr()
        a.sq_psn = 0
        a.timeout = 18          # ~1 s: the requests stay outstanding a while
        a.retry_cnt = 7
        a.rnr_retry = 7
        a.max_rd_atomic = 16
        qp.to_rts(a)

    def recvs(qp, n=16):
        if qp.qp_type in (e.IBV_QPT_XRC_SEND, e.IBV_QPT_XRC_RECV):
            return      # no receive queue: the XRC SRQ has the buffers
        for i in range(n):
            qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf + 4096 * (i % 16), 4096, mr.lkey)]))

    def outstanding(qp):
        for i, op in enumerate((e.IBV_WR_RDMA_READ, e.IBV_WR_RDMA_WRITE, e.IBV_WR_SEND,
                                e.IBV_WR_RDMA_READ)):
            w = SendWR(wr_id=100 + i, opcode=op, num_sge=1, sg=[SGE(mr.buf, 8192, mr.lkey)])
            if op != e.IBV_WR_SEND:
                w.set_wr_rdma(0x1234, 0x10000)
            if qp.qp_type == e.IBV_QPT_XRC_SEND:
                w.set_qp_type_xrc(srq.get_srq_num())
            if qp.qp_type != e.IBV_QPT_XRC_RECV:
                qp.post_send(w)

    def state(qp, st):
        a = QPAttr()
        a.qp_state = st
        qp.modify(a, e.IBV_QP_STATE)

    def bring_up(name, qp):
        to_init(qp)
        recvs(qp)
        to_rtr(qp, 0x100 + list(qps).index(name))
        if name != 'rtr':
            to_rts(qp)
            outstanding(qp)
        if name == 'sqd':
            state(qp, e.IBV_QPS_SQD)
        elif name == 'err':
            state(qp, e.IBV_QPS_ERR)

    qps['reset'] = rc()
    qps['init'] = rc()
    to_init(qps['init'])
    recvs(qps['init'])
    for name in ('rtr', 'rts', 'sqd', 'err'):
        qps[name] = rc()
        bring_up(name, qps[name])

    # XRC: a domain (not shared: no file) with one XRC SRQ full of buffers
    xrcd = XRCD(ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD | e.IBV_XRCD_INIT_ATTR_OFLAGS,
                                  os.O_CREAT, -1))
    sa = SrqInitAttrEx(max_wr=64, max_sge=1)
    sa.srq_type = e.IBV_SRQT_XRC
    sa.pd, sa.xrcd, sa.cq = pd, xrcd, cq
    sa.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | \
        e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_XRCD
    srq = SRQ(ctx, sa)
    for i in range(32):
        srq.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf + 4096 * (i % 16), 4096,
                                                         mr.lkey)]))
    qps['xrc_tgt'] = QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV, xrcd=xrcd,
                                          comp_mask=e.IBV_QP_INIT_ATTR_XRCD))
    qps['xrc_ini'] = QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_SEND, scq=cq, pd=pd,
                                          cap=QPCap(max_send_wr=64, max_recv_wr=0,
                                                    max_recv_sge=0),
                                          comp_mask=e.IBV_QP_INIT_ATTR_PD))
    for name in ('xrc_tgt', 'xrc_ini'):
        bring_up(name, qps[name])

    ud = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=16, max_recv_wr=64)))
    a = QPAttr()
    a.qkey = 0x11111111
    ud.to_init(a)
    ud.to_rtr(QPAttr())
    a = QPAttr()
    a.sq_psn = 0
    ud.to_rts(a)
    recvs(ud, 32)
    qps['ud'] = ud

    print('targets qpns=%s rkey=%d va=%d len=%d srqn=%d' % (
        ','.join(str(q.qp_num) for q in qps.values()), mr.rkey, mr.buf, MR_LEN,
        srq.get_srq_num()), flush=True)
    polled = revived = 0
    while not select.select([sys.stdin], [], [], 0.05)[0]:
        while True:
            n, _ = cq.poll(num_entries=64)
            polled += n
            if not n:
                break
        for name in ('rtr', 'rts', 'sqd', 'xrc_tgt', 'xrc_ini'):
            attr, _ = qps[name].query(e.IBV_QP_STATE)
            if attr.qp_state == e.IBV_QPS_ERR:
                state(qps[name], e.IBV_QPS_RESET)
                try:
                    bring_up(name, qps[name])
                    revived += 1
                except PyverbsRDMAError:
                    pass    # a frame moved it to ERR on the way: next round
    sys.stdin.readline()

    # whatever the frames did, the completions are readable and teardown prompt
    end = time.time() + 2
    while time.time() < end:
        n, _ = cq.poll(num_entries=64)
        if not n:
            break
        polled += n
    t0 = time.time()
    for qp in qps.values():
        qp.close()
    srq.close()
    xrcd.close()
    mr.close()
    cq.close()
    pd.close()
    ctx.close()
    ms = int((time.time() - t0) * 1000)
    print('teardown %d ms (%d completions polled, %d QPs brought back from ERR)' %
          (ms, polled, revived), flush=True)
    sys.exit(0 if ms <= 5000 else 1)


main()
