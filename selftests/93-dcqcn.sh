#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 400
# sroce-kernels: newest
# DCQCN congestion control (sysfs dcqcn_enable, off by default), sroce8 ->
# sroce9 across a veth where a congested switch is stood in for by a
# marker: an nftables rule at sroce9's namespace input marks every 4th
# ECN-capable RoCE packet Congestion Experienced, whatever the rate (a
# rate bottleneck with RED marks only when the host sends faster than
# the bottleneck: a bound on the host's speed). Off: no packet is
# ECN-capable, nothing is marked, no CNP. On: packets marked, sroce9
# receives every one of them marked and answers with CNPs (BTH opcode
# 0x81), sroce8 receives them and cuts its rates; transfers still
# complete byte-exact (sroce-verify). Forged or misdirected CNPs are
# counted and dropped; a sroce device doing DCQCN still talks to
# rdma_rxe, which ignores ECN. Counts only: the rates under a real
# bottleneck, queue delay and fairness are `make bench` numbers.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

TOP=${SROCE_TOP:-$(dirname "$0")/..}
VERIFY=$TOP/build/userspace/sroce-verify
TMP=/tmp/93-dcqcn.$$
cleanup() { rm -f "$TMP".*; topo_down; }
trap cleanup EXIT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd ib_write_bw
require_cmd nft
python3 -c 'import scapy' 2>/dev/null || ktap_skip_all "python3-scapy not installed"

attr() { echo "/sys/class/infiniband/$1/dcqcn_$2"; }
dcqcn() { echo "$2" > "$(attr "$1" enable)"; }
# the marker: in srpeer, every 4th ECN-capable (ECT(0)) RoCE packet
# arriving for sroce9 is marked CE before sroce9's UDP socket gets it (the
# first, the fifth, ...); the second rule counts every ECN-capable packet,
# marked or not. sroce sends ECT(0) only (datapath.rst, DCQCN): an ECT(1)
# or CE packet from it would break marked_and_cut's count
ECN_TABLE=sroce_ecn_mark
marker() {
	in_peer nft -f - <<-EOF
	table inet $ECN_TABLE {
		chain input {
			type filter hook input priority -150; policy accept;
			udp dport 4791 ip ecn ect0 numgen inc mod 4 == 0 counter ip ecn set ce
			udp dport 4791 ip ecn != not-ect counter
		}
	}
	EOF
	in_peer nft list table inet "$ECN_TABLE" > /dev/null
}
# packets the marker marked CE / saw ECN-capable at all (the second rule
# counts them after the first may have marked them: all of them)
marked() { in_peer nft list table inet "$ECN_TABLE" | sed -n 's/.*counter packets \([0-9]*\).*ip ecn set ce.*/\1/p'; }
ecn_capable() { in_peer nft list table inet "$ECN_TABLE" | sed -n 's/.*ip ecn != not-ect counter packets \([0-9]*\).*/\1/p'; }

# flows N ITERS: N ib_write_bw pairs at once (ITERS x 64 KiB each, at most
# 16 in flight), servers on sroce9 in the peer namespace, clients on
# sroce8: all must succeed
flows() {
	local n=$1 iters=$2 i spids=() cpids=() rc=0
	for i in $(seq "$n"); do
		in_peer timeout 150 ib_write_bw -d sroce9 -x 1 -s 65536 -n "$iters" -t 16 -F \
			-p $((18600 + i)) > "$TMP.s$i" 2>&1 &
		spids+=($!)
	done
	for i in $(seq "$n"); do
		wait_listening peer $((18600 + i)) "${spids[$((i - 1))]}"
	done
	for i in $(seq "$n"); do
		timeout 150 ib_write_bw -d sroce8 -x 1 -s 65536 -n "$iters" -t 16 -F \
			-p $((18600 + i)) 192.0.2.2 > "$TMP.c$i" 2>&1 &
		cpids+=($!)
	done
	for i in "${cpids[@]}" "${spids[@]}"; do
		wait "$i" || rc=1
	done
	for i in $(seq "$n"); do
		echo "flow $i: $(awk '$1 == 65536 { print $4 " MB/s" }' "$TMP.c$i")"
		[ $rc -eq 0 ] || tail -n 3 "$TMP.c$i" "$TMP.s$i" | sed 's/^/# /'
	done
	return $rc
}

snap() {
	m0=$(marked) e0=$(ecn_capable)
	ecn0=$(port_counter sroce9 ecn_marked_rx_pkts) ctx0=$(port_counter sroce9 cnp_tx_pkts)
	crx0=$(port_counter sroce8 cnp_rx_pkts) cut0=$(port_counter sroce8 dcqcn_rate_cuts)
}
delta() {
	dm=$(($(marked) - m0)) de=$(($(ecn_capable) - e0))
	decn=$(($(port_counter sroce9 ecn_marked_rx_pkts) - ecn0)) dctx=$(($(port_counter sroce9 cnp_tx_pkts) - ctx0))
	dcrx=$(($(port_counter sroce8 cnp_rx_pkts) - crx0)) dcut=$(($(port_counter sroce8 dcqcn_rate_cuts) - cut0))
	echo "ECN-capable packets $de, marked CE $dm; sroce9: $decn CE-marked packets received," \
	     "$dctx CNPs sent; sroce8: $dcrx CNPs received, $dcut rate cuts"
}
none_marked() {
	delta
	test "$de" -eq 0 -a "$dm" -eq 0 -a "$decn" -eq 0 -a "$dctx" -eq 0 -a "$dcrx" -eq 0 -a "$dcut" -eq 0
}
# every 4th ECN-capable packet marked (the rule's own count), each one
# counted by sroce9 as received CE-marked, CNPs sent, received (none lost
# on the veth: at most as many as sent), rates cut
marked_and_cut() {
	delta
	test "$de" -ge 4 -a "$dm" -eq $(((de + 3) / 4)) -a "$decn" -eq "$dm" -a "$dctx" -gt 0 -a \
	     "$dcrx" -gt 0 -a "$dcrx" -le "$dctx" -a "$dcut" -gt 0
}

params_ok() {
	local d want got
	want="alpha_timer_us:55 byte_counter_kb:10240 cnp_interval_us:50 enable:0 fast_recovery:5"
	want+=" g:4 rate_ai_mbps:40 rate_hai_mbps:400 rate_max_mbps:10000 rate_min_mbps:10"
	want+=" rate_timer_us:55"
	for d in sroce8 sroce9; do
		got=$(cd "/sys/class/infiniband/$d" && grep . dcqcn_* | sed 's/^dcqcn_//' | sort | xargs)
		[ "$got" = "$want" ] || { echo "$d: $got"; return 1; }
	done
}
bad_values_refused() {
	! echo maybe 2>/dev/null > "$(attr sroce8 enable)" &&
	! echo 0 2>/dev/null > "$(attr sroce8 g)" &&
	! echo 1025 2>/dev/null > "$(attr sroce8 g)" &&
	! echo -1 2>/dev/null > "$(attr sroce8 rate_max_mbps)" &&
	[ "$(cat "$(attr sroce8 g)")" = 4 ]
}

# verify SEED: sroce-verify server on sroce9 (srpeer), client on sroce8
verify() {
	local s rc
	in_peer timeout 120 "$VERIFY" -d sroce9 -g 1 > "$TMP.v" 2>&1 &
	s=$!
	timeout 120 "$VERIFY" -d sroce8 -g 1 --seed "$1" -n 60 --min-size 16K --max-size 256K \
		--depth 4 --timeout 60 192.0.2.2
	rc=$?
	wait "$s" || rc=1
	sed 's/^/server: /' "$TMP.v"
	return $rc
}

# forged: CNPs from the raw socket of the init namespace to sroce9, with
# valid ICRCs: one for a QP that does not exist, one cut short, one for a
# QP that is no connected QP (QP1); each is counted in rx_drop_cnp
forged() {
	local d0 d1
	d0=$(port_counter sroce9 rx_drop_cnp)
	python3 - "$(dirname "$0")" <<'EOF' || return 1
import struct, sys
sys.path.insert(0, sys.argv[1])
import rc_wire
w = rc_wire.Wire('192.0.2.1', '192.0.2.2')
def cnp(qpn):
    return struct.pack('!BBHI', 0x81, 0, 0xffff, 0x40000000 | qpn) + bytes(4 + 16)
w.send(cnp(0xfffff0), cnp(0x12)[:20], cnp(1))
EOF
	sleep 1
	d1=$(port_counter sroce9 rx_drop_cnp)
	echo "rx_drop_cnp $d0 -> $d1"
	test $((d1 - d0)) -ge 3
}

ktap_header 14
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "DCQCN off by default, parameters at the paper's defaults" params_ok
ktap_result "out-of-range parameters refused" bad_values_refused
ktap_result "marker: every 4th ECN-capable packet to sroce9 marked CE (nftables)" marker
snap
ktap_result "DCQCN off: 2 ib_write_bw flows through the marker" flows 2 30
ktap_result "DCQCN off: no ECN-capable packet, no CE mark, no CNP, no rate cut" none_marked
dcqcn sroce8 1; dcqcn sroce9 1
snap
ktap_result "DCQCN on: 3 ib_write_bw flows through the marker" flows 3 40
ktap_result "DCQCN on: every 4th packet marked, each received CE, CNPs sent and received, rates cut" marked_and_cut
ktap_result "DCQCN on: sroce-verify through the marker, byte-exact" verify 41
ktap_result "forged CNPs (no such QP, short, QP1) counted and dropped" forged
topo_down
ktap_result "topology up with rdma_rxe" topo_up rxe
dcqcn sroce9 1
ktap_result "sroce doing DCQCN, rxe peer: ibv_rc_pingpong --chk" rxe_pingpong 32
ktap_result "rxe peer: no CNP received by sroce" test "$(port_counter sroce9 cnp_rx_pkts)" -eq 0
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
