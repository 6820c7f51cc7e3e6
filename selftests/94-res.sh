#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 180
# Driver attributes in RDMA netlink resource dumps: `rdma resource show
# qp|cq|mr|srq -dd` (iproute2 prints them with a drv_ prefix) and `sroce
# show qp` show sroce's transport state, with the values that the traffic
# of two RC QPs implies (res_qps.py: PSNs, ring indices, retry budgets,
# CQ heads, MR pages, SRQ receives and limit); then dumps run while
# ibv_rc_pingpong moves data.
# shellcheck disable=SC2154 # exp_*: set by load_expected
. "$(dirname "$0")/lib.sh"

SROCE=$SROCE_TOP/build/userspace/sroce
HELPER_PY=$(dirname "$0")/res_qps.py
T=$(mktemp -d)
# bounds below are for the stock kernels; a debug kernel scales them
SCALE=${SROCE_TIMEOUT_SCALE:-1}
HELPER=
PP=
cleanup() {
	stop_all
	rdma link delete sroce0 2>/dev/null
	ip link del sres0 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

dev_up() {
	modprobe dummy && ip link add sres0 type dummy && ip link set sres0 up &&
	ip addr add 198.51.100.1/24 dev sres0 && rdma link add sroce0 type sroce netdev sres0
}

# ktap_result runs its command in a subshell: what starts processes or
# sets variables runs in the script's shell, the checks after it.

# res_qps.py hold's two lines (what to expect, as JSON and as NAME=VALUE
# words) within 60 s
helper_ready() {
	local end=$((SECONDS + 60 * SCALE))
	while [ "$SECONDS" -lt "$end" ]; do
		if [ "$(grep -c '' "$T/helper")" -ge 2 ] && grep -q '^{' "$T/helper"; then
			head -n 1 "$T/helper"
			return 0
		fi
		kill -0 "$HELPER" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/helper"
	return 1
}
# exp_NAME=VALUE for every word of that second line
load_expected() {
	local kv
	# shellcheck disable=SC2013 # one line of words
	for kv in $(sed -n 2p "$T/helper"); do
		[[ $kv =~ ^[a-z_]+=[0-9]+$ ]] && declare -g "exp_$kv"
	done
}

# qp_line QPN WORD..: rdma's -dd line of QPN has every "WORD"
qp_line() {
	local q=$1 line w
	shift
	line=$(rdma resource show qp link sroce0/1 lqpn "$q" -dd) || return 1
	echo "$line"
	for w in "$@"; do
		grep -qF " $w " <<< "$line " || { echo "missing: $w"; return 1; }
	done
}
text_a() {
	qp_line "$exp_a" "state RTS" "drv_qp_state RTS" "drv_next_psn $exp_a_next_psn" \
		"drv_last_acked_psn $exp_a_last_acked_psn" "drv_expected_psn $exp_a_expected_psn" \
		"drv_rd_outstanding 0" "drv_retry_left 7" "sq-psn $exp_a_sq_psn" "rq-psn $exp_a_rq_psn"
}
text_b() {
	qp_line "$exp_b" "state RTS" "drv_qp_state RTS" "drv_expected_psn $exp_b_expected_psn" \
		"drv_rq_prod $exp_b_rq_prod" "drv_rq_cons $exp_b_rq_cons"
}
# an unprivileged user (nobody, no capabilities) sees A's state but not
# its PSNs or MSN, the driver's nor the core's (query_qp's sq-psn and
# rq-psn, 0): they are what a packet injected into the connection must
# guess (root, or the QP's own process, sees them: text_a)
unpriv_no_psns() {
	local line
	line=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		rdma resource show qp link sroce0/1 lqpn "$exp_a" -dd) || return 1
	echo "$line"
	grep -qF " drv_qp_state RTS " <<< "$line " || { echo "no driver attributes at all"; return 1; }
	grep -qF " sq-psn 0 " <<< "$line " && grep -qF " rq-psn 0 " <<< "$line " ||
		{ echo "sq-psn/rq-psn not 0"; return 1; }
	! grep -qE "drv_(next|last_acked|expected)_psn|drv_msn" <<< "$line"
}
sroce_text() {
	"$SROCE" show qp sroce0 | grep -E "^sroce0/1 qpn $exp_a type RC state RTS .* next_psn $exp_a_next_psn "
}

# SRQ driver attributes need the core's fill_res_srq_entry (not in 6.1)
have_srq_attrs() {
	grep -q 'define SROCE_HAVE_FILL_RES_SRQ' "$SROCE_TOP/build/kernel/$SROCE_KERNEL/sroce_probe.h"
}
# every dump res_qps.py checks, saved in $T as NAME.json; then its verdicts
dumps() {
	rdma -j -dd resource show qp link sroce0 > "$T/rdma-qp.json" &&
	rdma -j resource show qp link sroce0 > "$T/rdma-plain.json" &&
	rdma -j -dd resource show cq dev sroce0 > "$T/rdma-cq.json" &&
	rdma -j -dd resource show mr dev sroce0 > "$T/rdma-mr.json" &&
	{ ! have_srq_attrs || rdma -j -dd resource show srq dev sroce0 > "$T/rdma-srq.json"; } &&
	"$SROCE" show qp sroce0 --json > "$T/sroce-qp.json" &&
	python3 "$HELPER_PY" check "$T" > "$T/verdicts" || return 1
}
# verdict NAME: res_qps.py's verdict on NAME.json
verdict() {
	local v
	v=$(grep "^$1 " "$T/verdicts")
	[ "$v" = "$1 ok" ] || { echo "${v:-no verdict on $1}"; return 1; }
}
srq_verdict() {
	have_srq_attrs || { echo "this kernel's RDMA core asks drivers for no SRQ attributes"; return 4; }
	verdict rdma-srq
}
# the helper, told to stop, closes everything and ends within 30 s; only
# QP1 is left
helper_gone() {
	timeout $((30 * SCALE)) tail --pid="$HELPER" -f /dev/null
	grep -qx closed "$T/helper" || { cat "$T/helper"; return 1; }
	[ "$("$SROCE" show qp sroce0 | awk '{ printf "%s ", $3 }')" = "1 " ]
}

# ibv_rc_pingpong's two QPs on sroce0 in RTS within 30 s
pingpong_ready() {
	local end=$((SECONDS + 30 * SCALE))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(rdma resource show qp link sroce0 -dd | grep -c 'type RC state RTS .*drv_qp_state RTS')" = 2 ] &&
			return 0
		sleep 0.5
	done
	rdma resource show qp link sroce0 -dd
	return 1
}
# the SQ producers of sroce0's QPs, summed
sq_prods() {
	rdma resource show qp link sroce0 -dd | grep -o 'drv_sq_prod [0-9]*' | awk '{ s += $2 } END { print s + 0 }'
}
# every dump while the pingpong runs: all succeed, and the SQ producers
# move from before them to after them
dumps_under_traffic() {
	local p0 p1
	p0=$(sq_prods)
	rdma -dd resource show qp link sroce0 > /dev/null &&
	rdma -dd resource show cq dev sroce0 > /dev/null &&
	rdma -dd resource show mr dev sroce0 > /dev/null &&
	"$SROCE" show qp sroce0 --json > /dev/null || return 1
	p1=$(sq_prods)
	echo "SQ producers: $p0 -> $p1"
	[ "$p1" -gt "$p0" ]
}
# pingpong [SERVER]: ibv_rc_pingpong loopback on sroce0 for up to 90 s,
# in the background (PP: their PIDs); niced and waiting for completion
# events, not polling, so the guest has CPU left for the dumps
pingpong() {
	timeout $((90 * SCALE)) nice -n 19 ibv_rc_pingpong -d sroce0 -g 1 -e -n 100000000 "$@" > /dev/null 2>&1 &
	PP="$PP $!"
}
stop_all() {
	local p
	touch "$T/stop"
	for p in $PP; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PP=
	[ -z "$HELPER" ] || { kill "$HELPER" 2>/dev/null; wait "$HELPER" 2>/dev/null; }
	HELPER=
}

ktap_header 17
dmesg_mark
ktap_result "sroce0 on a dummy netdev" dev_up
timeout $((240 * SCALE)) python3 "$HELPER_PY" hold sroce0 "$T/stop" $((120 * SCALE)) > "$T/helper" 2>&1 &
HELPER=$!
ktap_result "two RC QPs moved data and stay in RTS (res_qps.py)" helper_ready
load_expected
ktap_result "rdma res show qp -dd: A's state, PSNs, retry budget" text_a
ktap_result "rdma res show qp -dd: B's expected PSN, RQ indices" text_b
ktap_result "rdma res show qp -dd as nobody: no PSNs (driver's, sq-psn/rq-psn 0), no MSN" unpriv_no_psns
ktap_result "sroce show qp: one line per QP" sroce_text
ktap_result "JSON dumps saved and checked (res_qps.py check)" dumps
ktap_result "rdma -j -dd res show qp: every value as expected" verdict rdma-qp
ktap_result "rdma -j res show qp (no -dd): no driver attributes" verdict rdma-plain
ktap_result "rdma -j -dd res show cq: entries, heads, no overflow" verdict rdma-cq
ktap_result "rdma -j -dd res show mr: user MRs of 256 pages" verdict rdma-mr
ktap_step "rdma -j -dd res show srq: posted receives, limit" srq_verdict
ktap_result "sroce show qp --json: QPNs, state RTS, PSNs, owner" verdict sroce-qp
touch "$T/stop"
ktap_result "the helper's QPs are gone with it" helper_gone
pingpong
end=$((SECONDS + 15 * SCALE))
until ss -Hltn 'sport = :18515' | grep -q . || [ "$SECONDS" -ge "$end" ]; do
	sleep 0.1
done
pingpong 198.51.100.1
ktap_result "ibv_rc_pingpong running on sroce0" pingpong_ready
ktap_result "dumps of qp, cq, mr and sroce show qp under traffic" dumps_under_traffic
stop_all
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
