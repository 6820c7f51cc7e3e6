#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest newest
#
# Teardown under traffic: `rdma link delete`, netdev removal, namespace
# removal and module unload while perftest moves data between two sroce
# devices. Each must complete within 10 s while the processes still hold
# the devices (sroce implements disassociate_ucontext: the core destroys
# their objects and they get IB_EVENT_DEVICE_FATAL / -EIO instead of being
# waited for), the processes must not be stuck in the kernel (killable at
# once), and the kernel log stays clean. Then TD_ROUNDS (default 3) rounds of link add /
# traffic / link delete must not grow the kernel's slab by more than 8 MiB.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

LIMIT=$((10 * ${SROCE_TIMEOUT_SCALE:-1}))	# 10 s; scaled on a debug kernel (run --timeout-scale)
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL -- -"$p" 2>/dev/null; done
	topo_down
	lsmod | grep -q '^sroce ' || modprobe sroce
}
trap cleanup EXIT

# traffic: ib_write_bw server on sroce9 (peer namespace), client on sroce8
traffic_start() {
	pids=()
	timeout -k 5 120 ip netns exec srpeer ib_write_bw -d sroce9 -x 1 -D 60 -s 65536 \
		> /tmp/td-srv.$$ 2>&1 &
	pids+=($!)
	wait_listening peer 18515 "${pids[0]}"
	timeout -k 5 120 ib_write_bw -d sroce8 -x 1 -D 60 -s 65536 192.0.2.2 \
		> /tmp/td-cli.$$ 2>&1 &
	pids+=($!)
	# traffic flows: the peer's transmitted packet counter moves
	local a b
	a=$(port_counter sroce8 tx_pkts)
	for _ in $(seq 30); do
		sleep 0.5
		b=$(port_counter sroce8 tx_pkts)
		[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt $((a + 100)) ] && return 0
	done
	ktap_diag "no traffic: $(cat /tmp/td-cli.$$ /tmp/td-srv.$$ 2>/dev/null | tail -5)"
	return 1
}

# traffic_stop: the processes must die at once when killed (nothing of
# theirs may sleep uninterruptibly in sroce); true if they did. Each PID
# is a `timeout`, which leads a process group of its own with its
# ib_write_bw: the group is killed and watched, not only the wrapper.
# A process that died stays in the group until it is reaped (it is the
# wrapper's child, reparented to init): a zombie counts as gone.
alive() {
	local q s
	for q in $(pgrep -g "$1"); do
		s=$(cat "/proc/$q/stat" 2>/dev/null) || continue
		s=${s##*) }
		[ "${s%% *}" = Z ] || { echo "$q"; }
	done
}
traffic_stop() {
	local p q ok=0
	for p in "${pids[@]}"; do kill -KILL -- -"$p" 2>/dev/null; done
	for _ in $(seq 50); do
		ok=1
		for p in "${pids[@]}"; do [ -n "$(alive "$p")" ] && ok=0; done
		[ "$ok" = 1 ] && break
		sleep 0.2
	done
	for p in "${pids[@]}"; do
		for q in $(alive "$p"); do
			ktap_diag "pid $q ($(cat /proc/"$q"/comm 2>/dev/null)) still alive: $(head -5 /proc/"$q"/stack 2>/dev/null)"
		done
		wait "$p" 2>/dev/null
	done
	pids=()
	[ "$ok" = 1 ]
}

# timed NAME CMD...: CMD must finish within $LIMIT s while traffic runs
timed() {
	local name=$1 t0 t1 rc
	shift
	t0=$(date +%s%N)
	timeout -k 2 $((LIMIT + 5)) "$@"
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	ktap_diag "$name took ${ms} ms (exit $rc)"
	[ "$rc" -eq 0 ] && [ "$ms" -le $((LIMIT * 1000)) ]
}

# gone DEV: the RDMA device disappears within $LIMIT s
gone() {
	for _ in $(seq $((LIMIT * 10))); do
		rdma link show "$1/1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}

slab_kb() { awk '/^Slab:/ {print $2}' /proc/meminfo; }

require_cmd ib_write_bw rdma ip || ktap_skip_all "perftest, rdma or ip missing"

ktap_header 10
dmesg_mark

# 1. rdma link delete under traffic
if topo_up sroce && traffic_start; then
	if timed "rdma link delete sroce8" rdma link delete sroce8 && gone sroce8; then
		ktap_ok "rdma link delete under traffic completes within ${LIMIT}s"
	else
		ktap_fail "rdma link delete under traffic completes within ${LIMIT}s"
	fi
else
	ktap_fail "rdma link delete under traffic completes within ${LIMIT}s" "setup failed"
fi
traffic_stop && ktap_ok "processes of a deleted device die at once" ||
	ktap_fail "processes of a deleted device die at once"
topo_down

# 2. netdev removal under traffic: both ends of the veth go
if topo_up sroce && traffic_start; then
	if timed "ip link del srA" ip link del srA && gone sroce8 && gone sroce9; then
		ktap_ok "netdev removal under traffic removes both devices within ${LIMIT}s"
	else
		ktap_fail "netdev removal under traffic removes both devices within ${LIMIT}s"
	fi
else
	ktap_fail "netdev removal under traffic removes both devices within ${LIMIT}s" "setup failed"
fi
traffic_stop || ktap_diag "a process of a removed netdev was not killable"
topo_down

# 3. namespace removal: the namespace dies when its last process does;
# its device must then go within the limit although the other side's
# process still holds the connection
if topo_up sroce && traffic_start; then
	ip netns del srpeer
	kill -KILL -- -"${pids[0]}" 2>/dev/null
	if gone sroce9; then
		ktap_ok "namespace teardown under traffic removes its device within ${LIMIT}s"
	else
		ktap_fail "namespace teardown under traffic removes its device within ${LIMIT}s"
	fi
else
	ktap_fail "namespace teardown under traffic removes its device within ${LIMIT}s" "setup failed"
fi
traffic_stop || ktap_diag "a process was not killable after namespace teardown"
topo_down

# 4. module unload under traffic
if topo_up sroce && traffic_start; then
	if timed "rmmod sroce" rmmod sroce; then
		ktap_ok "rmmod sroce under traffic completes within ${LIMIT}s"
	else
		ktap_fail "rmmod sroce under traffic completes within ${LIMIT}s" "$(lsmod | grep sroce)"
	fi
else
	ktap_fail "rmmod sroce under traffic completes within ${LIMIT}s" "setup failed"
fi
traffic_stop && ktap_ok "processes of an unloaded driver die at once" ||
	ktap_fail "processes of an unloaded driver die at once"
topo_down
ktap_result "sroce loads again" modprobe sroce

# 5. the devices work after all that
if topo_up sroce; then
	client_server sroce9 peer sroce8 192.0.2.2 ibv_rc_pingpong -g 1 -n 100 -s 4096 &&
		ktap_ok "traffic after the teardowns" || ktap_fail "traffic after the teardowns"
else
	ktap_fail "traffic after the teardowns" "setup failed"
fi
topo_down

# 6. no growth over repeated teardowns under traffic
sync; echo 3 > /proc/sys/vm/drop_caches
s0=$(slab_kb) bad=0 ROUNDS=${TD_ROUNDS:-3}
for r in $(seq "$ROUNDS"); do
	t0=$(date +%s%N)
	if ! { topo_up sroce && traffic_start && timeout -k 2 15 rdma link delete sroce8; }; then
		bad=$r
	fi
	t1=$(date +%s%N)
	traffic_stop || bad=$r
	t2=$(date +%s%N)
	topo_down
	ktap_diag "round $r: $(((t1 - t0) / 1000000)) ms up+traffic+delete, $(((t2 - t1) / 1000000)) ms stop, $((($(date +%s%N) - t2) / 1000000)) ms down"
	[ "$bad" = 0 ] || break
done
sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
s1=$(slab_kb)
if [ "$bad" = 0 ]; then
	ktap_slab_bound "$ROUNDS rounds of link delete under traffic, slab growth < 8 MiB" "$s0" "$s1" 8192
else
	ktap_diag "slab before ${s0} kB, after $ROUNDS rounds ${s1} kB"
	ktap_fail "$ROUNDS rounds of link delete under traffic, slab growth < 8 MiB" "round $bad failed"
fi

dmesg_clean_since_mark && ktap_ok "dmesg clean" || ktap_fail "dmesg clean"
rm -f /tmp/td-srv.$$ /tmp/td-cli.$$
ktap_finish
