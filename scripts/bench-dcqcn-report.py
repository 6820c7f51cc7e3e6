#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-dcqcn-report.py OUT REV ACCEL KERNEL...: the table of
`scripts/bench --dcqcn` from OUT/raw-dcqcn-KERNEL.jsonl (scripts/bench-dcqcn),
medians (min-max) over the reps; exits 1 when a mode has no good run."""
import json
import statistics
import sys


def med(rows, key):
    v = [r[key] for r in rows if r.get(key) is not None]
    if not v:
        return '-'
    return '%s (%s-%s)' % (round(statistics.median(v), 3), round(min(v), 3), round(max(v), 3))


def main():
    out, rev, accel, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    print('DCQCN A/B, %s, %s: medians (min-max) of the reps\n' % (rev, accel))
    print('| kernel | DCQCN | runs ok | aggregate MB/s | Jain index | queue delay ms (median) '
          '| queue delay ms (p90) | CE marks | RED drops | CNPs rx |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    bad = False
    for k in kernels:
        try:
            with open('%s/raw-dcqcn-%s.jsonl' % (out, k)) as f:
                rows = [json.loads(line) for line in f if line.strip()]
        except OSError:
            rows, bad = [], True
        for mode in (False, True):
            rs = [r for r in rows if r['dcqcn'] == mode]
            ok = [r for r in rs if r['ok']]
            bad |= not ok
            print('| %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s |' % (
                k, 'on' if mode else 'off', len(ok), len(rs), med(ok, 'aggregate_mbs'),
                med(ok, 'jain'), med(ok, 'qdelay_ms_median'), med(ok, 'qdelay_ms_p90'),
                med(ok, 'ce_marked'), med(ok, 'red_drops'), med(ok, 'cnp_rx')))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
