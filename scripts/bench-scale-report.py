#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-scale-report.py OUT REV ACCEL KERNEL...: the table of
`scripts/bench --scale` from OUT/raw-scale-KERNEL.jsonl (scripts/bench-scale):
per implementation and case the aggregate bandwidth and CPU seconds per GB,
medians (min-max) over the reps, the scaling against one QP and sroce's CPU
per GB as a share of rxe's; exits 1 when a case has no good run."""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ab  # noqa: E402
med = bench_ab.med
CASES = (('q1', 'one QP'), ('q4', '4 QPs, one process'), ('p4', '4 processes, a QP each'))


def median_of(rows, key):
    v = [r[key] for r in rows]
    return statistics.median(v) if v else None


def main():
    out, rev, accel, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    bench_ab.header('Multi-QP scaling and CPU per GB, ib_write_bw 64 KiB on one device, %s, %s'
                    % (rev, accel),
                    ['impl', 'case', 'runs ok', 'MB/s', 'x one QP', 'busy CPU s/GB',
                     'kernel CPU s/GB', 'kernel CPU/GB x rxe'])
    bad = False
    for k in kernels:
        rows, missing = bench_ab.raw_rows(out, 'scale', k)
        bad |= missing
        ok = {(i, c): [r for r in rows if r['impl'] == i and r['case'] == c and r['ok']]
              for i in ('sroce', 'rxe') for c, _ in CASES}
        for impl in ('sroce', 'rxe'):
            one = median_of(ok[(impl, 'q1')], 'mbs')
            for c, title in CASES:
                rs = [r for r in rows if r['impl'] == impl and r['case'] == c]
                good = ok[(impl, c)]
                bad |= not good
                x = '-'
                if good and one:
                    x = '%.2f' % (median_of(good, 'mbs') / one)
                vs = '-'
                rk = median_of(ok[('rxe', c)], 'kernel_s_per_gb')
                if impl == 'sroce' and good and rk:
                    vs = '%.2f' % (median_of(good, 'kernel_s_per_gb') / rk)
                print('| %s | %s | %s | %d/%d | %s | %s | %s | %s | %s |' % (
                    k, impl, title, len(good), len(rs), med(good, 'mbs'), x,
                    med(good, 'busy_s_per_gb'), med(good, 'kernel_s_per_gb'), vs))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
