#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""blktests-report.py OUT "KERNELS" "IMPLS": a Markdown table, test by
test, of blktests' results over each implementation (sroce, rxe) per kernel,
from OUT/KERNEL-IMPL.log (scripts/check-blktests). Exit 1 when a test that
passed over rxe did not pass over sroce (or, with sroce alone, one failed).
"""
import re
import sys

# "nvme/006 (tr=rdma bd=file) (create an NVMeOF target)   [passed]": the
# test and, when it runs in several configurations, the one ("(k=v ...)",
# every word a setting: a description such as srp's "(... bs=4M)" is not)
RESULT = re.compile(r'^(\S+/\d+)(\s+\(\w+=\S+(?:\s+\w+=[^\s)]+)*\))?\s.*\[(passed|failed|not run)\]')


def results(path):
    got = {}
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                m = RESULT.match(line.strip())
                if m:
                    got[m.group(1) + (m.group(2) or '')] = m.group(3)
    except OSError:
        pass
    return got


def main():
    out, kernels, impls = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
    bad = []
    print('# blktests: %s\n' % ' vs '.join(impls))
    for k in kernels:
        res = {i: results('%s/%s-%s.log' % (out, k, i)) for i in impls}
        tests = sorted(set().union(*[set(r) for r in res.values()]))
        print('## %s\n' % k)
        print('| test | ' + ' | '.join(impls) + ' |')
        print('|---|' + '---|' * len(impls))
        for t in tests:
            print('| %s | ' % t + ' | '.join(res[i].get(t, '-') for i in impls) + ' |')
            s = res.get('sroce', {}).get(t)
            if 'rxe' in res and res['rxe'].get(t) == 'passed' and s != 'passed':
                bad.append('%s %s: passed over rxe, %s over sroce' % (k, t, s or 'not reached'))
            elif 'rxe' not in res and s == 'failed':
                bad.append('%s %s: failed over sroce' % (k, t))
        counts = {i: {s: list(res[i].values()).count(s) for s in ('passed', 'failed', 'not run')}
                  for i in impls}
        print('\n' + '; '.join('%s: %d passed, %d failed, %d not run' %
                               (i, c['passed'], c['failed'], c['not run']) for i, c in counts.items()) + '\n')
    if bad:
        print('**Regressions against rxe:**\n')
        for b in bad:
            print('- ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
