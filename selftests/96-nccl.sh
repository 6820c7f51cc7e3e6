#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 420
# sroce-kernels: newest
# NCCL's IB transport pattern (sroce-verify --nccl, see
# Documentation/verify.rst): the receiver RDMA WRITEs inline clear-to-send
# entries into the sender's FIFO, the sender splits each message over
# several QPs and RDMA WRITEs it with the size in a WRITE_WITH_IMM, or above
# the adaptive-routing threshold (8 KiB) as plain WRITEs followed by a
# zero-length WRITE_WITH_IMM with address and rkey 0, exactly as NCCL posts
# them; 8 requests in flight, NCCL's QP settings (IB_TIMEOUT 20,
# RETRY_CNT 7). Both directions at once, every byte and completion checked:
# sroce<->sroce with 1 and 4 QPs per connection, across loss of the
# WRITE_WITH_IMM packets and ACKs, across reordering, and against rdma_rxe.
# Go-back-N recovery (selective repeat is opt-in and off here; see
# 93-selective-repeat.sh): every case must
# end byte-exact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"

cleanup() {
	bg_kill_all
	fault_clear
	tc qdisc del dev srA root 2>/dev/null
	topo_down_bounded
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd nft tc > /dev/null || ktap_skip_all "nft or tc missing"

# NCCL's defaults (--depth 8, --qp-timeout 20, --retry-cnt 7, --max-size
# 512K) come with --nccl; the completion bound is the tool's, generous
# for TCG
NCCL=(--nccl --timeout $((30 * ${SROCE_TIMEOUT_SCALE:-1})))

# nccl_case SERVER_DEV CLIENT_DEV ARGS...: the server in srpeer, both
# directions; prints the counters' movement
nccl_case() {
	local sdev=$1 cdev=$2 before rc t0=$SECONDS
	shift 2
	before=$(snap "$sdev" "$cdev")
	verify_run exact peer "$sdev" "$cdev" 192.0.2.2 "${NCCL[@]}" "$@"
	rc=$?
	echo "$((SECONDS - t0)) s; $(deltas "$before" | paste -sd';')"
	return $rc
}

# nccl_loss RATE ARGS...: RATE % of the WRITE_WITH_IMM packets (the
# completion of every chunk) and of the ACKs dropped in both directions
nccl_loss() {
	local rate=$1 rc dropped
	shift
	fault_drop writeimm,ack "$rate" || return 1
	nccl_case sroce9 sroce8 "$@"
	rc=$?
	dropped=$(fault_dropped)
	fault_clear
	echo "dropped $dropped WRITE_WITH_IMM and ACK packets"
	[ "$rc" -eq 0 ] && [ "$dropped" -eq 0 ] && return 4
	return $rc
}

nccl_reorder() {
	local rc
	tc qdisc add dev srA root netem delay 2ms reorder 25% 50% &&
	in_peer tc qdisc add dev srB root netem delay 2ms reorder 25% 50% || return 1
	nccl_case sroce9 sroce8 "$@"
	rc=$?
	tc qdisc del dev srA root; in_peer tc qdisc del dev srB root
	return $rc
}

ktap_header 8
dmesg_mark
modprobe -q nf_tables 2>/dev/null
ktap_result "topology sroce8 <-> sroce9" topo_up sroce
ktap_case "sroce<->sroce, 1 QP per connection, both directions" \
	nccl_case sroce9 sroce8 --qps 1 -n 200 --seed 1
ktap_case "sroce<->sroce, 4 QPs per connection, MTU 1024, both directions" \
	nccl_case sroce9 sroce8 --qps 4 -m 1024 -n 200 --seed 2
ktap_case "sroce<->sroce, 4 QPs, 5 % of WRITE_WITH_IMM and ACK packets dropped" \
	nccl_loss 5 --qps 4 -m 1024 -n 96 --max-size 128K --seed 3
ktap_case "sroce<->sroce, 2 QPs, netem reorder 25 %" \
	nccl_reorder --qps 2 -m 1024 -n 96 --max-size 128K --seed 4
topo_down_bounded
if require_module rdma_rxe > /dev/null; then
	ktap_result "topology rxe8 <-> sroce9" topo_up rxe
	ktap_case "rxe<->sroce, 2 QPs per connection, both directions" \
		nccl_case sroce9 rxe8 --qps 2 -m 1024 -n 160 --seed 5
	topo_down_bounded
else
	ktap_skip "topology rxe8 <-> sroce9" "rdma_rxe missing"
	ktap_skip "rxe<->sroce, 2 QPs per connection" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
