# SPDX-License-Identifier: GPL-2.0
"""Known RC exchanges on one sroce device (local delivery) for the
tracepoint test, 94-trace.sh, which reads their events from the trace
buffer. Prints "qpn CASE REQUESTER RESPONDER" for each case, then "ok CASE"
or "not ok CASE: why".

  write   a 4 KiB RDMA WRITE (MTU 1024: FIRST, MIDDLE, MIDDLE, LAST),
          wr_id 0x5a01, checked byte for byte
  resend  a 1 KiB RDMA WRITE (wr_id 0x5a02) to a QP still in INIT: the
          responder drops it (rx_drop_qp_state); once it is connected, the
          requester's local ACK timer (timeout 14: 67 ms) resends it
  rnr     a SEND to a QP with no receive posted: RNR NAK, then a receive
          is posted and the requester resends after the RNR wait
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.pd import PD

import rc_verbs
from rc_verbs import Fail, Rc, expect_wc, pattern


def hw_counter(dev, name):
    with open('/sys/class/infiniband/%s/ports/1/hw_counters/%s' % (dev, name)) as f:
        return int(f.read())


def wait_counter(dev, name, above, what, secs=10.0):
    end = time.monotonic() + secs
    while hw_counter(dev, name) <= above:
        if time.monotonic() > end:
            raise Fail('%s: %s did not move in %.0f s' % (what, name, secs))
        time.sleep(0.01)


def pair(ctx, pd, gid, case, connect_b=True):
    a, b = Rc(ctx, pd, size=1 << 16, depth=8), Rc(ctx, pd, size=1 << 16, depth=8)
    a.connect(gid, b.qpn, 0, 0)
    if connect_b:
        b.connect(gid, a.qpn, 0, 0)
    else:
        b.init()
    print('qpn %s %d %d' % (case, a.qpn, b.qpn), flush=True)
    return a, b


def case(name, dev, ctx, pd, gid):
    if name == 'write':
        a, b = pair(ctx, pd, gid, name)
        data = pattern(94, 4096)
        a.mr.write(data, len(data), 0)
        a.send(e.IBV_WR_RDMA_WRITE, len(data), 0, b.mr.buf, b.mr.rkey, wr_id=0x5a01)
        expect_wc(a, 'RDMA WRITE')
        if b.mr.read(len(data), 0) != data:
            raise Fail('RDMA WRITE: data wrong')
    elif name == 'resend':
        a, b = pair(ctx, pd, gid, name, connect_b=False)
        drops = hw_counter(dev, 'rx_drop_qp_state')
        a.send(e.IBV_WR_RDMA_WRITE, 1024, 0, b.mr.buf, b.mr.rkey, wr_id=0x5a02)
        wait_counter(dev, 'rx_drop_qp_state', drops, 'WRITE to a QP in INIT')
        b.connect(gid, a.qpn, 0, 0)
        expect_wc(a, 'resent RDMA WRITE')
    elif name == 'rnr':
        a, b = pair(ctx, pd, gid, name)
        naks = hw_counter(dev, 'rnr_naks_sent')
        a.send(e.IBV_WR_SEND, 64, 0, wr_id=0x5a03)
        wait_counter(dev, 'rnr_naks_sent', naks, 'SEND without a receive')
        b.recv(64, 0)
        expect_wc(a, 'SEND after RNR (sender)')
        expect_wc(b, 'SEND after RNR (receiver)')
    else:
        raise Fail('unknown case')


def main():
    dev, cases = sys.argv[1], sys.argv[2:]
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, rc_verbs.GID_INDEX)
    failed = 0
    for name in cases:
        try:
            case(name, dev, ctx, pd, gid)
            print('ok %s' % name, flush=True)
        except Exception as ex:      # pylint: disable=broad-except
            failed += 1
            print('not ok %s: %s' % (name, ex), flush=True)
    sys.exit(1 if failed else 0)


main()
