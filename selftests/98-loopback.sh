#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# Local delivery (module parameter loopback, on by default): packets for an
# address of this host skip the IP stack, lo and the ICRC, and are counted
# in loopback_pkts. Checked with sroce-verify on one device (every byte and
# every completion) over IPv4, with ibv_rc_pingpong over IPv6, and with the
# parameter off, when the same traffic goes through lo and carries an ICRC.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

VERIFY=${SROCE_TOP:-$(dirname "$0")/..}/build/userspace/sroce-verify
PARAM=/sys/module/sroce/parameters/loopback
cleanup() { [ -w "$PARAM" ] && echo Y > "$PARAM"; topo_down; }
trap cleanup EXIT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
[ -r "$PARAM" ] || ktap_skip_all "sroce has no loopback parameter"

snap() { tx0=$(port_counter sroce8 tx_pkts) lb0=$(port_counter sroce8 loopback_pkts) icrc0=$(port_counter sroce8 rx_drop_icrc); }
delta() { dtx=$(($(port_counter sroce8 tx_pkts) - tx0)) dlb=$(($(port_counter sroce8 loopback_pkts) - lb0)) dicrc=$(($(port_counter sroce8 rx_drop_icrc) - icrc0)); }

verify_loop() {
	local s rc
	timeout 100 "$VERIFY" -d sroce8 -g 1 > /tmp/98-srv.$$ 2>&1 &
	s=$!
	timeout 100 "$VERIFY" -d sroce8 -g 1 --seed "$1" -n 300 --max-size 1M --timeout 30 192.0.2.1
	rc=$?
	wait "$s" || rc=1
	sed 's/^/server: /' /tmp/98-srv.$$; rm -f /tmp/98-srv.$$
	return $rc
}
pp_v6() {
	local g s
	g=$(gid_index init sroce8 "$V6A") || return 1
	timeout 60 ibv_rc_pingpong -d sroce8 -g "$g" -n 8 --chk -s "$1" > /dev/null 2>&1 &
	s=$!
	wait_listening init 18515 "$s"
	timeout 60 ibv_rc_pingpong -d sroce8 -g "$g" -n 8 --chk -s "$1" 192.0.2.1 > /dev/null 2>&1 &&
	wait "$s"
}
all_local() { echo "$dtx packets sent, $dlb delivered locally"; test "$dtx" -gt 0 -a "$dlb" -eq "$dtx" -a "$dicrc" -eq 0; }
none_local() { echo "$dtx packets sent, $dlb delivered locally"; test "$dtx" -gt 0 -a "$dlb" -eq 0 -a "$dicrc" -eq 0; }

ktap_header 9
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "loopback parameter on by default" test "$(cat "$PARAM")" = Y
snap
ktap_result "loopback on: sroce-verify on one device, IPv4" verify_loop 11
delta
ktap_result "loopback on: every packet delivered locally, none dropped" all_local
snap
ktap_result "loopback on: ibv_rc_pingpong --chk on one device, IPv6, 65537 B" pp_v6 65537
delta
ktap_result "loopback on: IPv6 packets delivered locally" all_local
echo N > "$PARAM"
snap
ktap_result "loopback off: sroce-verify on one device, through lo" verify_loop 12
delta
ktap_result "loopback off: no packet delivered locally, every ICRC good" none_local
echo Y > "$PARAM"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
