#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm over sroce: QP1 (the GSI QP) carries the CM MADs, UD QPs and
# address handles carry udaddy's datagrams. rping with data verification
# (several sizes and counts, IPv4 and IPv6), ucmatose and udaddy between two
# sroce devices in two namespaces, then against rdma_rxe in both roles;
# rdma_xserver/rdma_xclient (RC and XRC through rdma_cm) between sroce.
# UD on one device: GRH area, immediate, Q_Key and buffer checks, AH
# references of another PD or context refused. Hand-made hostile UD
# datagrams (bad Q_Key, DETH, P_Key, QPN, pad, length, ICRC, garbage MADs,
# 640 longer than a MAD to QP1) are dropped and counted, and rdma_cm still
# connects after them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"

here=$(cd "$(dirname "$0")" && pwd)
trap topo_down EXIT

# cm SERVER_NS(init|peer) TOOL "SERVER ARGS" "CLIENT ARGS" [CLIENT_TOOL]:
# server in one namespace, client (TOOL, or CLIENT_TOOL) in the other; both
# must exit 0
cm() {
	local sns=$1 tool=$2 sargs=$3 cargs=$4 ctool=${5:-$2} srun=() crun=() s rc
	if [ "$sns" = peer ]; then srun=(ip netns exec srpeer); else crun=(ip netns exec srpeer); fi
	# shellcheck disable=SC2086
	timeout 120 "${srun[@]}" "$tool" $sargs > /tmp/cms.$$ 2>&1 &
	s=$!
	sleep 1
	# shellcheck disable=SC2086
	timeout 120 "${crun[@]}" "$ctool" $cargs > /tmp/cmc.$$ 2>&1
	rc=$?
	wait "$s" || rc=1
	# rping's own teardown race after every ping was verified (lib.sh)
	if [ $rc -eq 255 ] && [ -n "${RPING_COUNT-}" ] &&
	   rping_cm_exit_race /tmp/cmc.$$ "ping data: " "$RPING_COUNT"; then
		ktap_diag "client: all $RPING_COUNT pings verified, then rping's cm thread exited 255 on the event channel its main thread destroyed (rping teardown race, not sroce)"
		rc=0
	fi
	[ $rc -eq 0 ] || tail -n 3 /tmp/cmc.$$ /tmp/cms.$$
	rm -f /tmp/cms.$$ /tmp/cmc.$$
	return $rc
}

# rping_v SERVER_NS SERVER_IP SIZE COUNT: -V verifies every byte; the
# client's -v prints each ping once verified (counted by cm())
rping_v() { RPING_COUNT=$4 cm "$1" rping "-s -a $2 -S $3 -C $4 -V" "-c -a $2 -S $3 -C $4 -V -v"; }

# cm_suite sroce|rxe: the rdma_cm checks, sroce8 or rxe8 in init, sroce9
# in srpeer (topo_up ran in a ktap_result subshell: DEV_A is not set here)
cm_suite() {
	local a=$1 dev=${1}8
	ktap_result "$a: rping -V 64 B x 20, server sroce9" rping_v peer 192.0.2.2 64 20
	ktap_result "$a: rping -V 4000 B x 10, server sroce9" rping_v peer 192.0.2.2 4000 10
	ktap_result "$a: rping -V 60000 B x 5, server $dev" rping_v init 192.0.2.1 60000 5
	ktap_result "$a: rping -V 100 B x 10, server $dev" rping_v init 192.0.2.1 100 10
	ktap_result "$a: ucmatose, server sroce9" cm peer ucmatose "-c 2 -C 10" "-s 192.0.2.2 -c 2 -C 10"
	ktap_result "$a: ucmatose, server $dev" cm init ucmatose "-c 2 -C 10" "-s 192.0.2.1 -c 2 -C 10"
	ktap_result "$a: udaddy, server sroce9" cm peer udaddy "-c 2 -C 10" "-s 192.0.2.2 -c 2 -C 10"
	ktap_result "$a: udaddy, server $dev" cm init udaddy "-c 2 -C 10" "-s 192.0.2.1 -c 2 -C 10"
}

ud_cases="data imm mtu ah_pd ah_ctx qkey no_buf short_buf destroy_sends destroy_ah_sends"
wire_cases="qkey reserved_qpn unknown_qpn pkey short_deth bad_pad odd_len too_long big_mad icrc
	garbage_mad"
n_ud=$(echo $ud_cases | wc -w)
n_wire=$(echo $wire_cases | wc -w)

require_cmd rping ucmatose udaddy rdma_xserver rdma_xclient || ktap_skip_all "librdmacm-utils missing"
require_module rdma_ucm >/dev/null || ktap_skip_all "rdma_ucm missing"

ktap_header $((2 + 8 + 1 + 2 + n_ud + n_wire + 1 + 9 + 1))
dmesg_mark

ktap_result "topology sroce8 <-> sroce9" topo_up sroce
ktap_result "QP1 exists (rdma resource shows a GSI QP)" \
	sh -c 'rdma resource show qp link sroce8/1 | grep -q "lqpn 1 .*type GSI"'
cm_suite sroce
ktap_result "sroce: rping -V over IPv6, server sroce9" rping_v peer 2001:db8:5::2 2000 10
# librdmacm's own XRC users: rdma_create_ep() with IBV_QPT_XRC_SEND on the
# client, an XRC TGT QP and XRC SRQ (rdma_create_srq_ex) on the server
ktap_result "sroce: rdma_xserver/rdma_xclient RC, server sroce9" cm peer rdma_xserver "-c r" "-s 192.0.2.2 -c r" rdma_xclient
ktap_result "sroce: rdma_xserver/rdma_xclient XRC, server sroce9" cm peer rdma_xserver "-c x" "-s 192.0.2.2 -c x" rdma_xclient
# each helper's cases in one python3 (py_cases, lib.sh)
py_cases 60 "$here/ud_verbs.py" sroce8 1 -- $ud_cases
for c in $ud_cases; do
	ktap_result "UD verbs: $c" py_case_result "$c"
done
py_cases 60 "$here/ud_wire.py" 192.0.2.1 192.0.2.2 sroce8 -- $wire_cases
for c in $wire_cases; do
	ktap_result "hostile UD datagram: $c" py_case_result "$c"
done
ktap_result "rdma_cm still works after hostile datagrams" rping_v peer 192.0.2.2 64 3
topo_down

if require_module rdma_rxe >/dev/null; then
	ktap_result "topology rxe8 <-> sroce9" topo_up rxe
	cm_suite rxe
else
	for _ in $(seq 9); do ktap_skip "rdma_rxe interop" "rdma_rxe missing"; done
fi
topo_down
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
