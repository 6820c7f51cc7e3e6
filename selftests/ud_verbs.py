# SPDX-License-Identifier: GPL-2.0
"""UD QPs and address handles on one sroce device (loopback), one case per
run:

    python3 ud_verbs.py DEVICE GID_INDEX CASE

Exit 0 when the case behaves as expected, 1 (with a message) otherwise.
Not a test by itself; used by 97-rdmacm.sh.
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

QKEY = 0x11223344
GRH = 40


class UDNode:
    def __init__(self, ctx, pd, qkey=QKEY, depth=16):
        self.cq = CQ(ctx, 4 * depth)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq, rcq=self.cq,
                                    cap=QPCap(max_send_wr=depth, max_recv_wr=depth)))
        self.mr = MR(pd, max(16384, depth * 256), e.IBV_ACCESS_LOCAL_WRITE)
        a = QPAttr()
        a.qkey = qkey
        a.pkey_index = 0
        a.port_num = 1
        self.qp.to_rts(a)

    def wait(self, n=1, secs=5):
        got, end = [], time.time() + secs
        while len(got) < n and time.time() < end:
            cnt, wcs = self.cq.poll(num_entries=8)
            got += list(wcs[:cnt]) if cnt else []
        return got

    def recv(self, size, wr_id=7):
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                                 sg=[SGE(self.mr.buf, size, self.mr.lkey)]))

    def send(self, ah, dqpn, size, qkey=QKEY, imm=None, off=8192, flags=e.IBV_SEND_SIGNALED):
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND_WITH_IMM if imm is not None else e.IBV_WR_SEND,
                    num_sge=1, sg=[SGE(self.mr.buf + off, size, self.mr.lkey)],
                    send_flags=flags)
        if imm is not None:
            wr.imm_data = imm
        wr.set_wr_ud(ah, dqpn, qkey)
        self.qp.post_send(wr)


def counter(dev, name):
    with open('/sys/class/infiniband/%s/ports/1/hw_counters/%s' % (dev, name)) as f:
        return int(f.read())


def make_ah(ctx, pd, gid_index):
    gid = ctx.query_gid(1, gid_index)
    return AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gid_index),
                              is_global=1, port_num=1))


def expect_send_error(node, what):
    wcs = node.wait()
    if not wcs or wcs[0].status == e.IBV_WC_SUCCESS:
        print('%s: send completed %s, expected an error' %
              (what, [w.status for w in wcs]))
        return 1
    return 0


def main():
    dev, gidx, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    a, b = UDNode(ctx, pd), UDNode(ctx, pd)
    ah = make_ah(ctx, pd, gidx)
    size = 1000
    payload = bytes((i * 7 + 3) & 0xff for i in range(size))
    a.mr.write(payload, size, 8192)

    if case in ('data', 'imm'):
        b.recv(GRH + size)
        a.send(ah, b.qp.qp_num, size, imm=0x12345678 if case == 'imm' else None)
        sw, rw = a.wait(), b.wait()
        if not sw or sw[0].status != e.IBV_WC_SUCCESS:
            print('send completion: %s' % [w.status for w in sw])
            return 1
        if not rw or rw[0].status != e.IBV_WC_SUCCESS:
            print('recv completion: %s' % [w.status for w in rw])
            return 1
        wc = rw[0]
        if wc.byte_len != GRH + size or wc.src_qp != a.qp.qp_num or \
                not wc.wc_flags & e.IBV_WC_GRH:
            print('wc: byte_len %d src_qp %d flags %#x' % (wc.byte_len, wc.src_qp, wc.wc_flags))
            return 1
        if case == 'imm' and (not wc.wc_flags & e.IBV_WC_WITH_IMM or
                              wc.imm_data != 0x12345678):
            print('imm: flags %#x imm %#x' % (wc.wc_flags, wc.imm_data))
            return 1
        data = b.mr.read(GRH + size, 0)
        ver_ihl, proto = data[20], data[29]
        src, dst = data[32:36], data[36:40]
        if ver_ihl != 0x45 or proto != 17 or data[:20] != bytes(20) or src != dst:
            print('GRH area: %s' % data[:40].hex())
            return 1
        # every IPv4 header byte is set (a DF datagram's ID is 0) and checks
        words = sum(int.from_bytes(data[i:i + 2], 'big') for i in range(20, 40, 2))
        while words > 0xffff:
            words = (words & 0xffff) + (words >> 16)
        if data[24:26] != bytes(2) or not data[26] & 0x40 or words != 0xffff:
            print('IPv4 header in the GRH area: %s' % data[20:40].hex())
            return 1
        if data[GRH:] != payload:
            print('payload differs')
            return 1
        return 0
    if case == 'mtu':
        port_mtu = 128 << ctx.query_port(1).active_mtu
        a.send(ah, b.qp.qp_num, port_mtu + 4, off=0)
        return expect_send_error(a, 'longer than the port MTU')
    if case == 'ah_pd':
        pd2 = PD(ctx)
        return (a.send(make_ah(ctx, pd2, gidx), b.qp.qp_num, 64) or
                expect_send_error(a, 'AH of another PD'))
    if case == 'ah_ctx':
        ctx2 = Context(name=dev)
        pd2 = PD(ctx2)
        return (a.send(make_ah(ctx2, pd2, gidx), b.qp.qp_num, 64) or
                expect_send_error(a, 'AH of another context'))
    if case == 'qkey':
        before = counter(dev, 'rx_drop_qkey')
        b.recv(GRH + size)
        a.send(ah, b.qp.qp_num, 64, qkey=QKEY + 1)
        a.wait()
        if b.wait(secs=1):
            print('a datagram with the wrong Q_Key was delivered')
            return 1
        if counter(dev, 'rx_drop_qkey') <= before:
            print('rx_drop_qkey did not grow')
            return 1
        return 0
    if case == 'no_buf':
        before = counter(dev, 'rx_drop_no_rqe')
        a.send(ah, b.qp.qp_num, 64)
        a.wait()
        time.sleep(0.5)
        if counter(dev, 'rx_drop_no_rqe') <= before:
            print('rx_drop_no_rqe did not grow')
            return 1
        b.recv(GRH + size)
        a.send(ah, b.qp.qp_num, 64)
        rw = b.wait()
        if not rw or rw[0].status != e.IBV_WC_SUCCESS:
            print('QP unusable after a drop: %s' % [w.status for w in rw])
            return 1
        return 0
    if case == 'short_buf':
        b.recv(GRH + 10)
        a.send(ah, b.qp.qp_num, 64)
        rw = b.wait()
        if not rw or rw[0].status != e.IBV_WC_LOC_LEN_ERR:
            print('short receive buffer: %s' % [w.status for w in rw])
            return 1
        b.recv(GRH + size)
        a.send(ah, b.qp.qp_num, 64)
        rw = b.wait()
        if not rw or rw[0].status != e.IBV_WC_SUCCESS:
            print('QP unusable after a length error: %s' % [w.status for w in rw])
            return 1
        return 0
    if case in ('destroy_sends', 'destroy_ah_sends'):
        # datagrams posted (unsignaled) right before destroy_qp (and
        # destroy_ah first, as mckey's sender does) are sent, as a NIC
        # fetches them with their address at the doorbell
        n = 128
        ah = make_ah(ctx, pd, gidx)
        c, d = UDNode(ctx, pd, depth=n), UDNode(ctx, pd, depth=n)
        for i in range(n):
            d.qp.post_recv(RecvWR(wr_id=i, num_sge=1,
                                  sg=[SGE(d.mr.buf + i * 256, 256, d.mr.lkey)]))
        # one chained post, then destroy: no time for the worker in between
        wrs = [None]
        for i in range(n):
            wrs.append(SendWR(wr_id=i, num_sge=1, sg=[SGE(c.mr.buf, 64, c.mr.lkey)],
                              send_flags=0, next_wr=wrs[-1]))
            wrs[-1].set_wr_ud(ah, d.qp.qp_num, QKEY)
        c.qp.post_send(wrs[-1])
        if case == 'destroy_ah_sends':
            ah.close()
        c.qp.close()
        rw = d.wait(n)
        bad = [w.status for w in rw if w.status != e.IBV_WC_SUCCESS]
        if len(rw) != n or bad:
            print('%d of %d datagrams arrived after destroy_qp (errors %s)' %
                  (len(rw), n, bad))
            return 1
        return 0
    print('unknown case ' + case)
    return 1


if __name__ == '__main__':
    sys.exit(main())
