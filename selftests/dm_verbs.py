# SPDX-License-Identifier: GPL-2.0
"""Device memory (ibv_alloc_dm, ibv_reg_dm_mr) on sroce, with pyverbs:

    python3 dm_verbs.py DM_DEVICE PEER_DEVICE CASE...

The DM lives on DM_DEVICE; traffic cases connect an RC QP there to one on
PEER_DEVICE (GID index 1, the IPv4-mapped one: two sroce devices in two
namespaces, selftests/net-topo.sh). Prints "ok CASE" or "not ok CASE: why"
per case (one process for all of them: under TCG starting Python and
pyverbs takes seconds); exit 0 when every case behaved, 1 otherwise.

Cases:
  caps       max_dm_size advertised (2 MiB)
  alloc      sizes 1 B .. max_dm_size, every log_align_req up to a page, a
             new DM reads as zeros, free
  memcpy     ibv_memcpy_to/from_dm round trips byte for byte at offsets
             (page crossings, the last word), neighbours untouched; a
             second mapping of the same DM (ibv_import_dm) sees the data
  refused    what must fail and with which errno: size 0, past max_dm_size,
             alignment beyond a page, a comp_mask; misaligned, out of range
             or wrapping copies; reg_dm_mr without ZERO_BASED, past the DM,
             wrapping, with MW_BIND; raw ioctls past the provider (hostile
             lengths and alignments, the driver's query on a non-DM)
  busy       ibv_free_dm of a DM with an MR fails with EBUSY (raw ioctl:
             pyverbs deregisters the MRs first) and succeeds after dereg
  limit      the device hands out 64 MiB of DM in all: the next alloc fails
             with ENOMEM, works again once one is freed
  hoard      take all 64 MiB, an MR on every DM, and exit without freeing
             anything (run in its own process, before limit: the kernel
             must give everything back when the context goes)
  write_read the peer RDMA WRITEs into a DM MR (registered at an offset
             inside the DM: zero-based iova) and READs it back; a WRITE
             past the MR fails with REM_ACCESS_ERR and changes nothing
  send       SEND from the peer into a DM-backed receive SGE, and from a
             DM-backed SGE to the peer
  atomic     FETCH_ADD and CMP_SWAP on a DM MR word
"""
import ctypes
import errno
import os
import struct
import sys

import pyverbs.enums as e
from pyverbs.device import AllocDmAttr, Context, DM
from pyverbs.mr import DMMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError

from rc_verbs import Fail, Node, expect_errno, pattern
from uverbs_raw import raw_ioctl

MAX_DM = 2 << 20
DEV_TOTAL = 64 << 20
PAGE = 4096
ZB = e.IBV_ACCESS_ZERO_BASED
RW = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
ATOMIC = RW | e.IBV_ACCESS_REMOTE_ATOMIC


# ---- raw uverbs ioctls (what a hostile provider could send) ----------------

UVERBS_OBJECT_DM = 14
UVERBS_METHOD_DM_ALLOC, UVERBS_METHOD_DM_FREE = 0, 1
UVERBS_ID_DRIVER_NS = 1 << 12
SROCE_METHOD_DM_QUERY = UVERBS_ID_DRIVER_NS
SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET = UVERBS_ID_DRIVER_NS


def raw_alloc_dm(fd, length, align, offset_out=None):
    attrs = [(0, 0, 0), (1, 8, length), (2, 4, align)]
    if offset_out is not None:
        attrs.append((SROCE_ATTR_ALLOC_DM_RESP_MMAP_OFFSET, 8, ctypes.addressof(offset_out)))
    err, out = raw_ioctl(fd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, attrs)
    return err, (out[0] if out else None)


def raw_free_dm(fd, handle):
    return raw_ioctl(fd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, [(0, 0, handle)])[0]


# ---- the cases ---------------------------------------------------------------

class World:
    def __init__(self, dev, peer):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.peer_name = peer
        self.pctx = None

    def peer(self):
        if self.pctx is None:
            self.pctx = Context(name=self.peer_name)
            self.ppd = PD(self.pctx)
        return self.pctx, self.ppd

    def dm(self, length, align=0):
        return DM(self.ctx, AllocDmAttr(length, align, 0))


def case_caps(w):
    got = w.ctx.query_device_ex().max_dm_size
    if got != MAX_DM:
        raise Fail('max_dm_size %d, expected %d' % (got, MAX_DM))


def case_alloc(w):
    for length in (1, 4, 100, PAGE - 4, PAGE + 4, 3 * PAGE, MAX_DM):
        with w.dm(length) as dm:
            n = (length + 3) & ~3
            if dm.copy_from_dm(0, n) != bytes(n):
                raise Fail('new DM of %d bytes is not zeroed' % length)
    for align in range(0, 13):
        w.dm(PAGE, align).close()


def case_memcpy(w):
    size = 5 * PAGE + 100
    with w.dm(size) as dm:
        dm.copy_to_dm(0, b'\xee' * size, size)
        for off, n in ((0, 4), (4, 64), (PAGE - 8, 16), (2 * PAGE - 4, 2 * PAGE + 8),
                       (size - 4, 4), (0, size)):
            data = pattern(off + n, n)
            dm.copy_to_dm(off, data, n)
            if dm.copy_from_dm(off, n) != data:
                raise Fail('round trip of %d bytes at %d differs' % (n, off))
            if off >= 4 and dm.copy_from_dm(off - 4, 4) != b'\xee' * 4:
                raise Fail('copy of %d bytes at %d wrote before it' % (n, off))
            if off + n + 4 <= size and dm.copy_from_dm(off + n, 4) != b'\xee' * 4:
                raise Fail('copy of %d bytes at %d wrote past it' % (n, off))
            dm.copy_to_dm(0, b'\xee' * size, size)
        # the same DM through a second context on the same uverbs file
        data = pattern(7, size - 100)
        dm.copy_to_dm(100, data, size - 100)
        ctx2 = Context(cmd_fd=os.dup(w.ctx.cmd_fd))
        try:
            dm2 = DM(ctx2, handle=dm.handle)
        except PyverbsRDMAError as ex:
            raise Fail('ibv_import_dm: %s' % ex) from ex
        if dm2.copy_from_dm(100, size - 100) != data:
            raise Fail('imported DM reads other data')
        dm2.copy_to_dm(0, b'\x11' * 8, 8)
        if dm.copy_from_dm(0, 8) != b'\x11' * 8:
            raise Fail('write through the imported DM not seen')
        dm2.unimport()
        ctx2.close()


def case_refused(w):
    expect_errno('alloc 0 bytes', errno.EINVAL, w.dm, 0)
    expect_errno('alloc max_dm_size + 1', errno.EINVAL, w.dm, MAX_DM + 1)
    expect_errno('alloc 2^63', errno.EINVAL, w.dm, 1 << 63)
    expect_errno('alloc aligned to 2^13 (past a page)', errno.EINVAL, w.dm, PAGE, 13)
    expect_errno('alloc aligned to 2^31', errno.EINVAL, w.dm, PAGE, 31)
    expect_errno('alloc with comp_mask 1', errno.EINVAL,
                 lambda: DM(w.ctx, AllocDmAttr(PAGE, 0, 1)))
    with w.dm(100) as dm:
        for off, n, what in ((1, 4, 'misaligned offset'), (4, 3, 'misaligned length'),
                             (100, 4, 'offset at the end'), (96, 8, 'past the end'),
                             (0, 104, 'longer than the DM'),
                             ((1 << 64) - 4, 8, 'wrapping offset')):
            expect_errno('memcpy_to_dm ' + what, errno.EINVAL, dm.copy_to_dm, off, bytes(n), n)
            expect_errno('memcpy_from_dm ' + what, errno.EINVAL, dm.copy_from_dm, off, n)
        dm.copy_to_dm(96, b'abcd', 4)
        if dm.copy_from_dm(0, 100) != bytes(96) + b'abcd':
            raise Fail('refused copies changed the DM')
        # reg_dm_mr
        expect_errno('reg_dm_mr without ZERO_BASED', errno.EINVAL,
                     DMMR, w.pd, 100, e.IBV_ACCESS_LOCAL_WRITE, dm, 0)
        expect_errno('reg_dm_mr longer than the DM', errno.EINVAL,
                     DMMR, w.pd, 104, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, 0)
        expect_errno('reg_dm_mr offset + length past the DM', errno.EINVAL,
                     DMMR, w.pd, 8, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, 96)
        expect_errno('reg_dm_mr wrapping offset', errno.EINVAL,
                     DMMR, w.pd, 8, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, (1 << 64) - 4)
        expect_errno('reg_dm_mr remote write without local write', errno.EINVAL,
                     DMMR, w.pd, 8, ZB | e.IBV_ACCESS_REMOTE_WRITE, dm, 0)
        expect_errno('reg_dm_mr with MW_BIND', errno.EOPNOTSUPP,
                     DMMR, w.pd, 8, ZB | e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND, dm, 0)
        DMMR(w.pd, 100, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, 0).close()
        DMMR(w.pd, 0, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, 100).close()
        # raw ioctls, past the provider's checks
        fd = w.ctx.cmd_fd
        for length, align, what in ((0, 0, 'length 0'), (MAX_DM + 1, 0, 'max + 1'),
                                    ((1 << 64) - 1, 0, 'length 2^64 - 1'),
                                    (PAGE, 13, 'alignment 2^13'),
                                    (PAGE, 0xffffffff, 'alignment 2^(2^32 - 1)')):
            err, h = raw_alloc_dm(fd, length, align)
            if err != errno.EINVAL:
                if not err:
                    raw_free_dm(fd, h)
                raise Fail('raw DM_ALLOC %s: errno %s, expected EINVAL' % (what, err))
        off = ctypes.c_uint64(~0 & 0xffffffffffffffff)
        err, h = raw_alloc_dm(fd, PAGE, 0, off)
        if err or off.value == ~0 & 0xffffffffffffffff or off.value % PAGE:
            raise Fail('raw DM_ALLOC: errno %s, mmap offset %#x' % (err, off.value))
        if raw_free_dm(fd, h) or raw_free_dm(fd, h) != errno.ENOENT:
            raise Fail('raw DM_FREE twice: not 0 then ENOENT')
        # the driver's query method: the core resolves the handle first
        for handle, want, what in ((w.pd.handle, errno.EINVAL, 'a PD handle'),
                                   (h, errno.ENOENT, 'a freed DM handle')):
            err = raw_ioctl(fd, UVERBS_OBJECT_DM, SROCE_METHOD_DM_QUERY,
                            [(UVERBS_ID_DRIVER_NS, 0, handle),
                             (UVERBS_ID_DRIVER_NS + 1, 8, ctypes.addressof(off)),
                             (UVERBS_ID_DRIVER_NS + 2, 8, ctypes.addressof(off)),
                             (UVERBS_ID_DRIVER_NS + 3, 8, ctypes.addressof(off))])[0]
            if err != want:
                raise Fail('driver DM query on %s: errno %s, expected %s' %
                           (what, err, errno.errorcode[want]))


def case_busy(w):
    with w.dm(PAGE) as dm:
        mr = DMMR(w.pd, PAGE, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, 0)
        err = raw_free_dm(w.ctx.cmd_fd, dm.handle)
        if err != errno.EBUSY:
            raise Fail('free of a DM with an MR: errno %s, expected EBUSY' % err)
        dm.copy_to_dm(0, b'live', 4)
        if dm.copy_from_dm(0, 4) != b'live':
            raise Fail('DM unusable after the refused free')
        mr.close()


def case_limit(w):
    dms = []
    try:
        for _ in range(DEV_TOTAL // MAX_DM):
            dms.append(w.dm(MAX_DM))
        expect_errno('alloc past the device total', errno.ENOMEM, w.dm, MAX_DM)
        dms.pop().close()
        w.dm(MAX_DM).close()
    finally:
        for dm in dms:
            dm.close()


def case_hoard(w):
    dms, mrs = [], []
    for i in range(DEV_TOTAL // MAX_DM):
        dms.append(w.dm(MAX_DM))
        mrs.append(DMMR(w.pd, MAX_DM, ZB | RW, dms[-1], 0))
        dms[-1].copy_to_dm(0, b'hord', 4)
    expect_errno('alloc past the device total', errno.ENOMEM, w.dm, 4)
    print('ok hoard')
    sys.stdout.flush()
    os._exit(0)     # no ibv_free_dm, no dereg, no close: the kernel cleans up


def pair(w, access=RW):
    """(DM side, peer side, peer's plain MR) connected over the veth."""
    pctx, ppd = w.peer()
    a, b = Node(w.ctx, w.pd, access), Node(pctx, ppd, access)
    a.connect(b)
    b.connect(a)
    return a, b, MR(ppd, 1 << 18, ATOMIC)


# DM layout of the traffic cases: the MR starts OFF bytes into a DM of SIZE
SIZE, OFF, LEN = 192 * 1024, 4096 + 256, 128 * 1024


def case_write_read(w):
    a, b, pmr = pair(w)
    with w.dm(SIZE) as dm:
        mr = DMMR(w.pd, LEN, ZB | RW, dm, OFF)
        data = pattern(1, 40000)
        pmr.write(data, len(data), 0)
        b.post(e.IBV_WR_RDMA_WRITE, pmr.buf, len(data), pmr.lkey, 1000, mr.rkey)
        b.wait('RDMA WRITE into the DM MR')
        if dm.copy_from_dm(OFF + 1000, len(data)) != data:
            raise Fail('RDMA WRITE: DM holds other data')
        if dm.copy_from_dm(0, OFF + 1000) != bytes(OFF + 1000):
            raise Fail('RDMA WRITE touched the DM before its target')
        rest = SIZE - OFF - 1000 - len(data)
        if dm.copy_from_dm(OFF + 1000 + len(data), rest) != bytes(rest):
            raise Fail('RDMA WRITE touched the DM after its target')
        # READ: the whole MR, changed through memcpy_to_dm first
        data = pattern(2, LEN)
        dm.copy_to_dm(OFF, data, LEN)
        b.post(e.IBV_WR_RDMA_READ, pmr.buf, LEN, pmr.lkey, 0, mr.rkey)
        b.wait('RDMA READ of the DM MR')
        if pmr.read(LEN, 0) != data:
            raise Fail('RDMA READ returned other data')
        # a WRITE reaching past the MR (still inside the DM) is refused
        before = dm.copy_from_dm(0, SIZE)
        b.post(e.IBV_WR_RDMA_WRITE, pmr.buf, 64, pmr.lkey, LEN - 32, mr.rkey)
        b.wait('RDMA WRITE past the DM MR', e.IBV_WC_REM_ACCESS_ERR)
        if dm.copy_from_dm(0, SIZE) != before:
            raise Fail('refused RDMA WRITE changed the DM')
        mr.close()


def case_send(w):
    a, b, pmr = pair(w)
    with w.dm(SIZE) as dm:
        mr = DMMR(w.pd, LEN, ZB | e.IBV_ACCESS_LOCAL_WRITE, dm, OFF)
        data = pattern(3, 20000)
        pmr.write(data, len(data), 0)
        a.recv(4096 - 12, len(data) + 100, mr.lkey)
        b.post(e.IBV_WR_SEND, pmr.buf, len(data), pmr.lkey)
        b.wait('SEND (sender)')
        wc = a.wait('SEND into a DM SGE (receiver)')
        if wc.byte_len != len(data) or dm.copy_from_dm(OFF + 4096 - 12, len(data)) != data:
            raise Fail('SEND into the DM: length %d or data wrong' % wc.byte_len)
        data = pattern(4, 30000)
        dm.copy_to_dm(OFF + 8, data, len(data))
        pmr.write(bytes(len(data)), len(data), 0)
        b.recv(pmr.buf, len(data), pmr.lkey)
        a.post(e.IBV_WR_SEND, 8, len(data), mr.lkey)
        a.wait('SEND from a DM SGE (sender)')
        wc = b.wait('SEND from a DM SGE (receiver)')
        if wc.byte_len != len(data) or pmr.read(len(data), 0) != data:
            raise Fail('SEND from the DM: length %d or data wrong' % wc.byte_len)
        mr.close()


def case_atomic(w):
    a, b, pmr = pair(w, ATOMIC)
    with w.dm(PAGE) as dm:
        mr = DMMR(w.pd, 256, ZB | ATOMIC, dm, 256)
        dm.copy_to_dm(256 + 64, struct.pack('<Q', 1000), 8)
        b.post(e.IBV_WR_ATOMIC_FETCH_AND_ADD, pmr.buf, 8, pmr.lkey, 64, mr.rkey, 234)
        b.wait('FETCH_ADD on the DM MR')
        if struct.unpack('<Q', pmr.read(8, 0))[0] != 1000:
            raise Fail('FETCH_ADD returned a wrong original value')
        if struct.unpack('<Q', dm.copy_from_dm(256 + 64, 8))[0] != 1234:
            raise Fail('FETCH_ADD left a wrong value in the DM')
        b.post(e.IBV_WR_ATOMIC_CMP_AND_SWP, pmr.buf + 8, 8, pmr.lkey, 64, mr.rkey, 1234, 77)
        b.wait('CMP_SWAP on the DM MR')
        if struct.unpack('<Q', pmr.read(8, 8))[0] != 1234 or \
           struct.unpack('<Q', dm.copy_from_dm(256 + 64, 8))[0] != 77:
            raise Fail('CMP_SWAP: wrong original value or result')
        mr.close()


CASES = {'caps': case_caps, 'alloc': case_alloc, 'memcpy': case_memcpy,
         'refused': case_refused, 'busy': case_busy, 'limit': case_limit,
         'hoard': case_hoard,
         'write_read': case_write_read, 'send': case_send, 'atomic': case_atomic}


def main():
    dev, peer, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
    w = World(dev, peer)
    rc = 0
    for case in cases:
        try:
            CASES[case](w)
            print('ok %s' % case)
        except (Fail, PyverbsError) as ex:
            print('not ok %s: %s' % (case, ex))
            rc = 1
        sys.stdout.flush()
    return rc


if __name__ == '__main__':
    sys.exit(main())
