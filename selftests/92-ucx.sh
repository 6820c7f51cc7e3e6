#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 480
# sroce-kernels: newest
# UCX on sroce, unmodified: ucx_info lists sroce's devices with the
# verbs transports, then ucx_perftest (UCP API) runs between two sroce
# devices in two namespaces - server on sroce9 in srpeer, client on
# sroce8 here - over each of UCX's verbs transports:
#   rc_verbs  RC QPs on an SRQ: tag matching eager and rendezvous (RDMA
#             READ), PUT = RDMA WRITE, GET = RDMA READ, 64-bit ADD/FADD/
#             CSWAP = the RC atomics (SWAP is emulated by UCP). UCX_TLS is
#             rc_v: rc_verbs plus ud_verbs for the connection handshake
#             only (UCX_TLS=rc_verbs alone fails in UCP with "no auxiliary
#             transport", on any device)
#   ud_verbs  UD QPs with GRH address handles: tag matching; UCP emulates
#             PUT, GET and the atomics over active messages
# UCX_TLS names the transport alone: nothing else (shared memory, TCP,
# self) can carry the data, and sroce8's packet counters must move. A
# transport's tests run as one batch (ucx_perftest -b: one process per
# side, UCP context, worker and endpoints set up again for every test);
# a row passes when the batch printed its numbers with every iteration
# done, so a batch that stops fails its remaining rows at once.
# ucx_perftest (UCX 1.13) has no data check of its own (byte-exact transfers through UCX are checked by
# 92-mpi.sh), and the numbers are printed, never judged.
# UCX's UD transport finds the destination address in a receive's GRH
# area by the RoCE packet type in the completion's SL (bit 3 UDP, bits
# 2:0 2 = IPv4), as RoCE NICs report it; sroce does the same for user CQs.
# sroce-impl: sroce rxe
# (rxe: the client on rxe8, whose sent_pkts must move, the server on
# sroce9 in srpeer)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
LOG=/tmp/92-ucx.$$
cleanup() { bg_kill_all; topo_down_bounded; rm -f "$LOG".*; }
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd ucx_perftest ucx_info > /dev/null || ktap_skip_all "ucx-utils missing"

# common UCX settings: no warning about unused variables
UCXENV=(UCX_WARN_UNUSED_ENV_VARS=n)


# ucx_devices TL: ucx_info -d lists sroce8:1 with transport TL
ucx_devices() {
	env "${UCXENV[@]}" UCX_NET_DEVICES="$CL_DEV:1" UCX_TLS="$1" \
		timeout 60 ucx_info -d > "$LOG.info" 2>&1 || { cat "$LOG.info"; return 1; }
	awk -v tl="$1" '/# +Transport:/ { t = $3 } /# *Device:/ && t == tl { print t, $3 }' \
		"$LOG.info" | grep -x "$1 $CL_DEV:1" && return 0
	grep -E 'Transport|Device' "$LOG.info"
	return 1
}

# pt_batch TL: every test in TESTS in one ucx_perftest run per side
# (batch mode: one process pair, a UCP context, worker and endpoints set
# up again for each test), server in srpeer on sroce9, client here on
# sroce8, both restricted to transport TL. Each test prints its row of
# numbers; sroce8's packet counter must move.
pt_batch() {
	local tl=$1 s c t0 t1 t
	local port=$((13400 + KTAP_N))
	for t in "${TESTS[@]}"; do
		read -r test size iters <<< "$t"
		echo "$test -t $test -s $size -n $iters"
	done > "$LOG.batch"
	bg_start s 200 "$LOG.s" ip netns exec srpeer env "${UCXENV[@]}" UCX_TLS="$tl" \
		UCX_NET_DEVICES=sroce9:1 ucx_perftest -b "$LOG.batch" -p "$port"
	# the client connects once: wait (bounded) until the server listens
	wait_listening peer "$port" "$s"
	t0=$(cl_tx_pkts "$CL_DEV")
	bg_start c 195 "$LOG.c.$tl" env "${UCXENV[@]}" UCX_TLS="$tl" UCX_NET_DEVICES="$CL_DEV:1" \
		ucx_perftest 192.0.2.2 -p "$port" -b "$LOG.batch" -w 10 -f
	bg_wait_both "$c" "$s" "client" "server"
	t1=$(cl_tx_pkts "$CL_DEV")
	echo "$CL_DEV sent +$((t1 - t0))"
	if [ "$BG_RC_A" -ne 0 ] || [ "$BG_RC_B" -ne 0 ]; then
		echo "client $BG_RC_A, server $BG_RC_B"
		grep -h -E 'UCX +(ERROR|WARN)|Fatal|ssert' "$LOG.c.$tl" "$LOG.s" | cut -c1-200 | head -n 12
		return 1
	fi
	[ "$((t1 - t0))" -gt 0 ] || { echo "no packet through $CL_DEV"; return 1; }
}

# pt_row TL TEST ITERS: TEST's row in TL's batch output: all ITERS
# iterations done (iterations, latencies (us), bandwidths (MB/s), message
# rates are printed, never judged)
pt_row() {
	local row
	row=$(awk -v t="$2" '$1 == t && NF >= 9' "$LOG.c.$1" 2>/dev/null | tr -s ' ')
	[ -n "$row" ] || { echo "no result row: the run ended before it"; return 1; }
	echo "$row"
	[ "$(awk '{ print $2 }' <<< "$row")" = "$3" ] || { echo "not all $3 iterations done"; return 1; }
}

TESTS=(
	"tag_lat 8 200"
	"tag_bw 65536 20"
	"ucp_put_bw 4096 100"
	"ucp_get 4096 100"
	"ucp_add 8 200"
	"ucp_fadd 8 200"
	"ucp_swap 8 200"
	"ucp_cswap 8 200"
)

ktap_header $((4 + 2 * (1 + ${#TESTS[@]})))
dmesg_mark
ktap_result "topology up ($(topo_title))" topo_up "$CL_IMPL"
ktap_result "ucx_info -d lists $CL_DEV:1 for rc_verbs" ucx_devices rc_verbs
ktap_result "ucx_info -d lists $CL_DEV:1 for ud_verbs" ucx_devices ud_verbs
for tl in rc_v ud_verbs; do
	ktap_result "ucx_perftest $tl: a batch of ${#TESTS[@]} tests, both sides end, packets through $CL_DEV" \
		pt_batch "$tl"
	for t in "${TESTS[@]}"; do
		read -r test size iters <<< "$t"
		ktap_result "ucx_perftest $tl $test -s $size -n $iters" pt_row "$tl" "$test" "$iters"
	done
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
