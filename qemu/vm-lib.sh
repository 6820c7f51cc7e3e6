# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154  # sets kp_* for the caller, reads its $top
#
# qemu/vm-lib.sh - host-side helpers shared by qemu/vm-run and
# qemu/cluster (sourced; needs $top, the checkout).
#
#   kernel_problem FILE...  the first kernel report (a line matching
#                           selftests/bad-log.pat: panic, Oops, BUG,
#                           WARNING, KASAN, UBSAN, hung task, RCU stall) in
#                           the first FILE that has one: sets kp_file,
#                           kp_line (its line number) and kp_what (what it
#                           is, e.g. "Oops"); returns 1 if no FILE has one
#   vm_status_text RC       what a qemu/vm-run exit status means, in words

kernel_problem() {
	local pat f line
	pat=$(cat "$top/selftests/bad-log.pat")
	kp_file="" kp_line="" kp_what=""
	for f in "$@"; do
		[ -s "$f" ] || continue
		line=$(grep -n -m1 -E "$pat" "$f") || continue
		kp_file=$f kp_line=${line%%:*}
		case "$line" in
		*"Kernel panic"*) kp_what="kernel panic" ;;
		*KASAN*) kp_what="KASAN report" ;;
		*UBSAN*) kp_what="UBSAN report" ;;
		*Oops*|*"general protection fault"*) kp_what="Oops" ;;
		*BUG*) kp_what="BUG" ;;
		*"blocked for more than"*) kp_what="hung task" ;;
		*"detected stall"*) kp_what="RCU stall" ;;
		*) kp_what="WARN" ;;
		esac
		return 0
	done
	return 1
}

vm_status_text() {
	case $1 in
	0) echo "ok" ;;
	120) echo "guest kernel report" ;;
	121) echo "VM died" ;;
	124) echo "timeout" ;;
	125) echo "vm-run error" ;;
	130) echo "interrupted" ;;
	*) echo "exit status $1" ;;
	esac
}
