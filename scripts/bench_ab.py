# SPDX-License-Identifier: GPL-2.0
"""scripts/bench_ab.py: what the A/B reports of scripts/bench (--dcqcn,
--sr, --scale) share: median (min-max) cells, the table header, the raw
runs of OUT/raw-AB-KERNEL.jsonl."""
import json
import statistics


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
