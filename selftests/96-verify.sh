#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# RC data-path integrity with build/userspace/sroce-verify: random SEND,
# SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ transfers
# (0 B .. 2 MiB, 1..16 SGEs over several MRs, both directions), every byte
# and every completion checked on both sides. Three topologies: two sroce
# devices in two namespaces, one sroce device talking to itself (loopback),
# and sroce against the in-tree rdma_rxe (which must own its namespace's
# UDP port 4791, so it replaces the init_net sroce device).
. "$(dirname "$0")/lib.sh"

VERIFY=${SROCE_TOP:-$(dirname "$0")/..}/build/userspace/sroce-verify
NS=svf
# sizes/counts keep the whole script well under 2 minutes under TCG
ARGS=(-n 1000 --max-size 2M --timeout $((30 * ${SROCE_TIMEOUT_SCALE:-1})))
SERVER_LOG=/tmp/96-verify-server.$$
server_pid=""

cleanup() {
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null
	rdma link delete sroce0 2>/dev/null; rdma link delete rxe0 2>/dev/null
	ip netns exec "$NS" rdma link delete sroce1 2>/dev/null
	ip netns del "$NS" 2>/dev/null; ip link del svf0 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
	rm -f "$SERVER_LOG"
}
trap cleanup EXIT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
[ -n "$(ls "${SROCE_TOP:-.}"/build/provider/libsroce-rdmav*.so 2>/dev/null)" ] ||
	ktap_skip_all "the libibverbs provider is not built"

# verify_pair NETNS|"" SERVER_DEV CLIENT_DEV SERVER_ADDR SEED: a server on
# SERVER_DEV (in NETNS) and a client on CLIENT_DEV; both must pass.
verify_pair() {
	local ns=$1 sdev=$2 cdev=$3 addr=$4 seed=$5 crc src
	local run=()
	[ -z "$ns" ] || run=(ip netns exec "$ns")
	"${run[@]}" timeout $((100 * ${SROCE_TIMEOUT_SCALE:-1})) "$VERIFY" -d "$sdev" -g 1 >"$SERVER_LOG" 2>&1 &
	server_pid=$!
	timeout $((100 * ${SROCE_TIMEOUT_SCALE:-1})) "$VERIFY" -d "$cdev" -g 1 --seed "$seed" "${ARGS[@]}" "$addr"
	crc=$?
	wait "$server_pid"
	src=$?
	server_pid=""
	sed 's/^/server: /' "$SERVER_LOG"
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ]
}

rxe_up() {
	rdma link delete sroce0 && modprobe rdma_rxe &&
	rdma link add rxe0 type rxe netdev svf0
}
rxe_down() { rdma link delete rxe0 && rmmod rdma_rxe; }

ktap_header 6
dmesg_mark
ip netns add "$NS"
ip link add svf0 type veth peer name svf1 netns "$NS"
ip link set svf0 up; ip -n "$NS" link set svf1 up; ip -n "$NS" link set lo up
ip addr add 192.0.2.1/24 dev svf0; ip -n "$NS" addr add 192.0.2.2/24 dev svf1
ip netns exec "$NS" rdma link add sroce1 type sroce netdev svf1
rdma link add sroce0 type sroce netdev svf0

ktap_result "sroce0 <-> sroce1 across namespaces" verify_pair "$NS" sroce1 sroce0 192.0.2.2 1
ktap_result "sroce0 loopback (both processes on one device)" \
	verify_pair "" sroce0 sroce0 192.0.2.1 2
ktap_result "rdma_rxe replaces sroce0 in init_net" rxe_up
ktap_result "rxe0 <-> sroce1 interoperate" verify_pair "$NS" sroce1 rxe0 192.0.2.2 3
ktap_result "rdma_rxe unloads" rxe_down
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
