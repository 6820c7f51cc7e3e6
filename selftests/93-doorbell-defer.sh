#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 480
# sroce-kernels: newest
# Doorbell deferral (module parameter doorbell_defer; Documentation/
# datapath.rst, *Doorbell deferral*): 0 runs every SQ doorbell's round in
# the system call, 1 (the default) hands a streaming QP's doorbells to a
# worker so that its next posts need no system call, 2 hands every
# doorbell of a connected user QP in RTS to the worker (the deferred path
# on every post, for this test); other values are refused. Per mode,
# sroce8 and sroce9 across the veth and sroce8 to itself (local delivery):
#   2  sroce-verify sroce8 -> sroce9 (every byte checked);
#      ibv_rc_pingpong --chk on loopback; ib_send_bw, ib_write_bw and
#      ib_read_bw of 64 B x 20000 and 64 KiB x 500 on loopback; every
#      doorbell of those counted as deferred (doorbells_deferred); the
#      hostile cases sq-prod-back (the SQ producer written back, then the
#      doorbell: the QP goes to ERR) and local-chain (64 QPs in a ring and
#      a chain, all doorbells rung at once) and 5000 operations of the
#      fuzz (ring writes racing verbs calls) with their doorbells deferred
#   0  sroce-verify; doorbells_deferred does not move
#   1  sroce-verify; ib_write_lat 2 B x 500 (a ping-pong) and ib_write_bw 64 B
#      x 20000 on loopback complete; the ib_write_bw stream (20000 posts)
#      has at least one doorbell deferred and rings fewer than one
#      doorbell per two posts (counts, never times)
# Then a clean kernel log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/hostile-lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
TOP=${SROCE_TOP:-$here/..}
VERIFY=$TOP/build/userspace/sroce-verify
HOSTILE=$TOP/build/userspace/sroce-hostile
DD=/sys/module/sroce/parameters/doorbell_defer
LOG=/tmp/93-doorbell-defer.$$
cleanup() {
	bg_kill_all
	[ -w "$DD" ] && echo 1 > "$DD"
	topo_down_bounded
	rm -f "$LOG" "$LOG".*
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd ib_write_bw ibv_rc_pingpong || ktap_skip_all "perftest or ibv_rc_pingpong missing"
[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"

mode_is() { [ "$(cat "$DD")" = "$1" ]; }
set_mode() { echo "$1" > "$DD" && mode_is "$1"; }

verify() { verify_veth 40 7; }

# lo_pair PORT CMD ARG..: CMD ARG.. -p PORT as server and as client of
# 192.0.2.1, both on sroce8 in init_net (local delivery), 120 s each
lo_pair() {
	local port=$1 s rc
	shift
	timeout 120 "$@" -p "$port" > "$LOG.srv" 2>&1 &
	s=$!
	wait_listening init "$port" "$s"
	timeout 120 "$@" -p "$port" 192.0.2.1 > "$LOG.cli" 2>&1
	rc=$?
	wait "$s" || rc=1
	[ $rc -eq 0 ] || tail -n 3 "$LOG.cli" "$LOG.srv" | sed 's/^/# /'
	return $rc
}

# lo TOOL ARG..: a perftest pair on sroce8 to itself
lo() { lo_pair 18600 "$1" -d sroce8 -x 1 -F "${@:2}"; }

# ibv_rc_pingpong --chk on sroce8 to itself
lo_pingpong() { lo_pair 18601 ibv_rc_pingpong -d sroce8 -g 1 -n 500 -s 8192 --chk; }

hostile_case() {
	[ -x "$HOSTILE" ] || { echo "$HOSTILE not built"; return 1; }
	local scale=${SROCE_TIMEOUT_SCALE:-1}
	bounded $((60 * scale)) "$HOSTILE" --case "$1" --dev sroce8 --case-secs $((20 * scale))
}

# ring writes and verbs calls racing, the deferred doorbell among them
hostile_fuzz() {
	[ -x "$HOSTILE" ] || { echo "$HOSTILE not built"; return 1; }
	bounded 120 "$HOSTILE" --dev sroce8 --seed 3 --ops 5000 --threads 4 --secs 60
}

db() { port_counter sroce8 doorbells; }
dbd() { port_counter sroce8 doorbells_deferred; }

ktap_header 23
dmesg_mark
ktap_result "topology up" topo_up sroce || ktap_finish
ktap_result "doorbell_defer is 1 by default" mode_is 1
ktap_result "doorbell_defer=3 refused, mode unchanged" eval '! set_mode 3 2>/dev/null && mode_is 1'

ktap_result "doorbell_defer=2 set" set_mode 2
b0=$(db); f0=$(dbd)
ktap_result "mode 2: sroce-verify sroce8 -> sroce9" verify
ktap_result "mode 2: ibv_rc_pingpong --chk, loopback" lo_pingpong
for t in ib_send_bw ib_write_bw ib_read_bw; do
	ktap_result "mode 2: $t 64 B x 20000 and 64 KiB x 500, loopback" \
		eval "lo $t -s 64 -n 20000 && lo $t -s 65536 -n 500"
done
b1=$(db); f1=$(dbd)
ktap_diag "mode 2: $((b1 - b0)) doorbells, $((f1 - f0)) deferred"
ktap_result "mode 2: every doorbell deferred" test "$((f1 - f0))" -gt 0 -a "$((f1 - f0))" -eq "$((b1 - b0))"
ktap_step "mode 2: hostile sq-prod-back" hostile_case sq-prod-back
ktap_step "mode 2: hostile local-chain" hostile_case local-chain
ktap_step "mode 2: hostile fuzz, 5000 operations of 4 threads" hostile_fuzz

ktap_result "doorbell_defer=0 set" set_mode 0
f0=$(dbd)
ktap_result "mode 0: sroce-verify sroce8 -> sroce9" verify
ktap_result "mode 0: ib_write_bw 64 B x 20000, loopback" lo ib_write_bw -s 64 -n 20000
ktap_result "mode 0: nothing deferred" test "$(dbd)" -eq "$f0"

ktap_result "doorbell_defer=1 set" set_mode 1
b0=$(db); f0=$(dbd)
ktap_result "mode 1: sroce-verify sroce8 -> sroce9" verify
ktap_result "mode 1: ib_write_lat 2 B x 500, loopback" lo ib_write_lat -s 2 -n 500
ktap_diag "mode 1, sroce-verify and ib_write_lat: $(($(db) - b0)) doorbells, $(($(dbd) - f0)) deferred"
b0=$(db); f0=$(dbd)
ktap_result "mode 1: ib_write_bw 64 B x 20000, loopback" lo ib_write_bw -s 64 -n 20000
b1=$(db); f1=$(dbd)
ktap_diag "mode 1, ib_write_bw 64 B x 20000 (20000 posts): $((b1 - b0)) doorbells, $((f1 - f0)) deferred"
ktap_result "mode 1: the 64 B WRITE stream defers >= 1 doorbell, < 1 doorbell per 2 posts" \
	test "$((f1 - f0))" -ge 1 -a "$((2 * (b1 - b0)))" -lt 20000
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
