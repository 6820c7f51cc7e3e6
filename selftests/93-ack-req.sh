#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Acknowledgements asked where they are needed (transport.rst, *Loss
# window*): the end of an RC message asks for an ACK when its
# completion is wanted (signaled) or when no request packet follows it;
# an unsignaled WRITE or SEND followed by more leaves the asking to the
# window (every cwnd / 2 PSNs, and whenever no ACK asked for is on its
# way). Seen on the wire (ack_req.py, a scapy sniffer on srA, sroce8 ->
# sroce9): 12 WRITEs in one post, only the last signaled, none, or all;
# then perftest's 64-byte WRITE stream (a completion asked every 100
# WRITEs) draws at most one ACK per 8 request packets.
# sroce-timeout: 240
# One kernel: the rule is the requester's own, the same on every kernel.
# sroce-kernels: newest
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(cd "$(dirname "$0")" && pwd)
cleanup() { tc qdisc del dev srA root 2>/dev/null; topo_down; }
trap cleanup EXIT

python3 -c 'import scapy' 2> /dev/null || ktap_skip_all "python3-scapy missing"
require_cmd tc > /dev/null || ktap_skip_all "tc missing"

# perftest 64-byte WRITEs, sroce8 -> sroce9: ACKs (sroce9's packets) per
# request packet (sroce8's), at most one in eight
stream_acks() {
	local a0 b0 a1 b1
	a0=$(port_counter sroce8 tx_pkts) b0=$(port_counter sroce9 tx_pkts)
	client_server sroce9 peer sroce8 192.0.2.2 ib_write_bw -x 1 -F -s 64 -n 4000 || return 1
	a1=$(port_counter sroce8 tx_pkts) b1=$(port_counter sroce9 tx_pkts)
	echo "# sroce8 sent $((a1 - a0)) packets, sroce9 $((b1 - b0)) ACKs"
	[ $((a1 - a0)) -ge 4000 ] && [ $(((b1 - b0) * 8)) -le $((a1 - a0)) ]
}

CASES=(unsignaled signaled tail)
ktap_header $((${#CASES[@]} + 3))
dmesg_mark
ktap_result "topology up" topo_up sroce
# the requests delayed 20 ms: on an undelayed veth each ACK comes back
# before the next packet is built, and a packet asks whenever none is on
# its way; every case in one python3 (py_cases, lib.sh)
tc qdisc replace dev srA root netem delay 20ms limit 100000
py_cases 60 "$here/ack_req.py" sroce8 sroce9 srA -- "${CASES[@]}"
for c in "${CASES[@]}"; do
	ktap_result "AckReq, 12 WRITEs: $c" py_case_result "$c"
done
tc qdisc del dev srA root
ktap_result "perftest 64 B WRITE stream: at most 1 ACK per 8 packets" stream_acks
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
