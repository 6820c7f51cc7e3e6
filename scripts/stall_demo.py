# SPDX-License-Identifier: GPL-2.0
"""Two stalled RC QP pairs on one sroce device, for scripts/stall-demo
(Documentation/debugging.rst walks what it shows).

  stall_demo.py DEV STOPFILE SECS

  rnr    A SENDs 64 bytes (wr_id 0x51) to B, which has no receive posted:
         B answers with RNR NAKs; rnr_retry 7 means "retry for ever", so
         A's SEND never completes
  dead   C WRITEs 1 KiB (wr_id 0x52) to D, which is still in INIT: D drops
         every packet (reason qp_state); C resends on its local ACK timer
         (timeout 18: 1.07 s) until retry_cnt 7 runs out, then completes
         with RETRY_EXC_ERR and moves to ERR

Prints "qpn rnr A B" and "qpn dead C D", then "ready", holds until
STOPFILE exists (at most SECS seconds), then posts B's receive (the RNR
stall ends), polls both senders and prints their completions.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'selftests'))

import pyverbs.enums as e  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.pd import PD  # noqa: E402

import rc_verbs  # noqa: E402
from rc_verbs import Rc  # noqa: E402

STATUS = {e.IBV_WC_SUCCESS: 'SUCCESS', e.IBV_WC_RETRY_EXC_ERR: 'RETRY_EXC_ERR',
          e.IBV_WC_WR_FLUSH_ERR: 'WR_FLUSH_ERR', e.IBV_WC_RNR_RETRY_EXC_ERR: 'RNR_RETRY_EXC_ERR'}


def main():
    dev, stopfile, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    ctx = Context(name=dev)
    pd = PD(ctx)
    gid = ctx.query_gid(1, rc_verbs.GID_INDEX)
    a, b = Rc(ctx, pd, size=1 << 16, depth=8), Rc(ctx, pd, size=1 << 16, depth=8)
    a.connect(gid, b.qpn, 0, 0)
    b.connect(gid, a.qpn, 0, 0)
    c, d = Rc(ctx, pd, size=1 << 16, depth=8), Rc(ctx, pd, size=1 << 16, depth=8)
    c.connect(gid, d.qpn, 0, 0, timeout=18)
    d.init()
    print('qpn rnr %d %d' % (a.qpn, b.qpn))
    print('qpn dead %d %d' % (c.qpn, d.qpn), flush=True)
    a.send(e.IBV_WR_SEND, 64, 0, wr_id=0x51)
    c.send(e.IBV_WR_RDMA_WRITE, 1024, 0, d.mr.buf, d.mr.rkey, wr_id=0x52)
    print('ready', flush=True)
    end = time.monotonic() + secs
    while not os.path.exists(stopfile) and time.monotonic() < end:
        time.sleep(0.1)
    b.recv(64, 0)
    for name, q in (('rnr', a), ('dead', c)):
        try:
            for wc in q.poll(1, secs=15.0):
                print('%s: wr_id 0x%x status %d (%s)' % (name, wc.wr_id, wc.status,
                                                         STATUS.get(wc.status, '?')))
        except Exception as ex:      # pylint: disable=broad-except
            print('%s: %s' % (name, ex))


main()
