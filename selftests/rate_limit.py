# SPDX-License-Identifier: GPL-2.0
"""Per-QP rate limits on one sroce device (loopback), one case per run:

    python3 rate_limit.py DEVICE GID_INDEX CASE

CASE:
  caps     query_device_ex reports packet_pacing_caps: 1 Mbit/s to
           100 Gbit/s, RC, UC and XRC initiator QPs
  paced    an RC QP limited to 8 Mbit/s in RTS (ibv_modify_qp with
           IBV_QP_RATE_LIMIT): a 1 MiB WRITE takes at least the time the
           limit allows (less the pacer's one 16 KiB burst), byte-exact;
           `rdma resource show qp -dd` shows rate_limit_kbps; limit 0 lifts
           it (the attribute goes) and the next WRITE is byte-exact too
  uc       the same limit on a UC QP: a 512 KiB WRITE is paced
  rtr      the limit set on the way RTR -> RTS holds from the first packet
  reset    RESET forgets the limit (the attribute goes)
  refused  EINVAL below 1 Mbit/s, above 100 Gbit/s, or on a QP not on its
           way to or in RTS; EOPNOTSUPP on a UD QP

A lower bound on a paced transfer's time is the behaviour under test (a
slow machine only makes it longer); no upper bound is checked. Exit 0 when
the case behaves, 1 with a message otherwise.
"""
import errno
import json
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

from rc_verbs import ACCESS, Fail, Rc, connect_qp, expect_errno, expect_wc, pattern

LIMIT = 8000                 # kbit/s: 1 MB/s
BURST = 16384                # the pacer's burst (dcqcn.c SROCE_DCQCN_BURST)
MIN_KBPS, MAX_KBPS = 1000, 100000000
QPTS = (1 << e.IBV_QPT_RC) | (1 << e.IBV_QPT_UC) | (1 << e.IBV_QPT_XRC_SEND)


class Pair:
    """Sender S and receiver R of type QPT on one device, one MR each."""

    def __init__(self, ctx, pd, gid, gidx, qpt=e.IBV_QPT_RC, size=1 << 20, connect=True):
        self.ctx, self.gid, self.gidx, self.size, self.qpt = ctx, gid, gidx, size, qpt
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=16, max_recv_wr=16)
        self.s = QP(pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, cap=cap))
        self.r = QP(pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, cap=cap))
        self.smr = MR(pd, size, ACCESS)
        self.rmr = MR(pd, size, ACCESS)
        if connect:
            self.connect(self.s, self.r.qp_num)
            self.connect(self.r, self.s.qp_num)

    def connect(self, qp, dqpn):
        connect_qp(qp, self.gid, self.gidx, dqpn, uc=self.qpt == e.IBV_QPT_UC)

    def write(self, n, seed, what):
        """A signalled n-byte WRITE S -> R, checked; returns its seconds."""
        data = pattern(seed, n)
        self.smr.write(data, n, 0)
        self.rmr.write(bytes(n), n, 0)
        w = SendWR(wr_id=seed, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                   send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(self.smr.buf, n, self.smr.lkey)])
        w.set_wr_rdma(self.rmr.rkey, self.rmr.buf)
        t0 = time.monotonic()
        self.s.post_send(w)
        expect_wc(self, what, secs=60)
        dt = time.monotonic() - t0
        if self.rmr.read(n, 0) != data:
            raise Fail('%s: the data differ' % what)
        return dt

    poll = Rc.poll          # completions of self.cq, as expect_wc() wants


def set_limit(qp, kbps):
    a = QPAttr()
    a.rate_limit = kbps
    qp.modify(a, e.IBV_QP_RATE_LIMIT)


def rate_attr(dev, qpn):
    """rate_limit_kbps of QP qpn in `rdma -j -dd resource show qp`, or None."""
    out = subprocess.run(['rdma', '-j', '-dd', 'resource', 'show', 'qp', 'link', dev + '/1'],
                         capture_output=True, text=True, check=True).stdout
    for o in json.loads(out):
        if o.get('lqpn') == qpn:
            return o.get('drv_rate_limit_kbps')
    raise Fail('QP %d not in rdma resource show qp' % qpn)


def floor_secs(n):
    """What n bytes (payload alone, headers only add) take at LIMIT, less one burst."""
    return (n - BURST) * 8 / (LIMIT * 1000.0)


def paced(p, n, seed, what):
    dt = p.write(n, seed, what)
    want = floor_secs(n)
    print('# %s: %d KiB in %.2f s at %d kbit/s (at least %.2f s)' % (what, n >> 10, dt, LIMIT,
                                                                    want), flush=True)
    if dt < want:
        raise Fail('%s: %d bytes in %.2f s, faster than %d kbit/s allows (%.2f s)' %
                   (what, n, dt, LIMIT, want))


def case_caps(ctx, pd, gid, gidx, dev):
    c = ctx.query_device_ex().packet_pacing_caps
    got = (c.qp_rate_limit_min, c.qp_rate_limit_max, c.supported_qpts)
    if got != (MIN_KBPS, MAX_KBPS, QPTS):
        raise Fail('packet_pacing_caps %r, expected %r' % (got, (MIN_KBPS, MAX_KBPS, QPTS)))


def case_paced(ctx, pd, gid, gidx, dev):
    p = Pair(ctx, pd, gid, gidx)
    set_limit(p.s, LIMIT)
    got = rate_attr(dev, p.s.qp_num)
    if got != LIMIT:
        raise Fail('rate_limit_kbps %r, expected %d' % (got, LIMIT))
    paced(p, 1 << 20, 1, 'RC WRITE 1 MiB limited')
    set_limit(p.s, 0)
    if rate_attr(dev, p.s.qp_num) is not None:
        raise Fail('rate_limit_kbps still shown after limit 0')
    dt = p.write(1 << 20, 2, 'RC WRITE 1 MiB after limit 0')
    print('# limit lifted: 1024 KiB in %.2f s' % dt, flush=True)


def case_uc(ctx, pd, gid, gidx, dev):
    p = Pair(ctx, pd, gid, gidx, qpt=e.IBV_QPT_UC)
    set_limit(p.s, LIMIT)
    paced(p, 1 << 19, 3, 'UC WRITE 512 KiB limited')


def case_rtr(ctx, pd, gid, gidx, dev):
    p = Pair(ctx, pd, gid, gidx, connect=False)
    p.connect(p.r, p.s.qp_num)
    a = QPAttr()
    a.qp_access_flags = ACCESS
    p.s.to_init(a)
    a = QPAttr()
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = p.r.qp_num
    a.max_dest_rd_atomic = 4
    a.min_rnr_timer = 1
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gidx), is_global=1, port_num=1)
    p.s.to_rtr(a)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTS
    a.timeout, a.retry_cnt, a.rnr_retry, a.max_rd_atomic = 14, 7, 7, 4
    a.rate_limit = LIMIT
    p.s.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
               e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC | e.IBV_QP_RATE_LIMIT)
    paced(p, 1 << 19, 4, 'RC WRITE 512 KiB limited from RTR -> RTS')


def case_reset(ctx, pd, gid, gidx, dev):
    p = Pair(ctx, pd, gid, gidx)
    set_limit(p.s, LIMIT)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RESET
    p.s.modify(a, e.IBV_QP_STATE)
    if rate_attr(dev, p.s.qp_num) is not None:
        raise Fail('rate_limit_kbps still shown after RESET')


def case_refused(ctx, pd, gid, gidx, dev):
    p = Pair(ctx, pd, gid, gidx)
    expect_errno('rate_limit %d kbit/s' % (MIN_KBPS - 1), errno.EINVAL, set_limit, p.s,
                 MIN_KBPS - 1)
    expect_errno('rate_limit %d kbit/s' % (MAX_KBPS + 1), errno.EINVAL, set_limit, p.s,
                 MAX_KBPS + 1)
    if rate_attr(dev, p.s.qp_num) is not None:
        raise Fail('a refused rate_limit shows')
    q = Pair(ctx, pd, gid, gidx, connect=False)
    a = QPAttr()
    a.qp_access_flags = ACCESS
    q.s.to_init(a)
    expect_errno('rate_limit in INIT', errno.EINVAL, set_limit, q.s, LIMIT)
    cq = CQ(ctx, 8)
    ud = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    a = QPAttr()
    a.qkey = 0x11111111
    ud.to_rts(a)
    expect_errno('rate_limit on a UD QP', errno.EOPNOTSUPP, set_limit, ud, LIMIT)


def case_measure(ctx, pd, gid, gidx, dev):
    """Not a check (make bench material): the payload rate a paced RC WRITE
    stream reaches per limit, alone and as two QPs side by side."""
    for kbps in (10000, 50000, 200000):
        n = max(1 << 20, kbps * 1000 // 8 * 2)        # about 2 s at the limit
        n = min(n, 32 << 20)
        ps = [Pair(ctx, pd, gid, gidx, size=n) for _ in range(2)]
        for p in ps:
            set_limit(p.s, kbps)
        for k in (1, 2):
            t0 = time.monotonic()
            for p in ps[:k]:
                w = SendWR(wr_id=k, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                           send_flags=e.IBV_SEND_SIGNALED,
                           sg=[SGE(p.smr.buf, n, p.smr.lkey)])
                w.set_wr_rdma(p.rmr.rkey, p.rmr.buf)
                p.s.post_send(w)
            ends = []
            for p in ps[:k]:
                expect_wc(p, 'measure', secs=120)
                ends.append(time.monotonic() - t0)
            rates = ['%.1f' % (n * 8 / d / 1e6) for d in ends]
            print('# limit %d Mbit/s, %d QP(s), %d MiB each: %s Mbit/s payload' %
                  (kbps // 1000, k, n >> 20, ' '.join(rates)), flush=True)
        for p in ps:
            p.s.close()
            p.r.close()


def main():
    dev, gidx, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, gidx)
    try:
        globals()['case_' + case](ctx, pd, gid, gidx, dev)
    except Fail as ex:
        print('# %s: %s' % (case, ex), flush=True)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
