#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: newest
# Unmodified perftest between two sroce devices in different namespaces:
# send/write/read bandwidth and latency, over RC and over XRC (-c XRC:
# XRC INI QPs sending to XRC TGT QPs and an XRC SRQ, one and several QPs).
# Functional only: numbers belong in benchmarks.
# sroce-impl: sroce rxe
# (rxe: rxe8 here, sroce9 in srpeer - net-topo.sh)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
trap topo_down EXIT

pt() { client_server sroce9 peer "$CL_DEV" 192.0.2.2 "$@" -x 1 -n 100 -F; }

ktap_header 23
dmesg_mark
ktap_result "topology up" topo_up "$CL_IMPL"
for t in ib_send_bw ib_write_bw ib_read_bw; do
	ktap_result "$t 64 B" pt $t -s 64
	ktap_result "$t 64 KiB" pt $t -s 65536
done
for t in ib_send_lat ib_write_lat ib_read_lat; do
	ktap_result "$t 2 B" pt $t -s 2
	ktap_result "$t 4 KiB" pt $t -s 4096
done
for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
	ktap_result "$t -c XRC 4 KiB" pt $t -c XRC -s 4096
done
ktap_result "ib_send_bw -c XRC -q 4" pt ib_send_bw -c XRC -q 4 -s 4096
ktap_result "ib_write_bw -c XRC -q 4" pt ib_write_bw -c XRC -q 4 -s 4096
ktap_result "ib_read_bw -c XRC -q 2" pt ib_read_bw -c XRC -q 2 -s 4096
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
