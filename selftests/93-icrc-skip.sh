#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: newest
# Opt-in ICRC skip (sysfs icrc_skip, off by default): two sroce devices
# across a veth skip the ICRC only when both allow it; with one end only,
# or against rdma_rxe, every packet keeps its ICRC. Data is checked with
# sroce-verify (every byte, every completion) and ibv_rc_pingpong --chk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

VERIFY=${SROCE_TOP:-$(dirname "$0")/..}/build/userspace/sroce-verify
SERVER_LOG=/tmp/93-srv.$$
cleanup() { rm -f "$SERVER_LOG"; topo_down; }
trap cleanup EXIT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"

sys() { echo "/sys/class/infiniband/$1/icrc_skip"; }
# snap: the counters the checks below compare against
snap() {
	a_tx=$(port_counter sroce8 icrc_skip_tx_pkts) a_rx=$(port_counter sroce8 icrc_skip_rx_pkts)
	b_tx=$(port_counter sroce9 icrc_skip_tx_pkts) b_rx=$(port_counter sroce9 icrc_skip_rx_pkts)
	drop=$(port_counter sroce8 rx_drop_icrc)
}
skipped_both() {
	local atx=$(($(port_counter sroce8 icrc_skip_tx_pkts) - a_tx)) arx=$(($(port_counter sroce8 icrc_skip_rx_pkts) - a_rx))
	local btx=$(($(port_counter sroce9 icrc_skip_tx_pkts) - b_tx)) brx=$(($(port_counter sroce9 icrc_skip_rx_pkts) - b_rx))
	echo "sroce8 sent $atx and received $arx packets without ICRC, sroce9 $btx and $brx"
	test "$atx" -gt 0 -a "$btx" -gt 0 -a "$arx" -gt 0 -a "$brx" -gt 0 -a \
		"$(port_counter sroce8 rx_drop_icrc)" -eq "$drop"
}
skipped_none() {
	local n=$(($(port_counter sroce8 icrc_skip_tx_pkts) - a_tx + $(port_counter sroce8 icrc_skip_rx_pkts) - a_rx +
		   $(port_counter sroce9 icrc_skip_tx_pkts) - b_tx + $(port_counter sroce9 icrc_skip_rx_pkts) - b_rx))
	echo "$n packets without ICRC"
	test "$n" -eq 0 -a "$(port_counter sroce8 rx_drop_icrc)" -eq "$drop"
}

# verify SEED: sroce-verify server on sroce9 (srpeer), client on sroce8
verify() {
	local s rc
	in_peer timeout 100 "$VERIFY" -d sroce9 -g 1 > "$SERVER_LOG" 2>&1 &
	s=$!
	timeout 100 "$VERIFY" -d sroce8 -g 1 --seed "$1" -n 100 --max-size 128K --timeout 30 192.0.2.2
	rc=$?
	wait "$s" || rc=1
	sed 's/^/server: /' "$SERVER_LOG"
	return $rc
}

rxe_skipped_none() {
	local n=$(($(port_counter sroce9 icrc_skip_tx_pkts) - b_tx + $(port_counter sroce9 icrc_skip_rx_pkts) - b_rx))
	echo "$n packets without ICRC"
	test "$n" -eq 0
}

ktap_header 11
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "icrc_skip off by default on both devices" \
	test "$(cat "$(sys sroce8)")" = 0 -a "$(cat "$(sys sroce9)")" = 0
ktap_result "icrc_skip rejects a value that is not a boolean" \
	bash -c "! echo maybe > $(sys sroce8)"
echo 1 > "$(sys sroce8)"; echo 1 > "$(sys sroce9)"
snap
ktap_result "both ends opted in: sroce-verify across the veth" verify 31
ktap_result "both ends opted in: packets sent and accepted without ICRC, none dropped" skipped_both
echo 0 > "$(sys sroce9)"
snap
ktap_result "one end opted in: sroce-verify across the veth" verify 32
ktap_result "one end opted in: every packet carries an ICRC" skipped_none
topo_down
ktap_result "topology up with rdma_rxe" topo_up rxe
echo 1 > "$(sys sroce9)"
b_tx=$(port_counter sroce9 icrc_skip_tx_pkts) b_rx=$(port_counter sroce9 icrc_skip_rx_pkts)
ktap_result "sroce opted in, rxe peer: ibv_rc_pingpong --chk" rxe_pingpong 16
ktap_result "sroce opted in, rxe peer: every packet carries an ICRC" rxe_skipped_none
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
