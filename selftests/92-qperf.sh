#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: newest
# qperf (unmodified, over rdma_cm) between two sroce devices in two
# namespaces: RC SEND, WRITE and READ bandwidth and latency, RC atomics.
# A test passes when qperf reports a result; the numbers are printed,
# never judged (timings belong in make bench). qperf 0.4.11's UC and UD
# tests ignore -cm1 and address the peer by LID, without a GRH, which a
# RoCE port cannot carry: the RDMA core refuses the modify to RTR (EINVAL)
# on any RoCE device, rdma_rxe included. Those rows run and are skipped
# with that reason only when qperf fails exactly so and sroce did not
# refuse it: a kretprobe on sroce_modify_qp sees sroce's modify calls
# (the INIT one at least) and none of them returning -EINVAL, so the
# refusal was the RDMA core's. sroce refusing it fails the row.
# sroce-impl: sroce rxe
# (rxe: the client here on rxe8, the server on sroce9 in srpeer)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
QS=
# the server forks a child per client: end those (ours, by parent PID) too
# the qperf server in srpeer, a session of its own (whatever it forks goes
# with it), listening on qperf's port 19765 before a client starts
start_server() {
	setsid ip netns exec srpeer qperf >> "$SLOG" 2>&1 < /dev/null &
	QS=$!
	wait_listening peer 19765 "$QS"
}
stop_server() { [ -n "$QS" ] && { kill -TERM -- "-$QS" 2>/dev/null; wait "$QS" 2>/dev/null; }; QS=; }
# ib_cm's tracepoints (trace system ib_cma: every REQ/REP/REJ sent, a
# REJ with its reason), read back when a connect fails; off at the end
TR=/sys/kernel/debug/tracing
cm_trace() {
	[ -w "$TR/events/ib_cma/enable" ] || return 0
	case $1 in
	on) echo 1 > "$TR/events/ib_cma/enable"; : > "$TR/trace" ;;
	off) echo 0 > "$TR/events/ib_cma/enable"; : > "$TR/trace" ;;
	clear) : > "$TR/trace" ;;
	show) grep -v '^#' "$TR/trace" | tail -n 40 ;;
	esac
}
# a kretprobe on sroce_modify_qp: its return values in the trace buffer
KP=sroce_qperf_mqp
kp() {
	case $1 in
	on) [ -w "$TR/kprobe_events" ] &&
		echo "r:$KP sroce_modify_qp ret=\$retval:s32" >> "$TR/kprobe_events" 2>/dev/null &&
		echo 1 > "$TR/events/kprobes/$KP/enable" ;;
	off) [ ! -e "$TR/events/kprobes/$KP" ] && return 0
		echo 0 > "$TR/events/kprobes/$KP/enable"
		echo "-:$KP" >> "$TR/kprobe_events" ;;
	esac
}
cleanup() { kp off; cm_trace off; stop_server; topo_down; rm -f "$SLOG"; }
trap cleanup EXIT

require_cmd qperf > /dev/null || ktap_skip_all "qperf missing"

RC="rc_bw rc_lat rc_rdma_write_bw rc_rdma_write_lat rc_rdma_read_bw rc_rdma_read_lat rc_compare_swap_mr rc_fetch_add_mr"
UC="uc_bw uc_lat uc_rdma_write_bw uc_rdma_write_lat"

# qp TEST [ARGS...]: one qperf test against the server in the peer namespace
qp() {
	local t=$1 out
	shift
	out=$(timeout 60 qperf 192.0.2.2 -t 2 "$@" "$t" 2>&1) || { echo "$out"; return 1; }
	echo "$out" | grep -E '=' | tr -s ' '
	echo "$out" | grep -q '=' || { echo "$out"; return 1; }
}

ktap_header $((1 + 8 + 4 + 1))
dmesg_mark
ktap_result "topology up ($(topo_title))" topo_up "$CL_IMPL"
SLOG=/tmp/qperf-srv.$$
start_server
# cm_msgs: the CM's REQ/REP/REJ/MRA counters of both devices (a failed
# connect says which side rejected)
cm_msgs() {
	local d dir m
	for d in "$CL_DEV" sroce9; do
		for dir in tx rx; do
			printf '%s %s:' "$d" "$dir"
			for m in req rep rtu rej mra; do
				printf ' %s=%s' "$m" "$(cat /sys/class/infiniband_cm/$d/1/cm_${dir}_msgs/$m 2>/dev/null)"
			done
			echo
		done
	done
}
cm_trace on
for t in $RC; do
	: > "$SLOG"
	cm_trace clear
	if out=$(qp "$t" -cm1 2>&1); then
		ktap_diag "$out"
		ktap_ok "qperf $t $CL_DEV -> sroce9 (rdma_cm)"
	else
		sleep 0.5
		ktap_diag "$out
$(sed 's/^/server: /' "$SLOG")
$(cm_msgs)
ib_cm trace:
$(cm_trace show)"
		ktap_fail "qperf $t $CL_DEV -> sroce9 (rdma_cm)" "$(tail -n 1 <<< "$out")"
	fi
done
cm_trace off
kp_ok=0
kp on 2>/dev/null && kp_ok=1
for t in $UC; do
	# a fresh server for each: one whose UC test failed may still be
	# busy with it when the next client comes (qperf serves one at a time)
	stop_server
	: > "$SLOG"
	[ ! -w "$TR/trace" ] || : > "$TR/trace"
	start_server
	out=$(qp "$t" -cm1 2>&1)
	rc=$?
	sleep 0.5
	out="$out
$(sed 's/^/server: /' "$SLOG")"
	if [ $rc -eq 0 ]; then
		ktap_diag "$out"
		ktap_ok "qperf $t $CL_DEV -> sroce9"
	elif grep -q 'failed to modify QP to RTR: Invalid argument' <<< "$out" &&
	     [ "$kp_ok" = 1 ] && grep -q "$KP:" "$TR/trace" && ! grep -q "$KP:.* ret=-22" "$TR/trace"; then
		ktap_diag "sroce_modify_qp returned: $(grep "$KP:" "$TR/trace" | grep -oE 'ret=-?[0-9]+' | sort | uniq -c | tr -s ' \n' ' ')"
		ktap_skip "qperf $t" "qperf's UC tests address the peer without a GRH (no rdma_cm); RoCE requires one: the RDMA core refused the RTR, sroce never returned EINVAL"
	else
		[ "$kp_ok" = 1 ] && grep -q "$KP:.* ret=-22" "$TR/trace" &&
			out+=$'\n'"sroce_modify_qp returned -EINVAL: sroce refused the modify"
		[ "$kp_ok" = 1 ] || out+=$'\n'"no kretprobe on sroce_modify_qp: whose EINVAL it is cannot be told"
		ktap_diag "$out"
		ktap_fail "qperf $t $CL_DEV -> sroce9" "$(tail -n 1 <<< "$out")"
	fi
done
stop_server
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
