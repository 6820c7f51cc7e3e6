#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Port state follows carrier (with IB port events); active MTU follows the
# netdev MTU, mapped to the largest IB MTU that fits RoCEv2 headers.
. "$(dirname "$0")/lib.sh"

port=/sys/class/infiniband/sroce0/ports/1
watch_pid=
cleanup() {
	[ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null && wait "$watch_pid" 2>/dev/null
	rdma link delete sroce0 2>/dev/null; ip link del sprt0 2>/dev/null
}
trap cleanup EXIT

state_is() { for _ in $(seq 30); do grep -q "$1" "$port/state" && return 0; sleep 0.1; done; return 1; }
active_mtu() { ibv_devinfo -d sroce0 | awk '/active_mtu:/ {print $2; exit}'; }
mtu_maps() { ip link set sprt0 mtu "$1" && [ "$(active_mtu)" = "$2" ]; }
have_provider() { ls "$SROCE_TOP"/build/provider/libsroce-rdmav*.so >/dev/null 2>&1; }
events_seen() {
	for _ in $(seq 30); do
		grep -q PORT_ERR "$evlog" && grep -q PORT_ACTIVE "$evlog" && return 0; sleep 0.1
	done; cat "$evlog" >&2; return 1
}

ktap_header 11
dmesg_mark
ip link add sprt0 type veth peer name sprt1
ip link set sprt0 up; ip link set sprt1 up
rdma link add sroce0 type sroce netdev sprt0

ktap_result "port ACTIVE with carrier" state_is ACTIVE
ktap_result "phys_state LinkUp" grep -q LinkUp "$port/phys_state"
evlog=$(mktemp)
if have_provider; then
	ibv_asyncwatch -d sroce0 > "$evlog" 2>&1 &
	watch_pid=$!
	sleep 1
fi
ip link set sprt1 down       # the peer going down drops sprt0's carrier
ktap_result "port DOWN when carrier lost" state_is DOWN
ktap_result "phys_state Disabled when down" grep -q Disabled "$port/phys_state"
ip link set sprt1 up
ktap_result "port ACTIVE again" state_is ACTIVE
if have_provider; then
	ktap_result "IBV_EVENT_PORT_ERR and PORT_ACTIVE delivered" events_seen
	ktap_result "MTU 1500 -> active_mtu 1024" mtu_maps 1500 1024
	ktap_result "MTU 9000 -> active_mtu 4096" mtu_maps 9000 4096
	ktap_result "MTU 2200 -> active_mtu 2048" mtu_maps 2200 2048
	ktap_result "MTU 600 -> active_mtu 512" mtu_maps 600 512
else
	for t in "IBV_EVENT_PORT_ERR and PORT_ACTIVE delivered" "MTU 1500 -> active_mtu 1024" \
		 "MTU 9000 -> active_mtu 4096" "MTU 2200 -> active_mtu 2048" "MTU 600 -> active_mtu 512"; do
		ktap_skip "$t" "provider not built (build/provider)"
	done
fi
rm -f "$evlog"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
