#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# Completion queues and memory regions: honest limits, MR registration with
# every size/offset/access combination, hostile MR and CQ arguments refused
# with the right errno, mmapped CQ rings (including a mapping that outlives
# its CQ), resize, and no leaks after thousands of objects.
#
# The kernel is driven two ways: raw uverbs write() commands
# (selftests/uverbs_raw.py: exactly what a provider, or a hostile program,
# sends) and pyverbs through the rdma-core provider. While the provider does
# not implement a verb yet, libibverbs fails it with EOPNOTSUPP before the
# kernel sees it; the pyverbs test then skips, but only when the raw path
# proves the kernel side works, so the skip disappears once the provider
# lands and a kernel failure is always a failure.
. "$(dirname "$0")/lib.sh"

cleanup() { rdma link delete sroce0 2>/dev/null; }
trap cleanup EXIT

NTESTS=23
ktap_header $NTESTS
dmesg_mark
ip link set eth0 up
rdma link add sroce0 type sroce netdev eth0

# The Python part prints one line per test: "ok<TAB>NAME",
# "fail<TAB>NAME<TAB>WHY" or "skip<TAB>NAME<TAB>WHY".
run_tests() {
	PYTHONPATH="$(dirname "$0")" python3 - <<'PY'
import ctypes, errno, mmap, os, struct, sys, time
import uverbs_raw as U

E = errno
results = []


class Skip(Exception):
    pass


def user_res(cmd):
    """rdma resource lines of user objects: ib_mad's own CQ and QP1
    ("comm [ib_core]") belong to the device, not to the test."""
    return '\n'.join(l for l in os.popen(cmd).read().splitlines()
                     if 'comm [' not in l)


def check(cond, why):
    if not cond:
        raise AssertionError(why)


def expect_errno(want, fn, *args, **kw):
    got = U.errno_of(fn, *args, **kw)
    wants = want if isinstance(want, tuple) else (want,)
    check(got in wants, '%s: expected %s, got %s' % (
        getattr(fn, '__name__', fn), '/'.join(E.errorcode[w] for w in wants),
        E.errorcode.get(got, got) if got else 'success'))


def test(name):
    def deco(fn):
        results.append((name, fn))
        return fn
    return deco


uv = U.Uverbs('sroce0')
pd = uv.alloc_pd()
BUF = 4 << 20
buf = U.anon_map(BUF)
ctypes.memset(buf, 0x5a, BUF)           # fault the pages in
state = {}

ALL = (U.ACCESS_LOCAL_WRITE | U.ACCESS_REMOTE_WRITE | U.ACCESS_REMOTE_READ |
       U.ACCESS_REMOTE_ATOMIC)


# ---------------------------------------------------------------- device
@test('query_device: max_cq, max_cqe, max_mr, max_mr_size advertised')
def _():
    from pyverbs.device import Context
    with Context(name='sroce0') as ctx:
        a = ctx.query_device()
        got = (a.max_cq, a.max_cqe, a.max_mr, a.max_mr_size)
    check(got == (0x10000, (1 << 22) - 1, 0x40000, 1 << 39), 'got %r' % (got,))


# ---------------------------------------------------------------- PD
@test('PD: max_pd per device: the one past it fails with ENOMEM, one '
      'more succeeds once a PD is freed')
def _():
    from pyverbs.device import Context
    with Context(name='sroce0') as ctx:
        max_pd = ctx.query_device().max_pd
    pds, err = [], 0
    t0 = time.monotonic()
    try:
        # the test's own PD (pd) is one of them already
        while len(pds) < max_pd:
            try:
                pds.append(uv.alloc_pd())
            except OSError as ex:
                err = ex.errno
                break
        n = len(pds) + 1
        print('# %d PDs allocated of max_pd %d (%.1f s), then %s' % (
            n, max_pd, time.monotonic() - t0, E.errorcode.get(err, 'no error')))
        check(err == E.ENOMEM and n <= max_pd,
              'PD %d of max_pd %d: %s, expected ENOMEM at %d' % (
                  n + (not err), max_pd, E.errorcode.get(err, 'allocated'), max_pd + 1))
        uv.dealloc_pd(pds.pop())
        pds.append(uv.alloc_pd())
        expect_errno(E.ENOMEM, uv.alloc_pd)
    finally:
        for h in pds:
            uv.dealloc_pd(h)


# ---------------------------------------------------------------- MR
@test('MR: reg/dereg for sizes 1 B..3 MiB at page offsets 0..4095, iova != start')
def _():
    for off, length in ((0, 1), (0, 4096), (1, 4095), (100, 10000),
                        (4095, 2), (0, 1 << 20), (123, 3 << 20), (4000, 8192)):
        for iova in (buf + off, 0x7000000000 + off, off):
            h, lkey, rkey = uv.reg_mr(pd, buf + off, length, iova, ALL)
            uv.dereg_mr(h)
    state['raw_mr_ok'] = True


@test('MR: every valid access combination registers')
def _():
    LW, RW, RR, RA = (U.ACCESS_LOCAL_WRITE, U.ACCESS_REMOTE_WRITE,
                      U.ACCESS_REMOTE_READ, U.ACCESS_REMOTE_ATOMIC)
    for acc in (0, LW, RR, LW | RR, LW | RW, LW | RA, LW | RW | RR, ALL,
                LW | (1 << 20)):            # + relaxed ordering (optional)
        h, _, _ = uv.reg_mr(pd, buf, 8192, buf, acc)
        uv.dereg_mr(h)


@test('MR: lkey == rkey, index non-zero, keys unique over 512 live MRs')
def _():
    hs, keys = [], set()
    try:
        for i in range(512):
            h, lkey, rkey = uv.reg_mr(pd, buf + i, 100, buf + i, U.ACCESS_LOCAL_WRITE)
            hs.append(h)
            check(lkey == rkey, 'lkey %#x != rkey %#x' % (lkey, rkey))
            check(lkey >> 8, 'key %#x has index 0' % lkey)
            check(lkey not in keys, 'key %#x reused while live' % lkey)
            keys.add(lkey)
    finally:
        for h in hs:
            uv.dereg_mr(h)


@test('MR: length 0 refused with EINVAL')
def _():
    expect_errno(E.EINVAL, uv.reg_mr, pd, buf, 0, buf, U.ACCESS_LOCAL_WRITE)


@test('MR: bad access flags refused (EINVAL: remote write/atomic without '
      'local write, unknown bits; EOPNOTSUPP: zero-based); MW bind accepted')
def _():
    for acc in (U.ACCESS_REMOTE_WRITE, U.ACCESS_REMOTE_ATOMIC,
                U.ACCESS_REMOTE_WRITE | U.ACCESS_REMOTE_READ, 1 << 30, 1 << 19):
        expect_errno(E.EINVAL, uv.reg_mr, pd, buf, 4096, buf, acc)
    expect_errno(E.EOPNOTSUPP, uv.reg_mr, pd, buf, 4096, buf,
                 U.ACCESS_LOCAL_WRITE | U.ACCESS_ZERO_BASED)
    handle = uv.reg_mr(pd, buf, 4096, buf, U.ACCESS_LOCAL_WRITE | U.ACCESS_MW_BIND)[0]
    uv.dereg_mr(handle)


@test('MR: unmapped memory refused with EFAULT, read-only memory with '
      'LOCAL_WRITE refused, without it accepted')
def _():
    hole = U.anon_map(1 << 20)
    U.anon_unmap(hole, 1 << 20)
    expect_errno(E.EFAULT, uv.reg_mr, pd, hole, 8192, hole, U.ACCESS_LOCAL_WRITE)
    # half mapped: the tail runs off the end of the mapping
    half = U.anon_map(8192)
    U.anon_unmap(half + 4096, 4096)
    expect_errno(E.EFAULT, uv.reg_mr, pd, half, 8192, half, 0)
    U.anon_unmap(half, 4096)
    ro = U.anon_map(8192, mmap.PROT_READ)
    expect_errno((E.EFAULT, E.EPERM), uv.reg_mr, pd, ro, 8192, ro,
                 U.ACCESS_LOCAL_WRITE)
    h, _, _ = uv.reg_mr(pd, ro, 8192, ro, U.ACCESS_REMOTE_READ)
    uv.dereg_mr(h)
    U.anon_unmap(ro, 8192)


@test('MR: wrapping start+length / iova+length and length > max_mr_size '
      'refused with EINVAL')
def _():
    top = (1 << 64) - 4096
    expect_errno(E.EINVAL, uv.reg_mr, pd, top, 8192, buf, 0)
    expect_errno(E.EINVAL, uv.reg_mr, pd, buf, 8192, top, 0)
    expect_errno(E.EINVAL, uv.reg_mr, pd, buf, (1 << 64) - 1, buf, 0)
    expect_errno(E.EINVAL, uv.reg_mr, pd, buf, (1 << 39) + 4096, buf, 0)


@test('MR: 2000 live + 3000 reg/dereg cycles leave no pinned pages, '
      'restrack entries or slab behind')
def _():
    time.sleep(1)
    slab0, pin0 = U.meminfo_kb('Slab'), U.vm_pin_kb()
    hs = [uv.reg_mr(pd, buf + (i % 1000) * 4096, 4096 + i, buf, ALL)[0]
          for i in range(2000)]
    check(U.vm_pin_kb() > pin0, 'VmPin did not grow')
    for h in hs:
        uv.dereg_mr(h)
    for i in range(3000):
        uv.dereg_mr(uv.reg_mr(pd, buf, 65536, buf, U.ACCESS_LOCAL_WRITE)[0])
    time.sleep(2)                       # kfree_rcu
    check(U.vm_pin_kb() == pin0, 'VmPin %d kB, was %d' % (U.vm_pin_kb(), pin0))
    grow = U.meminfo_kb('Slab') - slab0
    check(grow < 2048 or U.kasan(), 'Slab grew by %d kB' % grow)
    res = user_res('rdma resource show mr dev sroce0 2>/dev/null')
    check(not res.strip(), 'MRs left in restrack: %s' % res)


def pyverbs_mr():
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.mr import MR
    from pyverbs import enums as e
    with Context(name='sroce0') as ctx, PD(ctx) as ppd:
        for size in (1, 4096, 100000):
            with MR(ppd, size, e.IBV_ACCESS_LOCAL_WRITE |
                    e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ) as mr:
                check(mr.lkey == mr.rkey, 'lkey != rkey')


@test('MR via pyverbs/provider: ibv_reg_mr, ibv_dereg_mr')
def _():
    from pyverbs.pyverbs_error import PyverbsRDMAError
    try:
        pyverbs_mr()
    except PyverbsRDMAError as ex:
        # libibverbs' default for a provider without reg_mr
        if ex.error_code == E.EOPNOTSUPP and state.get('raw_mr_ok'):
            raise Skip('provider lacks reg_mr')
        raise


# ---------------------------------------------------------------- CQ
def ring_len(n):
    return (U.RING_HDR_SIZE + n * U.CQE_SIZE + U.PAGE - 1) // U.PAGE * U.PAGE


@test('CQ: create rounds cqe up to a power of two; ring info matches')
def _():
    for req, want in ((1, 1), (5, 8), (16, 16), (1000, 1024), (32768, 32768),
                      ((1 << 22) - 1, 1 << 22)):
        h, n, ring = uv.create_cq(req)
        try:
            check(n == want, 'cqe %d -> %d, want %d' % (req, n, want))
            check(ring[2:] == (want, 64), 'ring %r' % (ring,))
            check(ring[1] == ring_len(want), 'mmap_len %d' % ring[1])
            check(ring[0] % U.PAGE == 0, 'mmap_offset %#x' % ring[0])
        finally:
            uv.destroy_cq(h)
    state['raw_cq_ok'] = True


@test('CQ: bad cqe (0, 2^22, 2^31, 2^32-1), non-zero driver input and a '
      'short response buffer refused with EINVAL')
def _():
    for cqe in (0, 1 << 22, 1 << 31, (1 << 32) - 1):
        expect_errno(E.EINVAL, uv.create_cq, cqe)
    expect_errno(E.EINVAL, uv.create_cq, 16, driver_in=b'\x01' + bytes(7))
    expect_errno(E.EINVAL, uv.create_cq, 16, resp_len=16)
    h, _, _ = uv.create_cq(16, driver_in=bytes(8))     # zeroes are fine
    uv.destroy_cq(h)


@test('CQ: ring mmaps (zeroed header); wrong length, MAP_PRIVATE and '
      'unknown offsets refused with EINVAL')
def _():
    h, n, ring = uv.create_cq(64)
    try:
        m = uv.map_ring(ring)
        check(m[:U.RING_HDR_SIZE] == bytes(U.RING_HDR_SIZE), 'header not zero')
        m.close()
        expect_errno(E.EINVAL, uv.map_ring, ring, ring[1] + U.PAGE)
        expect_errno(E.EINVAL, uv.map_ring, ring, U.PAGE)
        expect_errno(E.EINVAL, uv.map_ring, ring, None, mmap.MAP_PRIVATE)
        expect_errno(E.EINVAL, uv.map_ring, (ring[0] + (1 << 30), ring[1]))
    finally:
        uv.destroy_cq(h)


@test('CQ: req_notify (next and solicited) succeeds; kernel POLL_CQ on a '
      'user CQ refused with EOPNOTSUPP')
def _():
    h, n, ring = uv.create_cq(16)
    try:
        uv.req_notify_cq(h, 0)
        uv.req_notify_cq(h, 1)
        expect_errno(E.EOPNOTSUPP, uv.poll_cq, h, 4)
    finally:
        uv.destroy_cq(h)


@test('CQ: resize replaces the ring (old offset gone); bad sizes and a '
      'corrupt consumer index refused with EINVAL')
def _():
    h, n, ring = uv.create_cq(16)
    try:
        cqe, new = uv.resize_cq(h, 100)
        check(cqe == 128 and new[2:] == (128, 64), 'resize -> %d %r' % (cqe, new))
        check(new[0] != ring[0], 'same mmap offset after resize')
        expect_errno(E.EINVAL, uv.map_ring, ring)
        m = uv.map_ring(new)
        for bad in (0, 1 << 22, (1 << 32) - 1):
            expect_errno(E.EINVAL, uv.resize_cq, h, bad)
        # hostile consumer index: ahead of the (empty) producer
        struct.pack_into('<I', m, 64, 5)
        expect_errno(E.EINVAL, uv.resize_cq, h, 8)
        struct.pack_into('<I', m, 64, 0)
        m.close()
        cqe, new2 = uv.resize_cq(h, 1)
        check(cqe == 1, 'shrink to 1 -> %d' % cqe)
        m = uv.map_ring(new2)
        check(struct.unpack_from('<II', m, 0)[0] == 0, 'producer not carried over')
        m.close()
    finally:
        uv.destroy_cq(h)


@test('CQ: a resize while another copies a whole 1M-entry ring into its new '
      'ring (hostile consumer index): the second waits, nothing freed under the copy')
def _():
    import threading
    n = 1 << 20
    h, _, ring = uv.create_cq(n)
    m = uv.map_ring(ring)
    # the consumer a whole ring behind the producer (0): the resize copies it all
    struct.pack_into('<I', m, 64, (-n) & 0xffffffff)
    m.close()
    # A's response (the new ring's offset) is written before its switch
    resp = bytearray(8 + 24)
    cmd = struct.pack('<IHHQII', U.CMD_RESIZE_CQ, 6, len(resp) // 4, U.buf_addr(resp), h, n)
    res = {}

    def resize_a():
        try:
            os.write(uv.fd, cmd)
            res['a'] = 0
        except OSError as ex:
            res['a'] = ex.errno
    a = threading.Thread(target=resize_a)
    try:
        a.start()
        # B: once A's new ring holds the consumer index (A switched and is
        # copying), B sets it to 0, unmaps it and shrinks the CQ to 1 entry
        end = time.monotonic() + 60
        while not struct.unpack_from('<Q', resp, 8)[0] and time.monotonic() < end:
            time.sleep(0.001)
        new = struct.unpack_from('<QQII', resp, 8)
        check(new[0], "A's response never came")
        m = uv.map_ring(new)
        while (struct.unpack_from('<I', m, 64)[0] != (-n) & 0xffffffff and a.is_alive() and
               time.monotonic() < end):
            time.sleep(0.001)
        struct.pack_into('<I', m, 64, 0)
        m.close()
        try:
            res['b'] = uv.resize_cq(h, 1)[0]
        except OSError as ex:
            res['b'] = -ex.errno
        a.join(120)
        check(not a.is_alive(), "A's resize did not return in 120 s")
        check(res.get('a') == 0 and res.get('b') == 1, 'A %r, B %r' % (res.get('a'), res.get('b')))
    finally:
        uv.destroy_cq(h)


@test('SRQ: resize writes the new ring to the address given, posted entries '
      'and indices carried over; no address EOPNOTSUPP, a bad one EFAULT, a '
      'corrupt producer index, fewer entries than posted or a limit past the '
      'new depth EINVAL, each leaving the old ring')
def _():
    h, n, ring = uv.create_srq(pd, 16)
    m = None
    try:
        stride = ring[3]
        check(n == 16 and ring[2] == 16, 'create_srq -> %d %r' % (n, ring))
        m = uv.map_ring(ring)
        # five entries "posted" (an entry is checked only when a QP takes it)
        for i in range(5):
            struct.pack_into('<QI', m, U.RING_HDR_SIZE + i * stride, 0x5000 + i, 1)
        struct.pack_into('<I', m, 0, 5)
        info = bytearray(24)
        addr = struct.pack('<Q', U.buf_addr(info))
        expect_errno(E.EOPNOTSUPP, uv.modify_srq, h, U.SRQ_MAX_WR, 64)
        expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR, 64,
                     driver_in=struct.pack('<Q', 0))
        expect_errno(E.EFAULT, uv.modify_srq, h, U.SRQ_MAX_WR, 64,
                     driver_in=struct.pack('<Q', 8))
        expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR, 64,
                     driver_in=addr + struct.pack('<Q', 1))
        for bad in (0, 1 << 20):
            expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR, bad, driver_in=addr)
        expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR, 4, driver_in=addr)
        # a limit above the new depth: refused before the switch
        expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR | U.SRQ_LIMIT, 32, 33,
                     driver_in=addr)
        struct.pack_into('<I', m, 0, 100)     # hostile producer: 100 of 16
        expect_errno(E.EINVAL, uv.modify_srq, h, U.SRQ_MAX_WR, 64, driver_in=addr)
        struct.pack_into('<I', m, 0, 5)
        check(uv.query_srq(h)[0] == 16, 'refused resizes changed max_wr to %d' %
              uv.query_srq(h)[0])
        uv.modify_srq(h, U.SRQ_MAX_WR, 64, driver_in=addr)
        new = struct.unpack_from('<QQII', info, 0)
        check(new[2:] == (64, stride) and new[0] != ring[0], 'new ring %r' % (new,))
        check(uv.query_srq(h)[0] == 64, 'query after resize: %r' % (uv.query_srq(h),))
        m.close()
        m = None
        expect_errno(E.EINVAL, uv.map_ring, ring)
        m = uv.map_ring(new)
        check(struct.unpack_from('<I', m, 0)[0] == 5 and
              struct.unpack_from('<I', m, 64)[0] == 0, 'indices not carried over')
        got = [struct.unpack_from('<Q', m, U.RING_HDR_SIZE + i * stride)[0] for i in range(5)]
        check(got == [0x5000 + i for i in range(5)], 'entries not carried over: %r' % got)
    finally:
        if m is not None:
            m.close()
        uv.destroy_srq(h)


@test('CQ: a ring mapping outlives its CQ (read/write after destroy, then '
      'munmap)')
def _():
    h, n, ring = uv.create_cq(256)
    m = uv.map_ring(ring)
    uv.destroy_cq(h)
    m[U.RING_HDR_SIZE:U.RING_HDR_SIZE + 64] = b'\xab' * 64
    check(m[U.RING_HDR_SIZE + 63] == 0xab, 'mapping not usable')
    m.close()
    expect_errno(E.EINVAL, uv.map_ring, ring)


@test('CQ: 1000 create/destroy cycles and 200 live CQs leave no vmalloc, '
      'slab or restrack entries behind')
def _():
    time.sleep(1)
    vm0, slab0 = U.meminfo_kb('VmallocUsed'), U.meminfo_kb('Slab')
    for i in range(1000):
        uv.destroy_cq(uv.create_cq(1 + i % 300)[0])
    hs = [uv.create_cq(64)[0] for i in range(200)]
    for h in hs:
        uv.destroy_cq(h)
    time.sleep(2)
    dv = U.meminfo_kb('VmallocUsed') - vm0
    ds = U.meminfo_kb('Slab') - slab0
    check(dv < 1024 and (ds < 2048 or U.kasan()),
          'VmallocUsed +%d kB, Slab +%d kB' % (dv, ds))
    res = user_res('rdma resource show cq dev sroce0 2>/dev/null')
    check(not res.strip(), 'CQs left in restrack: %s' % res)


@test('closing a context with CQs, MRs, a PD and a ring mapping still open '
      'cleans up')
def _():
    time.sleep(1)
    vm0, pin0 = U.meminfo_kb('VmallocUsed'), U.vm_pin_kb()
    for _ in range(20):
        u2 = U.Uverbs('sroce0')
        p2 = u2.alloc_pd()
        for i in range(10):
            u2.reg_mr(p2, buf, 65536, buf, ALL)
            u2.create_cq(512)
        h, n, ring = u2.create_cq(1024)
        m = u2.map_ring(ring)
        u2.close()
        m[0:4] = b'\x01\x02\x03\x04'
        m.close()
    time.sleep(2)
    check(U.vm_pin_kb() == pin0, 'VmPin %d kB, was %d' % (U.vm_pin_kb(), pin0))
    dv = U.meminfo_kb('VmallocUsed') - vm0
    check(dv < 1024, 'VmallocUsed +%d kB' % dv)
    res = user_res('rdma resource show cq dev sroce0; rdma resource show mr dev sroce0')
    check(not res.strip(), 'objects left: %s' % res)


def pyverbs_cq():
    from pyverbs.device import Context
    from pyverbs.cq import CQ
    with Context(name='sroce0') as ctx:
        cq = CQ(ctx, 16)
        try:
            check(cq.cqe >= 16, 'cqe %d' % cq.cqe)
            n, _ = cq.poll(4)
            check(n == 0, 'poll of an empty CQ returned %d' % n)
            cq.req_notify(False)
            cq.req_notify(True)
            cq.resize(100)
            n, _ = cq.poll(4)
            check(n == 0, 'poll after resize returned %d' % n)
        finally:
            cq.close()


@test('CQ via pyverbs/provider: create, poll empty, req_notify, resize, destroy')
def _():
    from pyverbs.pyverbs_error import PyverbsRDMAError
    try:
        pyverbs_cq()
    except PyverbsRDMAError as ex:
        # libibverbs' default for a provider without create_cq
        if ex.error_code == E.EOPNOTSUPP and state.get('raw_cq_ok'):
            raise Skip('provider lacks CQ rings')
        raise


for name, fn in results:
    try:
        fn()
        print('ok\t%s' % name)
    except Skip as s:
        print('skip\t%s\t%s' % (name, s))
    except Exception as ex:   # noqa: BLE001 - every failure is a "not ok"
        why = '%s: %s' % (type(ex).__name__, ex)
        print('fail\t%s\t%s' % (name, why.replace('\n', ' ')))
    sys.stdout.flush()

uv.dealloc_pd(pd)
uv.close()
print('done\t%d' % len(results))
PY
}

ran=0
out=$(run_tests 2>&1)
while IFS=$'\t' read -r kind name why; do
	case "$kind" in
	ok) ktap_ok "$name" ;;
	fail) ktap_fail "$name" "$why" ;;
	skip) ktap_skip "$name" "$why" ;;
	done) ran=$name ;;
	*) ktap_diag "$kind $name $why" ;;
	esac
done <<< "$out"
[ "$ran" -eq $((NTESTS - 1)) ] || ktap_diag "the Python tests stopped early ($ran of $((NTESTS - 1)) ran)"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
