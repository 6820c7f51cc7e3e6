#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster-nodes: 2
# cluster-paths: 2
#
# selftests/cluster/multipath.sh - two machines joined by two paths: the
# two VMs of a qemu/cluster --paths 2 (selftests/cluster/run reads the
# "cluster-paths" line above), each with eth0 on one wire and eth1 on
# another, joined into bond0 (balance-xor, xmit_hash_policy layer3+4:
# each packet's NIC chosen by a hash of its addresses and UDP ports, as a
# LAG or an ECMP router chooses); sroce0 on bond0 (Documentation/
# two-machines.rst, *Two paths*). In order:
#   - byte-exact transfers over the bond (sroce-verify, all five ops)
#   - with adaptive routing off, one QP's 64 KiB WRITEs leave node 1 on
#     one NIC: a QP has one UDP source port, so one hash, one path
#   - with adaptive routing and spraying on both nodes (the per-device
#     sysfs bools adaptive_routing and selective_repeat): one QP's WRITEs
#     leave on both NICs; with eth1 10 ms late on both nodes (netem: the
#     two paths reorder what a QP sprays over them) sroce-verify and
#     NCCL's pattern (WRITEs, then a zero-length WRITE_WITH_IMM after
#     which the receiver checks the data: sroce-verify --nccl) are
#     byte-exact. Without an adaptive_routing attribute (a sroce without
#     AR mode) these are skipped, naming why, and NCCL's pattern runs
#     over the delayed paths without it
#   - node 1 replaces sroce0 with rdma_rxe on bond0: sroce (AR on, when
#     it has it) -> rxe byte-exact
# Node 0 prints the KTAP lines; the per-NIC packet counts and sroce's
# counters are in the diagnostics.
#
#   multipath.sh --list   the checks' names, one a line (on the host)
set -uo pipefail

CHECKS=(
	"devices:bond0 of eth0 and eth1 (balance-xor, layer3+4) on both nodes, sroce0 on it"
	"verify:sroce-verify byte-exact over the bond (all five ops, both initiators), node 1 -> node 0"
	"one_path:adaptive routing off: one QP's 64 KiB WRITEs leave node 1 on one NIC (>= 95 % of its packets)"
	"spray:adaptive routing and spraying on: one QP's 64 KiB WRITEs leave node 1 on both NICs (>= 20 % each)"
	"ar_verify:adaptive routing, eth1 10 ms late on both nodes: sroce-verify byte-exact, node 1 -> node 0"
	"nccl:NCCL's pattern (WRITEs, a WRITE_WITH_IMM, data checked after it), eth1 10 ms late, AR if present"
	"rxe_up:node 1 replaces sroce0 with rdma_rxe on bond0"
	"rxe_verify:sroce (adaptive routing if present) node 0 -> rxe node 1 over the bond: sroce-verify byte-exact"
)
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=selftests/cluster/lib.sh
. "$here/lib.sh"
cluster_script_init multipath 2 "$@"

t_bw=$((150 * S))
ar_attr=/sys/class/infiniband/$dev/adaptive_routing
AR_WHY=""	# set once both nodes said whether they have AR mode

# slaves_tx: every NIC's tx_packets, in SROCE_NODE_SLAVES' order
slaves_tx() {
	local s
	for s in $SROCE_NODE_SLAVES; do cat "/sys/class/net/$s/statistics/tx_packets"; done
}
counters() {
	echo "$dev: $(rdma statistic show link "$dev/1" | grep -oE '\b(tx_pkts|retx_pkts|seq_naks_sent|sr_[a-z_]+|ar_[a-z_]+|ooo_[a-z_]+|rx_drop_[a-z_]+) [0-9]+' | tr '\n' ' ')"
}

devices_ok() {
	local n
	for n in 0 1; do
		cluster_wait 30 test -s "$SROCE_CLUSTER_DIR/node$n.info" || return 1
		cat "$SROCE_CLUSTER_DIR/node$n.info"
		grep -q "impl=sroce dev=sroce0 .* gid=[0-9].* netdev=bond0 slaves=eth0,eth1" \
			"$SROCE_CLUSTER_DIR/node$n.info" || return 1
	done
	grep -E 'Bonding Mode|Transmit Hash|Slave Interface|MII Status' /proc/net/bonding/bond0
	rdma link show "$dev/1"
	grep -q 'Bonding Mode: load balancing (xor)' /proc/net/bonding/bond0 &&
		grep -q 'Transmit Hash Policy: layer3+4' /proc/net/bonding/bond0 &&
		rdma link show "$dev/1" | grep -q 'state ACTIVE.*netdev bond0'
}

verify() {	# verify NAME SERVER SEED [ARGS]: sroce-verify, SERVER serves
	local name=$1 srv=$2 seed=$3 g
	shift 3
	g=$(gid) || return 1
	PAIR_POST=counters pair "$name" "$srv" "listening 18515" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" --seed "$seed" \
			--timeout $((30 * S)) "$@" @PEER@
}

# nic_share NAME MIN MAX: ib_write_bw, 300 x 64 KiB on one QP from node 1
# to node 0; node 1's NICs' share of what it sent must be, for the one
# that sent most, at least MAX %, and for the one that sent least, at
# least MIN % (each NIC's tx_packets, so perftest's TCP exchange counts
# too: a few dozen packets against 19 200 RoCE ones)
nic_share() {
	local name=$1 g
	g=$(gid) || return 1
	NS_MIN=$2 NS_MAX=$3
	[ "$me" != 1 ] || mapfile -t NS_TX0 < <(slaves_tx)
	PAIR_POST=nic_share_post pair "$name" 0 "listening 18515" -- \
		timeout "$t_bw" ib_write_bw -d "$dev" -x "$g" -F -n 300 -s 65536 -- \
		timeout "$t_bw" ib_write_bw -d "$dev" -x "$g" -F -n 300 -s 65536 @PEER@
}
nic_share_post() {
	local -a tx
	local s i=0 d lo="" hi=0 sum=0 line=""
	[ "$me" = 1 ] || return 0
	mapfile -t tx < <(slaves_tx)
	for s in $SROCE_NODE_SLAVES; do
		d=$((tx[i] - NS_TX0[i]))
		line+="$s sent $d packets, "
		sum=$((sum + d))
		[ "$d" -le "$hi" ] || hi=$d
		[ -n "$lo" ] && [ "$d" -ge "$lo" ] || lo=$d
		i=$((i + 1))
	done
	echo "${line%, } (ip -s link's tx_packets)"
	counters
	[ "$sum" -gt 0 ] && [ $((hi * 100)) -ge $((sum * NS_MAX)) ] && [ $((lo * 100)) -ge $((sum * NS_MIN)) ]
}

# ar ON|OFF: adaptive routing and selective repeat on this node's sroce0
ar() {
	local v=0
	[ "$1" = on ] && v=1
	[ -e "$ar_attr" ] || return 0
	echo "$v" > "$ar_attr" && echo "$v" > "/sys/class/infiniband/$dev/selective_repeat"
}
# late on|off: eth1 10 ms late (netem): the two paths reorder
late() {
	if [ "$1" = on ]; then
		tc qdisc replace dev eth1 root netem delay 10ms limit 10000
	else
		tc qdisc del dev eth1 root 2>/dev/null || true
	fi
}
# ar_step NAME FUNC ARGS..: a check that needs AR mode on both nodes:
# skipped (node 0 says why) without it
ar_step() {
	if [ -n "$AR_WHY" ]; then
		[ "$me" != 0 ] || ktap_skip "$(title "$1")" "$AR_WHY"
		return 0
	fi
	step "$@"
}
ar_decide() {
	local n a miss=""
	cluster_put "ar.$me" "$([ -e "$ar_attr" ] && echo 1 || echo 0)"
	for n in 0 1; do
		a=$(cluster_get "ar.$n" 120) || a=0
		[ "$a" = 1 ] || miss+="${miss:+ and }$n"
	done
	[ -z "$miss" ] || AR_WHY="no adaptive_routing attribute in sroce0 (AR mode, issue 48) on node $miss"
}
ar_verify() {
	ar on && late on || { echo "cannot set AR or netem" > "$D/$1.$me.out"; status "$1" 1; return; }
	cluster_barrier "$1-set" 60 || return 1
	verify "$@"
}
nccl() {
	[ -n "$AR_WHY" ] || ar on || { echo "cannot set AR" > "$D/$1.$me.out"; status "$1" 1; return; }
	late on || { echo "tc netem failed" > "$D/$1.$me.out"; status "$1" 1; return; }
	cluster_barrier "$1-set" 60 || return 1
	verify "$@"
	late off
	ar off
}
rxe_up() {
	[ "$me" = 1 ] || { ar on && echo "node 0 keeps sroce0${AR_WHY:+ (no AR mode)}"; return; }
	rdma link delete sroce0 && modprobe rdma_rxe &&
		rdma link add rxe0 type rxe netdev bond0 || return 1
	dev=rxe0
	gid && rdma link show rxe0/1
}

[ "$me" = 1 ] || ktap_header "${#CHECKS[@]}"
dmesg_mark
step devices both devices devices_ok
ar_decide
step verify verify verify 0 31 -n 200 --max-size 256K
step one_path nic_share one_path 0 95
ar on
ar_step spray nic_share spray 20 0
ar_step ar_verify ar_verify ar_verify 0 32 -n 150 --max-size 256K
late off
ar off
step nccl nccl nccl 0 33 --nccl -n 60 --initiator client
step rxe_up both rxe_up rxe_up
[ "$me" = 1 ] && dev=rxe0
step rxe_verify verify rxe_verify 1 34 -n 150 --max-size 256K --initiator client
cluster_barrier finished 600
ar off
if [ "$me" = 1 ]; then
	rdma link delete rxe0 2>/dev/null
	exit 0
fi
ktap_finish
