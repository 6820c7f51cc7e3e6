#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest newest
# XRC: unmodified ibv_xsrq_pingpong (XRC domain, XRC SRQ, XRC INI and TGT
# QPs; one server with several clients, whose messages the server sends
# round-robin over its INI QPs into each client's XRC SRQ) between two
# sroce devices in two namespaces, and the verbs semantics with pyverbs on
# one device (xrc_verbs.py): SENDs land byte-exact in the XRC SRQ their WR
# names, completions on that SRQ's CQ with the TGT QP's number, the SRQ
# limit event, RDMA WRITE/READ byte-exact and checked against the SRQ's
# PD, SENDs to a missing SRQ or one of another XRC domain refused with a
# remote invalid request error, and what must be refused locally (also as
# raw uverbs commands, past the provider); an XRC TGT QP shared by two
# processes with ibv_open_qp() (xrc_open_qp.c).
# rdma_rxe implements no XRC: there is no interop case.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap 'xrc_stop; topo_down' EXIT

require_cmd ibv_xsrq_pingpong > /dev/null || ktap_skip_all "ibv_xsrq_pingpong (ibverbs-utils) missing"

pids=()
xrc_stop() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	pids=()
}

# xsrq NCLIENTS ARGS...: server in the peer namespace (sroce9), NCLIENTS
# clients at once in the init namespace (sroce8); all must succeed
xsrq() {
	local nc=$1 s rc=0 i out
	shift
	out=$(mktemp -d)
	timeout 120 ip netns exec srpeer ibv_xsrq_pingpong -d sroce9 -g 1 -c "$nc" "$@" \
		> "$out/srv" 2>&1 &
	s=$!
	pids=("$s")
	wait_listening peer 18515 "$s"
	for i in $(seq "$nc"); do
		timeout 120 ibv_xsrq_pingpong -d sroce8 -g 1 "$@" 192.0.2.2 > "$out/cli$i" 2>&1 &
		pids+=("$!")
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
	done
	pids=()
	# every client and the server report their transfer
	for f in "$out"/*; do
		grep -q "^success" "$f" || { rc=1; tail -n 3 "$f" | sed "s|^|# ${f##*/}: |"; }
	done
	[ $rc -eq 0 ] || tail -n 3 "$out"/* | sed 's/^/# /'
	rm -rf "$out"
	return $rc
}
# an XRC TGT QP shared between two processes (ibv_open_qp)
open_qp() {
	local bin=/tmp/xrc_open_qp.$$ rc
	gcc -O1 -Wall -o "$bin" "$here/xrc_open_qp.c" -libverbs || { echo "gcc failed"; return 4; }
	timeout 60 "$bin" sroce8
	rc=$?
	rm -f "$bin"
	return "$rc"
}

ktap_header $((1 + 3 + 5 + 1 + 1))
dmesg_mark
ktap_diag "rdma_rxe has no XRC: XRC runs sroce <-> sroce only"
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
ktap_result "ibv_xsrq_pingpong 1 client x 50, 4 KiB" xsrq 1 -n 50
ktap_result "ibv_xsrq_pingpong 4 clients x 20, 64 KiB, MTU 1024" xsrq 4 -n 20 -s 65536 -m 1024
ktap_result "ibv_xsrq_pingpong 3 clients x 20, completion events" xsrq 3 -n 20 -e
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/xrc_verbs.py" sroce8 1 -- send rdma badsrq refuse raw
for c in send rdma badsrq refuse raw; do
	ktap_result "XRC verbs: $c" py_case_result "$c"
done
ktap_step "XRC TGT QP shared by two processes (ibv_open_qp)" open_qp
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
