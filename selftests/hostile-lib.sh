# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# selftests/hostile-lib.sh - the driver loop shared by 99-hostile and
# 99-hostile-limits (sourced after lib.sh, net-topo.sh and bounded.sh).
#
#   rc_hostile_cases SECS LOG CASE...
#       runs rc_hostile.py (scapy and pyverbs in the peer namespace srpeer,
#       forging packets from the victim's peer 192.0.2.2 on srB) for CASEs,
#       bounded by SECS (the driver bounds each case itself; this only
#       catches the driver), and turns its report in LOG into KTAP: every
#       CASE, CASE:health and CASE:dmesg line it printed, and a failure for
#       each of them it never reached.

rc_hostile_cases() {
	local secs=$1 log=$2 drv drc line name c k
	shift 2
	local -A seen=()
	drv=
	bg_start drv "$secs" "$log" ip netns exec srpeer python3 "$(dirname "${BASH_SOURCE[0]}")/rc_hostile.py" \
		sroce8 sroce9 srB 192.0.2.2 192.0.2.1 "$@"
	bg_wait "$drv" "rc_hostile.py"
	drc=$?
	while IFS= read -r line; do
		case "$line" in
		"# "*) ktap_diag "${line#\# }" ;;
		"ok "*) name=${line#ok }; seen[$name]=1; ktap_ok "$name" ;;
		"not ok "*)
			name=${line#not ok }; name=${name%% \#*}; seen[$name]=1
			ktap_fail "$name" "$name: ${line#* \# }" ;;
		*) [ -z "$line" ] || ktap_diag "$line" ;;
		esac
	done < "$log"
	for c in "$@"; do
		for k in "" :health :dmesg; do
			[ -n "${seen[$c$k]:-}" ] ||
				ktap_fail "$c$k" "$c$k: no result: rc_hostile.py ended with status $drc first"
		done
	done
}
