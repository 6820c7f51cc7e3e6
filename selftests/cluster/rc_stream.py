# SPDX-License-Identifier: GPL-2.0
"""One RC connection between two nodes of a qemu/cluster, its QP numbers,
PSNs and memory keys exchanged through files of the run directory (no TCP:
after the exchange nothing but RoCE travels between the two):

    python3 rc_stream.py passive DEV GID_INDEX KEY [--secs S]
    python3 rc_stream.py active DEV GID_INDEX KEY [--timeout T] [--retry R]
                         [--size B] [--depth D] [--mark N] [--start-after K]
                         [--count C] [--secs S]

passive: an RC QP and a 1 MiB MR the peer may write and read; it
publishes them under KEY, connects to the active side and waits (up to S
seconds, default 600) for KEY.done or its death.
active: connects with local ACK timeout T (4.096 us << T, default 14) and
retry count R (default 3), then (after the key K appears, if given) keeps
D (default 8) signalled RDMA WRITEs of B bytes (default 64 KiB) in flight
to the peer's MR until a completion is not a success, or S seconds
(default 300) pass. It prints "streaming" once N (default 32) WRITEs
completed, then one result line:

    result first_error=IBV_WC_... ok=N flushed=M qp_state=S

(first_error=none if every WRITE succeeded until S ran out), and exits 0
if a completion was an error, 1 if none came, 2 on a set-up error. With
--count C it stops after C WRITEs instead and exits 0 only if all C
completed successfully.
"""
import argparse
import json
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import GID, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

MR_SIZE = 1 << 20
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
SCALE = int(os.environ.get('SROCE_TIMEOUT_SCALE', '1'))
KV = os.path.join(os.environ.get('SROCE_CLUSTER_DIR', '.'), 'kv')
STATUS = {getattr(e, n): n for n in dir(e)
          if n.startswith('IBV_WC_') and (n.endswith('_ERR') or n == 'IBV_WC_SUCCESS')}
STATES = {e.IBV_QPS_RESET: 'RESET', e.IBV_QPS_INIT: 'INIT', e.IBV_QPS_RTR: 'RTR',
          e.IBV_QPS_RTS: 'RTS', e.IBV_QPS_SQD: 'SQD', e.IBV_QPS_SQE: 'SQE',
          e.IBV_QPS_ERR: 'ERR'}


def put(key, value):
    os.makedirs(KV, exist_ok=True)
    tmp = os.path.join(KV, '.%s.%d' % (key, os.getpid()))
    with open(tmp, 'w') as f:
        f.write(value)
    os.rename(tmp, os.path.join(KV, key))


def get(key, secs):
    end = time.monotonic() + secs * SCALE
    path = os.path.join(KV, key)
    while time.monotonic() < end:
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
        time.sleep(0.2)
    raise SystemExit('rc_stream: no %s within %d s' % (key, secs * SCALE))


def connect(qp, me, peer, gid_index, timeout, retry):
    a = QPAttr()
    a.qp_access_flags = ACCESS
    qp.to_init(a)
    a = QPAttr()
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = peer['qpn']
    a.rq_psn = peer['psn']
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=peer['gid'], sgid_index=gid_index),
                       is_global=1, port_num=1)
    a.max_dest_rd_atomic = 4
    a.min_rnr_timer = 1
    qp.to_rtr(a)
    a = QPAttr()
    a.sq_psn = me['psn']
    a.timeout = timeout
    a.retry_cnt = retry
    a.rnr_retry = 7
    a.max_rd_atomic = 4
    qp.to_rts(a)


def qp_state(qp):
    attr, _ = qp.query(e.IBV_QP_STATE)
    return STATES.get(attr.qp_state, str(attr.qp_state))


def stream(qp, cq, mr, peer, args):
    """Keep args.depth WRITEs in flight until one fails or time runs out."""
    ok = flushed = posted = 0
    first = None
    end = time.monotonic() + args.secs * SCALE
    marked = False
    while time.monotonic() < end:
        while first is None and posted - ok < args.depth and \
                (not args.count or posted < args.count):
            w = SendWR(wr_id=posted, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                       send_flags=e.IBV_SEND_SIGNALED,
                       sg=[SGE(mr.buf, args.size, mr.lkey)])
            w.set_wr_rdma(peer['rkey'], peer['addr'] + (posted * args.size) % (MR_SIZE - args.size + 1))
            qp.post_send(w)
            posted += 1
        n, wcs = cq.poll(num_entries=16)
        for wc in wcs[:n]:
            if wc.status == e.IBV_WC_SUCCESS and first is None:
                ok += 1
            elif first is None:
                first = wc.status
                args.error_at = time.time()
            else:
                flushed += 1
        if not marked and ok >= args.mark:
            print('streaming: %d WRITEs of %d bytes completed' % (ok, args.size), flush=True)
            marked = True
        if first is not None and ok + flushed + 1 >= posted:
            break
        if args.count and ok >= args.count:
            break
        if not n:
            time.sleep(0.001)
    return first, ok, flushed, posted


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('role', choices=('active', 'passive'))
    ap.add_argument('dev')
    ap.add_argument('gid_index', type=int)
    ap.add_argument('key')
    ap.add_argument('--timeout', type=int, default=14)
    ap.add_argument('--retry', type=int, default=3)
    ap.add_argument('--size', type=int, default=65536)
    ap.add_argument('--depth', type=int, default=8)
    ap.add_argument('--mark', type=int, default=32)
    ap.add_argument('--start-after')
    ap.add_argument('--count', type=int, default=0)
    ap.add_argument('--secs', type=int)
    args = ap.parse_args()
    if args.secs is None:
        args.secs = 600 if args.role == 'passive' else 300
    other = 'passive' if args.role == 'active' else 'active'

    ctx = Context(name=args.dev)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=64, max_recv_wr=4)))
    mr = MR(pd, MR_SIZE, ACCESS)
    gid = ctx.query_gid(1, args.gid_index)
    me = {'qpn': qp.qp_num, 'psn': int.from_bytes(os.urandom(3), 'big'),
          'gid': str(gid), 'addr': mr.buf, 'rkey': mr.rkey}
    put('%s.%s' % (args.key, args.role), json.dumps(me))
    peer = json.loads(get('%s.%s' % (args.key, other), 120))
    peer['gid'] = GID(peer['gid'])
    connect(qp, me, peer, args.gid_index, args.timeout, args.retry)
    print('connected: QPN %d -> %d, timeout %d, retry %d' %
          (qp.qp_num, peer['qpn'], args.timeout, args.retry), flush=True)
    if args.role == 'passive':
        put('%s.connected' % args.key, '1')
        end = time.monotonic() + args.secs * SCALE
        while time.monotonic() < end and not os.path.exists(os.path.join(KV, args.key + '.done')):
            time.sleep(0.2)
        return 0
    get('%s.connected' % args.key, 120)
    if args.start_after:
        get(args.start_after, args.secs)
    t0 = time.monotonic()
    args.error_at = None
    first, ok, flushed, posted = stream(qp, cq, mr, peer, args)
    when = ''
    if args.error_at:
        when = ', the error at %s.%03d' % (time.strftime('%H:%M:%S', time.localtime(args.error_at)),
                                          int(args.error_at * 1000) % 1000)
    print('result first_error=%s ok=%d flushed=%d posted=%d qp_state=%s (after %.1f s%s)' %
          (STATUS.get(first, first) if first is not None else 'none', ok, flushed, posted,
           qp_state(qp), time.monotonic() - t0, when), flush=True)
    if args.count:
        return 0 if first is None and ok == args.count else 1
    return 0 if first is not None else 1


if __name__ == '__main__':
    sys.exit(main())
