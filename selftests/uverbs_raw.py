# SPDX-License-Identifier: GPL-2.0
"""Raw uverbs for sroce selftests: the legacy write() commands on
/dev/infiniband/uverbsN and the ioctl() method call (raw_ioctl), without
libibverbs or the provider, so tests reach the kernel driver exactly as a
(possibly hostile) provider would.

Not a test by itself (selftests/run only runs NN-*.sh); imported by them.
"""
import ctypes
import errno
import fcntl
import mmap
import os
import struct

CMD_GET_CONTEXT = 0
CMD_ALLOC_PD = 3
CMD_DEALLOC_PD = 4
CMD_REG_MR = 9
CMD_DEREG_MR = 13
CMD_CREATE_CQ = 18
CMD_RESIZE_CQ = 19
CMD_DESTROY_CQ = 20
CMD_POLL_CQ = 21
CMD_REQ_NOTIFY_CQ = 23
CMD_CREATE_SRQ = 32
CMD_MODIFY_SRQ = 33
CMD_QUERY_SRQ = 34
CMD_DESTROY_SRQ = 35

SRQ_MAX_WR = 1
SRQ_LIMIT = 2

ACCESS_LOCAL_WRITE = 1
ACCESS_REMOTE_WRITE = 2
ACCESS_REMOTE_READ = 4
ACCESS_REMOTE_ATOMIC = 8
ACCESS_MW_BIND = 16
ACCESS_ZERO_BASED = 32

RING_HDR_SIZE = 256
CQE_SIZE = 64
PAGE = mmap.PAGESIZE


ATTR_F_MANDATORY = 1
RDMA_VERBS_IOCTL = (3 << 30) | (24 << 16) | (0x1b << 8) | 1


def raw_ioctl(fd, obj, method, attrs):
    """ATTRS: (attr_id, len, data) with data inline (<= 8 bytes) or a
    pointer; len 0 for an object handle. Returns (errno, [data of each attribute after the call])."""
    buf = bytearray(struct.pack('=HHHHQII', 24 + 16 * len(attrs), obj, method,
                                len(attrs), 0, 0, 0))
    for aid, alen, data in attrs:
        buf += struct.pack('=HHHHQ', aid, alen, ATTR_F_MANDATORY, 0,
                           data & 0xffffffffffffffff)
    try:
        fcntl.ioctl(fd, RDMA_VERBS_IOCTL, buf, True)
    except OSError as ex:
        return ex.errno, None
    return 0, [struct.unpack_from('=Q', buf, 24 + 16 * i + 8)[0] for i in range(len(attrs))]


def uverbs_path(ibdev):
    base = '/sys/class/infiniband_verbs'
    for d in sorted(os.listdir(base)):
        try:
            with open(os.path.join(base, d, 'ibdev')) as f:
                if f.read().strip() == ibdev:
                    return '/dev/infiniband/' + d
        except OSError:
            pass
    raise FileNotFoundError('no uverbs device for ' + ibdev)


def buf_addr(buf):
    """User address of a writable buffer (bytearray, mmap)."""
    return ctypes.addressof(ctypes.c_char.from_buffer(buf))


class Uverbs:
    """One uverbs file with a user context."""

    def __init__(self, ibdev='sroce0'):
        self.fd = os.open(uverbs_path(ibdev), os.O_RDWR | os.O_CLOEXEC)
        resp = self.cmd(CMD_GET_CONTEXT, b'', 8 + 16, with_resp=True)
        self.async_fd = struct.unpack_from('<I', resp, 0)[0]
        self.abi_version, self.caps = struct.unpack_from('<II', resp, 8)

    def close(self):
        os.close(self.async_fd)
        os.close(self.fd)

    def cmd(self, command, body, out_len=0, with_resp=False):
        """Issue one write() command. @body follows the response pointer
        (when @with_resp) in the command. Returns the response bytes;
        raises OSError with the kernel's errno."""
        resp = bytearray(max(out_len, 8))
        payload = (struct.pack('<Q', buf_addr(resp)) if with_resp else b'') + body
        hdr = struct.pack('<IHH', command, (8 + len(payload)) // 4, out_len // 4)
        os.write(self.fd, hdr + payload)
        return bytes(resp[:out_len])

    # ---- PD
    def alloc_pd(self):
        return struct.unpack('<I', self.cmd(CMD_ALLOC_PD, b'', 8, True)[:4])[0]

    def dealloc_pd(self, pd):
        self.cmd(CMD_DEALLOC_PD, struct.pack('<I', pd))

    # ---- MR
    def reg_mr(self, pd, start, length, iova, access):
        """Returns (handle, lkey, rkey)."""
        body = struct.pack('<QQQII', start, length, iova, pd, access)
        return struct.unpack('<III', self.cmd(CMD_REG_MR, body, 12, True)[:12])

    def dereg_mr(self, handle):
        self.cmd(CMD_DEREG_MR, struct.pack('<I', handle))

    # ---- CQ
    def create_cq(self, cqe, driver_in=b'', resp_len=24):
        """Returns (handle, cqe, ring) with ring = (mmap_offset, mmap_len,
        num_entries, entry_size) from struct sroce_create_cq_resp."""
        body = struct.pack('<QIIiI', 0, cqe, 0, -1, 0) + driver_in
        r = self.cmd(CMD_CREATE_CQ, body, 8 + resp_len, True)
        h, n = struct.unpack_from('<II', r, 0)
        return h, n, struct.unpack_from('<QQII', r, 8) if resp_len >= 24 else None

    def resize_cq(self, handle, cqe):
        r = self.cmd(CMD_RESIZE_CQ, struct.pack('<II', handle, cqe), 8 + 24, True)
        return struct.unpack_from('<I', r, 0)[0], struct.unpack_from('<QQII', r, 8)

    def destroy_cq(self, handle):
        self.cmd(CMD_DESTROY_CQ, struct.pack('<II', handle, 0), 8, True)

    def req_notify_cq(self, handle, solicited_only=0):
        self.cmd(CMD_REQ_NOTIFY_CQ, struct.pack('<II', handle, solicited_only))

    def poll_cq(self, handle, ne):
        r = self.cmd(CMD_POLL_CQ, struct.pack('<II', handle, ne), 8 + ne * 48, True)
        return struct.unpack_from('<I', r, 0)[0]

    # ---- SRQ
    def create_srq(self, pd, max_wr, max_sge=1):
        """Returns (handle, max_wr, ring) with ring as in create_cq, from
        struct sroce_create_srq_resp."""
        body = struct.pack('<QIIII', 0, pd, max_wr, max_sge, 0)
        r = self.cmd(CMD_CREATE_SRQ, body, 16 + 24, True)
        h, n = struct.unpack_from('<II', r, 0)
        return h, n, struct.unpack_from('<QQII', r, 16)

    def modify_srq(self, handle, mask, max_wr=0, srq_limit=0, driver_in=b''):
        """@driver_in: struct sroce_modify_srq (the new ring's address)."""
        self.cmd(CMD_MODIFY_SRQ, struct.pack('<IIII', handle, mask, max_wr, srq_limit) + driver_in)

    def query_srq(self, handle):
        """Returns (max_wr, max_sge, srq_limit)."""
        r = self.cmd(CMD_QUERY_SRQ, struct.pack('<II', handle, 0), 16, True)
        return struct.unpack_from('<III', r, 0)

    def destroy_srq(self, handle):
        self.cmd(CMD_DESTROY_SRQ, struct.pack('<II', handle, 0), 8, True)

    def map_ring(self, ring, length=None, flags=mmap.MAP_SHARED):
        off, mlen = ring[0], ring[1]
        return mmap.mmap(self.fd, mlen if length is None else length, flags,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=off)


def errno_of(fn, *args, **kw):
    """Run fn; return 0 on success, else the OSError's errno."""
    try:
        fn(*args, **kw)
    except OSError as e:
        return e.errno
    return 0


ENAMES = errno.errorcode

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def anon_map(size, prot=mmap.PROT_READ | mmap.PROT_WRITE):
    """Anonymous private memory; returns its address."""
    addr = _libc.mmap(None, size, prot, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), 'mmap')
    return addr


def anon_unmap(addr, size):
    _libc.munmap(addr, size)


def vm_pin_kb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmPin:'):
                return int(line.split()[1])
    return 0


def kasan():
    """True on a KASAN kernel (make check-debug): freed objects wait in its
    quarantine and still count as Slab, so a slab bound measures nothing
    there (zz-kmemleak judges leaks on that kernel)."""
    try:
        with open('/proc/kallsyms') as f:
            return any(line.rstrip().endswith(' kasan_report') for line in f)
    except OSError:
        return False


def meminfo_kb(field):
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return 0
