#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The resend timer's READ probe (multipath.rst, *The timer's probe*):
# when the timer expires on a READ with no hole known, a sroce requester
# whose peer answers probes asks for the last response of the newest READ
# in flight alone (a probe, answered behind what the responder has
# queued) instead of going back, which asks for the rest of the READ and
# for every READ after it. A host that stops for a while (sroce9's
# answers held 150 ms by a plug qdisc on srB: nothing lost) makes the
# timer expire needlessly: perftest's READs, 64 KiB, once going back
# (module parameter selective_read=N) and once probing; going back, the
# responder sent at least 10 packets more per expiry than without
# stalls, probing one per probe. Then the last responses of single READs
# lost (nothing after them to show a hole): the probe's answer shows the
# hole, which is asked for at once, byte-exact, and no READ request other
# than the probes and the repairs went again.
# sroce-timeout: 300
# One kernel: the probe is the requester's and responder's own logic.
# sroce-kernels: newest
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"

CTRDIR=$(mktemp -d /tmp/93-rp.XXXXXX)
SELRD=/sys/module/sroce/parameters/selective_read
cleanup() {
	bg_kill_all
	echo Y > "$SELRD" 2>/dev/null
	in_peer tc qdisc del dev srB root 2>/dev/null
	rm -rf "$CTRDIR"
	topo_down_bounded
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd tc > /dev/null || ktap_skip_all "tc missing"
modprobe sch_plug 2> /dev/null

# the counters (fault-lib.sh, ctr_snap): DEV.CTR, of sroce8 (the READs'
# requester) and of sroce9
CTRS=
for d in sroce8 sroce9; do
	for c in tx_pkts retx_pkts selrd_probes selrd_repairs selrd_reasks selrd_placed_pkts \
		 rto_retransmits rto_spurious local_ack_timeouts; do
		CTRS+=" $d.$c"
	done
done
ctr_val() { port_counter "${1%%.*}" "${1#*.}"; }

# stalls: after every 5000 packets sroce9 sent, its packets (srB's
# egress, in srpeer) held 150 ms by a plug qdisc, then released whole, as
# by a host that stops its VM now and then: nothing lost, and between two
# stalls the RTT estimate settles again. Polled by bash builtins, the
# qdisc changed by one tc reading commands: under TCG a fork and exec
# cost 60 ms or more.
STALLS='f=/sys/class/infiniband/sroce9/ports/1/hw_counters/tx_pkts
	exec {z}<> <(:) {tc}> >(exec tc -n srpeer -batch - > /dev/null 2>&1)
	read -r n0 < $f
	while :; do
		read -r n < $f
		if [ $((n - n0)) -ge 5000 ]; then
			echo "qdisc change dev srB root plug block" >&$tc
			read -t 0.15 -u $z
			echo "qdisc change dev srB root plug release_indefinite" >&$tc
			read -r n0 < $f
		fi
		read -t 0.01 -u $z
	done'

# perftest's READs, 64 KiB, sroce8 reads sroce9's memory (16 in flight,
# always: a stall finds READs being answered); the QP's timeout 1 s (-u
# 18), so that only the measured RTT's resend timer fires in a stall
RDBW=(ib_read_bw -x 1 -F -s 65536 -n 1000 -u 18)
# stall_run NAME Y|N [stall]: the READs, selective_read Y or N, through
# the stalls if asked
stall_run() {
	local rc p=
	echo "$2" > "$SELRD" || return 1
	if [ -n "$3" ]; then
		in_peer tc qdisc replace dev srB root plug limit 100000000 &&
			in_peer tc qdisc change dev srB root plug release_indefinite || return 1
		bg_start p 180 /dev/null bash -c "$STALLS"
	fi
	ctr_snap
	client_server sroce9 peer sroce8 192.0.2.2 "${RDBW[@]}"
	rc=$?
	[ -z "$p" ] || pkill -KILL -s "$p" 2> /dev/null
	in_peer tc qdisc change dev srB root plug release_indefinite 2> /dev/null
	ctr_delta "$1"
	in_peer tc qdisc del dev srB root 2> /dev/null
	echo Y > "$SELRD"
	return $rc
}

# extra NAME: sroce9's packets in run NAME beyond the run without stalls
extra() { echo $(($(got "$1" sroce9.tx_pkts) - $(got base sroce9.tx_pkts))); }
# the timer expired in both runs with stalls. Going back, each expiry
# asked again for the rest of a READ and the READs after it (the
# responder sent at least 10 packets more per expiry); probing, it sent
# no more than one per probe, the probe's answer (and up to 8 of the
# control SENDs' ACKs, whose count follows the timing)
stall_ok() {
	local g p
	g=$(got gbn sroce8.rto_retransmits) p=$(got probe sroce8.rto_retransmits)
	echo "going back: $g timer expiries, sroce9 sent $(extra gbn) packets more than without" \
	     "stalls; probing: $p expiries, $(got probe sroce8.selrd_probes) probes, $(extra probe) more"
	if [ "$g" -eq 0 ] || [ "$p" -eq 0 ]; then
		echo "vacuous: no timer expiry in a run with stalls"
		return 4
	fi
	test "$(got gbn sroce8.selrd_probes)" -eq 0 -a "$(extra gbn)" -ge $((10 * g)) -a \
	     "$(got probe sroce8.selrd_probes)" -gt 0 -a \
	     "$(extra probe)" -le $(($(got probe sroce8.selrd_probes) + 8))
}

# READs of 3 KiB one at a time (FIRST, MIDDLE, LAST, whatever the
# segment), arriving at sroce8: every 4th MIDDLE and every 3rd LAST
# dropped (RC opcodes 0x0e, 0x0f; the repairs' answers are ONLY, or
# FIRST and LAST): a lost LAST has nothing after it to show the hole, a
# lost MIDDLE with it neither
TAILARGS=(-m 1024 -n 36 --depth 1 --min-size 3072 --max-size 3072 --ops read --initiator client
	  --qp-timeout 18 --timeout 60 --seed 22)
tail_run() {
	local rc
	nft -f - <<-EOF || return 1
	table inet $FAULT_TABLE
	delete table inet $FAULT_TABLE
	table inet $FAULT_TABLE {
		chain input {
			type filter hook input priority 0; policy accept;
			udp dport 4791 @th,64,8 0x0e numgen inc mod 4 == 1 counter drop
			udp dport 4791 @th,64,8 0x0f numgen inc mod 3 == 1 counter drop
		}
	}
	EOF
	ctr_snap
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${TAILARGS[@]}"
	rc=$?
	ctr_delta tail
	echo "dropped $(fault_dropped)" >> "$CTRDIR/tail"
	fault_clear
	return $rc
}
tail_ok() {
	echo "dropped $(got tail dropped); $(got tail sroce8.selrd_probes) probes," \
	     "$(got tail sroce8.selrd_repairs) repairs (probes included)," \
	     "$(got tail sroce8.retx_pkts) packets resent, $(got tail sroce8.rto_retransmits) timer expiries"
	test "$(got tail dropped)" -gt 0 -a "$(got tail sroce8.selrd_probes)" -gt 0 -a \
	     "$(got tail sroce8.retx_pkts)" -eq "$(got tail sroce8.selrd_repairs)"
}

ktap_header 8
dmesg_mark
ktap_result "topology sroce8 <-> sroce9, in order (RPS)" eval "topo_up sroce && topo_in_order"
ktap_case "READs without stalls" stall_run base Y
ktap_case "READs through stalls, going back (selective_read=N)" stall_run gbn N stall
ktap_case "READs through stalls, probing" stall_run probe Y stall
ktap_case "stalls: probes instead of going back, fewer packets from the responder" stall_ok
ktap_case "READs whose last responses are lost: byte-exact" tail_run
ktap_result "a lost tail: probed, the hole asked for, nothing else resent" tail_ok
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
