#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs suite as its own run_tests.py does, with two
changes (scripts/pyverbs-tests copies this file beside the suite and runs
it when asked to skip tests or to run another userland's suite):

- multiprocessing forks: Python 3.14 made "forkserver" its default start
  method on Linux, and the suite hands TestCase objects, which hold
  pyverbs objects that cannot be pickled, to multiprocessing.Process
  (test_device's test_multi_process_alloc_dm); the suite was written for
  fork, the default of the Pythons before;
- SROCE_PYVERBS_SKIP: lines "module.Class.test_name=reason" mark those
  tests skipped with that reason (what the caller knows the running kernel
  lacks), so unittest counts and prints them as skipped.
"""
import multiprocessing
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
multiprocessing.set_start_method('fork')

from args_parser import parser  # noqa: E402 (the suite's own, beside us)

suite = SourceFileLoader('tests', os.path.join(here, '__init__.py')).load_module()
for line in os.environ.get('SROCE_PYVERBS_SKIP', '').splitlines():
    name, _, why = line.partition('=')
    if not name.strip():
        continue
    mod, cls, meth = name.strip().split('.')
    klass = getattr(sys.modules['tests.' + mod], cls)
    setattr(klass, meth, unittest.skip(why.strip())(getattr(klass, meth)))
parser.parse_args()
unittest.main(module=suite)
