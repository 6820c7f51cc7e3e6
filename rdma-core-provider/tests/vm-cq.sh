#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core-provider/tests/vm-cq.sh - CQ (and, when the kernel has them, MR
# and QP) verbs through libsroce against sroce.ko. Runs as root inside a
# qemu/vm-run guest and prints KTAP:
#
#   make modules && cmake --build build/provider
#   qemu/vm-run --kernel 6.12 -- rdma-core-provider/tests/vm-cq.sh
#
# Uses pyverbs (python3-pyverbs) from the system python. A verb the kernel
# does not implement yet (EOPNOTSUPP) makes its tests SKIP, not fail.
. "${SROCE_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/selftests/lib.sh"

PY=${SROCE_PYTHON:-/usr/bin/python3}

# leave no address behind: later tests route 192.0.2.0/24 over veth
cleanup() { rdma link delete sroce0 2>/dev/null; ip addr del 192.0.2.7/24 dev eth0 2>/dev/null; }
trap cleanup EXIT

[ "${SROCE_VM:-}" = 1 ] || ktap_skip_all "not in a vm-run guest"
"$PY" -c 'import pyverbs' 2>/dev/null || ktap_skip_all "no pyverbs for $PY"
ls "$SROCE_TOP"/build/provider/libsroce-rdmav*.so >/dev/null 2>&1 ||
	ktap_skip_all "provider not built (build/provider)"

# One Python process per test: "vm-cq.sh py NAME" runs test NAME.
# Exit 0 pass, 1 fail, 4 skip (kernel lacks the verb).
pytest() {
	"$PY" - "$@" <<'PY'
import errno, os, sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ, CompChannel
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsError
import pyverbs.enums as e

SKIP = 4
HDR, CQE = 256, 64

def unsupported(err):
    return isinstance(err, PyverbsRDMAError) and err.error_code == errno.EOPNOTSUPP

def ring_maps():
    """mappings of the uverbs device in this process (our rings)"""
    out = []
    with open('/proc/self/maps') as f:
        for l in f:
            if '/dev/infiniband/uverbs' in l:
                a, b = (int(x, 16) for x in l.split()[0].split('-'))
                out.append(b - a)
    return out

def check(cond, what):
    if not cond:
        print('FAILED: ' + what)
        sys.exit(1)

def t_create():
    ctx = Context(name='sroce0')
    base = ring_maps()
    try:
        cq = CQ(ctx, 16)
    except PyverbsRDMAError as err:
        if unsupported(err):
            sys.exit(SKIP)
        raise
    check(cq.cqe >= 16, 'cqe %d < 16' % cq.cqe)
    maps = ring_maps()
    check(len(maps) == len(base) + 1, 'one ring mapping expected: %s' % maps)
    new = [m for m in maps if m not in base] or maps
    check(max(new) >= HDR + 16 * CQE, 'ring mapping too small: %s' % new)
    print('cqe %d, ring mapping %d bytes' % (cq.cqe, max(new)))
    cq.close()
    check(ring_maps() == base, 'ring still mapped after destroy: %s' % ring_maps())

def t_poll_empty():
    ctx = Context(name='sroce0')
    cq = CQ(ctx, 8)
    for n in (1, 4, 100):
        got, wcs = cq.poll(n)
        check(got == 0 and not wcs, 'poll(%d) on an empty CQ returned %d' % (n, got))
    cq.close()

def t_req_notify():
    ctx = Context(name='sroce0')
    ch = CompChannel(ctx)
    cq = CQ(ctx, 8, None, ch, 0)
    cq.req_notify(False)
    cq.req_notify(True)
    cq.close()
    ch.close()
    cq = CQ(ctx, 8)      # no channel: arming is still legal
    cq.req_notify(False)
    cq.close()

def t_resize():
    ctx = Context(name='sroce0')
    base = ring_maps()
    cq = CQ(ctx, 8)
    try:
        cq.resize(200)
    except PyverbsRDMAError as err:
        if unsupported(err):
            sys.exit(SKIP)
        raise
    check(cq.cqe >= 200, 'cqe %d < 200 after resize' % cq.cqe)
    maps = ring_maps()
    check(len(maps) == len(base) + 1, 'old ring not unmapped: %s' % maps)
    check(max(maps) >= HDR + 200 * CQE, 'new ring mapping too small: %s' % maps)
    check(cq.poll(10)[0] == 0, 'poll after resize')
    cq.resize(4)
    check(4 <= cq.cqe < 200, 'cqe %d after shrinking' % cq.cqe)
    check(cq.poll(10)[0] == 0, 'poll after shrink')
    cq.close()
    check(ring_maps() == base, 'ring still mapped after destroy')

def t_too_big():
    ctx = Context(name='sroce0')
    big = ctx.query_device().max_cqe + 1
    try:
        CQ(ctx, big)
    except PyverbsRDMAError as err:
        print('cqe %d refused: %s' % (big, err))
        return
    check(False, 'cqe %d (max_cqe + 1) accepted' % big)

def t_many():
    base = ring_maps()
    ctxs = [Context(name='sroce0') for _ in range(4)]
    for i in range(50):
        cqs = [CQ(c, 1 + 37 * i % 500) for c in ctxs]
        for cq in cqs:
            check(cq.poll(1)[0] == 0, 'poll')
        for cq in cqs:
            cq.close()
    check(ring_maps() == base, 'leaked ring mappings')
    # a context closed with CQs still open tears them down
    c = Context(name='sroce0')
    [CQ(c, 64) for _ in range(8)]
    c.close()

def t_mr():
    ctx = Context(name='sroce0')
    pd = PD(ctx)
    try:
        mr = MR(pd, 1 << 16, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    except PyverbsRDMAError as err:
        if unsupported(err):
            sys.exit(SKIP)
        raise
    print('lkey %#x rkey %#x' % (mr.lkey, mr.rkey))
    mr.close()
    pd.close()

def t_qp():
    from pyverbs.qp import QP, QPInitAttr, QPCap
    from pyverbs.wr import RecvWR, SGE
    ctx = Context(name='sroce0')
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=2,
                max_recv_sge=2, max_inline_data=64)
    try:
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    except PyverbsRDMAError as err:
        if unsupported(err):
            sys.exit(SKIP)
        raise
    base = len(ring_maps())
    attr, init = qp.query(e.IBV_QP_STATE | e.IBV_QP_CAP)
    check(attr.qp_state == e.IBV_QPS_RESET, 'new QP not in RESET')
    print('qpn %#x, %s' % (qp.qp_num, str(init.cap).replace('\n', ' ')))
    # too many SGEs: EINVAL, nothing posted
    sges = [SGE(0, 0, 0)] * 8
    try:
        qp.post_recv(RecvWR(wr_id=1, num_sge=8, sg=sges))
        check(False, 'post_recv with 8 SGEs accepted')
    except PyverbsRDMAError as err:
        check(err.error_code == errno.EINVAL, 'post_recv 8 SGEs: %s' % err)
    # fill the RQ (no syscall) until ENOMEM
    n = 0
    while n < 1024:
        try:
            qp.post_recv(RecvWR(wr_id=n, num_sge=1, sg=[SGE(0, 0, 0)]))
        except PyverbsRDMAError as err:
            check(err.error_code == errno.ENOMEM, 'RQ full: %s' % err)
            break
        n += 1
    check(16 <= n < 1024, 'RQ took %d entries' % n)
    print('RQ full after %d posts' % n)
    qp.close()
    check(len(ring_maps()) == base - 2, 'SQ/RQ rings not unmapped')
    cq.close()

def t_loopback():
    """RC data path through the rings: two QPs on sroce0 talk over 192.0.2.7"""
    import time
    from pyverbs.qp import QP, QPInitAttr, QPCap, QPAttr
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.wr import RecvWR, SendWR, SGE
    ctx = Context(name='sroce0')
    gidx = None
    for i in range(ctx.query_port(1).gid_tbl_len):
        try:
            g = ctx.query_gid(1, i)
        except PyverbsError:
            continue
        if str(g).endswith('ffff:c000:0207'):
            gidx, gid = i, g
    check(gidx is not None, 'no IPv4 GID for 192.0.2.7')
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    mr = MR(pd, 8192, acc)
    cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=2,
                max_recv_sge=2, max_inline_data=64)
    try:
        qa = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    except PyverbsRDMAError as err:
        if unsupported(err):
            sys.exit(SKIP)
        raise
    qb = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))

    def connect(qp, dest):
        a = QPAttr(qp_state=e.IBV_QPS_INIT)
        a.pkey_index = 0
        a.port_num = 1
        a.qp_access_flags = acc
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                  e.IBV_QP_ACCESS_FLAGS)
        a = QPAttr(qp_state=e.IBV_QPS_RTR)
        a.path_mtu = e.IBV_MTU_1024
        a.dest_qp_num = dest
        a.rq_psn = 0
        a.max_dest_rd_atomic = 1
        a.min_rnr_timer = 1
        a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gidx),
                           is_global=1, port_num=1)
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                  e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
                  e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)
        a = QPAttr(qp_state=e.IBV_QPS_RTS)
        a.timeout = 14
        a.retry_cnt = 7
        a.rnr_retry = 7
        a.sq_psn = 0
        a.max_rd_atomic = 1
        qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                  e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)

    connect(qa, qb.qp_num)
    connect(qb, qa.qp_num)

    def wait(n, what):
        out, t = [], time.time()
        while len(out) < n and time.time() - t < 5:
            out += cq.poll(16)[1]
        check(len(out) == n, '%s: %d of %d completions' % (what, len(out), n))
        for w in out:
            check(w.status == e.IBV_WC_SUCCESS, '%s: wr_id %d status %d' % (what, w.wr_id, w.status))
        return {w.wr_id: w for w in out}

    base = mr.buf
    rsge = [SGE(base + 4096, 64, mr.lkey)]
    mr.write(b'hello sroce' + bytes(53), 64, 0)
    qb.post_recv(RecvWR(wr_id=100, num_sge=1, sg=rsge))
    qa.post_send(SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(base, 64, mr.lkey)]))
    w = wait(2, 'SEND')
    check(w[100].opcode == e.IBV_WC_RECV and w[100].byte_len == 64 and
          w[100].qp_num == qb.qp_num and w[1].opcode == e.IBV_WC_SEND, 'SEND wcs')
    check(mr.read(11, 4096) == b'hello sroce', 'SEND payload')

    mr.write(b'INLINE-DATA-1234', 16, 128)
    qb.post_recv(RecvWR(wr_id=101, num_sge=1, sg=rsge))
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE_WITH_IMM, num_sge=1,
                sg=[SGE(base + 128, 16, 0)],
                send_flags=e.IBV_SEND_INLINE | e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr.rkey, base + 6000)
    wr.imm_data = 0x12345678
    qa.post_send(wr)
    w = wait(2, 'inline WRITE_WITH_IMM')
    check(w[101].opcode == e.IBV_WC_RECV_RDMA_WITH_IMM and
          w[101].wc_flags & e.IBV_WC_WITH_IMM and w[101].imm_data == 0x12345678,
          'WRITE_WITH_IMM wc')
    check(mr.read(16, 6000) == b'INLINE-DATA-1234', 'inline WRITE payload')

    wr = SendWR(wr_id=3, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(base + 7000, 16, mr.lkey)])
    wr.set_wr_rdma(mr.rkey, base + 6000)
    qa.post_send(wr)
    w = wait(1, 'READ')
    check(w[3].opcode == e.IBV_WC_RDMA_READ, 'READ wc')
    check(mr.read(16, 7000) == b'INLINE-DATA-1234', 'READ payload')

    # a list whose third WR is bad: the first two run, the third is bad_wr
    bad = SendWR(wr_id=12, opcode=e.IBV_WR_SEND, num_sge=1,
                 sg=[SGE(base, 1000, mr.lkey)],      # > max_inline
                 send_flags=e.IBV_SEND_INLINE | e.IBV_SEND_SIGNALED)
    # pyverbs keeps no reference to next_wr: hold every WR of a list
    w11 = SendWR(wr_id=11, opcode=e.IBV_WR_SEND, num_sge=1,
                 sg=[SGE(base, 8, mr.lkey)], next_wr=bad)
    lst = SendWR(wr_id=10, opcode=e.IBV_WR_SEND, num_sge=1,
                 sg=[SGE(base, 8, mr.lkey)], next_wr=w11)
    r111 = RecvWR(wr_id=111, num_sge=1, sg=rsge)
    r110 = RecvWR(wr_id=110, num_sge=1, sg=rsge, next_wr=r111)
    qb.post_recv(r110)
    bad_wr = SendWR(num_sge=1, sg=[SGE(0, 0, 0)])
    try:
        qa.post_send(lst, bad_wr)
        check(False, 'list with an oversized inline WR accepted')
    except PyverbsRDMAError as err:
        check(err.error_code == errno.EINVAL, 'bad list: %s' % err)
    check(bad_wr.wr_id == 12, 'bad_wr is wr_id %d, not 12' % bad_wr.wr_id)
    wait(4, 'WR list before the bad WR')

    # ping-pong: every post has to get the send worker going again
    for i in range(300):
        qb.post_recv(RecvWR(wr_id=1000 + i, num_sge=1, sg=rsge))
        qa.post_send(SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                            sg=[SGE(base, 64, mr.lkey)]))
        wait(2, 'ping-pong %d' % i)
    print('SEND, inline WRITE_WITH_IMM, READ, WR list with bad_wr, 300 ping-pongs')
    qa.close()
    qb.close()

tests = {n[2:]: f for n, f in globals().items() if n.startswith('t_')}
try:
    tests[sys.argv[1]]()
except SystemExit:
    raise
except (PyverbsRDMAError, PyverbsError) as err:
    print('FAILED: %s' % err)
    sys.exit(1)
PY
}

# run_py NAME DESCRIPTION: KTAP result of pytest NAME (exit 4 = SKIP);
# returns pytest's exit status
run_py() {
	local out rc
	out=$(pytest "$1" 2>&1)
	rc=$?
	[ -z "$out" ] || ktap_diag "$out"
	case $rc in
	0) ktap_ok "$2" ;;
	4) ktap_skip "$2" "kernel does not implement it (EOPNOTSUPP)" ;;
	*) ktap_fail "$2" "exit status $rc" ;;
	esac
	return "$rc"
}

ktap_header 10
dmesg_mark vm-cq
ip link set eth0 up
ip addr add 192.0.2.7/24 dev eth0
rdma link add sroce0 type sroce netdev eth0 || ktap_diag "rdma link add failed"

if ! run_py create "CQ: create maps the ring, destroy unmaps it"; then
	# no CQs at all: the rest cannot run
	for t in "CQ: poll on an empty CQ returns 0" "CQ: req_notify (with and without channel)" \
		 "CQ: resize grows and shrinks, old ring unmapped" "CQ: cqe > max_cqe refused" \
		 "CQ: 200 create/destroy over 4 contexts, no leaked mappings"; do
		ktap_skip "$t" "no CQ support"
	done
else
	run_py poll_empty "CQ: poll on an empty CQ returns 0"
	run_py req_notify "CQ: req_notify (with and without channel)"
	run_py resize "CQ: resize grows and shrinks, old ring unmapped"
	run_py too_big "CQ: cqe > max_cqe refused"
	run_py many "CQ: 200 create/destroy over 4 contexts, no leaked mappings"
fi
run_py mr "MR: reg_mr/dereg_mr"
run_py qp "QP: create maps SQ/RQ, post_recv until ENOMEM, EINVAL on bad WR"
run_py loopback "QP: RC loopback SEND/WRITE_IMM inline/READ, WR list, ping-pong"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
