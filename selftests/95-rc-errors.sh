#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# RC error handling and recovery: remote access errors (a wrong rkey, no
# remote rights, 32 bytes and one byte past the MR's end), RNR NAK recovery
# and exhaustion, retry exhaustion, length errors, flush in ERR, SQ drain
# (SQD: messages in flight still retried, SQ Drained only once they are
# acknowledged and only when asked for) (pyverbs, loopback); and loss, duplication and reordering on the wire (netem),
# which go-back-N must recover from with every byte intact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap topo_down EXIT

rnr_counted() { [ "$(port_counter sroce8 rnr_naks_sent)" -gt 0 ]; }
verify_lossy() {
	in_peer tc qdisc add dev srB root netem loss 3% duplicate 1% reorder 5% delay 1ms &&
	tc qdisc add dev srA root netem loss 3% duplicate 1% reorder 5% delay 1ms || return 1
	timeout 150 ip netns exec srpeer "$SROCE_TOP/build/userspace/sroce-verify" -d sroce9 -g 1 \
		--timeout 140 > /tmp/v.$$ 2>&1 &
	local s=$! rc
	wait_listening peer 18515 "$s"
	timeout 150 "$SROCE_TOP/build/userspace/sroce-verify" -d sroce8 -g 1 -n 150 \
		--max-size 256K --seed 11 --timeout 140 192.0.2.2
	rc=$?
	wait "$s" || rc=1
	tc qdisc del dev srA root; in_peer tc qdisc del dev srB root
	rm -f /tmp/v.$$
	return $rc
}
retransmitted() { [ "$(port_counter sroce8 retransmits)" -gt 0 ]; }

ktap_header 15
dmesg_mark
ktap_result "topology up" topo_up sroce
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/rc_errors.py" sroce8 1 -- rem_access_write rem_access_read out_of_bounds one_past_end rnr_recover \
	 rnr_exhausted retry_exceeded len_err flush_on_err sqd_drain
for c in rem_access_write rem_access_read out_of_bounds one_past_end rnr_recover \
	 rnr_exhausted retry_exceeded len_err flush_on_err sqd_drain; do
	ktap_result "$c" py_case_result "$c"
done
ktap_result "RNR NAKs counted" rnr_counted
ktap_result "sroce-verify over netem loss/dup/reorder: every byte intact" verify_lossy
ktap_result "retransmissions happened and were counted" retransmitted
ktap_diag "retransmits $(port_counter sroce8 retransmits), seq NAKs sent $(port_counter sroce8 seq_naks_sent)"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
