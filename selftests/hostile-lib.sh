# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# selftests/hostile-lib.sh - pieces shared by the 99-hostile* scripts
# (sourced after lib.sh, net-topo.sh and bounded.sh).
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

#   pingpong_check N LOG
#       ibv_rc_pingpong --chk, 64 KiB x N, sroce9 (srpeer) serving sroce8:
#       the two devices still talk after a hostile test (both bounded, the
#       bounds times SROCE_TIMEOUT_SCALE: under KASAN and kmemleak a round
#       trip of 64 KiB took 0.3 s, and a kmemleak scan stalls it for more)
pingpong_check() {
	local n=$1 log=$2 s c scale=${SROCE_TIMEOUT_SCALE:-1}
	bg_start s $((60 * scale)) "$log.s" \
		ip netns exec srpeer ibv_rc_pingpong -d sroce9 -g 1 --chk -s 65536 -n "$n"
	wait_listening peer 18515 "$s"
	bg_start c $((55 * scale)) "$log.c" \
		ibv_rc_pingpong -d sroce8 -g 1 --chk -s 65536 -n "$n" 192.0.2.2
	bg_wait_both "$c" "$s" "ibv_rc_pingpong client" "ibv_rc_pingpong server"
	tail -n 1 "$log.c"
	[ "$BG_RC_A" -eq 0 ] && [ "$BG_RC_B" -eq 0 ]
}
