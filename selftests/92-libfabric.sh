#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# libfabric's verbs provider on sroce, unmodified, between two sroce
# devices in two namespaces: fi_pingpong over a MSG endpoint (rdma_cm
# connection, SEND/RECV; 4 KiB and 256 KiB) and over RDM (ofi_rxm on
# verbs MSG endpoints; 4 KiB and 64 KiB),
# with libfabric's data integrity checks (-c). A row passes when both
# sides complete; numbers are printed, not judged.
# sroce-impl: sroce rxe
# (rxe: the client side here on rxe8, the server on sroce9 in srpeer)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
LOG=/tmp/92-libfabric.$$
cleanup() { bg_kill_all; topo_down_bounded; rm -f "$LOG".*; }
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd fi_pingpong > /dev/null || ktap_skip_all "libfabric-bin missing"

# fab EP PROVIDER SIZE [ENV...]: fi_pingpong, server in srpeer, client here
fab() {
	local ep=$1 prov=$2 size=$3 s c
	shift 3
	bg_start s 90 "$LOG.s" ip netns exec srpeer env "$@" \
		fi_pingpong -p "$prov" -e "$ep" -c -I 10 -S "$size"
	sleep 2
	bg_start c 80 "$LOG.c" env "$@" fi_pingpong -p "$prov" -e "$ep" -c -I 10 -S "$size" 192.0.2.2
	bg_wait_both "$c" "$s" "client" "server"
	if [ "$BG_RC_A" -ne 0 ] || [ "$BG_RC_B" -ne 0 ]; then
		echo "client $BG_RC_A, server $BG_RC_B"
		tail -n 4 "$LOG.c" "$LOG.s"
		return 1
	fi
	grep -E '^[0-9]+[kmg]? ' "$LOG.c" | tr -s ' '
}

ktap_header 6
dmesg_mark
ktap_result "topology up ($(topo_title))" topo_up "$CL_IMPL"
ktap_result "fi_pingpong -p verbs -e msg -c, 4 KiB" fab msg verbs 4096
ktap_result "fi_pingpong -p verbs -e msg -c, 256 KiB" fab msg verbs 262144
# With libfabric's defaults: rxm sizes its MSG CQs by the universe size
# (FI_UNIVERSE_SIZE, 256), beyond 32K CQEs (max_cqe is 4M - 1, as on
# hardware; rdma_rxe's 32K needs FI_UNIVERSE_SIZE=16 or less)
ktap_result "fi_pingpong -p 'verbs;ofi_rxm' -e rdm -c, 4 KiB" \
	fab rdm "verbs;ofi_rxm" 4096
ktap_result "fi_pingpong -p 'verbs;ofi_rxm' -e rdm -c, 64 KiB" \
	fab rdm "verbs;ofi_rxm" 65536
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
