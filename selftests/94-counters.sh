#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Port counters (rdma statistic) and the send doorbell: a streaming
# ib_write_bw moves WQEs through the mmapped SQ, with never more than one
# doorbell syscall per post. How many fewer depends on timing, so the ratio
# is reported here and measured by `make bench`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
trap topo_down EXIT

stream() { client_server sroce9 peer sroce8 192.0.2.2 ib_write_bw -x 1 -s 4096 -n 2000 -F; }
counters_listed() {
	local c
	for c in tx_pkts rx_pkts retransmits doorbells sq_wqes rx_drop_icrc rx_drop_no_qp; do
		rdma statistic show link sroce8/1 | grep -qw "$c" || return 1
	done
}

ktap_header 6
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "counters listed by rdma statistic" counters_listed
w0=$(port_counter sroce8 sq_wqes); d0=$(port_counter sroce8 doorbells); t0=$(port_counter sroce8 tx_pkts)
ktap_result "streaming ib_write_bw 4 KiB x 2000" stream
w1=$(port_counter sroce8 sq_wqes); d1=$(port_counter sroce8 doorbells); t1=$(port_counter sroce8 tx_pkts)
wqes=$((w1 - w0)); dbs=$((d1 - d0))
ktap_diag "requester: $wqes WQEs, $dbs doorbell syscalls ($(awk -v d=$dbs -v w=$wqes 'BEGIN { printf "%.3f", w ? d / w : 0 }') per post), $((t1 - t0)) packets"
ktap_result "WQEs and packets counted" test "$wqes" -ge 2000 -a "$((t1 - t0))" -ge 2000
ktap_result "at most one doorbell syscall per post" test "$dbs" -le "$wqes"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
