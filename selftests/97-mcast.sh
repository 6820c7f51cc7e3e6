#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# UD multicast (RoCEv2: IP multicast to DQPN 0xFFFFFF): rdma_cm's mckey
# joins a group and receives every datagram a sender in the other
# namespace sends to it, sroce <-> sroce both ways (IPv4: the kernel's
# rdma_cm refuses IPv6 groups on RoCEv2 ports with ENOTSUPP, for every
# device); against rdma_rxe as the receiver too. mckey's sender posts its
# datagrams unsignaled and destroys the QP at once: sroce sends what is
# still posted at destroy_qp (as a NIC has sent it at the doorbell), rdma_rxe
# discards it (14 of 20 and 1 of 20 sent by its own sent_pkts), so rxe as
# the sender is a named skip; UD may lose a datagram, so a
# run that misses any is repeated once on a fresh group and two misses in
# a row fail; each case has a second line, "first attempt, no rerun",
# ok when no rerun was needed and a SKIP (counted) when it was; attach joins the IP group on the netdev (seen in
# `ip maddr`), detach leaves it. Loopback on one device (sender and
# receiver on one port) is what pyverbs' multicast tests cover.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
trap topo_down EXIT

require_cmd mckey > /dev/null || ktap_skip_all "mckey (rdmacm-utils) missing"

# mc RECV_NS(peer|init) RECV_IP SEND_IP GROUP: N datagrams arrive
mc() {
	local rns=$1 rip=$2 sip=$3 grp=$4 r rc run=() srun=(ip netns exec srpeer)
	[ "$rns" = peer ] && { run=(ip netns exec srpeer); srun=(); }
	"${run[@]}" timeout 60 stdbuf -oL mckey -m "$grp" -b "$rip" -C 20 > /tmp/mcr.$$ 2>&1 &
	r=$!
	# the receiver must have joined and posted its buffers before anything
	# is sent (mckey says so)
	for _ in $(seq 150); do
		grep -q "receiving data transfers" /tmp/mcr.$$ 2>/dev/null && break
		kill -0 "$r" 2>/dev/null || break
		sleep 0.1
	done
	"${srun[@]}" timeout 60 mckey -m "$grp" -b "$sip" -s -C 20 > /tmp/mcs.$$ 2>&1
	rc=$?
	wait "$r" || rc=1
	grep -q "data transfers complete" /tmp/mcr.$$ || rc=1
	if [ $rc -ne 0 ]; then
		tail -n 4 /tmp/mcr.$$ /tmp/mcs.$$ | sed 's/^/# /'
		# what rdma_rxe saw of them, when it is the receiver
		[ ! -e /sys/class/infiniband/rxe8 ] || rdma statistic show link rxe8/1 | sed 's/^/# /'
	fi
	rm -f /tmp/mcr.$$ /tmp/mcs.$$
	return $rc
}

# mc_case NAME RECV_NS RECV_IP SEND_IP GROUP: two result lines: NAME,
# mc passing at the first attempt or, if that lost datagrams, at a second
# on a new group (UD guarantees no delivery; two misses in a row fail);
# and "NAME: first attempt, no rerun", a SKIP when the rerun was needed
mc_case() {
	local name=$1 g=$5 g2
	shift
	if mc "$@"; then
		ktap_ok "$name"
		ktap_ok "$name: first attempt, no rerun"
		return 0
	fi
	g2=${g%.*}.$(( ${g##*.} + 100 ))
	ktap_diag "first attempt lost datagrams; again on $g2"
	if mc "$1" "$2" "$3" "$g2"; then
		ktap_ok "$name (at the second attempt)"
	else
		ktap_fail "$name" "two attempts in a row lost datagrams"
	fi
	ktap_skip "$name: first attempt, no rerun" "the first attempt lost datagrams: rerun on $g2"
}

# joined: while a receiver waits, its netdev is in the IP group
in_group() {
	local rc=1 r
	ip netns exec srpeer timeout 30 mckey -m 239.9.9.9 -b 192.0.2.2 -C 1 > /dev/null 2>&1 &
	r=$!
	for _ in $(seq 100); do
		ip netns exec srpeer ip maddr show dev srB | grep -q 239.9.9.9 && { rc=0; break; }
		sleep 0.1
	done
	kill "$r" 2>/dev/null; wait "$r" 2>/dev/null
	[ $rc -eq 0 ] || return 1
	# and leaves it when the receiver is gone
	for _ in $(seq 100); do
		ip netns exec srpeer ip maddr show dev srB | grep -q 239.9.9.9 || return 0
		sleep 0.1
	done
	return 1
}

# topology; two cases of two lines; in_group, max_mcast_grp; rxe topology,
# its case (two lines), the rxe sender skip; dmesg
ktap_header $((1 + 2 * 2 + 2 + 1 + 2 + 1 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
mc_case "mckey IPv4: peer receives, init sends" peer 192.0.2.2 192.0.2.1 239.1.2.3
mc_case "mckey IPv4: init receives, peer sends" init 192.0.2.1 192.0.2.2 239.1.2.4
ktap_result "IP group joined while attached, left after" in_group
ktap_result "device max_mcast_grp advertised" sh -c 'ibv_devinfo -v -d sroce8 | grep -q "max_mcast_grp:[[:space:]]*[1-9]"'
topo_down
if require_module rdma_rxe > /dev/null; then
	ktap_result "topology up (rdma_rxe in init_net, sroce in the peer namespace)" topo_up rxe
	mc_case "mckey IPv4: rxe receives, sroce sends" init 192.0.2.1 192.0.2.2 239.1.2.5
else
	ktap_skip "topology up with rdma_rxe" "rdma_rxe missing"
	ktap_skip "mckey IPv4: rxe receives, sroce sends" "rdma_rxe missing"
	ktap_skip "mckey IPv4: rxe receives, sroce sends: first attempt, no rerun" "rdma_rxe missing"
fi
ktap_skip "mckey IPv4: sroce receives, rxe sends" \
	"rdma_rxe discards datagrams still queued when the QP is destroyed, and mckey destroys its QP right after posting them unsignaled (rxe sent 14 of 20, 1 of 20 by its own sent_pkts)"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
