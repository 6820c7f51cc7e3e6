# SPDX-License-Identifier: GPL-2.0
"""selftests/94-res.sh's objects and checks.

hold DEV STOPFILE SECS: objects for `rdma resource show -dd` to show: two
connected RC QPs on one device that have moved data (a SEND, a WRITE and
a READ of 16 KiB at MTU 1024: 48 PSNs from A's sq_psn 100), three
receives left posted on B, and an SRQ with five receives and its limit
armed at 2. Prints one JSON line with the QPNs and the values the checks
expect (and the same as NAME=VALUE words), then holds everything until
STOPFILE exists (at most SECS seconds), closes it all and prints
"closed".

check DIR: checks the dumps the test saved in DIR (NAME.json, see
CHECKS) against DIR/helper, what `hold` printed; prints one line per
dump found: "NAME ok", or NAME and what differs. One Python start for
all of them: each costs seconds under TCG.
"""
import json
import os
import sys
import time

A_PSN, B_PSN = 100, 200
MSG = 16384             # traffic(): each of SEND, WRITE, READ
MTU = 1024              # Rc.connect()
EXTRA_RECV = 3          # receives left posted on B
SRQ_RECV, SRQ_LIMIT = 5, 2


def hold(dev, stopfile, secs):
    # pyverbs only here: the checks run without it (quicker under TCG)
    import pyverbs.enums as e
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    from pyverbs.wr import RecvWR, SGE
    from rc_verbs import GID_INDEX, Rc, traffic

    ctx = Context(name=dev)
    pd = PD(ctx)
    a, b = Rc(ctx, pd), Rc(ctx, pd)
    gid = ctx.query_gid(1, GID_INDEX)
    for x in (a, b):
        x.init()
    a.connect(gid, b.qpn, rq_psn=B_PSN, sq_psn=A_PSN)
    b.connect(gid, a.qpn, rq_psn=A_PSN, sq_psn=B_PSN)
    traffic(a, b, 'A -> B')
    for i in range(EXTRA_RECV):
        b.recv(64, 4096 * i, wr_id=100 + i)

    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    for i in range(SRQ_RECV):
        srq.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(a.mr.buf + 4096 * i, 64, a.mr.lkey)]))
    srq.modify(SrqAttr(srq_limit=SRQ_LIMIT), e.IBV_SRQ_LIMIT)

    psns = 3 * MSG // MTU
    exp = {
        'a': a.qpn, 'b': b.qpn,
        'a_next_psn': A_PSN + psns, 'a_last_acked_psn': A_PSN + psns - 1,
        'a_expected_psn': B_PSN, 'b_next_psn': B_PSN, 'b_expected_psn': A_PSN + psns,
        'a_sq_psn': A_PSN, 'a_rq_psn': B_PSN, 'a_sq_wqes': 3, 'b_rq_prod': 1 + EXTRA_RECV, 'b_rq_cons': 1,
        'srq_posted': SRQ_RECV, 'srq_limit': SRQ_LIMIT,
    }
    # the same for the shell: NAME=VALUE words
    print(json.dumps(exp))
    print(' '.join('%s=%d' % kv for kv in exp.items()), flush=True)

    end = time.monotonic() + secs
    while not os.path.exists(stopfile) and time.monotonic() < end:
        time.sleep(0.1)
    srq.close()
    for x in (a, b):
        x.qp.close()
        x.cq.close()
        x.mr.close()
    pd.close()
    ctx.close()
    print('closed', flush=True)


class Fail(Exception):
    """A check failed; the message says which and why."""


def expect(what, got, want):
    if got != want:
        raise Fail('%s: %r, expected %r' % (what, got, want))


def drv(obj):
    """An rdma -j object with iproute2's drv_ prefix of driver attributes
    dropped, so the keys are sroce's names."""
    return {k[4:] if k.startswith('drv_') else k: v for k, v in obj.items()}


def rdma_qp(entries, exp):
    """rdma -j -dd resource show qp: A and B with sroce's attributes."""
    qps = {o['lqpn']: drv(o) for o in entries}
    for side in ('a', 'b'):
        if exp[side] not in qps:
            raise Fail('QP %s (%d) not listed' % (side.upper(), exp[side]))
    a, b = qps[exp['a']], qps[exp['b']]
    for name, q in (('A', a), ('B', b)):
        expect(name + ' state', q.get('state'), 'RTS')
        expect(name + ' qp_state', q.get('qp_state'), 'RTS')
        expect(name + ' rd_outstanding', q.get('rd_outstanding'), 0)
        expect(name + ' retry_left', q.get('retry_left'), 7)
        expect(name + ' rnr_retry_left', q.get('rnr_retry_left'), 7)
        # the device offers selective repeat (its default); QPs of one
        # host deliver locally, without the mark that would answer it
        expect(name + ' sr', q.get('sr'), 'offered')
        if not q.get('cwnd', 0) > 0:
            raise Fail('%s cwnd: %r' % (name, q.get('cwnd')))
    expect('A next_psn', a.get('next_psn'), exp['a_next_psn'])
    expect('A last_acked_psn', a.get('last_acked_psn'), exp['a_last_acked_psn'])
    expect('A expected_psn', a.get('expected_psn'), exp['a_expected_psn'])
    expect('A sq_prod', a.get('sq_prod'), exp['a_sq_wqes'])
    expect('A sq_cons', a.get('sq_cons'), exp['a_sq_wqes'])
    expect('B next_psn', b.get('next_psn'), exp['b_next_psn'])
    expect('B expected_psn', b.get('expected_psn'), exp['b_expected_psn'])
    expect('B rq_prod', b.get('rq_prod'), exp['b_rq_prod'])
    expect('B rq_cons', b.get('rq_cons'), exp['b_rq_cons'])


def rdma_plain(entries, exp):
    """rdma -j resource show qp, no -dd: no driver attributes."""
    for o in entries:
        extra = [k for k in o if k.startswith('drv_')]
        if extra:
            raise Fail('QP %d shows %s without -dd' % (o['lqpn'], extra))


def rdma_cq(entries, exp):
    """rdma -j -dd resource show cq: the two CQs of A and B (user CQs)."""
    heads = []
    for o in map(drv, entries):
        if 'ctxn' not in o:        # a kernel CQ (ib_mad's)
            continue
        expect('CQ %d cq_entries' % o['cqn'], o.get('cq_entries'), o.get('cqe'))
        expect('CQ %d overflow' % o['cqn'], o.get('overflow'), 0)
        expect('CQ %d overflows' % o['cqn'], o.get('overflows'), 0)
        expect('CQ %d cq_pending' % o['cqn'], o.get('cq_pending'),
               (o.get('cq_head', 0) - o.get('cq_tail', 0)) & 0xffffffff)
        if o.get('armed') not in ('no', 'solicited', 'next'):
            raise Fail('CQ %d armed: %r' % (o['cqn'], o.get('armed')))
        heads.append(o.get('cq_head'))
    # A's CQ: SEND, WRITE, READ completed; B's: the SEND received
    expect('user CQs\' heads', sorted(heads), [1, exp['a_sq_wqes']])


def rdma_mr(entries, exp):
    """rdma -j -dd resource show mr: the two 1 MiB user MRs."""
    mrs = [drv(o) for o in entries if o.get('mrlen') == 1 << 20]
    expect('1 MiB MRs', len(mrs), 2)
    for o in mrs:
        expect('MR %d mr_type' % o['mrn'], o.get('mr_type'), 'user')
        if o.get('npages') not in (256, 257):
            raise Fail('MR %d npages: %r' % (o['mrn'], o.get('npages')))


def rdma_srq(entries, exp):
    """rdma -j -dd resource show srq: the SRQ, five receives posted."""
    srqs = [drv(o) for o in entries]
    expect('SRQs', len(srqs), 1)
    o = srqs[0]
    expect('srq_entries', o.get('srq_entries'), 16)
    expect('srq_posted', o.get('srq_posted'), exp['srq_posted'])
    expect('srq_limit', o.get('srq_limit'), exp['srq_limit'])
    expect('srq_prod - srq_cons', o.get('srq_prod', 0) - o.get('srq_cons', 0), exp['srq_posted'])


def sroce_qp(entries, exp):
    """sroce show qp --json: A and B, their state and the driver's, under
    the keys rdma -j -dd gives them; and for each, every key rdma's dump
    (rdma-qp.json, taken while A and B were idle) has too holds the same
    value there."""
    qps = {o['lqpn']: o for o in entries}
    rdma = {o['lqpn']: o for o in LOADED.get('rdma-qp', [])}
    for side in ('a', 'b'):
        q = qps.get(exp[side])
        if q is None:
            raise Fail('QP %s (%d) not listed' % (side.upper(), exp[side]))
        expect(side.upper() + ' ifname', q['ifname'], 'sroce0')
        expect(side.upper() + ' type', q['type'], 'RC')
        expect(side.upper() + ' state', q['state'], 'RTS')
        expect(side.upper() + ' drv_qp_state', q.get('drv_qp_state'), 'RTS')
        expect(side.upper() + ' comm', q['comm'], 'python3')
        expect(side.upper() + ' drv_next_psn', q.get('drv_next_psn'), exp[side + '_next_psn'])
        r = rdma.get(exp[side])
        if r is None:
            continue
        for k in sorted(set(q) & set(r)):
            expect('%s %s (rdma -j -dd says %r)' % (side.upper(), k, r[k]), q[k], r[k])
    expect('A rqpn', qps[exp['a']]['rqpn'], exp['b'])


# the dumps read so far, by name: sroce-qp compares with rdma-qp
LOADED = {}
CHECKS = {'rdma-qp': rdma_qp, 'rdma-plain': rdma_plain, 'rdma-cq': rdma_cq,
          'rdma-mr': rdma_mr, 'rdma-srq': rdma_srq, 'sroce-qp': sroce_qp}


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'hold':
        hold(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == 'check':
        d = sys.argv[2]
        with open(os.path.join(d, 'helper')) as f:
            exp = json.loads(f.readline())
        for name, fn in CHECKS.items():
            path = os.path.join(d, name + '.json')
            if not os.path.exists(path):
                continue
            try:
                with open(path) as f:
                    LOADED[name] = json.load(f)
                fn(LOADED[name], exp)
                print(name, 'ok')
            except (Fail, ValueError, KeyError, TypeError) as ex:
                print(name, '%s: %s' % (type(ex).__name__, ex))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
