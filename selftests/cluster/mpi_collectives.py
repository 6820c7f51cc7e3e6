# SPDX-License-Identifier: GPL-2.0
"""Collectives across the ranks of an MPI job (mpi4py + numpy), each
result checked against what it must be; timings printed, never judged:

    mpirun ... python3 mpi_collectives.py

allreduce: sum, max and min of float64 and int64 vectors (8 and 64 Ki
elements) whose exact results every rank computes on its own; alltoall:
each rank sends each other rank a distinct block and checks all it got;
allgather of the ranks' host names; a latency (8 B) and bandwidth
(256 KiB) ping-pong between rank 0 and every other rank. Rank 0 prints
"ok NAME: ..." per check that held on every rank, "FAIL NAME: ..." per
check that did not; exit 1 if any failed.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
bad = []


def vec(r, n, dtype):
    """Rank r's vector: exact in float64 (small integers and halves)."""
    i = np.arange(n, dtype=np.int64)
    return ((i * 7 + r * 13) % 1001 - 500).astype(dtype) / (2 if dtype == np.float64 else 1)


def check(name, ok, what):
    oks = comm.allgather(bool(ok))
    if rank == 0:
        if all(oks):
            print('ok %s: %s' % (name, what))
        else:
            print('FAIL %s: %s wrong on rank(s) %s' %
                  (name, what, [r for r, o in enumerate(oks) if not o]))
    if not all(oks):
        bad.append(name)


OPS = (('SUM', MPI.SUM, np.sum), ('MAX', MPI.MAX, np.max), ('MIN', MPI.MIN, np.min))
for n in (8, 1 << 16):
    for dtype in (np.float64, np.int64):
        mine = vec(rank, n, dtype)
        allv = np.stack([vec(r, n, dtype) for r in range(size)])
        ok, times = True, []
        for _, op, ref in OPS:
            out = np.empty_like(mine)
            t0 = time.monotonic()
            comm.Allreduce(mine, out, op=op)
            times.append('%.1f' % ((time.monotonic() - t0) * 1e3))
            ok &= bool(np.array_equal(out, ref(allv, axis=0)))
        check('allreduce', ok, 'Allreduce SUM, MAX, MIN of %d %s, %d ranks, every element '
              'checked (%s ms)' % (n, np.dtype(dtype).name, size, '/'.join(times)))

blk = 16384
send = np.empty(size * blk, dtype=np.int32)
for d in range(size):
    send[d * blk:(d + 1) * blk] = np.arange(blk, dtype=np.int32) * 31 + rank * 1000 + d
recv = np.empty_like(send)
t0 = time.monotonic()
comm.Alltoall(send, recv)
dt = time.monotonic() - t0
want = np.concatenate([np.arange(blk, dtype=np.int32) * 31 + s * 1000 + rank for s in range(size)])
check('alltoall', np.array_equal(recv, want),
      'Alltoall of %d KiB blocks, every element checked (%.1f ms)' % (blk * 4 // 1024, dt * 1e3))

names = comm.allgather(MPI.Get_processor_name())
check('allgather', len(set(names)) == size,
      'ranks on %d distinct hosts: %s' % (len(set(names)), ' '.join(names)))

for peer in range(1, size):
    for nbytes, reps in ((8, 50), (1 << 18, 4)):
        buf = np.zeros(nbytes, dtype=np.uint8)
        ok = True
        comm.Barrier()
        t0 = time.monotonic()
        for i in range(reps):
            if rank == 0:
                buf[:] = (i * 3 + peer) % 251
                comm.Send(buf, dest=peer, tag=i)
                comm.Recv(buf, source=peer, tag=i)
                ok &= bool(np.all(buf == (i * 3 + peer + 1) % 251))
            elif rank == peer:
                comm.Recv(buf, source=0, tag=i)
                ok &= bool(np.all(buf == (i * 3 + peer) % 251))
                buf[:] = (i * 3 + peer + 1) % 251
                comm.Send(buf, dest=0, tag=i)
        dt = (time.monotonic() - t0) / reps
        what = ('ping-pong 0 <-> %d, %d B x %d, every byte checked: %.1f us per round trip%s' %
                (peer, nbytes, reps, dt * 1e6,
                 ', %.1f MB/s' % (2 * nbytes / dt / 1e6) if nbytes > 8 else ''))
        check('pingpong', ok, what)

sys.exit(1 if bad else 0)
