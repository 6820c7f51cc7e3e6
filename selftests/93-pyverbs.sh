#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 480
# Conformance gate: rdma-core's pyverbs suite (python3-pyverbs) against
# sroce0. Unsupported features must be refused (EOPNOTSUPP) so the suite
# skips them; any failure or error fails this test, as do fewer than
# MIN_PASSED passing tests. The counts and the passing tests are printed.
# The whole suite runs, test_rdmacm included (rdma_cm over sroce's QP1),
# with 16 huge pages reserved for the tests that map them.
. "$(dirname "$0")/lib.sh"

hp=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	rdma link delete sroce0 2>/dev/null; ip addr del 192.0.2.5/24 dev eth0 2>/dev/null
	echo "$hp" > /proc/sys/vm/nr_hugepages
}
trap cleanup EXIT
log=$(mktemp)

suite() {
	PYTHONUNBUFFERED=1 timeout 900 "$SROCE_TOP/scripts/pyverbs-tests" sroce0 1 -v > "$log" 2>&1
	local rc=$? ran res n pass k v
	ran=$(grep -E '^Ran [0-9]+ tests' "$log")
	res=$(tail -1 "$log")
	ktap_diag "pyverbs: $ran: $res"
	# passed: run minus skipped, failed, errors and expected failures, from
	# unittest's summary (a forked test's prints can split a verdict line)
	n=$(( $(sed -E 's/^Ran ([0-9]+) tests.*/\1/' <<< "$ran") ))
	for k in skipped failures errors "expected failures"; do
		v=$(grep -oE "$k=[0-9]+" <<< "$res" | cut -d= -f2)
		n=$(( n - ${v:-0} ))
	done
	# the per-test list: one line per test that passed (unittest -v)
	# (a docstring may put the verdict on the line after the test's id)
	pass=$(awk '/^test[^ ]* \(/ { id = $2; gsub(/[()]/, "", id) }
		/ \.\.\. ok$/ { sub(/^tests\./, "", id); print id }' "$log" | sort | paste -sd' ')
	ktap_diag "pyverbs: $n passed"
	echo "$n" > "$log.passed"
	ktap_diag "pyverbs passed: $pass"
	grep -E '^(ERROR|FAIL):' "$log" | head -20 | sed 's/^/pyverbs /' | while read -r l; do ktap_diag "$l"; done
	return $rc
}

# the generic tests a software RoCE device can pass (issue: at least 131)
MIN_PASSED=131
enough() {
	local n
	n=$(cat "$log.passed" 2>/dev/null)
	[ -n "$n" ] && [ "$n" -ge "$MIN_PASSED" ] && return 0
	echo "pyverbs passed ${n:-no} tests, expected at least $MIN_PASSED"
	return 1
}

ktap_header 3
dmesg_mark
# huge pages for the suite's huge-page traffic tests (parent domain)
echo 16 > /proc/sys/vm/nr_hugepages
ip link set eth0 up
ip addr add 192.0.2.5/24 dev eth0
rdma link add sroce0 type sroce netdev eth0
sleep 1
ktap_result "pyverbs suite: no failure, no error" suite
ktap_result "pyverbs: at least $MIN_PASSED tests pass" enough
ktap_result "dmesg clean" dmesg_clean_since_mark
rm -f "$log" "$log.passed"
ktap_finish
