#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce and rdma_rxe both own UDP port 4791 in a network namespace: rxe in
# init_net from module load, sroce per namespace from its first device.
# A clash is reported clearly (EADDRINUSE) and the two coexist in
# different namespaces - the topology used for interop.
# rmmod rdma_rxe fails while a process holds an rxe device open where rxe
# cannot disassociate (6.1, 6.12: the uverbs file pins the module): rxe
# then keeps the port and a sroce device added in init_net right after
# gets EADDRINUSE - the clash seen once after an unchecked `rmmod
# rdma_rxe`. lib.sh's rxe_unload retries until the module is gone. An rxe
# with disassociate_ucontext (7.x) lets go of the holder and unloads:
# then the port is free at once and sroce in init_net works.
. "$(dirname "$0")/lib.sh"

HOLDER=
cleanup() {
	rdma link delete sroce0 2>/dev/null; rdma link delete rxe0 2>/dev/null
	ip netns del srx 2>/dev/null; ip link del srx0 2>/dev/null
	[ -z "$HOLDER" ] || { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; }
	rxe_unload > /dev/null
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

# held: a process holds rxe0 open (ibv_rc_pingpong waiting for its peer,
# under timeout, whose PID is HOLDER); rmmod rdma_rxe is refused, and
# sroce meets rxe's port
held_rmmod_refused() {
	local out
	ss -Hltn "sport = :18600" | grep -q . ||
		{ echo "ibv_rc_pingpong on rxe0 never listened: nothing holds rxe0"; return 1; }
	if rmmod rdma_rxe 2>/dev/null; then
		echo "rmmod succeeded with rxe0 open: this rxe disassociates its users"
		[ ! -d /sys/module/rdma_rxe ] || { echo "but rdma_rxe is still loaded"; return 1; }
		rdma link add sroce1 type sroce netdev srx0 && rdma link delete sroce1
		return
	fi
	out=$(rdma link add sroce1 type sroce netdev srx0 2>&1) &&
		{ rdma link delete sroce1; echo "sroce added beside a loaded rdma_rxe"; return 1; }
	echo "sroce: $out"
	grep -qi 'address already in use' <<< "$out"
}
# the holder ends 2 s from now: rxe_unload (retrying) gets rdma_rxe out
unload_waits() {
	(sleep 2; kill "$HOLDER" 2>/dev/null) &
	rxe_unload && [ ! -d /sys/module/rdma_rxe ] &&
	rdma link add sroce1 type sroce netdev srx0 && rdma link delete sroce1
}

ktap_header 8
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
modprobe rdma_rxe
ip link set srx0 up
rdma link add rxe0 type rxe netdev srx0
timeout 60 ibv_rc_pingpong -d rxe0 -p 18600 > /dev/null 2>&1 &
HOLDER=$!
for _ in $(seq 100); do
	ss -Hltn "sport = :18600" | grep -q . && break
	sleep 0.1
done
ktap_result "rmmod rdma_rxe with rxe0 held: refused and sroce gets EADDRINUSE, or (rxe disassociates) done and sroce works" \
	held_rmmod_refused
ktap_result "rxe_unload waits for the holder to end; then sroce in init_net works" unload_waits
wait "$HOLDER" 2>/dev/null
HOLDER=
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
