#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Removing the netdev removes the device: veth deletion, netns deletion,
# and a move to another namespace (which unregisters the netdev).
. "$(dirname "$0")/lib.sh"

sys=/sys/class/infiniband
cleanup() {
	ip netns del srm 2>/dev/null; ip link del srm0 2>/dev/null; ip link del srm2 2>/dev/null
	for d in sroce0 sroce1 sroce2; do rdma link delete $d 2>/dev/null; done
}
trap cleanup EXIT

gone() { for _ in $(seq 50); do [ ! -e "$sys/$1" ] && return 0; sleep 0.1; done; return 1; }
# netdev unregistration waits for every reference: it must finish promptly
del_completes() { timeout 20 ip link del "$1"; }
ns_socket() { ip netns exec srm ss -Hlun 'sport = :4791' | grep -q 4791; }

ktap_header 8
dmesg_mark
ip link add srm0 type veth peer name srm1
rdma link add sroce0 type sroce netdev srm0
rdma link add sroce1 type sroce netdev srm1
ktap_result "veth deletion completes (no netdev reference leak)" del_completes srm0
ktap_result "device on deleted veth removed" gone sroce0
ktap_result "device on its peer removed" gone sroce1

ip netns add srm
ip link add srm2 type veth peer name srm3 netns srm
ip netns exec srm rdma link add sroce2 type sroce netdev srm3
ktap_result "device in a netns has that netns' socket" ns_socket
ip netns del srm
ktap_result "netns deletion removes its device" gone sroce2

ip link add srm4 type veth peer name srm5
rdma link add sroce0 type sroce netdev srm4
ip netns add srm
ip link set srm4 netns srm
ktap_result "moving the netdev to another netns removes the device" gone sroce0
ip netns del srm
ktap_result "no sroce device left" sh -c "! ls $sys | grep -q '^sroce'"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
