#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster-nodes: 2
#
# selftests/cluster/faults.sh - faults across machines, between the two
# VMs of a qemu/cluster (selftests/cluster/run: node 0 on one kernel, node
# 1 on another, sroce on both). In order:
#   - a 9000-byte wire: eth0's MTU 9000 on both nodes, sroce's active MTU
#     follows (4096), sroce-verify with path MTU 4096 byte-exact; back to
#     1500 (active MTU 1024)
#   - node 1's eth0 down for 3 s and up again in the middle of a
#     sroce-verify run whose QPs wait long enough (local ACK timeout 20,
#     4.3 s, retry 7): byte-exact all the same
#   - both nodes' egress reordered by netem (a quarter of the packets
#     sent at once, the rest 5 ms late): sroce-verify byte-exact
#   - node 1's sroce module reloaded (rdma link delete while its process
#     still holds both connections: the core disassociates it; rmmod,
#     modprobe, rdma link add) while node 0 streams RDMA WRITEs to it on
#     one connection and holds a second one idle: the stream ends with an
#     error completion and every WRITE after it is flushed, the QP in ERR;
#     a new connection then carries WRITEs and ibv_rc_pingpong --chk; the
#     idle connection's first WRITE after the reload ends with an error
#     too, and the new device goes on
#   - node 1 killed mid-stream (qemu/cluster SIGKILLs its QEMU: no
#     shutdown, no link down, the peer simply vanishes): node 0's QP
#     (local ACK timeout 14, retry 3) ends with IBV_WC_RETRY_EXC_ERR, the
#     rest flushed, QP in ERR; node 0's NVMe-oF host, reading from a
#     target on node 1 (ctrl-loss-tmo 8 s), sees its reads fail and its
#     controller removed, nothing stuck; then rdma link delete and rmmod
#     sroce complete on node 0
# The connections of the reload and kill cases are rc_stream.py's (their
# QP numbers exchanged through the run directory, so nothing but RoCE goes
# between the nodes once connected). Pass and fail are counts and states;
# the times are printed, never judged. Node 0 prints the KTAP lines.
#
#   faults.sh --list   the checks' names, one a line (on the host)
set -uo pipefail

CHECKS=(
	"devices:sroce on both nodes, RoCE v2 GIDs for the L2 addresses"
	"mtu9000:eth0 MTU 9000 on both nodes: sroce0's active MTU is 4096"
	"mtu9000_verify:path MTU 4096 over the 9000-byte wire: sroce-verify byte-exact, node 1 -> node 0"
	"mtu1500:eth0 MTU back to 1500: active MTU 1024, ibv_rc_pingpong --chk"
	"flap_verify:node 1's eth0 down for 3 s mid-transfer: sroce-verify byte-exact (timeout 20, retry 7)"
	"reorder_verify:netem reorders a quarter of both nodes' egress (the rest 5 ms late): sroce-verify byte-exact"
	"reload_stream:node 1's sroce reloaded under node 0's WRITE stream: an error completion, the rest flushed, QP in ERR"
	"reload_new:after the reload a new connection works: 200 WRITEs, ibv_rc_pingpong --chk"
	"reload_idle:a connection idle across the reload: its next WRITE ends in error, QP in ERR; pingpong --chk goes on"
	"nvme_up:node 0 connects to an NVMe-oF target on node 1 (ctrl-loss-tmo 8 s), reads from it"
	"kill_retry:node 1 killed mid-stream (QEMU SIGKILL): node 0's QP ends IBV_WC_RETRY_EXC_ERR (timeout 14, retry 3), QP in ERR"
	"kill_nvme:node 0's NVMe-oF host after the kill: its reads fail, the controller goes, nothing left in D state"
	"kill_teardown:node 0 after the kill: rdma link delete sroce0 and rmmod sroce complete"
)
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=selftests/cluster/lib.sh
. "$here/lib.sh"
cluster_script_init faults 2 "$@"
# the NVMe-oF target of the kill case is node 1's
NVMF_ADDR=$(cluster_addr 1)
# shellcheck source=selftests/nvmet-lib.sh
. "$top/selftests/nvmet-lib.sh"

STREAM=$here/rc_stream.py
t_pp=$((60 * S))

counters() {
	echo "$dev: $(rdma statistic show link "$dev/1" | grep -oE '\b(tx_pkts|retx_pkts|rto_retransmits|local_ack_timeouts|seq_naks_sent|rx_drop_[a-z_]+|completer_retry_err) [0-9]+' | tr '\n' ' ')"
}
pp() {	# pp NAME SERVER: ibv_rc_pingpong --chk, 4 KiB
	local g
	g=$(gid) || return 1
	pair "$1" "$2" "listening 18515" -- \
		timeout "$t_pp" ibv_rc_pingpong -d "$dev" -g "$g" -n 50 -s 4096 --chk -- \
		timeout "$t_pp" ibv_rc_pingpong -d "$dev" -g "$g" -n 50 -s 4096 --chk @PEER@
}
active_mtu() { ibv_devinfo -d "$dev" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'; }
mtu_is() { [ "$(active_mtu)" = "$1" ]; }
# set_mtu MTU WANT: eth0's MTU, then sroce0's active MTU must be WANT
set_mtu() {
	local m
	ip link set eth0 mtu "$1" || return 1
	cluster_wait 10 mtu_is "$2"
	m=$(active_mtu)
	echo "eth0 mtu $(cat /sys/class/net/eth0/mtu), $dev active_mtu $m"
	[ "$m" = "$2" ]
}
# mtu1500: back to 1500 (active MTU 1024), then a pingpong
mtu_back() { cat "$D/mtu1500.$me.mtu"; [ "$(cat "$D/mtu1500.$me.mturc")" = 0 ]; }
mtu1500() {
	set_mtu 1500 1024 > "$D/mtu1500.$me.mtu" 2>&1
	echo $? > "$D/mtu1500.$me.mturc"
	PAIR_POST=mtu_back pp mtu1500 0
}

# the 4096-byte path: both ends ask for it (-m), byte-exact, and each
# node received RoCE packets too big for a 1500-byte wire (an nft input
# rule counts those over 2000 bytes)
big_frames_on() {
	nft -f - <<-'EOF'
	table inet sroce_mtu {
		chain in {
			type filter hook input priority 0;
			udp dport 4791 meta length > 2000 counter
		}
	}
	EOF
}
big_frames() {
	local n
	n=$(nft list table inet sroce_mtu | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
	nft delete table inet sroce_mtu
	counters
	echo "RoCE packets over 2000 bytes received: ${n:-none}"
	[ "${n:-0}" -gt 0 ]
}
mtu_verify() {
	local g
	g=$(gid) || return 1
	big_frames_on || { echo "nft failed" > "$D/mtu9000_verify.$me.out"; status mtu9000_verify 1; return; }
	PAIR_POST=big_frames pair mtu9000_verify 0 "listening 18515" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" -m 4096 -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" -m 4096 --seed 21 -n 150 \
			--min-size 8K --max-size 256K --timeout $((30 * S)) @PEER@
}

# flap: on node 1, once its sroce0 sent 300 packets of the run, eth0
# goes down for 3 s; sroce-verify's QPs outwait it (4.3 s a try, 7 tries)
sent_since() { [ $(($(port_counter "$dev" tx_pkts) - $1)) -ge "$2" ]; }
flap_server() {
	local s tx0 rc
	timeout $((300 * S)) "$VERIFY" -d "$dev" -g "$(gid)" &
	s=$!
	tx0=$(port_counter "$dev" tx_pkts)
	if cluster_wait $((120 * S)) sent_since "$tx0" 300; then
		echo "flap: eth0 down at $(date +%T.%N), $(($(port_counter "$dev" tx_pkts) - tx0)) packets into the run"
		ip link set eth0 down
		sleep 3
		ip link set eth0 up
		echo "flap: eth0 up at $(date +%T.%N)"
	else
		echo "flap: the run never got going"
	fi
	wait "$s"; rc=$?
	counters
	return "$rc"
}
flap_verify() {
	local g
	g=$(gid) || return 1
	pair flap_verify 1 "listening 18515" -- \
		flap_server -- \
		timeout $((300 * S)) "$VERIFY" -d "$dev" -g "$g" --seed 23 -n 120 --max-size 256K \
			--qp-timeout 20 --retry-cnt 7 --timeout $((90 * S)) @PEER@
}

# reorder: netem on both nodes' eth0, then sroce-verify; the counters
# of what the reordering cost as diagnostics
reorder_verify() {
	local g
	g=$(gid) || return 1
	if ! tc qdisc replace dev eth0 root netem delay 5ms reorder 25% 50%; then
		echo "tc netem failed" > "$D/reorder_verify.$me.out"
		status reorder_verify 1
		return
	fi
	cluster_barrier reorder-netem 60 || { tc qdisc del dev eth0 root; return; }
	PAIR_POST=reorder_post pair reorder_verify 0 "listening 18515" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" -- \
		timeout $((200 * S)) "$VERIFY" -d "$dev" -g "$g" --seed 25 -n 150 --max-size 128K \
			--depth 4 --timeout $((30 * S)) @PEER@
	tc qdisc del dev eth0 root
}
reorder_post() { counters; tc -s qdisc show dev eth0 | head -n 3; }

# stream_ended OUT [STATUS]: an rc_stream.py result with an error completion (of
# STATUS if given), every WRITE after it flushed, the QP in ERR
stream_ended() {
	local out=$1 want=${2:-} r
	r=$(grep -m1 '^result ' "$out") || { echo "no result line"; return 1; }
	echo "$r"
	[[ $r =~ first_error=(IBV_WC_[A-Z_]+)\ ok=([0-9]+)\ flushed=([0-9]+)\ posted=([0-9]+)\ qp_state=([A-Z]+) ]] ||
		{ echo "no error completion"; return 1; }
	[ -z "$want" ] || [ "${BASH_REMATCH[1]}" = "$want" ] || { echo "first error ${BASH_REMATCH[1]}, not $want"; return 1; }
	[ $((BASH_REMATCH[2] + BASH_REMATCH[3] + 1)) -eq "${BASH_REMATCH[4]}" ] ||
		{ echo "posted ${BASH_REMATCH[4]}: not every WRITE completed (ok + error + flushed)"; return 1; }
	[ "${BASH_REMATCH[5]}" = ERR ] || { echo "QP in ${BASH_REMATCH[5]}, not ERR"; return 1; }
}

# the reload: node 1 holds the passive ends of R.old (streamed to) and
# R.idle (idle); once node 0 streams, node 1 reloads sroce
R=/tmp/faults-reload
reload_stream() {
	local g a p1 p2 rc=0
	g=$(gid) || return 1
	if [ "$me" = 1 ]; then
		python3 "$STREAM" passive "$dev" "$g" R.old > "$R.old.out" 2>&1 & p1=$!
		python3 "$STREAM" passive "$dev" "$g" R.idle > "$R.idle.out" 2>&1 & p2=$!
		cluster_get R.streaming 180 > /dev/null || rc=1
		# the device goes with its user still there: the core
		# disassociates the process's context (QPs, MRs destroyed)
		kill -0 "$p1" "$p2" || { echo "a passive end is gone before the reload"; rc=1; }
		echo "reload: $dev deleted under its user, sroce reloaded at $(date +%T.%N)"
		timeout 60 rdma link delete "$dev" && timeout 60 rmmod sroce && modprobe sroce &&
			rdma link add "$dev" type sroce netdev eth0 && gid > /dev/null || rc=1
		rdma link show "$dev/1"
		kill -KILL "$p1" "$p2" 2>/dev/null
		wait "$p1" "$p2" 2>/dev/null
		cat "$R.old.out" "$R.idle.out"
		cluster_put R.reloaded "$rc"
		return "$rc"
	fi
	python3 "$STREAM" active "$dev" "$g" R.idle --start-after R.go --secs $((300 * S)) \
		> "$R.idle.out" 2>&1 &
	echo $! > "$R.idle.pid"
	timeout $((300 * S)) python3 "$STREAM" active "$dev" "$g" R.old > "$R.old.out" 2>&1 &
	a=$!
	# the idle connection is up at both ends before node 1 reloads
	cluster_wait $((180 * S)) grep -q '^streaming' "$R.old.out" &&
		cluster_wait $((120 * S)) test -e "$SROCE_CLUSTER_DIR/kv/R.idle.connected" &&
		cluster_put R.streaming 1
	wait "$a"
	cat "$R.old.out"
	counters
	b=$(cluster_get R.reloaded 240) || b=1
	[ "$b" = 0 ] || { echo "node 1's reload failed"; rc=1; }
	stream_ended "$R.old.out" || rc=1
	return "$rc"
}
# reload_new: 200 WRITEs on a new connection, then a pingpong
new_writes() {
	local g rc
	g=$(gid) || return 1
	if [ "$me" = 1 ]; then
		python3 "$STREAM" passive "$dev" "$g" R.new --secs $((240 * S))
		return
	fi
	timeout $((300 * S)) python3 "$STREAM" active "$dev" "$g" R.new --count 200
	rc=$?
	cluster_put R.new.done 1
	return "$rc"
}
new_writes_ok() { cat "$D/reload_new.w.$me.out"; [ "$(cat "$D/reload_new.w.$me.rc")" = 0 ]; }
reload_new() {
	both reload_new.w new_writes
	PAIR_POST=new_writes_ok pp reload_new 0
}
# reload_idle: node 0's idle connection posts now, then a pingpong
idle_ok() {
	local rc=0
	[ "$me" = 0 ] || return 0
	cat "$R.idle.out"
	stream_ended "$R.idle.out" || rc=1
	kill "$(cat "$R.idle.pid")" 2>/dev/null
	return "$rc"
}
reload_idle() {
	if [ "$me" = 0 ]; then
		cluster_put R.go 1
		cluster_wait $((120 * S)) grep -q '^result' "$R.idle.out"
	fi
	PAIR_POST=idle_ok pp reload_idle 0
}

# the kill: node 0 streams to node 1, then has node 1 killed
K=/tmp/faults-kill
kill_passive() {
	python3 "$STREAM" passive "$dev" "$(gid)" K.kill --secs $((600 * S))
	echo "node 1: still alive"
}
kill_retry() {
	local g a rc=0
	g=$(gid) || return 1
	timeout $((300 * S)) python3 "$STREAM" active "$dev" "$g" K.kill --timeout 14 --retry 3 \
		> "$K.out" 2>&1 &
	a=$!
	if cluster_wait $((180 * S)) grep -q '^streaming' "$K.out"; then
		cluster_kill_node 1 60 || { echo "qemu/cluster did not kill node 1"; rc=1; }
		echo "node 1 killed at $(date +%T.%N)"
	else
		echo "the stream never started"
		rc=1
	fi
	wait "$a"
	cluster_put K.kill.done 1	# a node 1 still alive stops waiting
	cat "$K.out"
	counters
	stream_ended "$K.out" IBV_WC_RETRY_EXC_ERR || rc=1
	return "$rc"
}
# nvme_up: node 1 exports a RAM disk, node 0 connects (keep-alive 5 s,
# reconnects every 2 s for 8 s once the target is gone) and reads it;
# a read loop then runs until the target's death fails it
nvme_up() {
	local d
	mkdir -p "$NVMF_T" || return 1
	if [ "$me" = 1 ]; then
		nvmf_target_up && cat "$NVMF_PORT/addr_traddr"
		d=$?
		cluster_put nvme.target "$d"
		return "$d"
	fi
	# the target listens before the host connects
	[ "$(cluster_get nvme.target 120)" = 0 ] || { echo "node 1's target did not come up"; return 1; }
	modprobe nvme-rdma && nvmf_connect --keep-alive-tmo=5 --reconnect-delay=2 --ctrl-loss-tmo=8 || return 1
	d=$(nvmf_find_dev) || return 1
	bounded $((60 * S)) dd if="$d" of=/dev/null bs=64k count=64 iflag=direct || return 1
	echo "$d: 4 MiB read"
	# shellcheck disable=SC2016  # expanded by sh
	timeout $((600 * S)) sh -c 'while dd if="$1" of=/dev/null bs=64k iflag=direct status=none; do :; done' \
		sh "$d" > "$NVMF_T/loop" 2>&1 &
	echo $! > "$NVMF_T/loop.pid"
}
# kill_nvme: the read loop ended (a read failed), the controller is gone
# (ctrl-loss-tmo) or nvme disconnect removes it, no task in D state. The
# host notices within two keep-alives (10 s); a reconnect attempt made
# while the dead node's neighbour entry still resolves waits for the CM
# to give up its REQ retries (a minute or two: 105 s seen), the later
# ones fail in seconds, so the loop gets 300 s
gone() { ! kill -0 "$1" 2> /dev/null; }
no_ctrl() { ! nvmf_ctrl > /dev/null; }
kill_nvme() {
	local p rc=0 t0=$SECONDS
	read -r p < "$NVMF_T/loop.pid" || return 1
	if cluster_wait $((300 * S)) gone "$p"; then
		echo "the read loop ended, $((SECONDS - t0)) s into this check: $(tail -n 1 "$NVMF_T/loop")"
	else
		echo "the read loop still runs $((300 * S)) s into this check"
		rc=1
	fi
	if cluster_wait $((60 * S)) no_ctrl; then
		echo "the controller is gone"
	else
		echo "the controller is still there: $(cat "$(nvmf_ctrl)/state" 2>/dev/null)"
		nvmf_disconnect || rc=1
	fi
	if ps -eo stat,pid,wchan:32,args | awk '$1 ~ /^D/' | grep .; then
		echo "tasks in D state (above)"
		rc=1
	fi
	return "$rc"
}
kill_teardown() {
	local t0=$SECONDS
	timeout 60 rdma link delete "$dev" || { echo "rdma link delete $dev: failed or hung (exit $?)"; return 1; }
	echo "rdma link delete: $((SECONDS - t0)) s"
	timeout 60 rmmod sroce || { echo "rmmod sroce: failed or hung (exit $?)"; return 1; }
	echo "rmmod sroce: $((SECONDS - t0)) s"
	! grep -q '^sroce ' /proc/modules
}
devices_ok() { rdma link show "$dev/1" | grep -q 'state ACTIVE' && gid; }

[ "$me" = 1 ] || ktap_header "${#CHECKS[@]}"
dmesg_mark
step devices both devices devices_ok
step mtu9000 both mtu9000 set_mtu 9000 4096
step mtu9000_verify mtu_verify
step mtu1500 mtu1500
step flap_verify flap_verify
step reorder_verify reorder_verify
step reload_stream both reload_stream reload_stream
step reload_new reload_new
step reload_idle reload_idle
step nvme_up both nvme_up nvme_up
# node 1's last check: it waits to be killed
cluster_barrier kill_retry 600
if [ "$me" = 1 ]; then
	kill_passive
	exit 1
fi
step0 kill_retry kill_retry
step0 kill_nvme kill_nvme
step0 kill_teardown kill_teardown
ktap_finish
