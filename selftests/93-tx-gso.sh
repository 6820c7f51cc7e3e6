#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Transmit bursts (sysfs tx_gso; off by default on a veth, which takes a
# burst whole, on where the stack segments it before the driver: 20-link.sh
# checks the defaults): a connected QP
# hands runs of equal-sized packets to the IP stack as one UDP GSO
# (fraglist) packet; where the route's device takes it whole (veth), the
# receiving UDP socket segments it back into the very packets it would have
# received one by one. Checked across a veth between two sroce devices
# (every byte and completion with sroce-verify, ICRC kept: the IP IDs GSO
# gives the segments are the ones the ICRC covers), under netem loss (a
# lost burst is many lost packets: go-back-N recovers), with the stack
# segmenting the bursts before srA after a tc action pushed a VLAN tag
# inline (the members' headroom takes the tag: a skb_under_panic() before
# SROCE_TXB_HEADROOM), and towards rdma_rxe, which knows nothing of it
# (ibv_rc_pingpong --chk, 64 KiB SENDs).
# sroce-timeout: 240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

VERIFY=${SROCE_TOP:-$(dirname "$0")/..}/build/userspace/sroce-verify
SERVER_LOG=/tmp/93-gso-srv.$$
cleanup() {
	rm -f "$SERVER_LOG"
	tc qdisc del dev srA root 2>/dev/null
	tc qdisc del dev srA clsact 2>/dev/null
	topo_down
}
trap cleanup EXIT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"

sys() { echo "/sys/class/infiniband/$1/tx_gso"; }
# snap: the counters the checks below compare against (of the sroce devices there are)
snap() {
	local d
	for d in sroce8 sroce9; do
		[ -d "/sys/class/infiniband/$d" ] || continue
		eval "b_$d=\$(port_counter $d tx_gso_bursts) p_$d=\$(port_counter $d tx_gso_pkts)"
		eval "i_$d=\$(port_counter $d rx_drop_icrc)"
	done
}
# got DEV NAME: counter NAME of DEV since snap (NAME: tx_gso_bursts, tx_gso_pkts, rx_drop_icrc)
got() {
	local v
	case $2 in tx_gso_bursts) v=b_$1 ;; tx_gso_pkts) v=p_$1 ;; *) v=i_$1 ;; esac
	echo $(($(port_counter "$1" "$2") - ${!v}))
}
# bursts DEVS...: each of DEVS sent GSO bursts of several packets since
# snap, and dropped no packet for its ICRC
bursts() {
	local d b p i ok=0
	for d in "$@"; do
		b=$(got "$d" tx_gso_bursts) p=$(got "$d" tx_gso_pkts) i=$(got "$d" rx_drop_icrc)
		echo "$d: $b GSO bursts carrying $p packets, $i ICRC drops"
		[ "$b" -gt 0 ] && [ "$p" -gt "$b" ] && [ "$i" -eq 0 ] || ok=1
	done
	return $ok
}
no_bursts() {
	local n=$(($(got sroce8 tx_gso_bursts) + $(got sroce9 tx_gso_bursts)))
	echo "$n GSO bursts"
	test "$n" -eq 0
}

# verify SEED ARGS...: sroce-verify server on sroce9 (srpeer), client on sroce8
verify() {
	local seed=$1 s rc
	shift
	in_peer timeout 150 "$VERIFY" -d sroce9 -g 1 > "$SERVER_LOG" 2>&1 &
	s=$!
	timeout 150 "$VERIFY" -d sroce8 -g 1 --seed "$seed" "$@" 192.0.2.2
	rc=$?
	wait "$s" || rc=1
	sed 's/^/server: /' "$SERVER_LOG"
	return $rc
}
VARGS=(-m 1024 -n 60 --depth 8 --max-size 256K --ops 'write,send,read' --timeout 60)

ktap_header 13
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "tx_gso off by default on both (veth) devices, rejects a non-boolean" \
	bash -c "test \"\$(cat $(sys sroce8))\" = 0 -a \"\$(cat $(sys sroce9))\" = 0 && ! echo maybe > $(sys sroce8)"
snap
ktap_result "off: sroce-verify across the veth" verify 41 "${VARGS[@]}"
ktap_result "off: no GSO burst" no_bursts
echo 1 > "$(sys sroce8)"; echo 1 > "$(sys sroce9)"
snap
ktap_result "on: sroce-verify across the veth (WRITE, SEND, READ up to 256 KiB)" verify 42 "${VARGS[@]}"
ktap_result "on: both ends sent GSO bursts (requests and READ responses), no ICRC drop on either" \
	bursts sroce8 sroce9
tc qdisc add dev srA root netem loss 2%
snap
ktap_result "on, 2 % of GSO packets lost on srA (whole bursts): sroce-verify" verify 43 "${VARGS[@]}"
ktap_result "on, loss: sroce8 still sent bursts" bursts sroce8
tc qdisc del dev srA root
# vlan_tagged: srA segments the bursts itself (no UDP or fraglist GSO) after
# tc pushed VLAN 7 inline (no tag offload); srB's ingress pops it
vlan_tagged() {
	ethtool -K srA tx-gso-list off tx-udp-segmentation off tx-vlan-offload off &&
		tc qdisc add dev srA clsact &&
		tc filter add dev srA egress matchall action vlan push id 7 &&
		in_peer tc qdisc add dev srB clsact &&
		in_peer tc filter add dev srB ingress matchall action vlan pop
}
if vlan_tagged; then
	snap
	ktap_result "on, a VLAN tag pushed inline before srA segments the bursts: sroce-verify" \
		verify 44 "${VARGS[@]}"
	ktap_result "on, VLAN: sroce8 sent bursts" bursts sroce8
else
	ktap_skip "on, a VLAN tag pushed inline: sroce-verify" "ethtool -K or tc act_vlan refused"
	ktap_skip "on, VLAN: sroce8 sent bursts" "no VLAN set-up"
fi
tc qdisc del dev srA clsact
topo_down
if require_module rdma_rxe > /dev/null; then
	if topo_up rxe; then
		echo 1 > "$(sys sroce9)"
		snap
		ktap_result "sroce9 on, rxe peer: ibv_rc_pingpong --chk, 64 KiB SENDs" rxe_pingpong 40
		ktap_result "rxe peer: sroce9 sent GSO bursts (that rxe took: --chk above)" bursts sroce9
		topo_down
	else
		ktap_fail "sroce9 on, rxe peer: ibv_rc_pingpong --chk, 64 KiB SENDs" "topology with rxe8 failed"
		ktap_skip "rxe peer: sroce9 sent GSO bursts" "no topology"
	fi
else
	ktap_skip "sroce9 on, rxe peer: ibv_rc_pingpong --chk" "rdma_rxe missing"
	ktap_skip "rxe peer: sroce9 sent GSO bursts" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
