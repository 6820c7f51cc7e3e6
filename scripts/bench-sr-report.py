#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-sr-report.py OUT REV ACCEL KERNEL...: the table of
`scripts/bench --sr` from OUT/raw-sr-KERNEL.jsonl (scripts/bench-sr), medians
(min-max) over the reps, and selective repeat's goodput as a multiple of
go-back-N's; exits 1 when a mode has no good run."""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ab  # noqa: E402
med = bench_ab.med


def main():
    out, rev, accel, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    bench_ab.header('Selective repeat vs go-back-N, %s, %s' % (rev, accel),
                    ['reorder', 'mode', 'runs ok', 'goodput MB/s', 'x go-back-N',
                     'resent bytes / data', 'resent pkts', 'early pkts', 'placed at arrival', 'SACKs', 'spared pkts',
                     'ACK timeouts'])
    bad = False
    for k in kernels:
        rows, missing = bench_ab.raw_rows(out, 'sr', k)
        bad |= missing
        for ro in sorted({r['reorder'] for r in rows}):
            gbn = [r['goodput_mbs'] for r in rows if r['reorder'] == ro and not r['sr'] and r['ok']]
            for mode in (False, True):
                rs = [r for r in rows if r['reorder'] == ro and r['sr'] == mode]
                ok = [r for r in rs if r['ok']]
                bad |= not ok
                ratio = '-'
                if mode and ok and gbn and statistics.median(gbn) > 0:
                    ratio = '%.2f' % (statistics.median(r['goodput_mbs'] for r in ok) /
                                      statistics.median(gbn))
                print('| %s | %d %% | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    k, ro, 'selective repeat' if mode else 'go-back-N', len(ok), len(rs),
                    med(ok, 'goodput_mbs'), ratio, med(ok, 'retx_ratio'), med(ok, 'retx_pkts'),
                    med(ok, 'sr_ooo_rx_pkts'), med(ok, 'sr_placed_pkts'), med(ok, 'sr_sack_tx'),
                    med(ok, 'sr_retx_skipped_pkts'), med(ok, 'local_ack_timeouts')))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
