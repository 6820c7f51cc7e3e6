#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest newest
# UC QPs: unmodified ibv_uc_pingpong --chk between two sroce devices in two
# namespaces (1 byte to 64 KiB, multi-packet messages), against rdma_rxe in
# both roles; and the UC semantics with
# pyverbs on one device (uc_verbs.py): a message without a receive buffer
# or with a bad rkey is dropped with no NAK and the QPs go on, WRITE with
# immediate, READ and atomics refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap topo_down EXIT

require_cmd ibv_uc_pingpong > /dev/null || ktap_skip_all "ibv_uc_pingpong (ibverbs-utils) missing"

up() { local s=$1 n=$2 c=$3 ip=$4; shift 4; client_server "$s" "$n" "$c" "$ip" ibv_uc_pingpong -g 1 --chk -n 20 "$@"; }

ktap_header $((1 + 4 + 4 + 3 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
for s in 1 4096 65536; do
	ktap_result "ibv_uc_pingpong $s bytes, peer responds" up sroce9 peer sroce8 192.0.2.2 -s "$s"
done
ktap_result "ibv_uc_pingpong 65536 bytes, mtu 4096, peer requests" up sroce8 init sroce9 192.0.2.1 -s 65536 -m 4096
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/uc_verbs.py" sroce8 1 -- no_rqe bad_rkey write_imm refused
for c in no_rqe bad_rkey write_imm refused; do
	ktap_result "UC verbs: $c" py_case_result "$c"
done
topo_down
if require_module rdma_rxe > /dev/null; then
	ktap_result "topology rxe8 <-> sroce9" topo_up rxe
	ktap_result "ibv_uc_pingpong rxe requests, sroce responds" up sroce9 peer rxe8 192.0.2.2 -s 65536
	ktap_result "ibv_uc_pingpong sroce requests, rxe responds" up rxe8 init sroce9 192.0.2.1 -s 65536
else
	ktap_skip "topology rxe8 <-> sroce9" "rdma_rxe missing"
	ktap_skip "ibv_uc_pingpong rxe requests" "rdma_rxe missing"
	ktap_skip "ibv_uc_pingpong sroce requests" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
