# SPDX-License-Identifier: GPL-2.0
"""An ODP fault that never completes stalls nobody else (odp.c):

    python3 odp_stall.py run DEVICE

Prints "ok CASE", "not ok CASE: why" and "info CASE: what" lines; exit 0
when every case behaved, 1 otherwise. It runs four processes besides
itself (python3 odp_stall.py ROLE ...):

serve   a FUSE server (raw /dev/fuse protocol) with one 1 MiB file whose
        READ it never answers (it answers everything else)
stuck   process A: an ODP MR and an implicit ODP MR, and over a shared
        mapping of that file an RC WRITE gathering through each: the fault
        work of each MR sleeps in the MM (the READ) until the server goes;
        A deregisters the first MR and exits when told
other   process B: its own ODP MRs (memfd, pages dropped) and an RC WRITE
        between them, which must fault and complete meanwhile
uffd    process C: an ODP MR over anonymous memory registered with a
        userfaultfd nobody serves: sroce faults with hmm_range_fault(),
        which passes no FAULT_FLAG_ALLOW_RETRY, so handle_userfault()
        answers SIGBUS at once and the WRITE fails (LOC_PROT_ERR) instead
        of waiting

Cases:

stuck   A's WRITEs have no completion: their faults are stuck in the READ
restrack  `rdma resource show mr -dd` (the implicit MR's children, its
        pages) answers within BOUND_SECS meanwhile
other   B's 1 MiB WRITE completes, byte-exact, within OTHER_SECS
uffd    C's WRITE completes with LOC_PROT_ERR within OTHER_SECS
dereg   A's ibv_dereg_mr of the stuck MR returns within BOUND_SECS
exit    A exits (its QPs, CQ, PD, context destroyed by the exit) within
        BOUND_SECS
unlink  `rdma link delete` of the device while the faults are stuck
        returns within BOUND_SECS; the faults end after it, cleanly (the
        stuck MRs have no page mapped, so their release reads nothing of
        the device: the held ib_device is checked by reading only)
module  while the faults are stuck each holds sroce (refcnt up by two:
        rmmod is refused, EBUSY, rather than hanging); once the server
        goes, they end and let go (refcnt back) within BOUND_SECS
"""
import ctypes
import mmap
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

SIZE = 1 << 20
OTHER_SECS = 30.0       # B's WRITE and C's under TCG with a cold start
BOUND_SECS = 10.0       # dereg, exit, the module reference after the server
ME = os.path.abspath(__file__)

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                       ctypes.c_char_p]
LIBC.syscall.restype = ctypes.c_long
LIBC.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
MAP_FAILED = ctypes.c_void_p(-1).value


# ---- serve: the FUSE server that never answers a READ -----------------

FUSE_LOOKUP, FUSE_FORGET, FUSE_GETATTR, FUSE_OPEN, FUSE_READ = 1, 2, 3, 14, 15
FUSE_RELEASE, FUSE_FLUSH, FUSE_INIT, FUSE_OPENDIR = 18, 25, 26, 27
FUSE_RELEASEDIR, FUSE_INTERRUPT, FUSE_DESTROY, FUSE_BATCH_FORGET = 29, 36, 38, 42
NO_REPLY = (FUSE_FORGET, FUSE_BATCH_FORGET, FUSE_INTERRUPT, FUSE_READ)
IN_HDR = struct.Struct('<IIQQIIIHH')            # struct fuse_in_header
OUT_HDR = struct.Struct('<IiQ')                 # struct fuse_out_header
ROOT, FILE = 1, 2
NAME = b'f'


def fuse_attr(ino):
    """struct fuse_attr: the root directory or the 1 MiB read-only file."""
    mode, size, nlink = (0o40755, 0, 2) if ino == ROOT else (0o100444, SIZE, 1)
    return struct.pack('<QQQQQQIIIIIIIIII', ino, size, (size + 511) // 512, 0, 0, 0,
                       0, 0, 0, mode, nlink, 0, 0, 0, 4096, 0)


def fuse_reply(opcode, nodeid, payload):
    """(errno, reply body) for a request, None for no reply."""
    if opcode in NO_REPLY:
        return None
    if opcode == FUSE_INIT:
        major, minor = struct.unpack_from('<II', payload)
        if major != 7:
            return -22, b''
        # major, minor, max_readahead, flags, max_background,
        # congestion_threshold, max_write, time_gran, max_pages,
        # map_alignment, flags2, max_stack_depth, unused[6]
        return 0, struct.pack('<IIIIHHIIHHII24x', 7, min(minor, 31), 0, 0, 16, 12,
                              4096, 1, 1, 0, 0, 0)
    if opcode == FUSE_LOOKUP:
        if nodeid != ROOT or payload.rstrip(b'\0') != NAME:
            return -2, b''
        return 0, struct.pack('<QQQQII', FILE, 0, 3600, 3600, 0, 0) + fuse_attr(FILE)
    if opcode == FUSE_GETATTR:
        return 0, struct.pack('<QII', 3600, 0, 0) + fuse_attr(nodeid)
    if opcode in (FUSE_OPEN, FUSE_OPENDIR):
        return 0, struct.pack('<QII', 1, 0, 0)
    if opcode in (FUSE_RELEASE, FUSE_RELEASEDIR, FUSE_FLUSH, FUSE_DESTROY):
        return 0, b''
    return -38, b''     # ENOSYS: the kernel does without


def serve(mnt):
    fd = os.open('/dev/fuse', os.O_RDWR)
    opts = 'fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other' % fd
    if LIBC.mount(b'odpstall', mnt.encode(), b'fuse', 0x2 | 0x4, opts.encode()):
        print('mount failed: %s' % os.strerror(ctypes.get_errno()), flush=True)
        return 1
    print('ready', flush=True)
    while True:
        try:
            req = os.read(fd, SIZE + 65536)
        except OSError:
            return 0    # unmounted or aborted
        _, opcode, unique, nodeid = IN_HDR.unpack_from(req)[:4]
        reply = fuse_reply(opcode, nodeid, req[IN_HDR.size:])
        if reply is None:
            continue
        err, body = reply
        try:
            os.write(fd, OUT_HDR.pack(OUT_HDR.size + len(body), err, unique) + body)
        except OSError:
            pass        # the request was interrupted meanwhile


# ---- the verbs roles ----------------------------------------------------

def verbs():
    """pyverbs and the shared helpers, imported by the roles that use them."""
    # pylint: disable=import-outside-toplevel
    import pyverbs.enums as e
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.wr import SendWR, SGE
    import rc_verbs
    return e, Context, MR, PD, SendWR, SGE, rc_verbs


def qp_pair(ctx, pd):
    """Two connected loopback RC QPs."""
    rc_verbs = verbs()[6]
    gid = ctx.query_gid(1, rc_verbs.GID_INDEX)
    a, b = rc_verbs.Rc(ctx, pd, size=SIZE), rc_verbs.Rc(ctx, pd, size=SIZE)
    for x in (a, b):
        x.init()
    a.connect(gid, b.qpn, 0, 0)
    b.connect(gid, a.qpn, 0, 0)
    return a, b


def rc_pair(dev):
    """A context, a PD and two connected loopback RC QPs."""
    _, Context, _, PD, _, _, _ = verbs()
    ctx = Context(name=dev)
    pd = PD(ctx)
    return (ctx, pd) + qp_pair(ctx, pd)


def write_from(a, b, addr, n, lkey):
    """RDMA WRITE of @n bytes at @addr (@lkey) into @b's MR."""
    e, _, _, _, SendWR, SGE, _ = verbs()
    w = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
               send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(addr, n, lkey)])
    w.set_wr_rdma(b.mr.rkey, b.mr.buf)
    a.qp.post_send(w)


def stuck(dev, path):
    e, _, MR, _, _, _, _ = verbs()
    ctx, pd, a, b = rc_pair(dev)
    c, d = qp_pair(ctx, pd)
    fd = os.open(path, os.O_RDONLY)
    addr = LIBC.mmap(None, SIZE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, MAP_FAILED):
        print('mmap failed', flush=True)
        return 1
    mr = MR(pd, SIZE, e.IBV_ACCESS_ON_DEMAND, address=addr)
    imr = MR(pd, 0, e.IBV_ACCESS_ON_DEMAND, implicit=True)
    write_from(a, b, addr, 4096, mr.lkey)
    write_from(c, d, addr + 8192, 4096, imr.lkey)
    wcs = a.poll(1, 3.0) + c.poll(1, 0.1)
    print('completed %d' % wcs[0].status if wcs else 'stuck', flush=True)
    # from here on nothing maps or unmaps memory (malloc: see run())
    for line in sys.stdin:
        if line.strip() == 'dereg':
            t = time.monotonic()
            mr.close()
            print('dereg %.2f' % (time.monotonic() - t), flush=True)
        elif line.strip() == 'exit':
            break
    # the exit destroys the QPs, CQs, PD and context; the mapping stays
    os._exit(0)     # pylint: disable=protected-access


def other(dev):
    e, _, MR, _, _, _, rc_verbs = verbs()
    ctx, pd, a, b = rc_pair(dev)
    bufs = []
    for _ in range(2):
        fd = os.memfd_create('odp-stall')
        os.ftruncate(fd, SIZE)
        m = mmap.mmap(fd, SIZE, mmap.MAP_SHARED)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        bufs.append((m, addr, MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                                 e.IBV_ACCESS_ON_DEMAND, address=addr)))
    (src, saddr, smr), (dst, daddr, dmr) = bufs
    data = rc_verbs.pattern(7, SIZE)
    src[:] = data
    for m, _, _ in bufs:
        m.madvise(mmap.MADV_DONTNEED)
    w_t = time.monotonic()
    sge_write(a, e, saddr, smr, daddr, dmr)
    wcs = a.poll(1, OTHER_SECS)
    took = time.monotonic() - w_t
    if not wcs:
        print('no completion within %.0f s' % OTHER_SECS, flush=True)
        return 1
    if wcs[0].status != e.IBV_WC_SUCCESS:
        print('status %d' % wcs[0].status, flush=True)
        return 1
    if dst[:] != data:
        print('data differs', flush=True)
        return 1
    print('ok %.2f' % took, flush=True)
    keep = (ctx, b)     # the QPs live until here
    return 0 if keep else 1


def sge_write(a, e, saddr, smr, daddr, dmr):
    """RDMA WRITE of SIZE bytes from ODP MR @smr into ODP MR @dmr."""
    _, _, _, _, SendWR, SGE, _ = verbs()
    w = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
               send_flags=e.IBV_SEND_SIGNALED, sg=[SGE(saddr, SIZE, smr.lkey)])
    w.set_wr_rdma(dmr.rkey, daddr)
    a.qp.post_send(w)


UFFDIO_API = 0xC018AA3F         # _IOWR(0xAA, 0x3F, struct uffdio_api)
UFFDIO_REGISTER = 0xC020AA00    # _IOWR(0xAA, 0x00, struct uffdio_register)
UFFDIO_REGISTER_MODE_MISSING = 1
NR_USERFAULTFD = 323            # x86_64


def uffd(dev):
    e, _, MR, _, _, _, _ = verbs()
    ctx, pd, a, b = rc_pair(dev)
    ufd = LIBC.syscall(NR_USERFAULTFD, os.O_CLOEXEC | os.O_NONBLOCK)
    if ufd < 0:
        print('userfaultfd: %s' % os.strerror(ctypes.get_errno()), flush=True)
        return 1
    api = ctypes.create_string_buffer(struct.pack('<QQQ', 0xAA, 0, 0))
    if LIBC.ioctl(ufd, UFFDIO_API, api):
        print('UFFDIO_API: %s' % os.strerror(ctypes.get_errno()), flush=True)
        return 1
    addr = LIBC.mmap(None, SIZE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    reg = ctypes.create_string_buffer(struct.pack('<QQQQ', addr, SIZE,
                                                  UFFDIO_REGISTER_MODE_MISSING, 0))
    if LIBC.ioctl(ufd, UFFDIO_REGISTER, reg):
        print('UFFDIO_REGISTER: %s' % os.strerror(ctypes.get_errno()), flush=True)
        return 1
    mr = MR(pd, SIZE, e.IBV_ACCESS_ON_DEMAND, address=addr)
    t = time.monotonic()
    write_from(a, b, addr, 4096, mr.lkey)
    wcs = a.poll(1, OTHER_SECS)
    if not wcs:
        print('no completion within %.0f s' % OTHER_SECS, flush=True)
        return 1
    print('status %d %.2f' % (wcs[0].status, time.monotonic() - t), flush=True)
    keep = (ctx, b)     # the QPs live until here
    return 0 if keep else 1


# ---- run: the driver ----------------------------------------------------

class Results:
    def __init__(self):
        self.failed = 0

    def ok(self, name, good, why='', info=''):
        if info:
            print('info %s: %s' % (name, info), flush=True)
        if good:
            print('ok %s' % name, flush=True)
        else:
            self.failed += 1
            print('not ok %s: %s' % (name, why), flush=True)


def readline(proc, secs):
    """A line of @proc's output within @secs seconds, else None."""
    if not select.select([proc.stdout], [], [], secs)[0]:
        return None
    return proc.stdout.readline().strip()


def refcnt():
    with open('/sys/module/sroce/refcnt', encoding='ascii') as f:
        return int(f.read())


def role(args, **kw):
    return subprocess.Popen([sys.executable, ME] + args, stdout=subprocess.PIPE, text=True,
                            **kw)


def role_line(args, secs):
    """Run a role to its end within @secs: its first line, or why not."""
    p = role(args)
    try:
        out = p.communicate(timeout=secs)[0].strip()
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return 'timeout: no answer within %.0f s' % secs
    return out.splitlines()[0] if out else 'exit %d, nothing printed' % p.returncode


def run(dev):
    res = Results()
    r0 = refcnt()
    r_exited = -1
    mnt = tempfile.mkdtemp(prefix='odp-stall.')
    server = role(['serve', mnt])
    a = None
    try:
        line = readline(server, 30)
        if line != 'ready':
            res.ok('stuck', False, 'FUSE server: %s' % line)
            return 1
        # A maps or unmaps nothing once its fault is stuck: the fault holds
        # its mmap_lock for reading (hmm_range_fault() cannot drop it), so
        # a brk or mmap of A's own would wait for the server too
        env = dict(os.environ, PYTHONMALLOC='malloc', MALLOC_TOP_PAD_=str(64 << 20),
                   MALLOC_TRIM_THRESHOLD_=str(1 << 40), MALLOC_MMAP_THRESHOLD_=str(1 << 30))
        a = role(['stuck', dev, os.path.join(mnt, NAME.decode())], stdin=subprocess.PIPE,
                 env=env)
        line = readline(a, 60)
        res.ok('stuck', line == 'stuck', 'A: %s' % line)
        t = time.monotonic()
        try:
            out = subprocess.run(['rdma', 'resource', 'show', 'mr', 'dev', dev, '-dd'],
                                 capture_output=True, text=True, timeout=BOUND_SECS,
                                 check=False)
            res.ok('restrack', out.returncode == 0 and 'odp_implicit' in out.stdout,
                   'rdma resource show mr: exit %d, %s' % (out.returncode,
                                                          out.stdout + out.stderr),
                   'rdma resource show mr: %.2f s' % (time.monotonic() - t))
        except subprocess.TimeoutExpired:
            res.ok('restrack', False, 'rdma resource show mr: no answer in %.0f s' %
                   BOUND_SECS)
        t = time.monotonic()
        line = role_line(['other', dev], OTHER_SECS + 30)
        good = line.startswith('ok ')
        res.ok('other', good, 'B: %s' % line, good and 'B\'s 1 MiB WRITE took %s s, B ran '
               '%.1f s' % (line[3:], time.monotonic() - t))
        line = role_line(['uffd', dev], OTHER_SECS + 30)
        res.ok('uffd', line.startswith('status 4 '), 'C: %s (expected status 4 LOC_PROT_ERR)' %
               line, 'C: WRITE from a never-served userfaultfd range: %s' % line)
        a.stdin.write('dereg\n')
        a.stdin.flush()
        line = readline(a, BOUND_SECS)
        res.ok('dereg', bool(line) and line.startswith('dereg '),
               'A: no answer within %.0f s: %s' % (BOUND_SECS, line),
               bool(line) and 'dereg_mr of the stuck MR: %s s' % line[6:])
        t = time.monotonic()
        a.stdin.write('exit\n')
        a.stdin.flush()
        try:
            a.wait(timeout=BOUND_SECS)
            res.ok('exit', True, info='A exited in %.2f s' % (time.monotonic() - t))
        except subprocess.TimeoutExpired:
            res.ok('exit', False, 'A still there after %.0f s' % BOUND_SECS)
        r_exited = refcnt()
        # the device goes while the faults are stuck: its unregistration
        # waits for none of them, and the core's calls on their umems when
        # they end (the mapping, the release) still find the ib_device
        t = time.monotonic()
        try:
            out = subprocess.run(['rdma', 'link', 'delete', dev], capture_output=True,
                                 text=True, timeout=BOUND_SECS, check=False)
            res.ok('unlink', out.returncode == 0,
                   'rdma link delete %s: exit %d, %s' % (dev, out.returncode, out.stderr),
                   'rdma link delete during the stuck faults: %.2f s' %
                   (time.monotonic() - t))
        except subprocess.TimeoutExpired:
            res.ok('unlink', False, 'rdma link delete: no answer in %.0f s' % BOUND_SECS)
    finally:
        server.send_signal(signal.SIGTERM)      # /dev/fuse closed: the READ fails
        server.wait()
        subprocess.run(['umount', '-l', mnt], check=False)
        if a:
            try:
                a.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                a.kill()
                a.communicate()
        os.rmdir(mnt)
    end = time.monotonic() + BOUND_SECS
    while refcnt() != r0 and time.monotonic() < end:
        time.sleep(0.2)
    r_end = refcnt()
    res.ok('module', r_exited == r0 + 2 and r_end == r0,
           'sroce refcnt %d before, %d once A exited, %d once the server went' %
           (r0, r_exited, r_end),
           'sroce refcnt %d -> %d (A gone, fault stuck) -> %d (server gone)' %
           (r0, r_exited, r_end))
    return 1 if res.failed else 0


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.path.insert(0, os.path.dirname(ME))
    fn = {'serve': serve, 'stuck': stuck, 'other': other, 'uffd': uffd, 'run': run}[cmd]
    sys.exit(fn(*args))


main()
