#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 480
# sroce-kernels: oldest
# Conformance gate: rdma-core's pyverbs suite (python3-pyverbs) against
# sroce0. Unsupported features must be refused (EOPNOTSUPP) so the suite
# skips them; any failure or error fails this test, as do fewer than
# MIN_PASSED passing tests (today's count for the kernel). The counts and
# the passing tests are printed.
# The whole suite runs, test_rdmacm included (rdma_cm over sroce's QP1),
# with 16 huge pages reserved for the tests that map them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pyverbs-lib.sh"

hp=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	eth0_dev_down
	echo "$hp" > /proc/sys/vm/nr_hugepages
}
trap cleanup EXIT
log=$(mktemp)

suite() { pyverbs_suite pyverbs "$log" "$SROCE_TOP/scripts/pyverbs-tests" sroce0 1 -v; }

# the floor: the tests passing today on each kernel series (rdma-core 44's
# suite; Documentation/testing.rst, "The suites side by side": 273 ran,
# 146 passed, 127 skipped on 6.1, 6.12 and 7.3, the newest); one test
# fewer fails
case ${SROCE_KERNEL:-} in
6.1|6.1-debug) MIN_PASSED=146 ;;
6.12) MIN_PASSED=146 ;;
newest) MIN_PASSED=146 ;;
*) MIN_PASSED=146 ;;	# a series not measured: the count of all three
esac
enough() { pyverbs_enough "$log" "$MIN_PASSED"; }

ktap_header 3
dmesg_mark
# huge pages for the suite's huge-page traffic tests (parent domain)
echo 16 > /proc/sys/vm/nr_hugepages
eth0_dev_up_or_fail
ktap_result "pyverbs suite: no failure, no error" suite
ktap_result "pyverbs: at least $MIN_PASSED tests pass" enough
ktap_result "dmesg clean" dmesg_clean_since_mark
rm -f "$log" "$log.passed"
ktap_finish
