#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest
#
# A hostile local process (build/userspace/sroce-hostile) against sroce8
# (veth srA, 192.0.2.1; its RoCEv2 GID 1), each step bounded:
#   advise-dereg   ibv_advise_mr(PREFETCH_WRITE, FLUSH) of a cold 1 GiB ODP
#                  MR while another thread deregisters it (10 rounds, 1-20
#                  ms apart; every other one through an implicit ODP MR,
#                  whose 2 MiB children the prefetch makes while dereg
#                  frees them): every round ends (skipped without ODP)
#   sq-prod-back   the SQ producer index written back below what the kernel
#                  fetched, then the doorbell: the QP goes to ERR within 10 s
#   local-chain    64 RC QPs sending to each other through local delivery,
#                  in a ring and in a chain, every SEND published without a
#                  doorbell and then all doorbells rung: the kernel survives
#   local-fanin    63 RC QPs sending to one: the kernel survives
#   mcast-lid      a UD QP attached to one group twice (LIDs 0 and 0xc001):
#                  both detaches succeed and the QP can be destroyed; again
#                  attached twice and left to the exit (which must not warn)
#   defer-destroy  with doorbell_defer=2: two threads connect RC pairs, set a
#                  rate limit on every other sender, post 16 WRITEs of 16
#                  KiB one by one (each doorbell's round handed to the work
#                  item) and destroy the pair 0-2 ms later, for half of the
#                  case's 20 s: no WARNING (a QP's work item runs one
#                  instance at a time, checked in the module), no KASAN
#   (local-chain and local-fanin run again with the module parameter
#   loopback=N: the packets go through the IP stack and lo instead)
#   fuzz           HOSTILE_OPS (default 20000; the full run uses 1000000
#                  and a larger HOSTILE_SECS) operations of 4 threads with
#                  seed HOSTILE_SEED (default 1): writes into every ring
#                  mapping and verbs calls racing on the same objects, in
#                  children restarted when one dies of a signal. Every one
#                  of the operations must run: the row names how many did.
#                  HOSTILE_SECS (default 300, times SROCE_TIMEOUT_SCALE; 20000
#                  take 22-47 s under TCG) only bounds a run that stalls:
#                  stopped there short of HOSTILE_OPS, the row fails
# Then: no object of the tool is left (rdma resource: none named after it,
# sroce8's counts as before the cases), slab grew less than
# 8 MiB (not judged on a KASAN kernel: ktap_slab_bound), sroce8 and sroce9 (srpeer) still pass traffic, and the kernel log
# has no report (oops, WARN, soft lockup, RCU stall, hung task).
# HOSTILE_CASES picks the targeted cases (default: all six; "" for none),
# HOSTILE_FUZZ_ARGS adds arguments to the fuzz run (e.g. "--avoid producer"),
# HOSTILE_DOORBELL_DEFER sets doorbell_defer for it (e.g. 2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/hostile-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
TOP=${SROCE_TOP:-$here/..}
HOSTILE=$TOP/build/userspace/sroce-hostile
OPS=${HOSTILE_OPS:-20000}
SEED=${HOSTILE_SEED:-1}
SECS=${HOSTILE_SECS:-$((300 * ${SROCE_TIMEOUT_SCALE:-1}))}
read -r -a CASES <<< "${HOSTILE_CASES-advise-dereg sq-prod-back local-chain local-fanin mcast-lid defer-destroy}"
LB_CASES=()
for c in "${CASES[@]}"; do case $c in local-*) LB_CASES+=("$c") ;; esac; done
LOOPBACK=/sys/module/sroce/parameters/loopback
DB_DEFER=/sys/module/sroce/parameters/doorbell_defer
LOG=/tmp/99-hostile-process.$$
cleanup() {
	bg_kill_all
	echo Y > "$LOOPBACK" 2>/dev/null
	echo 1 > "$DB_DEFER" 2>/dev/null
	topo_down_bounded
	rm -f "$LOG" "$LOG".*
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$HOSTILE" ] || ktap_skip_all "$HOSTILE not built"
require_cmd ibv_rc_pingpong rdma || ktap_skip_all "ibv_rc_pingpong or rdma missing"

slab_kb() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

# case NAME: one targeted reproducer; its own bounds are inside the tool
# (--case-secs, 20 s), both scaled on a debug kernel: KASAN and lockdep
# under TCG make 64 QPs' setup and teardown take longer than 20 s there
run_case() {
	local scale=${SROCE_TIMEOUT_SCALE:-1} secs=60
	[ "$1" = advise-dereg ] && secs=240
	bounded $((secs * scale)) "$HOSTILE" --case "$1" --dev sroce8 --case-secs $((20 * scale))
}

# the same with loopback=N: local packets through the IP stack and lo
run_case_lo() {
	local rc
	echo N > "$LOOPBACK" || return 1
	run_case "$1"
	rc=$?
	echo Y > "$LOOPBACK"
	return "$rc"
}

# defer-destroy with doorbell_defer=2: every doorbell's round deferred
run_case_defer() {
	local rc
	echo 2 > "$DB_DEFER" || return 1
	run_case defer-destroy
	rc=$?
	echo 1 > "$DB_DEFER"
	return "$rc"
}

# HOSTILE_DOORBELL_DEFER: doorbell_defer during the fuzz run (2: every
# doorbell's round deferred, for the KASAN runs of testing-log.rst). Its row:
# no child stuck or failed (the tool's exit status) and every one of the
# OPS operations run (its "seed S: N ops in T s" line): a run stopped at
# the SECS bound short of them fails, N named
run_fuzz() {
	local rc out n name
	[ -z "${HOSTILE_DOORBELL_DEFER:-}" ] || echo "$HOSTILE_DOORBELL_DEFER" > "$DB_DEFER" || return 1
	# shellcheck disable=SC2086  # HOSTILE_FUZZ_ARGS: words
	out=$(bounded $((SECS + 60)) "$HOSTILE" --dev sroce8 --seed "$SEED" --ops "$OPS" \
		--threads 4 --secs "$SECS" ${HOSTILE_FUZZ_ARGS:-} 2>&1)
	rc=$?
	echo 1 > "$DB_DEFER"
	ktap_diag "$out"
	n=$(sed -nE "s/^seed $SEED: ([0-9]+) ops in .*/\1/p" <<< "$out" | tail -n 1)
	name="fuzz: seed $SEED, ${n:-no count of} of $OPS ops run, 4 threads${HOSTILE_DOORBELL_DEFER:+, doorbell_defer=$HOSTILE_DOORBELL_DEFER}"
	if [ "$rc" -ne 0 ]; then
		ktap_fail "$name" "sroce-hostile: exit status $rc"
	elif [ "${n:-0}" -ne "$OPS" ]; then
		ktap_fail "$name" "only ${n:-an unknown number} of the $OPS operations ran: stopped at the ${SECS} s bound"
	else
		ktap_ok "$name"
	fi
}

# sroce8's object counts ("pd N cq N qp N ..."): an object whose process
# is gone is no longer named by comm in the per-type lists (an object its
# exit could not destroy stays in them), but it is still counted here
res_counts() {
	rdma resource show 2>/dev/null | awk '$2 == "sroce8:" { $1 = $2 = ""; sub(/^ +/, ""); print }'
}

# nothing of the tool's process left in the device's resource tables, and
# the device's counts back to what they were before the tool ran
no_leftovers() {
	local left now
	for _ in $(seq 50); do
		left=$(rdma resource show 2>/dev/null | grep -F sroce-hostile)
		[ -z "$left" ] || left=$(for r in qp cq mr pd; do
			rdma resource show "$r" 2>/dev/null | grep -F sroce-hostile; done)
		now=$(res_counts)
		if [ -z "$left" ] && [ "$now" = "$RES0" ]; then
			rdma resource show link sroce8/1 2>/dev/null
			return 0
		fi
		sleep 0.1
	done
	[ -z "$left" ] || { echo "left by sroce-hostile:"; echo "$left"; }
	[ "$now" = "$RES0" ] || echo "sroce8 objects before: $RES0; after: $now"
	return 1
}

pingpong() { pingpong_check 50 "$LOG"; }

# what dmesg_clean_since_mark checks, and soft lockups, stalls, hung tasks
kernel_log_clean() {
	local bad
	bad=$(dmesg | awk -v m="$KTAP_MARK" 'found; index($0, m) { found = 1 }' |
		grep -Ei 'soft lockup|rcu.*stall|hung task|blocked for more than')
	[ -z "$bad" ] || echo "$bad"
	dmesg_clean_since_mark && [ -z "$bad" ]
}

ktap_header $((1 + ${#CASES[@]} + ${#LB_CASES[@]} + 5))
dmesg_mark
ktap_result "topology sroce8 <-> sroce9" topo_up sroce || ktap_finish
RES0=$(res_counts)
ktap_diag "sroce8 objects before: $RES0"

sync; echo 3 > /proc/sys/vm/drop_caches
s0=$(slab_kb)
for c in "${CASES[@]}"; do
	if [ "$c" = defer-destroy ]; then
		ktap_step "case $c, doorbell_defer=2" run_case_defer
	else
		ktap_step "case $c" run_case "$c"
	fi
done
for c in "${LB_CASES[@]}"; do
	ktap_step "case $c, loopback=N" run_case_lo "$c"
done
run_fuzz
ktap_result "no object of the tool left" no_leftovers
sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
s1=$(slab_kb)
ktap_slab_bound "no slab growth beyond 8 MiB" "$s0" "$s1" 8192
ktap_result "ibv_rc_pingpong --chk sroce8 <-> sroce9 afterwards" pingpong
ktap_result "kernel log clean" kernel_log_clean
ktap_finish
