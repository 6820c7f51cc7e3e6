# SPDX-License-Identifier: GPL-2.0
"""A tiny data-parallel training loop (mpi4py + numpy) whose result must
equal a single-process run of the same data:

    mpirun ... python3 mpi_train.py [STEPS]

Logistic regression (logistic loss on
4096 samples of 32 features, generated from a fixed seed): each rank
holds a shard of the samples, computes the gradient sum of its shard,
Allreduce(SUM) gives the full gradient, and every rank takes the same
gradient descent step. After STEPS (default 60) steps rank 0 trains the
same model on all samples in one process and compares: the weights must
agree to 1e-9 (relative), and every rank must hold the same weights
(bit for bit, since they all applied the same reduced gradients). Prints
"ok train: ..." or "FAIL train: ..."; exit 1 on a failure.
"""
import sys

import numpy as np
from mpi4py import MPI

N, F, LR = 4096, 32, 0.5
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60

rng = np.random.default_rng(20261202)
X = rng.standard_normal((N, F))
w_true = rng.standard_normal(F)
y = (X @ w_true + 0.3 * rng.standard_normal(N) > 0).astype(np.float64)


def grad_sum(w, xs, ys):
    p = 1.0 / (1.0 + np.exp(-(xs @ w)))
    return xs.T @ (p - ys)


def loss(w):
    z = X @ w
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


lo, hi = rank * N // size, (rank + 1) * N // size
xs, ys = X[lo:hi], y[lo:hi]
w = np.zeros(F)
g = np.empty(F)
for _ in range(steps):
    comm.Allreduce(grad_sum(w, xs, ys), g, op=MPI.SUM)
    w -= LR * g / N

every = comm.gather(w, root=0)
if rank == 0:
    ref = np.zeros(F)
    for _ in range(steps):
        ref -= LR * grad_sum(ref, X, y) / N
    same = all(np.array_equal(every[0], o) for o in every)
    err = float(np.max(np.abs(w - ref)) / np.max(np.abs(ref)))
    ok = same and err <= 1e-9 and loss(w) < loss(np.zeros(F))
    print('%s train: %d ranks x %d samples, %d steps: loss %.6f -> %.6f, max relative '
          'difference to the single-process run %.2e, weights identical on all ranks: %s' %
          ('ok' if ok else 'FAIL', size, hi - lo, steps, loss(np.zeros(F)), loss(w), err,
           'yes' if same else 'no'))
    sys.exit(0 if ok else 1)
