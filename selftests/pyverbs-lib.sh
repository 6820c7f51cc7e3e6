# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# rdma-core's pyverbs suite as one selftest step (sourced after lib.sh), for
# 93-pyverbs.sh (the host's rdma-core) and 93-rdma-core-65.sh (sid's):
#
#   pyverbs_suite TAG LOG CMD...  run CMD (scripts/pyverbs-tests ... -v) into
#                                 LOG, bounded by $PYVERBS_TIMEOUT s (900);
#                                 prints "TAG: Ran N
#                                 tests...", "TAG: N passed", "TAG passed:
#                                 <the passing tests>" and the first FAIL/ERROR
#                                 lines as diagnostics; LOG.passed gets N.
#                                 Returns CMD's status (non-zero on any
#                                 failure or error).
#   pyverbs_enough LOG MIN        0 if at least MIN tests passed
#   pyverbs_counts LOG            "P passed, F failed, E errors, S skipped"

pyverbs_suite() {
	local tag=$1 log=$2 rc ran res n pass k v
	shift 2
	PYTHONUNBUFFERED=1 timeout "${PYVERBS_TIMEOUT:-900}" "$@" > "$log" 2>&1
	rc=$?
	ran=$(grep -E '^Ran [0-9]+ tests' "$log")
	res=$(tail -1 "$log")
	ktap_diag "$tag: $ran: $res"
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
	ktap_diag "$tag: $n passed"
	echo "$n" > "$log.passed"
	ktap_diag "$tag passed: $pass"
	grep -E '^(ERROR|FAIL):' "$log" | head -20 | sed "s/^/$tag /" | while read -r l; do ktap_diag "$l"; done
	return $rc
}

pyverbs_enough() {
	local n
	n=$(cat "$1.passed" 2>/dev/null)
	[ -n "$n" ] && [ "$n" -ge "$2" ] && return 0
	echo "pyverbs passed ${n:-no} tests, expected at least $2"
	return 1
}

pyverbs_counts() {
	local res k v f=0 e=0 s=0
	res=$(tail -1 "$1")
	for k in failures errors skipped; do
		v=$(grep -oE "$k=[0-9]+" <<< "$res" | cut -d= -f2)
		case $k in failures) f=${v:-0} ;; errors) e=${v:-0} ;; skipped) s=${v:-0} ;; esac
	done
	echo "$(cat "$1.passed" 2>/dev/null || echo 0) passed, $f failed, $e errors, $s skipped"
}
