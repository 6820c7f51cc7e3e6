# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# selftests/lib.sh - KTAP helpers for sroce selftests. Sourced by every
# selftests/NN-name.sh, which runs as root inside a qemu/vm-run guest
# (selftests/run boots the VM). Output is KTAP (TAP version 13 compatible):
#
#	. "$(dirname "$0")/lib.sh"
#	ktap_header 3
#	ktap_result "veth loads" modprobe veth
#	require_cmd ibv_devices || ktap_skip "ibv_devices" "no ibv_devices"
#	dmesg_mark
#	...
#	dmesg_clean_since_mark && ktap_ok "dmesg clean" || ktap_fail "dmesg clean"
#	ktap_finish
#
# Helpers:
#   ktap_header N           "TAP version 13" and the plan "1..N"
#   ktap_ok NAME            "ok <n> NAME"; every result line is preceded
#                           by "# time N.Ns" when it came a second or more
#                           after the previous one (or the script's start)
#   ktap_fail NAME [WHY]    "not ok <n> NAME" (+ "# WHY")
#   ktap_skip NAME WHY      "ok <n> NAME # SKIP WHY"
#   ktap_result NAME CMD..  run CMD (output shown as "# " lines), ok iff it exits 0
#   ktap_step NAME CMD..    the same, but exit status 4 is a skip whose
#                           reason is CMD's last output line
#   ktap_diag MSG..         "# MSG"
#   ktap_skip_all WHY       whole script skipped: "1..0 # SKIP WHY", exit 4
#                           (only before ktap_header)
#   ktap_finish             checks the plan; exit 1 if anything failed, else 0
#   require_cmd CMD..       0 if all CMDs are in PATH, else 1 (and a "# " note)
#   require_module MOD..    modprobe MODs; 0 if all loaded, else 1
#   dmesg_mark [TAG]        write a marker line into the kernel log
#   dmesg_clean_since_mark  0 if no WARNING/BUG/Oops/KASAN/UBSAN/panic/
#                           "cut here" line since the last mark (else prints
#                           them as "# " lines and returns 1)
#   kasan_kernel            0 on a KASAN kernel (make check-debug)
#   py_cases SECS SCRIPT ARG.. -- CASE..
#                           a one-case python helper's CASEs in one python3
#                           (pycases.py); py_case_result CASE then prints a
#                           case's output and returns its exit status
#   ktap_slab_bound NAME S0 S1 KB
#                           ok iff Slab grew from S0 to S1 kB by less than
#                           KB; skipped on a KASAN kernel, whose quarantine
#                           keeps freed objects in Slab (zz-kmemleak judges
#                           leaks there)
# Numbering is automatic. Exit codes follow kselftest: 0 pass, 1 fail, 4 skip.

# sleep as a bash builtin (Debian's bash-builtins): the polls of these
# scripts sleep 0.1-0.5 s at a time, and under TCG a /bin/sleep process
# costs 60 ms or more of the guest's CPU each time
[ ! -r /usr/lib/bash/sleep ] || enable -f /usr/lib/bash/sleep sleep 2>/dev/null

KTAP_N=0
KTAP_T=${EPOCHREALTIME/./}	# when the last result (or the script) began
KTAP_PLAN=""
KTAP_FAILED=0
KTAP_MARK=""
# what in a kernel log is a kernel problem: one list (bad-log.pat) for
# lib.sh, selftests/run and qemu/vm-run
KTAP_BAD_DMESG=$(cat "$(dirname "${BASH_SOURCE[0]}")/bad-log.pat")

ktap_header() {
	KTAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_diag() {
	local l
	while IFS= read -r l; do echo "# $l"; done <<< "$*"
}

# ktap_lap: "# time N.Ns" for the time since the previous result line
# (or the script's start) when it was a second or more, so that every
# log shows where a script's time goes
ktap_lap() {
	ktap_time "$KTAP_T"
	KTAP_T=${EPOCHREALTIME/./}
}

ktap_ok() {
	ktap_lap
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1"
}

ktap_fail() {
	ktap_lap
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	echo "not ok $KTAP_N $1"
	[ $# -lt 2 ] || ktap_diag "$2"
}

ktap_skip() {
	ktap_lap
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1 # SKIP ${2:-}"
}

ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit 4
}

kasan_kernel() { grep -q ' kasan_report$' /proc/kallsyms 2>/dev/null; }

ktap_slab_bound() {
	ktap_diag "slab before $2 kB, after $3 kB (delta $(($3 - $2)) kB, bound $4 kB)"
	if kasan_kernel; then
		ktap_skip "$1" "KASAN kernel: its quarantine keeps freed objects in Slab; zz-kmemleak judges leaks here"
	elif [ $(($3 - $2)) -lt "$4" ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1"
	fi
}

# ktap_result NAME CMD [ARG...]: run CMD, show its output as diagnostics.
ktap_result() { ktap_run_ 0 "$@"; }

# ktap_step NAME CMD [ARG...]: ktap_result, but CMD's exit status 4 is a
# skip, the reason its last line of output (a piece that is missing)
ktap_step() { ktap_run_ 4 "$@"; }

# ktap_run_ SKIP NAME CMD..: both of them; SKIP 4 makes status 4 a skip
ktap_run_() {
	local skip=$1 name=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || ktap_diag "$out"
	if [ "$rc" -eq 0 ]; then
		ktap_ok "$name"
	elif [ "$rc" -eq 4 ] && [ "$skip" = 4 ]; then
		ktap_skip "$name" "$(tail -n 1 <<< "$out")"
	else
		ktap_fail "$name" "exit status $rc: $*"
	fi
	return "$rc"
}

# ktap_time T0: "# time N.Ns" for a step that began at T0 (EPOCHREALTIME
# without its dot), when it took a second or more: where a script's time goes.
ktap_time() {
	local us=$(( ${EPOCHREALTIME/./} - $1 ))
	[ "$us" -lt 1000000 ] || printf '# time %d.%ds\n' $((us / 1000000)) $((us / 100000 % 10))
}

ktap_finish() {
	if [ -n "$KTAP_PLAN" ] && [ "$KTAP_PLAN" != "$KTAP_N" ]; then
		echo "# planned $KTAP_PLAN tests but ran $KTAP_N"
		exit 1
	fi
	[ "$KTAP_FAILED" -eq 0 ] || exit 1
	exit 0
}

require_cmd() {
	local c rc=0
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || { echo "# missing command: $c"; rc=1; }
	done
	return "$rc"
}

require_module() {
	local m rc=0
	for m in "$@"; do
		modprobe "$m" >/dev/null 2>&1 || { echo "# cannot load module: $m"; rc=1; }
	done
	return "$rc"
}

# port_counter DEV NAME: port 1's counter NAME of DEV, by its exact name
# (sysfs hw_counters, what `rdma statistic` shows); "-" when DEV has no
# such counter (rdma_rxe names its own otherwise)
port_counter() {
	local v
	read -r v 2>/dev/null < "/sys/class/infiniband/$1/ports/1/hw_counters/$2" || v=-
	echo "${v:--}"
}

# The implementation the real-client selftests (92-*, 97-*) run on:
# SROCE_CLIENT_IMPL=sroce (the default, make check) or rxe (rdma_rxe, the
# baseline: make check-clients-rxe, selftests/run --impl rxe). A script
# that has an rxe mode says so in its first 30 lines ("# sroce-impl:
# sroce rxe"); selftests/run skips the others under --impl rxe.
#   $CL_IMPL             sroce or rxe
#   $CL_DEV              the client device: sroce8, or rxe8 for rxe
#   cl_link_add NETDEV   create $CL_DEV on NETDEV (loads rdma_rxe for rxe)
#   cl_link_del          delete $CL_DEV; for rxe also rxe_unload
#   cl_veth_up           veth srA (up, 192.0.2.1/24) - srB (up), $CL_DEV on
#                        srA: the one-device setup of the kernel ULP tests
#   cl_veth_down         $CL_DEV deleted (cl_link_del), the veth removed
#   cl_tx_pkts DEV       the packets DEV sent: sroce's tx_pkts, rxe's
#                        sent_pkts ("-" when DEV has no such counter)
#   rxe_unload           rmmod rdma_rxe until it is gone, for up to 10 s:
#                        while a device of it is still being released (or
#                        a process holds one open) rmmod fails, and rxe
#                        keeps UDP 4791 of init_net, so a sroce device
#                        added there next would fail with EADDRINUSE; on
#                        failure says what holds it, returns 1
CL_IMPL=${SROCE_CLIENT_IMPL:-sroce}
case $CL_IMPL in
sroce) CL_DEV=sroce8 ;;
rxe) CL_DEV=rxe8 ;;
*) echo "SROCE_CLIENT_IMPL: sroce or rxe, not '$CL_IMPL'" >&2; exit 1 ;;
esac

cl_link_add() {
	if [ "$CL_IMPL" = rxe ]; then
		modprobe rdma_rxe && rdma link add rxe8 type rxe netdev "$1"
	else
		rdma link add sroce8 type sroce netdev "$1"
	fi
}

cl_link_del() {
	rdma link delete "$CL_DEV" 2>/dev/null
	[ "$CL_IMPL" = sroce ] || rxe_unload > /dev/null
	return 0
}

cl_veth_up() {
	ip link add srA type veth peer name srB &&
	ip link set srA up && ip link set srB up &&
	ip addr add 192.0.2.1/24 dev srA &&
	cl_link_add srA
}

cl_veth_down() {
	cl_link_del
	ip link del srA 2>/dev/null
	return 0
}

cl_tx_pkts() {
	case $1 in
	rxe*) port_counter "$1" sent_pkts ;;
	*) port_counter "$1" tx_pkts ;;
	esac
}

# rping_cm_exit_race LOG PREFIX COUNT: did an rping side fail only by
# rping's teardown race? rping (librdmacm's example) ends by destroying the
# event channel its cm thread is blocked in; a thread that wakes first
# calls perror("rdma_get_cm_event") and exit(-1), status 255, after the
# work was done. True when LOG (rping -v) has COUNT lines starting with
# PREFIX ("ping data: ", printed once a ping is done, after its -V check)
# and its last line is that perror. Anything else stays a failure.
rping_cm_exit_race() {
	local n=0 last="" line
	while IFS= read -r line; do
		[[ $line == "$2"* ]] && n=$((n + 1))
		[ -n "$line" ] && last=$line
	done < "$1"
	[ "$n" -eq "$3" ] && [ "$last" = "rdma_get_cm_event: Bad file descriptor" ]
}

# py_cases SECS SCRIPT ARG... -- CASE...: the cases of a one-case python
# helper (`python3 SCRIPT ARG... CASE`) in one interpreter (pycases.py:
# python3 and pyverbs start once, not once per case), each bounded by
# SECS; then py_case_result CASE gives a case's output and exit status
py_cases() {
	local secs=$1 n=0 a
	shift
	for a in "$@"; do [ "$a" = -- ] && n=0 || n=$((n + 1)); done
	PYC_DIR=$(mktemp -d /tmp/pycases.XXXXXX) || return 1
	timeout -k 5 $((secs * n + 30)) python3 "$(dirname "${BASH_SOURCE[0]}")/pycases.py" \
		"$PYC_DIR" "$secs" "$@" > "$PYC_DIR/driver.out" 2>&1
	PYC_RC=$?
}

py_case_result() {
	local rc=""
	[ -f "$PYC_DIR/$1.out" ] && cat "$PYC_DIR/$1.out"
	read -r rc 2>/dev/null < "$PYC_DIR/$1.rc"
	if [ -z "$rc" ]; then
		echo "$1: no result: pycases.py ended with status $PYC_RC first"
		tail -n 5 "$PYC_DIR/driver.out"
		return 1
	fi
	return "$rc"
}

rxe_unload() {
	for _ in $(seq 100); do
		[ -d /sys/module/rdma_rxe ] || return 0
		rmmod rdma_rxe 2>/dev/null && return 0
		sleep 0.1
	done
	echo "rdma_rxe still loaded after 10 s (refcnt $(cat /sys/module/rdma_rxe/refcnt 2>&1));" \
		"RDMA devices:" /sys/class/infiniband/*
	return 1
}

dmesg_mark() {
	KTAP_MARK="sroce-selftest-mark $$ ${1:-} $(date +%s.%N)"
	echo "$KTAP_MARK" > /dev/kmsg
}

dmesg_clean_since_mark() {
	local bad
	if [ -n "$KTAP_MARK" ]; then
		bad=$(dmesg | awk -v m="$KTAP_MARK" 'found; index($0, m) { found = 1 }' | grep -E "$KTAP_BAD_DMESG")
	else
		bad=$(dmesg | grep -E "$KTAP_BAD_DMESG")
	fi
	[ -z "$bad" ] && return 0
	ktap_diag "kernel log since mark:"$'\n'"$bad"
	return 1
}

# eth0_dev_up / eth0_dev_down: the one-device setup of the loopback verbs
# scripts: sroce0 on the VM's virtio-net eth0 with 192.0.2.5/24, up until
# its RoCEv2 GID (index 1) is there (at most 5 s; 1 with a "# " note if it
# never appears); and its undoing. eth0_dev_up_or_fail: eth0_dev_up after
# ktap_header, a failed test line and the end of the script if it fails
eth0_dev_up() {
	ip link set eth0 up && ip addr add 192.0.2.5/24 dev eth0 &&
		rdma link add sroce0 type sroce netdev eth0 || return 1
	for _ in $(seq 50); do
		grep -q ffff /sys/class/infiniband/sroce0/ports/1/gids/1 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# sroce0: no RoCEv2 GID (index 1) 5 s after rdma link add:" \
		"$(cat /sys/class/infiniband/sroce0/ports/1/gids/1 2>&1)"
	return 1
}
eth0_dev_up_or_fail() {
	eth0_dev_up && return 0
	ktap_fail "sroce0 up on eth0 with its RoCEv2 GID"
	ktap_finish
}
eth0_dev_down() {
	rdma link delete sroce0 2>/dev/null
	ip addr del 192.0.2.5/24 dev eth0 2>/dev/null
}
