#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Conformance gate: rdma-core's pyverbs suite (python3-pyverbs) against
# sroce0. Unsupported features must be refused (EOPNOTSUPP) so the suite
# skips them; any failure or error fails this test. The counts are printed.
# The whole suite runs, test_rdmacm included (rdma_cm over sroce's QP1).
. "$(dirname "$0")/lib.sh"

cleanup() { rdma link delete sroce0 2>/dev/null; ip addr del 192.0.2.5/24 dev eth0 2>/dev/null; }
trap cleanup EXIT
log=$(mktemp)

suite() {
	timeout 900 "$SROCE_TOP/scripts/pyverbs-tests" sroce0 1 -v > "$log" 2>&1
	local rc=$? ran res n pass
	ran=$(grep -E '^Ran [0-9]+ tests' "$log")
	res=$(tail -1 "$log")
	ktap_diag "pyverbs: $ran: $res"
	# the per-test list: one line per test that passed (unittest -v)
	n=$(grep -cE ' \.\.\. ok$' "$log")
	# (a docstring may put the verdict on the line after the test's id)
	pass=$(awk '/^test[^ ]* \(/ { id = $2; gsub(/[()]/, "", id) }
		/ \.\.\. ok$/ { sub(/^tests\./, "", id); print id }' "$log" | sort | paste -sd' ')
	ktap_diag "pyverbs: $n passed"
	ktap_diag "pyverbs passed: $pass"
	grep -E '^(ERROR|FAIL):' "$log" | head -20 | sed 's/^/pyverbs /' | while read -r l; do ktap_diag "$l"; done
	return $rc
}

ktap_header 2
dmesg_mark
ip link set eth0 up
ip addr add 192.0.2.5/24 dev eth0
rdma link add sroce0 type sroce netdev eth0
sleep 1
ktap_result "pyverbs suite: no failure, no error" suite
ktap_result "dmesg clean" dmesg_clean_since_mark
rm -f "$log"
ktap_finish
