#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/cluster/two-node.sh - cross-machine checks between two VMs of
# a qemu/cluster (selftests/cluster/run boots them: node 0 on one kernel,
# node 1 on another, sroce on both, one vCPU each). Runs on both nodes;
# for each check one node serves and the other connects, over the
# cluster's L2 (eth0, 10.77.0.0/24). Node 0 prints the KTAP result lines
# (its own and node 1's outcome of each check, with both sides' output as
# diagnostics); node 1 prints its side's output only. Half-way, node 1
# replaces its sroce device with rdma_rxe (rxe0 on eth0): the rest runs
# sroce <-> rdma_rxe across machines.
#
#   two-node.sh --list   the checks' names, one a line (on the host)
set -uo pipefail

CHECKS=(
	"devices:sroce on both nodes, RoCE v2 GIDs for the L2 addresses"
	"pp01:ibv_rc_pingpong --chk, node 1 -> node 0 (4 KiB, MTU 1024)"
	"pp10:ibv_rc_pingpong --chk, node 0 -> node 1 (4 KiB, MTU 1024)"
	"ud:ibv_ud_pingpong --chk, node 1 -> node 0"
	"rping:rping -V (rdma_cm), node 1 -> node 0"
	"send_bw:ib_send_bw, node 0 -> node 1"
	"write_bw:ib_write_bw, node 1 -> node 0"
	"write_retx:the 64 KiB WRITEs left no go-back flood: the requester resent at most 20 % of its packets"
	"read_bw:ib_read_bw, node 0 -> node 1"
	"verify:sroce-verify byte-exact (all ops but atomics, both initiators), node 0 -> node 1"
	"gbn_verify:go-back-N (selective_repeat 0 on both nodes): sroce-verify byte-exact, node 1 -> node 0"
	"lossy_verify:1 % loss on both wires (netem): sroce-verify byte-exact, node 1 -> node 0"
	"gso_verify:transmit bursts (tx_gso) on both nodes: sroce-verify byte-exact, node 1 -> node 0, bursts sent, no UDP checksum error"
	"rxe_up:node 1 replaces sroce0 with rdma_rxe (rxe0 on eth0)"
	"rxe_pp01:ibv_rc_pingpong --chk, rxe node 1 -> sroce node 0"
	"rxe_pp10:ibv_rc_pingpong --chk, sroce node 0 -> rxe node 1"
	"rxe_write_bw:ib_write_bw, sroce node 0 -> rxe node 1"
	"rxe_read_bw:ib_read_bw, rxe node 1 -> sroce node 0"
	"rxe_verify:sroce-verify byte-exact, sroce node 0 <-> rxe node 1"
	"rxe_lossy_verify:1 % loss on both wires (netem): sroce-verify byte-exact, sroce node 0 <-> rxe node 1"
	"rxe_gso_verify:tx_gso on sroce node 0: sroce-verify byte-exact, sroce node 0 <-> rxe node 1, bursts sent, no UDP checksum error, under half resent"
)
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=selftests/cluster/lib.sh
. "$here/lib.sh"
cluster_script_init two-node 2 "$@"

t_pp=$((60 * S)) t_bw=$((150 * S))
pp() {	# pp NAME SERVER
	local g
	g=$(gid) || return 1
	pair "$1" "$2" "listening 18515" -- \
		timeout "$t_pp" ibv_rc_pingpong -d "$dev" -g "$g" -n 50 -s 4096 --chk -- \
		timeout "$t_pp" ibv_rc_pingpong -d "$dev" -g "$g" -n 50 -s 4096 --chk @PEER@
}
bw() {	# bw NAME SERVER TOOL [ARGS]: a short perftest run; its own checks
	local name=$1 srv=$2 tool=$3 g
	shift 3
	g=$(gid) || return 1
	pair "$name" "$srv" "listening 18515" -- \
		timeout "$t_bw" "$tool" -d "$dev" -x "$g" -F -n 200 -s 65536 "$@" -- \
		timeout "$t_bw" "$tool" -d "$dev" -x "$g" -F -n 200 -s 65536 "$@" @PEER@
}
verify() {	# verify NAME SERVER SEED
	local g
	g=$(gid) || return 1
	pair "$1" "$2" "listening 18515" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" --seed "$3" -n 300 --max-size 256K \
			--timeout $((30 * S)) @PEER@
}
# rping_run ARGS...: 20 validated pings of 4 KiB; rping's exit-time race
# (lib.sh, rping_cm_exit_race) after all 20 were done is not a failure
rping_run() {
	local log=/tmp/rping.$$ rc
	timeout "$t_pp" rping "$@" -V -v -C 20 -S 4096 > "$log" 2>&1
	rc=$?
	tail -n 3 "$log"
	if [ "$rc" -ne 0 ] && rping_cm_exit_race "$log" "ping data: " 20; then
		echo "(rping's exit-time rdma_get_cm_event race after 20 pings: not a failure)"
		rc=0
	fi
	rm -f "$log"
	return "$rc"
}
# gbn_verify NAME SERVER SEED: verify with selective_repeat off at both
# ends (plain go-back-N, as with a peer that does not offer selective
# repeat), the counters of its resends and SACKs as diagnostics; the
# other sroce <-> sroce checks run with the default, selective repeat
gbn_verify() {
	local f=/sys/class/infiniband/$dev/selective_repeat old
	old=$(cat "$f" 2>/dev/null)
	if ! echo 0 > "$f"; then
		echo "cannot turn off $f" > "$D/$1.$me.out"
		echo 1 > "$D/$1.$me.rc"
		return
	fi
	PAIR_POST=sr_counters verify "$@"
	echo "${old:-1}" > "$f"
}
sr_counters() {
	echo "$dev: $(rdma statistic show link "$dev/1" | grep -oE '(retx_pkts|seq_naks_sent|sr_[a-z_]+) [0-9]+' | tr '\n' ' ')"
}
# counter NAME: this node's port counter NAME (0 if it has none)
counter() {
	cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0
}
# write_retx: on the WRITEs' requester (node 1), what it resent against
# what it sent (a window that floods a slow wire resent 56-64 %: issue 45)
write_retx() {
	local tx retx
	[ "$me" = 1 ] || return 0
	tx=$(($(counter tx_pkts) - WR_TX0)) retx=$(($(counter retx_pkts) - WR_RETX0))
	echo "$dev: sent $tx packets, resent $retx; cwnd_cuts $(counter cwnd_cuts)," \
		"local_ack_timeouts $(counter local_ack_timeouts), rto_retransmits $(counter rto_retransmits)"
	[ "$tx" -gt 0 ] && [ $((retx * 5)) -le "$tx" ]
}
# netem_loss on|off: 1 % random loss on this node's eth0 (both directions
# lossy once both nodes have it)
netem_loss() {
	if [ "$1" = on ]; then
		tc qdisc replace dev eth0 root netem loss 1%
	else
		tc qdisc del dev eth0 root 2>/dev/null || true
	fi
}
# lossy_verify NAME SERVER SEED: verify with netem loss on both nodes
lossy_verify() {
	netem_loss on || { echo "tc netem failed" > "$D/$1.$me.out"; echo 1 > "$D/$1.$me.rc"; return; }
	cluster_barrier "$1-netem" 60 || { netem_loss off; return; }
	PAIR_POST=retx_counters verify "$@"
	netem_loss off
}
retx_counters() {
	echo "$dev: $(rdma statistic show link "$dev/1" | grep -oE '(tx_pkts|retx_pkts|rto_retransmits|local_ack_timeouts|cwnd_cuts|seq_naks_sent|sent_pkts|rcvd_pkts|duplicate_request|completer_retry_err) [0-9]+' | tr '\n' ' ')"
}
# gso_verify NAME SERVER SEED: verify with transmit bursts (tx_gso, sampled
# at RTR; on virtio-net its default) on this node's sroce device, then
# tx_gso as it was; over virtio-net the stack segments each burst before
# the driver, which must leave every packet's UDP checksum 0 or right (a
# partial one is counted in UdpInCsumErrors)
gso_verify() {
	local f=/sys/class/infiniband/$dev/tx_gso was=1
	[ ! -e "$f" ] || was=$(cat "$f")
	GSO_B0=$(counter tx_gso_bursts) GSO_P0=$(counter tx_gso_pkts)
	GSO_TX0=$(counter tx_pkts) GSO_RETX0=$(counter retx_pkts)
	GSO_CSUM0=$(udp_csum_errors)
	if [ -e "$f" ] && ! echo 1 > "$f"; then
		echo "cannot enable $f" > "$D/$1.$me.out"
		echo 1 > "$D/$1.$me.rc"
		return
	fi
	PAIR_POST=gso_counters verify "$@"
	[ ! -e "$f" ] || echo "$was" > "$f"
}
udp_csum_errors() { nstat -az UdpInCsumErrors | awk '$1 == "UdpInCsumErrors" {print $2}'; }
# gso_counters: this node's receive side saw no bad UDP checksum; a sroce
# node sent bursts of several packets and resent under half of its
# packets (a burst whose packets the peer drops is all resent, so such a
# defect resends most of them; a loaded TCG host's timer resends, 14 % to
# rdma_rxe in one run, are no defect and no test's business)
gso_counters() {
	local csum b p tx retx
	csum=$(($(udp_csum_errors) - GSO_CSUM0))
	echo "$dev: UdpInCsumErrors +$csum"
	[ "$csum" -eq 0 ] || return 1
	[ -e "/sys/class/infiniband/$dev/tx_gso" ] || return 0
	b=$(($(counter tx_gso_bursts) - GSO_B0)) p=$(($(counter tx_gso_pkts) - GSO_P0))
	tx=$(($(counter tx_pkts) - GSO_TX0)) retx=$(($(counter retx_pkts) - GSO_RETX0))
	echo "$dev: $b bursts carrying $p of $tx packets sent, $retx resent"
	[ "$b" -gt 0 ] && [ "$p" -gt "$b" ] && [ $((retx * 2)) -lt "$tx" ]
}
devices_ok() {
	local n
	for n in 0 1; do
		cluster_wait 30 test -s "$SROCE_CLUSTER_DIR/node$n.info" || return 1
		cat "$SROCE_CLUSTER_DIR/node$n.info"
		grep -q "impl=sroce dev=sroce0 .* gid=[0-9]" "$SROCE_CLUSTER_DIR/node$n.info" || return 1
	done
	rdma link show "$dev/1" | grep -q 'state ACTIVE'
}
rxe_up() {
	[ "$me" = 1 ] || { echo "node 0 keeps sroce0"; return 0; }
	rdma link delete sroce0 && modprobe rdma_rxe &&
		rdma link add rxe0 type rxe netdev eth0 || return 1
	dev=rxe0
	gid && rdma link show rxe0/1
}

[ "$me" = 1 ] || ktap_header "${#CHECKS[@]}"
dmesg_mark
step devices both devices devices_ok
step pp01 pp pp01 0
step pp10 pp pp10 1
g=$(gid)
step ud pair ud 0 "listening 18515" -- \
	timeout "$t_pp" ibv_ud_pingpong -d "$dev" -g "$g" -n 50 -s 1000 --chk -- \
	timeout "$t_pp" ibv_ud_pingpong -d "$dev" -g "$g" -n 50 -s 1000 --chk @PEER@
step rping pair rping 0 cm_listening -- rping_run -s -a "$(cluster_addr 0)" -- rping_run -c -a @PEER@
step send_bw bw send_bw 1 ib_send_bw
WR_TX0=$(counter tx_pkts) WR_RETX0=$(counter retx_pkts)
step write_bw bw write_bw 0 ib_write_bw
step write_retx both write_retx write_retx
step read_bw bw read_bw 1 ib_read_bw
step verify verify verify 1 11
step gbn_verify gbn_verify gbn_verify 0 13
step lossy_verify lossy_verify lossy_verify 0 14
step gso_verify gso_verify gso_verify 0 16
step rxe_up both rxe_up rxe_up
[ "$me" = 1 ] && dev=rxe0
step rxe_pp01 pp rxe_pp01 0
step rxe_pp10 pp rxe_pp10 1
step rxe_write_bw bw rxe_write_bw 1 ib_write_bw
step rxe_read_bw bw rxe_read_bw 0 ib_read_bw
step rxe_verify verify rxe_verify 1 12
step rxe_lossy_verify lossy_verify rxe_lossy_verify 1 15
step rxe_gso_verify gso_verify rxe_gso_verify 1 17
cluster_barrier finished 600
if [ "$me" = 1 ]; then
	rdma link delete rxe0 2>/dev/null
	exit 0
fi
ktap_finish
