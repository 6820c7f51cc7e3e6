#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest newest
# Shared receive queues: unmodified ibv_srq_pingpong --chk (16 QPs on one
# SRQ; a shallow SRQ so that senders meet RNR NAKs; completion events)
# between two sroce devices in two namespaces and against rdma_rxe in both
# roles; and the verbs semantics with pyverbs on one device (srq_verbs.py):
# two QPs sharing buffers, the SRQ limit event, RNR on an empty SRQ,
# LAST_WQE_REACHED on ERR, resizing (IBV_SRQ_MAX_WR) with buffers posted,
# and what must be refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap topo_down EXIT

require_cmd ibv_srq_pingpong > /dev/null || ktap_skip_all "ibv_srq_pingpong (ibverbs-utils) missing"

sp() { local s=$1 n=$2 c=$3 ip=$4; shift 4; client_server "$s" "$n" "$c" "$ip" ibv_srq_pingpong -g 1 --chk "$@"; }

ktap_header $((1 + 3 + 6 + 1 + 2 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
ktap_result "ibv_srq_pingpong 16 QPs x 50, 4 KiB, peer responds" sp sroce9 peer sroce8 192.0.2.2 -q 16 -n 50
ktap_result "ibv_srq_pingpong 8 QPs, SRQ depth 8 (RNR), 64 KiB" sp sroce8 init sroce9 192.0.2.1 -q 8 -r 8 -n 20 -s 65536
ktap_result "ibv_srq_pingpong 4 QPs, completion events" sp sroce9 peer sroce8 192.0.2.2 -q 4 -n 50 -e
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/srq_verbs.py" sroce8 1 -- shared limit rnr flush errors resize
for c in shared limit rnr flush errors resize; do
	ktap_result "SRQ verbs: $c" py_case_result "$c"
done
topo_down
if require_module rdma_rxe > /dev/null; then
	ktap_result "topology rxe8 <-> sroce9" topo_up rxe
	ktap_result "ibv_srq_pingpong rxe requests, sroce's SRQ receives" sp sroce9 peer rxe8 192.0.2.2 -q 8 -n 50
	ktap_result "ibv_srq_pingpong sroce requests, rxe's SRQ receives" sp rxe8 init sroce9 192.0.2.1 -q 8 -n 50
else
	ktap_skip "topology rxe8 <-> sroce9" "rdma_rxe missing"
	ktap_skip "ibv_srq_pingpong rxe requests" "rdma_rxe missing"
	ktap_skip "ibv_srq_pingpong sroce requests" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
