# SPDX-License-Identifier: GPL-2.0
"""dma-buf MRs (ibv_reg_dmabuf_mr) on sroce, with pyverbs:

    python3 dmabuf_verbs.py EXPORTER MR_DEVICE PEER_DEVICE CASE...

EXPORTER makes the dma-bufs: "udmabuf" (/dev/udmabuf on a sealed memfd;
the CPU view is a mapping of the memfd) or "vgem" (a vgem dumb buffer
exported with DRM PRIME; the CPU view is a mapping of the dma-buf itself).
The dma-buf MRs live on MR_DEVICE; traffic cases connect an RC QP there to
one on PEER_DEVICE (GID index 1: two sroce devices in two namespaces,
selftests/net-topo.sh). Prints "ok CASE" or "not ok CASE: why" per case
(one process for all of them: starting pyverbs takes seconds under TCG);
exit 0 when every case behaved, 1 otherwise.

Cases:
  probe     NCCL's probe ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) fails with
            EBADF (supported), not EOPNOTSUPP/EPROTONOSUPPORT
  write     the peer RDMA WRITEs into a dma-buf MR registered at an offset
            in its buffer: byte-exact through the exporter's CPU view,
            nothing else in the buffer touched; a WRITE past the MR fails
            with REM_ACCESS_ERR and changes nothing
  read      the peer RDMA READs a dma-buf MR the CPU filled
  local     the dma-buf side as requester: RDMA WRITE from and RDMA READ
            into dma-buf SGEs
  send      SEND into a dma-buf receive SGE and from a dma-buf SGE
  atomic    FETCH_ADD and CMP_SWAP on a dma-buf MR word
  refused   bad fd (EBADF), an fd that is no dma-buf (EINVAL), zero length,
            past the buffer, wrapping offset, wrapping iova and huge lengths
            (raw ioctls past the provider: EINVAL), remote write without
            local write (EINVAL), ON_DEMAND and MW_BIND refused, rereg
            refused; the MR still works afterwards
  readonly  a vgem buffer exported read-only (PRIME without DRM_RDWR):
            LOCAL_WRITE or REMOTE_WRITE fail with EACCES, a REMOTE_READ MR
            works and the peer reads the buffer (whatever the exporter of
            the other cases; "skip readonly: why" without vgem)
  lifetime  the user closes the dma-buf fd (and the memfd, and unmaps its
            view) after registration: the MR keeps the buffer, traffic in
            and out still byte-exact; dereg then drops the last reference
            (the buffer count in debugfs returns to what it was)
  inflight  dereg while the peer's RDMA READ and WRITE of the MR are in
            flight: they complete (success or REM_ACCESS_ERR), no hang, the
            QPs can be torn down, the buffer is released
"""
import ctypes
import errno
import fcntl
import glob
import mmap
import os
import struct
import sys

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import DmaBufMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError

from rc_verbs import Fail, Node, err_of, expect_errno, pattern
from uverbs_raw import raw_ioctl

PAGE = 4096
RW = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
ATOMIC = RW | e.IBV_ACCESS_REMOTE_ATOMIC
# buffer layout: the MR starts OFF bytes into a dma-buf of SIZE bytes
SIZE, OFF, LEN = 256 * 1024, PAGE + 256, 128 * 1024


# ---- exporters ---------------------------------------------------------------

def _iowr(kind, nr, size, write_only=False):
    return ((1 if write_only else 3) << 30) | (size << 16) | (ord(kind) << 8) | nr


UDMABUF_CREATE = _iowr('u', 0x42, 24, write_only=True)
DRM_IOCTL_MODE_CREATE_DUMB = _iowr('d', 0xb2, 32)
DRM_IOCTL_PRIME_HANDLE_TO_FD = _iowr('d', 0x2d, 12)
F_ADD_SEALS, F_SEAL_SHRINK = 1033, 2


class Buffer:
    """A dma-buf of SIZE bytes (fd) and the exporter's CPU view of it (view)."""

    def __init__(self, kind, size=SIZE, writable=True):
        self.kind, self.size, self.memfd, self.drm = kind, size, -1, -1
        if kind == 'udmabuf':
            self.memfd = os.memfd_create('sroce-dmabuf', os.MFD_ALLOW_SEALING)
            os.ftruncate(self.memfd, size)
            fcntl.fcntl(self.memfd, F_ADD_SEALS, F_SEAL_SHRINK)
            dev = os.open('/dev/udmabuf', os.O_RDWR)
            try:
                # UDMABUF_FLAGS_CLOEXEC; a mutable argument: ioctl() returns the fd
                arg = bytearray(struct.pack('=IIQQ', self.memfd, 1, 0, size))
                self.fd = fcntl.ioctl(dev, UDMABUF_CREATE, arg, True)
            finally:
                os.close(dev)
            self.view = mmap.mmap(self.memfd, size, mmap.MAP_SHARED)
        else:
            self.drm = os.open(vgem_card(), os.O_RDWR)
            arg = bytearray(struct.pack('=IIIIIIQ', 1, size // 4, 32, 0, 0, 0, 0))
            fcntl.ioctl(self.drm, DRM_IOCTL_MODE_CREATE_DUMB, arg, True)
            handle, size_got = struct.unpack_from('=I', arg, 16)[0], struct.unpack_from('=Q', arg, 24)[0]
            if size_got < size:
                raise Fail('vgem dumb buffer of %d bytes, asked for %d' % (size_got, size))
            flags = os.O_CLOEXEC | (os.O_RDWR if writable else 0)
            arg = bytearray(struct.pack('=IIi', handle, flags, -1))
            fcntl.ioctl(self.drm, DRM_IOCTL_PRIME_HANDLE_TO_FD, arg, True)
            self.fd = struct.unpack_from('=i', arg, 8)[0]
            self.view = mmap.mmap(self.fd, size, mmap.MAP_SHARED, mmap.PROT_READ |
                                  (mmap.PROT_WRITE if writable else 0))
        if writable:
            self.view[:] = bytes(size)

    def put(self, off, data):
        self.view[off:off + len(data)] = data

    def get(self, off, n):
        return bytes(self.view[off:off + n])

    def drop_user_refs(self):
        """Close everything user space holds except the view."""
        for fd in (self.fd, self.memfd, self.drm):
            if fd >= 0:
                os.close(fd)
        self.fd = self.memfd = self.drm = -1

    def close(self):
        self.drop_user_refs()
        if self.view is not None:
            self.view.close()
            self.view = None


def vgem_card():
    for card in sorted(glob.glob('/sys/class/drm/card[0-9]*')):
        try:
            drv = os.path.basename(os.readlink(card + '/device/driver'))
        except OSError:
            drv = os.path.basename(os.path.realpath(card + '/device'))
        if 'vgem' in drv or 'vgem' in os.path.realpath(card + '/device'):
            return '/dev/dri/' + os.path.basename(card)
    raise Fail('no vgem card in /sys/class/drm')


def dmabuf_count():
    """dma-bufs in the system (debugfs), None when it cannot be read."""
    try:
        with open('/sys/kernel/debug/dma_buf/bufinfo') as f:
            for line in f:
                if line.startswith('Total ') and 'objects' in line:
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# ---- raw uverbs ioctls (what a hostile provider could send) ----------------

UVERBS_OBJECT_MR = 7
UVERBS_METHOD_MR_DESTROY, UVERBS_METHOD_REG_DMABUF_MR = 1, 4


def raw_reg_dmabuf(ctx, pd, offset, length, iova, fd, access):
    """Register through a raw ioctl; deregister again if it worked. Returns the errno."""
    lkey, rkey = ctypes.c_uint32(), ctypes.c_uint32()
    err, out = raw_ioctl(ctx.cmd_fd, UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR,
                         [(0, 0, 0), (1, 0, pd.handle), (2, 8, offset), (3, 8, length),
                          (4, 8, iova), (5, 4, fd), (6, 4, access),
                          (7, 4, ctypes.addressof(lkey)), (8, 4, ctypes.addressof(rkey))])
    if not err:
        raw_ioctl(ctx.cmd_fd, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, [(0, 0, out[0])])
    return err


# ---- QPs -------------------------------------------------------------------------

class World:
    def __init__(self, kind, dev, peer):
        self.kind = kind
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.pctx = Context(name=peer)
        self.ppd = PD(self.pctx)

    def buf(self):
        return Buffer(self.kind)

    def pair(self, access=ATOMIC):
        """(dma-buf side, peer side, peer's plain MR) connected over the veth."""
        a, b = Node(self.ctx, self.pd, access), Node(self.pctx, self.ppd, access)
        a.connect(b)
        b.connect(a)
        return a, b, MR(self.ppd, 1 << 18, ATOMIC)


def dmabuf_mr(w, buf, length=LEN, access=RW, offset=OFF):
    # pyverbs registers at iova == offset
    return DmaBufMR(w.pd, length, access, dmabuf=buf.fd, offset=offset)


# ---- the cases ---------------------------------------------------------------

def case_probe(w):
    # what NCCL's ncclIbDmaBufSupport() does: fd -1, everything else 0
    expect_errno('ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0)', errno.EBADF,
                 DmaBufMR, w.pd, 0, 0, -1, 0)


def case_write(w):
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf)
    data = pattern(1, 40000)
    pmr.write(data, len(data), 0)
    b.post(e.IBV_WR_RDMA_WRITE, pmr.buf, len(data), pmr.lkey, OFF + 1000, mr.rkey)
    b.wait('RDMA WRITE into the dma-buf MR')
    if buf.get(OFF + 1000, len(data)) != data:
        raise Fail('RDMA WRITE: the buffer holds other data')
    if buf.get(0, OFF + 1000) != bytes(OFF + 1000):
        raise Fail('RDMA WRITE touched the buffer before its target')
    rest = SIZE - OFF - 1000 - len(data)
    if buf.get(OFF + 1000 + len(data), rest) != bytes(rest):
        raise Fail('RDMA WRITE touched the buffer after its target')
    # a WRITE reaching past the MR (still inside the buffer) is refused
    before = buf.get(0, SIZE)
    b.post(e.IBV_WR_RDMA_WRITE, pmr.buf, 64, pmr.lkey, OFF + LEN - 32, mr.rkey)
    b.wait('RDMA WRITE past the dma-buf MR', e.IBV_WC_REM_ACCESS_ERR)
    if buf.get(0, SIZE) != before:
        raise Fail('refused RDMA WRITE changed the buffer')
    mr.close()
    buf.close()


def case_read(w):
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf)
    data = pattern(2, LEN)
    buf.put(OFF, data)
    b.post(e.IBV_WR_RDMA_READ, pmr.buf, LEN, pmr.lkey, OFF, mr.rkey)
    b.wait('RDMA READ of the dma-buf MR')
    if pmr.read(LEN, 0) != data:
        raise Fail('RDMA READ returned other data')
    mr.close()
    buf.close()


def case_local(w):
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf)
    data = pattern(3, 50000)
    buf.put(OFF + 100, data)
    pmr.write(bytes(len(data)), len(data), 0)
    a.post(e.IBV_WR_RDMA_WRITE, OFF + 100, len(data), mr.lkey, pmr.buf, pmr.rkey)
    a.wait('RDMA WRITE from a dma-buf SGE')
    if pmr.read(len(data), 0) != data:
        raise Fail('RDMA WRITE from the dma-buf: the peer holds other data')
    data = pattern(4, 60000)
    pmr.write(data, len(data), 1000)
    a.post(e.IBV_WR_RDMA_READ, OFF + 5000, len(data), mr.lkey, pmr.buf + 1000, pmr.rkey)
    a.wait('RDMA READ into a dma-buf SGE')
    if buf.get(OFF + 5000, len(data)) != data:
        raise Fail('RDMA READ into the dma-buf: the buffer holds other data')
    mr.close()
    buf.close()


def case_send(w):
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf, access=e.IBV_ACCESS_LOCAL_WRITE)
    data = pattern(5, 20000)
    pmr.write(data, len(data), 0)
    a.recv(OFF + PAGE - 12, len(data) + 100, mr.lkey)
    b.post(e.IBV_WR_SEND, pmr.buf, len(data), pmr.lkey)
    b.wait('SEND (sender)')
    wc = a.wait('SEND into a dma-buf SGE (receiver)')
    if wc.byte_len != len(data) or buf.get(OFF + PAGE - 12, len(data)) != data:
        raise Fail('SEND into the dma-buf: length %d or data wrong' % wc.byte_len)
    data = pattern(6, 30000)
    buf.put(OFF + 8, data)
    pmr.write(bytes(len(data)), len(data), 0)
    b.recv(pmr.buf, len(data), pmr.lkey)
    a.post(e.IBV_WR_SEND, OFF + 8, len(data), mr.lkey)
    a.wait('SEND from a dma-buf SGE (sender)')
    wc = b.wait('SEND from a dma-buf SGE (receiver)')
    if wc.byte_len != len(data) or pmr.read(len(data), 0) != data:
        raise Fail('SEND from the dma-buf: length %d or data wrong' % wc.byte_len)
    mr.close()
    buf.close()


def case_atomic(w):
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf, length=PAGE, access=ATOMIC, offset=2 * PAGE)
    word = 2 * PAGE + 64
    buf.put(word, struct.pack('<Q', 1000))
    b.post(e.IBV_WR_ATOMIC_FETCH_AND_ADD, pmr.buf, 8, pmr.lkey, word, mr.rkey, 234)
    b.wait('FETCH_ADD on the dma-buf MR')
    if struct.unpack('<Q', pmr.read(8, 0))[0] != 1000:
        raise Fail('FETCH_ADD returned a wrong original value')
    b.post(e.IBV_WR_ATOMIC_CMP_AND_SWP, pmr.buf, 8, pmr.lkey, word, mr.rkey, 1234, 77)
    b.wait('CMP_SWAP on the dma-buf MR')
    if struct.unpack('<Q', pmr.read(8, 0))[0] != 1234 or buf.get(word, 8) != struct.pack('<Q', 77):
        raise Fail('CMP_SWAP: original value or the word in the buffer wrong')
    mr.close()
    buf.close()


def case_refused(w):
    buf = w.buf()
    fd = buf.fd
    expect_errno('fd -1, 4 KiB', errno.EBADF, DmaBufMR, w.pd, PAGE, RW, -1, 0)
    expect_errno('fd not open', errno.EBADF, DmaBufMR, w.pd, PAGE, RW, 1000, 0)
    other = os.memfd_create('not-a-dmabuf')
    os.ftruncate(other, SIZE)
    expect_errno('fd of a memfd, not a dma-buf', errno.EINVAL, DmaBufMR, w.pd, PAGE, RW, other, 0)
    os.close(other)
    expect_errno('length 0', errno.EINVAL, DmaBufMR, w.pd, 0, RW, fd, 0)
    expect_errno('length past the buffer', errno.EINVAL, DmaBufMR, w.pd, SIZE + 1, RW, fd, 0)
    expect_errno('offset + length past the buffer', errno.EINVAL,
                 DmaBufMR, w.pd, PAGE, RW, fd, SIZE - PAGE + 1)
    expect_errno('offset at the end', errno.EINVAL, DmaBufMR, w.pd, 1, RW, fd, SIZE)
    expect_errno('wrapping offset', errno.EINVAL, DmaBufMR, w.pd, 2 * PAGE, RW, fd, (1 << 64) - PAGE)
    expect_errno('remote write without local write', errno.EINVAL,
                 DmaBufMR, w.pd, PAGE, e.IBV_ACCESS_REMOTE_WRITE, fd, 0)
    # the core may refuse these flags before the driver sees them
    print('# ON_DEMAND: %s, MW_BIND: %s' % tuple(
        errno.errorcode.get(x, x) for x in
        (err_of(DmaBufMR, w.pd, PAGE, RW | e.IBV_ACCESS_ON_DEMAND, fd, 0),
         err_of(DmaBufMR, w.pd, PAGE, RW | e.IBV_ACCESS_MW_BIND, fd, 0))))
    expect_errno('ON_DEMAND', (errno.EOPNOTSUPP, errno.EINVAL),
                 DmaBufMR, w.pd, PAGE, RW | e.IBV_ACCESS_ON_DEMAND, fd, 0)
    expect_errno('MW_BIND', (errno.EOPNOTSUPP, errno.EINVAL),
                 DmaBufMR, w.pd, PAGE, RW | e.IBV_ACCESS_MW_BIND, fd, 0)
    # raw ioctls: what libibverbs' size_t or pyverbs' iova == offset would hide
    for off, length, iova, what in ((0, PAGE, (1 << 64) - PAGE, 'wrapping iova'),
                                    (0, 1 << 63, 0, 'length 2^63'),
                                    (0, (1 << 64) - 1, 0, 'length 2^64 - 1'),
                                    ((1 << 64) - PAGE, 2 * PAGE, 0, 'wrapping offset'),
                                    (PAGE, SIZE, PAGE, 'offset + length past the buffer')):
        err = raw_reg_dmabuf(w.ctx, w.pd, off, length, iova, fd, RW)
        if err != errno.EINVAL:
            raise Fail('raw REG_DMABUF_MR %s: errno %s, expected EINVAL' %
                       (what, errno.errorcode.get(err, err)))
    if raw_reg_dmabuf(w.ctx, w.pd, 0, PAGE, 1 << 40, fd, RW):
        raise Fail('raw REG_DMABUF_MR at iova 2^40 failed')
    # rereg is refused; the MR is still usable afterwards
    mr = dmabuf_mr(w, buf)
    try:
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, w.pd, 0, 0, e.IBV_ACCESS_LOCAL_WRITE)
    except PyverbsError:
        pass        # libibverbs reports its own IBV_REREG_MR_ERR_* codes
    else:
        raise Fail('rereg of a dma-buf MR succeeded')
    a, b, pmr = w.pair()
    buf.put(OFF, b'still-there')
    b.post(e.IBV_WR_RDMA_READ, pmr.buf, 11, pmr.lkey, OFF, mr.rkey)
    b.wait('RDMA READ after the refusals')
    if pmr.read(11, 0) != b'still-there':
        raise Fail('the MR reads other data after the refusals')
    mr.close()
    buf.close()


class Skip(Exception):
    """A case cannot run here; the message says why."""


def case_readonly(w):
    try:
        vgem_card()
    except Fail as ex:
        raise Skip('%s (modprobe vgem)' % ex) from ex
    buf = Buffer('vgem', writable=False)
    expect_errno('LOCAL_WRITE through a read-only dma-buf fd', errno.EACCES,
                 DmaBufMR, w.pd, PAGE, e.IBV_ACCESS_LOCAL_WRITE, buf.fd, 0)
    expect_errno('REMOTE_WRITE through a read-only dma-buf fd', errno.EACCES,
                 DmaBufMR, w.pd, PAGE, RW, buf.fd, 0)
    mr = DmaBufMR(w.pd, LEN, e.IBV_ACCESS_REMOTE_READ, dmabuf=buf.fd, offset=OFF)
    a, b, pmr = w.pair()
    pmr.write(b'\xff' * 64, 64, 0)
    b.post(e.IBV_WR_RDMA_READ, pmr.buf, 64, pmr.lkey, OFF, mr.rkey)
    b.wait('RDMA READ of a read-only dma-buf MR')
    if pmr.read(64, 0) != buf.get(OFF, 64):
        raise Fail('RDMA READ of the read-only buffer: other data')
    mr.close()
    buf.close()


def case_lifetime(w):
    base = dmabuf_count()
    print('# dma-bufs in debugfs before: %s' % base)
    a, b, pmr = w.pair()
    buf = w.buf()
    mr = dmabuf_mr(w, buf)
    view = buf.view
    buf.drop_user_refs()    # dma-buf fd, memfd, DRM fd: only the MR and the view hold it
    data = pattern(7, 30000)
    pmr.write(data, len(data), 0)
    b.post(e.IBV_WR_RDMA_WRITE, pmr.buf, len(data), pmr.lkey, OFF, mr.rkey)
    b.wait('RDMA WRITE after the fds were closed')
    if bytes(view[OFF:OFF + len(data)]) != data:
        raise Fail('RDMA WRITE after close: the buffer holds other data')
    buf.close()             # the view too: only the MR holds the buffer now
    pmr.write(bytes(len(data)), len(data), 0)
    b.post(e.IBV_WR_RDMA_READ, pmr.buf, len(data), pmr.lkey, OFF, mr.rkey)
    b.wait('RDMA READ with only the MR holding the buffer')
    if pmr.read(len(data), 0) != data:
        raise Fail('RDMA READ with only the MR left: other data')
    if base is not None and dmabuf_count() != base + 1:
        raise Fail('dma-bufs: %s with the MR holding one, expected %d' % (dmabuf_count(), base + 1))
    mr.close()
    if base is not None and dmabuf_count() != base:
        raise Fail('dma-bufs: %s after dereg, expected %d (leaked?)' % (dmabuf_count(), base))


def case_inflight(w):
    base = dmabuf_count()
    big = 1 << 20
    for op in (e.IBV_WR_RDMA_READ, e.IBV_WR_RDMA_WRITE):
        a, b, _ = w.pair()
        pmr = MR(w.ppd, big, ATOMIC)
        buf = Buffer(w.kind, big)
        mr = DmaBufMR(w.pd, big, RW, dmabuf=buf.fd, offset=0)
        for i in range(4):
            b.post(op, pmr.buf, big, pmr.lkey, 0, mr.rkey, wr_id=i)
        mr.close()          # deregistered under the peer's feet
        buf.close()
        seen = []
        # a READ answered in part when the MR went: the responder NAKs the
        # response that failed (REM_ACCESS_ERR), never leaves it to retries
        ok = (e.IBV_WC_SUCCESS, e.IBV_WC_REM_ACCESS_ERR, e.IBV_WC_WR_FLUSH_ERR)
        for i in range(4):
            wc = b.wait('op %d #%d racing the dereg' % (op, i), status=None, secs=60)
            seen.append(wc.status)
            if wc.status not in ok:
                raise Fail('op %d racing the dereg: status %d' % (op, wc.status))
        print('# %s racing the dereg: statuses %s' %
              ('READ' if op == e.IBV_WR_RDMA_READ else 'WRITE', seen))
        a.close()
        b.close()
        pmr.close()
    if base is not None and dmabuf_count() != base:
        raise Fail('dma-bufs: %s after the racing deregs, expected %d' % (dmabuf_count(), base))


CASES = {n[5:]: f for n, f in globals().items() if n.startswith('case_')}


def main():
    kind, dev, peer, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    w = World(kind, dev, peer)
    bad = 0
    for name in names:
        try:
            CASES[name](w)
            print('ok %s' % name)
        except Skip as ex:
            print('skip %s: %s' % (name, ex))
        except (Fail, PyverbsError, OSError) as ex:
            print('not ok %s: %s' % (name, ex))
            bad += 1
        sys.stdout.flush()
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
