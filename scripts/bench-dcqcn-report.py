#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-dcqcn-report.py OUT REV ACCEL KERNEL...: the table of
`scripts/bench --dcqcn` from OUT/raw-dcqcn-KERNEL.jsonl (scripts/bench-dcqcn),
medians (min-max) over the runs whose transfers all completed; perftest's
own sum only over those where its clock worked too. Exits 1 when a mode has
no completed run."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ab import header, med, raw_rows  # noqa: E402


def completed(r):
    """Every flow's transfer completed. Rows written before 'perftest_ok'
    had 'ok' false for a lost perftest clock too: there, a flow with no
    bandwidth that is not counted as a clock failure is a failed one."""
    if 'perftest_ok' in r:
        return r['ok']
    return r['ok'] or r['flows_mbs'].count(0.0) == r.get('bad_clock_flows', -1)


def main():
    out, rev, accel, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    header('DCQCN A/B, %s, %s' % (rev, accel),
           ['DCQCN', 'runs completed', 'goodput MB/s (wall)', 'Jain index (wall)',
            'sum of perftest MB/s (runs)', 'queue delay ms (median)', 'queue delay ms (p90)',
            'backlog samples', 'CE marks', 'RED drops', 'CNPs rx'])
    bad = False
    for k in kernels:
        rows, missing = raw_rows(out, 'dcqcn', k)
        bad |= missing
        for mode, params in ((False, None), (True, 'paper'), (True, 'scaled')):
            # rows of older runs have no 'params': theirs were the paper's
            rs = [r for r in rows if r['dcqcn'] == mode and
                  r.get('params', 'paper' if mode else None) == params]
            if params == 'scaled' and not rs:
                continue
            ok = [r for r in rs if completed(r)]
            clk = [r for r in ok if all(r['flows_mbs'])]
            bad |= not ok
            print('| %s | %s | %d/%d | %s | %s | %s (%d) | %s | %s | %s | %s | %s | %s |' % (
                k, {None: 'off', 'paper': 'on', 'scaled': 'on, scaled'}[params], len(ok), len(rs),
                med(ok, 'wall_aggregate_mbs'), med(ok, 'wall_jain'), med(clk, 'aggregate_mbs'),
                len(clk), med(ok, 'qdelay_ms_median'), med(ok, 'qdelay_ms_p90'), med(ok, 'samples'),
                med(ok, 'ce_marked'), med(ok, 'red_drops'), med(ok, 'cnp_rx')))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
