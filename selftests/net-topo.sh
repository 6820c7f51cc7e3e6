# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Two-host topology for data-path selftests (sourced):
#   init netns: veth srA 192.0.2.1, device $DEV_A
#   netns srpeer: veth srB 192.0.2.2, device sroce9 (always sroce)
# topo_up sroce|rxe   - $DEV_A is sroce8, or rxe8 (rdma_rxe) for interop
#                       (the peer stays sroce: on 6.1 and 6.12 rdma_rxe's
#                       UDP socket lives in init_net only, it cannot serve
#                       a device in srpeer)
# topo_title          - what topo_up "$CL_IMPL" builds, for test names
# topo_down           - remove everything, unload rdma_rxe if we loaded it
# in_peer CMD...      - run CMD in the peer namespace

# topo_down needs lib.sh's rxe_unload and ktap_diag: a user outside the
# selftests (scripts/demo) gets them here
declare -F rxe_unload > /dev/null || . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

in_peer() { ip netns exec srpeer "$@"; }

topo_up() {
	# a script stopped at its time limit may not have run its cleanup:
	# say so and clear what it left, so the next script is not failed too
	if [ -e /run/netns/srpeer ] || [ -e /sys/class/net/srA ]; then
		echo "a topology was left by an earlier script: removing it"
		topo_down
	fi
	# two `ip -batch` runs (-force: on past a failed line, as separate
	# commands would): under TCG every process costs 60 ms or more
	ip -force -b - <<-EOF
		netns add srpeer
		link add srA type veth peer name srB netns srpeer
		link set srA mtu 9000 up
		addr add 192.0.2.1/24 dev srA
		addr add 2001:db8:5::1/64 dev srA nodad
	EOF
	ip -n srpeer -force -b - <<-EOF
		link set srB mtu 9000 up
		link set lo up
		addr add 192.0.2.2/24 dev srB
		addr add 2001:db8:5::2/64 dev srB nodad
	EOF
	in_peer rdma link add sroce9 type sroce netdev srB || return 1
	if [ "$1" = rxe ]; then
		modprobe rdma_rxe && rdma link add rxe8 type rxe netdev srA || return 1
		DEV_A=rxe8
	else
		rdma link add sroce8 type sroce netdev srA || return 1
		DEV_A=sroce8
	fi
	DEV_B=sroce9
	# RoCE v2 GID 1 is the IPv4-mapped address; wait until both are there
	local _n ga gb
	for _n in $(seq 50); do
		ga="" gb=""
		read -r ga 2>/dev/null < "/sys/class/infiniband/$DEV_A/ports/1/gids/1"
		read -r gb 2>/dev/null < "/sys/class/infiniband/$DEV_B/ports/1/gids/1"
		[[ $ga == *ffff* && $gb == *ffff* ]] && return 0
		sleep 0.1
	done
	return 1
}

# cpu_mask N: the sysfs cpumask of CPUs 0..N-1 (32-bit hex groups joined
# by commas, the highest first, as bitmap_parse() reads them)
cpu_mask() {
	local n=$1 out="" g
	while [ "$n" -gt 0 ]; do
		g=$((n >= 32 ? 0xffffffff : (1 << n) - 1))
		if [ -n "$out" ]; then out=$(printf %x "$g"),$out; else out=$(printf %08x "$g"); fi
		n=$((n - 32))
	done
	echo "${out:-0}"
}

# topo_in_order [off]: a veth hands a packet to the receive backlog of
# the CPU that sent it, so a QP's packets sent from two CPUs (its round in
# one's softirq, then in its work item on the other) can pass each other,
# which the responder answers with a sequence NAK. RPS on both ends steers
# each flow to one CPU's backlog: a wire that keeps order, for a test
# whose counts assume one (off: RPS off again, the veth's default)
topo_in_order() {
	local mask=0
	[ "$1" = off ] || mask=$(cpu_mask "$(nproc)")
	echo "$mask" > /sys/class/net/srA/queues/rx-0/rps_cpus &&
		in_peer sh -c "echo $mask > /sys/class/net/srB/queues/rx-0/rps_cpus"
}

# gid_index NS(init|peer) DEV GID: the GID table index holding GID (as sysfs
# prints it), waiting for the core to add it
gid_index() {
	local run=() f
	[ "$1" = peer ] && run=(ip netns exec srpeer)
	# one grep over the whole table per try: a process per entry (up to
	# 128 of them, each through `ip netns exec`) took a minute under TCG
	for _ in $(seq 50); do
		f=$("${run[@]}" grep -slx "$3" /sys/class/infiniband/"$2"/ports/1/gids/* | head -n 1)
		[ -n "$f" ] && { echo "${f##*/}"; return 0; }
		sleep 0.1
	done
	return 1
}
# rxe_pingpong N (after topo_up rxe): ibv_rc_pingpong --chk, N iterations
# of 64 KiB, server rxe8 (192.0.2.1), client sroce9
rxe_pingpong() {
	local ga gb s
	ga=$(gid_index init rxe8 0000:0000:0000:0000:0000:ffff:c000:0201) &&
	gb=$(gid_index peer sroce9 0000:0000:0000:0000:0000:ffff:c000:0202) || return 1
	timeout 60 ibv_rc_pingpong -d rxe8 -g "$ga" -n "$1" --chk -s 65536 > /dev/null 2>&1 &
	s=$!
	wait_listening init 18515 "$s"
	in_peer timeout 60 ibv_rc_pingpong -d sroce9 -g "$gb" -n "$1" --chk -s 65536 192.0.2.1 \
		> /dev/null 2>&1 &&
	wait "$s"
}
# shellcheck disable=SC2034  # for the scripts that source this
V6A=2001:0db8:0005:0000:0000:0000:0000:0001
# shellcheck disable=SC2034
V6B=2001:0db8:0005:0000:0000:0000:0000:0002

topo_title() {
	if [ "$CL_IMPL" = rxe ]; then
		echo "rxe8 here, sroce9 in srpeer"
	else
		echo "sroce in two namespaces"
	fi
}

topo_down() {
	local d
	for d in sroce8 rxe8; do
		[ ! -e "/sys/class/infiniband/$d" ] || rdma link delete "$d" 2>/dev/null
	done
	[ ! -e /run/netns/srpeer ] || ip netns del srpeer 2>/dev/null
	[ ! -e /sys/class/net/srA ] || ip link del srA 2>/dev/null
	local out
	out=$(rxe_unload) || ktap_diag "$out"
	return 0
}

# wait_listening NS(peer|init) PORT PID: until a TCP socket listens on
# PORT in NS (perftest's and ibverbs-utils' servers once their device is
# open: not after a fixed second, a slow kernel takes longer) or PID is
# gone; at most 15 s (times $SROCE_TIMEOUT_SCALE)
wait_listening() {
	local run=() end=$((EPOCHSECONDS + 15 * ${SROCE_TIMEOUT_SCALE:-1})) r
	[ "$1" = peer ] && run=(ip netns exec srpeer)
	while :; do
		tcp_listening "$3" "$2" "$1"
		r=$?
		[ "$r" = 0 ] && return 0
		# 2: the namespace's table was out of reach: ask ss there
		if [ "$r" = 2 ]; then
			"${run[@]}" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		fi
		kill -0 "$3" 2>/dev/null || return 1
		[ "$EPOCHSECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# tcp_listening PID PORT NS(peer|init): 0 when a TCP socket listens on
# PORT in the network namespace of PID's newest descendant (the server a
# bg_start'ed `sh -c 'timeout ... ip netns exec NS SERVER'` became), read
# from its /proc/PID/net/tcp{,6} with bash builtins: under TCG a poll by
# `ip netns exec NS ss` costs three processes, 0.3 s of the guest's CPU.
# 1 when none listens (or, for peer, the server has not yet entered its
# namespace); 2 when the table could not be read, or the descendants
# cannot be (a kernel without CONFIG_PROC_CHILDREN, as the KASAN one was:
# then the server was never found and never "listened").
tcp_listening() {
	local pid=$1 hex c _i f loc st seen=2
	printf -v hex '%04X' "$2"
	[ -r "/proc/$pid/task/$pid/children" ] || return 2
	for _i in 1 2 3 4 5; do
		c=""
		read -r c 2>/dev/null < "/proc/$pid/task/$pid/children"
		[ -n "$c" ] || break
		pid=${c##* }
	done
	# -ef compares the namespace files' inodes: no readlink process
	if [ "/proc/$pid/ns/net" -ef /proc/$$/ns/net ]; then
		[ "$3" = peer ] && return 1
	else
		[ "$3" = peer ] || return 2
	fi
	for f in "/proc/$pid/net/tcp" "/proc/$pid/net/tcp6"; do
		[ -r "$f" ] || continue
		seen=1
		while read -r _i loc _i st _i; do
			[ "$st" = 0A ] && [[ $loc == *":$hex" ]] && return 0
		done < "$f" 2>/dev/null
	done
	return "$seen"
}

# client_server SERVER_DEV SERVER_NS(peer|init) CLIENT_DEV SERVER_IP TOOL ARGS...
# runs TOOL as server on one side, client on the other; both must succeed
# verify_veth N SEED: build/userspace/sroce-verify, server sroce9 in srpeer,
# client sroce8 to 192.0.2.2: N transfers of up to 1 MiB, every byte checked
verify_veth() {
	local v=${SROCE_TOP:-$(dirname "${BASH_SOURCE[0]}")/..}/build/userspace/sroce-verify s rc
	timeout 150 ip netns exec srpeer "$v" -d sroce9 -g 1 --timeout 140 > /dev/null 2>&1 &
	s=$!
	wait_listening peer 18515 "$s"
	timeout 150 "$v" -d sroce8 -g 1 -n "$1" --max-size 1M --seed "$2" --timeout 140 192.0.2.2
	rc=$?
	wait "$s" || rc=1
	return $rc
}

client_server() {
	local sdev=$1 sns=$2 cdev=$3 sip=$4 tool=$5 s rc
	local t=$((120 * ${SROCE_TIMEOUT_SCALE:-1}))	# slower on a debug kernel
	shift 5
	if [ "$sns" = peer ]; then
		timeout $t ip netns exec srpeer "$tool" -d "$sdev" "$@" > /tmp/srv.$$ 2>&1 &
	else
		timeout $t "$tool" -d "$sdev" "$@" > /tmp/srv.$$ 2>&1 &
	fi
	s=$!
	# the client connects once: wait (bounded) until the server listens
	local port=18515 a prev=""
	for a in "$@"; do [ "$prev" = -p ] && port=$a; prev=$a; done
	wait_listening "$sns" "$port" "$s"
	if [ "$sns" = peer ]; then
		timeout $t "$tool" -d "$cdev" "$@" "$sip" > /tmp/cli.$$ 2>&1
	else
		timeout $t ip netns exec srpeer "$tool" -d "$cdev" "$@" "$sip" > /tmp/cli.$$ 2>&1
	fi
	rc=$?
	wait "$s" || rc=1
	[ $rc -eq 0 ] || { tail -n 3 /tmp/cli.$$ /tmp/srv.$$ | sed 's/^/# /'; }
	rm -f /tmp/srv.$$ /tmp/cli.$$
	return $rc
}
