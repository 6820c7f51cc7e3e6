#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce and rdma_rxe both own UDP port 4791 in a network namespace: rxe in
# init_net from module load, sroce per namespace from its first device.
# A clash is reported clearly (EADDRINUSE) and the two coexist in
# different namespaces - the topology used for interop.
. "$(dirname "$0")/lib.sh"

cleanup() {
	rdma link delete sroce0 2>/dev/null; rdma link delete rxe0 2>/dev/null
	ip netns del srx 2>/dev/null; ip link del srx0 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
}
trap cleanup EXIT

clash_reported() {
	local out
	out=$(rdma link add sroce0 type sroce netdev srx0 2>&1) && return 1
	echo "$out" | grep -qi 'address already in use'
}
no_leftover() { [ ! -e /sys/class/infiniband/sroce0 ]; }
ns_add() { ip netns exec srx rdma link add sroce0 type sroce netdev srx1; }
both_listed() { rdma link show rxe0/1 >/dev/null && rdma link show sroce0/1 >/dev/null; }
init_after_rxe() {
	rdma link delete rxe0 && rmmod rdma_rxe &&
	rdma link add sroce1 type sroce netdev srx0 && rdma link delete sroce1
}

ktap_header 6
dmesg_mark
ip link add srx0 type veth peer name srx1
ip link set srx0 up
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev srx0

ktap_result "sroce in rxe's namespace fails with EADDRINUSE" clash_reported
ktap_result "the failed add leaves no device behind" no_leftover
ip netns add srx
ip link set srx1 netns srx
ip -n srx link set srx1 up
ktap_result "sroce in another namespace works beside rxe" ns_add
ktap_result "both devices listed" both_listed
ktap_result "after rxe unloads, init_net works for sroce" init_after_rxe
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
