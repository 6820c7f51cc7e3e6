#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# RC data path with unmodified ibv_rc_pingpong --chk: loopback on one
# device, and two sroce devices in different network namespaces over veth,
# at MTU 1024 from 1 byte to 1 MiB (odd sizes too) and at MTU 4096 with
# the multi-packet sizes (a message of one packet is the same at either
# MTU), each device as requester and as responder; and over IPv6 (RoCE v2
# GIDs of IPv6 addresses).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
trap topo_down EXIT

# a debug kernel (make check-debug) runs each case several times slower
T=$((60 * ${SROCE_TIMEOUT_SCALE:-1}))
pp() { local s=$1 n=$2 c=$3 ip=$4; shift 4; client_server "$s" "$n" "$c" "$ip" ibv_rc_pingpong -g 1 -n 8 --chk "$@"; }
loop() {
	timeout $T ibv_rc_pingpong -d sroce8 -g 1 -n 8 --chk -s "$1" > /dev/null 2>&1 & local s=$!
	wait_listening init 18515 "$s"
	timeout $T ibv_rc_pingpong -d sroce8 -g 1 -n 8 --chk -s "$1" 192.0.2.1 > /dev/null 2>&1 &&
	wait "$s"
}

sizes="1 37 4096 65537 1048576"
v6() {
	local ga gb
	ga=$(gid_index init sroce8 "$V6A") && gb=$(gid_index peer sroce9 "$V6B") || return 1
	timeout $T ip netns exec srpeer ibv_rc_pingpong -d sroce9 -g "$gb" -n 8 --chk -s "$1" > /dev/null 2>&1 &
	local s=$!
	wait_listening peer 18515 "$s"
	timeout $T ibv_rc_pingpong -d sroce8 -g "$ga" -n 8 --chk -s "$1" 192.0.2.2 > /dev/null 2>&1 &&
	wait "$s"
}

sizes4k="65537 1048576"
ktap_header $((1 + 5 + 2 * 5 + 2 * 2 + 2 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
for s in $sizes; do
	ktap_result "loopback on one device, $s bytes" loop "$s"
done
for m in 1024 4096; do
	ms=$sizes
	[ "$m" = 4096 ] && ms=$sizes4k
	for s in $ms; do
		ktap_result "netns, mtu $m, $s bytes, peer responds" pp sroce9 peer sroce8 192.0.2.2 -m "$m" -s "$s"
		ktap_result "netns, mtu $m, $s bytes, peer requests" pp sroce8 init sroce9 192.0.2.1 -m "$m" -s "$s"
	done
done
ktap_result "IPv6 GIDs, 37 bytes" v6 37
ktap_result "IPv6 GIDs, 1 MiB" v6 1048576
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
