#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 120
# A refused call says why. Kernel: with dynamic debug on for the module, an
# ibv_create_qp with max_send_wr above the device's limit fails with EINVAL
# and the kernel log names the argument and both values; with it off again
# the same refusal logs nothing. Provider: with VERBS_LOG_LEVEL and
# VERBS_LOG_FILE, a post_recv with more SGEs than the QP has is refused and
# the file says so. dyndbg_refuse.c makes both calls (built with the
# userspace tools; compiled here with the host's gcc only when it is not).
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
CTL=/sys/kernel/debug/dynamic_debug/control
BIN=${SROCE_TOP:-$here/..}/build/userspace/dyndbg_refuse
TMPBIN=/tmp/dyndbg_refuse.$$
VLOG=/tmp/dyndbg_verbs.$$.log
KLINE='sroce0: create_qp: max_send_wr 100000 > max 16384'
PLINE='post_recv: num_sge 5 > max_recv_sge 1'

cleanup() {
	[ -w "$CTL" ] && echo 'module sroce -p' > "$CTL" 2>/dev/null
	rdma link delete sroce0 2>/dev/null
	rm -f "$TMPBIN" "$VLOG"
}
trap cleanup EXIT

# the lines of the kernel log since the mark that name the refused create_qp
klines() { dmesg | awk -v m="$KTAP_MARK" 'found; index($0, m) { found = 1 }' | grep -F "$KLINE"; }

dyndbg_on() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug || return 1
	[ -w "$CTL" ] || { echo "no $CTL (CONFIG_DYNAMIC_DEBUG)"; return 4; }
	echo 'module sroce +p' > "$CTL" || return 1
	# every sroce call site is on now
	local sites n on
	sites=$(grep -F '[sroce]' "$CTL")
	n=$(grep -c . <<< "$sites")
	on=$(grep -c ' =p' <<< "$sites")
	echo "$on of $n sroce debug sites on"
	[ "$n" -gt 0 ] && [ "$on" -eq "$n" ]
}
# the userspace build's, else compiled here (slow under TCG)
[ -x "$BIN" ] || BIN=$TMPBIN
build() {
	[ "$BIN" != "$TMPBIN" ] && return 0
	gcc -O1 -Wall -Werror -o "$BIN" "$here/dyndbg_refuse.c" -libverbs
}
refuse_logged() { VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=$VLOG timeout 60 "$BIN" sroce0; }
kernel_says() {
	local l
	[ -w "$CTL" ] || { echo "no $CTL"; return 4; }
	l=$(klines)
	echo "$l"
	[ -n "$l" ] && [ "$(wc -l <<< "$l")" -eq 1 ]
}
provider_says() {
	grep -F "$PLINE" "$VLOG" 2>/dev/null || { echo "log file:"; head -5 "$VLOG" 2>/dev/null; return 1; }
}
dyndbg_off() {
	local before
	[ -w "$CTL" ] || { echo "no $CTL"; return 4; }
	echo 'module sroce -p' > "$CTL" || return 1
	before=$(klines | wc -l)
	timeout 60 "$BIN" sroce0 || return 1
	[ "$(klines | wc -l)" -eq "$before" ] || { echo "logged with dynamic debug off"; return 1; }
}

NT=8
ktap_header $NT
dmesg_mark
ip link set eth0 up
if ! ls "$SROCE_TOP"/build/provider/libsroce-rdmav*.so >/dev/null 2>&1; then
	ktap_result "sroce0 added" rdma link add sroce0 type sroce netdev eth0
	for t in "dynamic debug on for module sroce" "dyndbg_refuse built" \
		 "create_qp max_send_wr 100000 and post_recv of 5 SGEs refused with EINVAL" \
		 "kernel log: $KLINE" "provider log (VERBS_LOG_FILE): $PLINE" \
		 "dynamic debug off: the refusal logs nothing"; do
		ktap_skip "$t" "provider not built (build/provider)"
	done
else
	ktap_result "sroce0 added" rdma link add sroce0 type sroce netdev eth0
	ktap_step "dynamic debug on for module sroce" dyndbg_on
	ktap_result "dyndbg_refuse built" build
	ktap_result "create_qp max_send_wr 100000 and post_recv of 5 SGEs refused with EINVAL" refuse_logged
	ktap_step "kernel log: $KLINE" kernel_says
	ktap_result "provider log (VERBS_LOG_FILE): $PLINE" provider_says
	ktap_step "dynamic debug off: the refusal logs nothing" dyndbg_off
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
