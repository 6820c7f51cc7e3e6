#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 180
# Tracepoints (events/sroce, Documentation/debugging.rst "Tracepoints"):
# with the events enabled, known RC exchanges on one device
# (trace_verbs.py, local delivery) leave their events in the trace
# buffer: the QPs' moves to RTS, a 4 KiB RDMA WRITE's packets sent and
# received (WRITE FIRST/MIDDLE/LAST), its ACK sent and received, its SQ
# entry fetched and completed with success; a WRITE to a QP still in INIT
# dropped (sroce_drop reason=qp_state) and resent on the local ACK
# timeout (sroce_retransmit reason=timeout); a SEND without a receive
# answered by an RNR NAK and resent after the wait (reason=rnr). Disabled,
# no event is recorded (the device's removal destroys QPs).
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")
T=/sys/kernel/tracing
LOG=/tmp/94-trace.$$
DEV=sroce8

trace_off() {
	[ -w "$T/events/sroce/enable" ] && echo 0 > "$T/events/sroce/enable"
	[ -w "$T/trace" ] && : > "$T/trace"
	return 0
}
cleanup() {
	trace_off
	rdma link delete "$DEV" 2>/dev/null
	ip link del srA 2>/dev/null
	rm -f "$LOG" "$LOG.trace"
}
trap cleanup EXIT

require_cmd python3 > /dev/null || ktap_skip_all "python3 missing"
mountpoint -q "$T" || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events" ] || ktap_skip_all "no tracefs at $T (kernel without tracing?)"

dev_up() {
	ip link add srA type veth peer name srB &&
	ip link set srA up && ip link set srB up &&
	ip addr add 192.0.2.1/24 dev srA &&
	rdma link add "$DEV" type sroce netdev srA || return 1
	local n
	for n in $(seq 50); do
		grep -q ffff "/sys/class/infiniband/$DEV/ports/1/gids/1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no IPv4 GID on $DEV"
	return 1
}

trace_on() {
	[ -d "$T/events/sroce" ] || { echo "no events/sroce: sroce.ko built without tracepoints?"; return 1; }
	: > "$T/trace"
	echo 1 > "$T/events/sroce/enable" && echo 1 > "$T/tracing_on"
}

# the exchanges, then the buffer, read once into EVENTS (the checks below
# fork no process: under TCG each one costs)
exchanges() {
	timeout 60 python3 "$here/trace_verbs.py" "$DEV" write resend rnr > "$LOG" 2>&1
	local rc=$?
	cat "$LOG"
	grep ': sroce_' "$T/trace" > "$LOG.trace"
	echo "$(wc -l < "$LOG.trace") sroce events recorded"
	return "$rc"
}
EVENTS=()
declare -A QPN
load() {
	local l w
	mapfile -t EVENTS < "$LOG.trace"
	while read -r -a w; do
		[ "${w[0]}" = qpn ] && QPN[${w[1]}]="${w[2]} ${w[3]}"
	done < "$LOG"
}

# qpn CASE N: the requester (1) or responder (2) QPN of a case
qpn() { local q; read -r -a q <<< "${QPN[$1]}"; echo "${q[$2 - 1]}"; }

# has EVENT REGEX...: each REGEX matches an event line "EVENT: ..."
has() {
	local ev=$1 re l rc=0 ok
	shift
	for re in "$@"; do
		ok=
		for l in "${EVENTS[@]}"; do
			[[ $l =~ ": $ev: "$re ]] && { ok=1; break; }
		done
		[ -n "$ok" ] && continue
		echo "no $ev event matching '$re'; its events:"
		for l in "${EVENTS[@]}"; do [[ $l == *": $ev: "* ]] && echo "${l##*: "$ev": }"; done
		rc=1
	done
	return "$rc"
}

to_rts() {
	has sroce_qp_state "qpn=$(qpn write 1) RTR -> RTS" "qpn=$(qpn write 2) RTR -> RTS"
}
write_pkts() {
	local a b op
	a=$(qpn write 1) b=$(qpn write 2)
	for op in FIRST MIDDLE LAST; do
		has sroce_pkt_tx "qpn=$a op=RC_WRITE_$op psn=[0-9]+ len=1024\$" || return 1
		has sroce_pkt_rx "qpn=$b op=RC_WRITE_$op psn=[0-9]+ len=1024\$" || return 1
	done
}
write_ack() {
	has sroce_ack "qpn=$(qpn write 2) tx ACK value=[0-9]+ msn=1 psn=3\$" \
		"qpn=$(qpn write 1) rx ACK value=[0-9]+ msn=1 psn=3\$" &&
	has sroce_pkt_rx "qpn=$(qpn write 1) op=RC_ACKNOWLEDGE psn=3 len=0\$"
}
write_wqe() {
	local a
	a=$(qpn write 1)
	has sroce_wqe_fetch "qpn=$a idx=0 wr_id=0x5a01 op=WRITE len=4096 pkts=4 status=SUCCESS\$" &&
	has sroce_wqe_complete "qpn=$a idx=0 wr_id=0x5a01 op=WRITE psn=0-3 len=4096 status=SUCCESS\$"
}
resend() {
	local a b
	a=$(qpn resend 1) b=$(qpn resend 2)
	has sroce_drop "qpn=$b reason=qp_state\$" &&
	has sroce_retransmit "qpn=$a from_psn=0 retries_left=[0-6] reason=timeout\$" &&
	has sroce_wqe_complete "qpn=$a idx=0 wr_id=0x5a02 op=WRITE psn=0-0 len=1024 status=SUCCESS\$"
}
rnr() {
	local a b
	a=$(qpn rnr 1) b=$(qpn rnr 2)
	has sroce_ack "qpn=$b tx RNR-NAK value=1 msn=0 psn=0\$" "qpn=$a rx RNR-NAK value=1" &&
	has sroce_retransmit "qpn=$a from_psn=0 retries_left=7 reason=rnr\$" &&
	has sroce_wqe_complete "qpn=$a idx=0 wr_id=0x5a03 op=SEND psn=0-0 len=64 status=SUCCESS\$"
}
# disabled: the device's removal (its QPs destroyed) records nothing
quiet_when_off() {
	trace_off
	rdma link delete "$DEV" || return 1
	local n on
	n=$(grep -c ': sroce_' "$T/trace") on=$(cat "$T/events/sroce/enable")
	echo "events/sroce/enable $on, $n events after the device's removal"
	[ "$on" = 0 ] && [ "$n" -eq 0 ]
}

ktap_header 11
dmesg_mark
ktap_result "$DEV on a veth" dev_up
ktap_result "events/sroce enabled" trace_on
ktap_result "RC WRITE, a WRITE resent, a SEND after an RNR NAK (trace_verbs.py)" exchanges
load
ktap_result "sroce_qp_state: both QPs RTR -> RTS" to_rts
ktap_result "sroce_pkt_tx/rx: RC_WRITE_FIRST, MIDDLE, LAST of 1024 B" write_pkts
ktap_result "sroce_ack: ACK sent and received for the last PSN" write_ack
ktap_result "sroce_wqe_fetch/complete: the WRITE's wr_id, 4 packets, PSNs 0-3, SUCCESS" write_wqe
ktap_result "sroce_drop reason=qp_state, sroce_retransmit reason=timeout, then SUCCESS" resend
ktap_result "sroce_ack RNR-NAK, sroce_retransmit reason=rnr, then SUCCESS" rnr
ktap_result "disabled: no event recorded, buffer empty" quiet_when_off
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
