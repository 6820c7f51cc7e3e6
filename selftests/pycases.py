#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pycases.py DIR SECS SCRIPT ARG... -- CASE...

Runs a one-case selftest helper (SCRIPT, run as `python3 SCRIPT ARG...
CASE` before) once per CASE inside this one interpreter: under TCG a
python3 process costs 0.8 s to start and pyverbs 0.8 s more to import,
more than most cases take. Each CASE runs SCRIPT as __main__ afresh
(runpy: new globals; imported modules stay loaded) with sys.argv = [SCRIPT,
ARG..., CASE], its stdout and stderr (file descriptors 1 and 2, so its
children's too) in DIR/CASE.out, and its exit status - what `python3
SCRIPT` would have exited with - in DIR/CASE.rc; 124 when it took more
than SECS seconds (SIGALRM in the case). A case that kills the interpreter
leaves no .rc for it and the ones after it (lib.sh's py_case_result says
so).
"""
import gc
import os
import runpy
import signal
import sys
import traceback


class CaseTimeout(Exception):
    pass


def on_alarm(_signum, _frame):
    raise CaseTimeout('case still running after its time limit')


def exit_status(code, err):
    """What the interpreter exits with for SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xff
    print(code, file=err)
    return 1


def run_case(script, args, case, secs):
    sys.argv = [script] + args + [case]
    signal.alarm(secs)
    try:
        runpy.run_path(script, run_name='__main__')
        return 0
    except SystemExit as ex:
        return exit_status(ex.code, sys.stderr)
    except CaseTimeout as ex:
        print('%s: %s (%d s)' % (case, ex, secs))
        return 124
    except BaseException:  # noqa: B902 - any failure is the case's result
        traceback.print_exc()
        return 1
    finally:
        signal.alarm(0)


def main():
    if len(sys.argv) < 5 or '--' not in sys.argv[4:]:
        sys.exit(__doc__)
    out_dir, secs, script = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rest = sys.argv[4:]
    sep = rest.index('--')
    args, cases = rest[:sep], rest[sep + 1:]
    signal.signal(signal.SIGALRM, on_alarm)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    saved = os.dup(1), os.dup(2)
    for case in cases:
        base = os.path.join(out_dir, case)
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(base + '.out', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        try:
            rc = run_case(script, args, case, secs)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
        # the case's verbs objects go now, not at some later collection
        gc.collect()
        with open(base + '.rc', 'w') as f:
            f.write('%d\n' % rc)


if __name__ == '__main__':
    main()
