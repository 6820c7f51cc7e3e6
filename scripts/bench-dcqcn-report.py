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


def header(title, cols):
    """The table's title and header; COLS after 'kernel'."""
    print('%s: medians (min-max) of the reps\n' % title)
    print('| kernel | %s |' % ' | '.join(cols))
    print('|---' * (len(cols) + 1) + '|')


def raw_rows(out, ab, k):
    """The runs of OUT/raw-AB-K.jsonl, and whether the file is missing."""
    try:
        with open('%s/raw-%s-%s.jsonl' % (out, ab, k)) as f:
            return [json.loads(line) for line in f if line.strip()], False
    except OSError:
        return [], True


def main():
    out, rev, accel, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    header('DCQCN A/B, %s, %s' % (rev, accel),
           ['DCQCN', 'runs ok', 'aggregate MB/s', 'Jain index', 'queue delay ms (median)',
            'queue delay ms (p90)', 'CE marks', 'RED drops', 'CNPs rx'])
    bad = False
    for k in kernels:
        rows, missing = raw_rows(out, 'dcqcn', k)
        bad |= missing
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
