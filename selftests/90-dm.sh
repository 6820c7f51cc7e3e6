#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 420
# sroce-kernels: oldest newest
# Device memory (ibv_alloc_dm, ibv_memcpy_to/from_dm, ibv_reg_dm_mr), with
# pyverbs (dm_verbs.py): the DM lives on sroce8, the traffic peer is sroce9
# in the other namespace. max_dm_size advertised; allocation of every size
# and alignment up to the limits, zeroed; byte-exact copies at offsets, and
# through a second context that imports the DM; the refused arguments and
# their errnos (through the provider and as raw ioctls); EBUSY while an MR
# uses the DM; the per-device total (ENOMEM), given back when a process
# exits holding all of it; RDMA WRITE, READ, SEND (both ways) and atomics
# through zero-based DM MRs at an offset in their DM, every byte checked, a
# WRITE past the MR refused. Then rdma-core's own DM tests (test_device
# DMTest and SharedDMTest, test_mr DeviceMemoryAPITest and
# DeviceMemoryTest: 14) must all pass, none skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap topo_down EXIT

CASES="caps alloc memcpy refused busy limit write_read send atomic"
log=/tmp/90-dm.$$

# one python process for every case (starting pyverbs takes seconds under TCG)
run_cases() { timeout 180 python3 "$here/dm_verbs.py" sroce8 sroce9 "$@" > "$log" 2>&1; }
verdict() {
	grep -qx "ok $1" "$log" && return 0
	grep -E "^not ok $1:" "$log" || { echo "no verdict for $1:"; tail -n 5 "$log"; }
	return 1
}
hoard() {
	local out
	out=$(timeout 60 python3 "$here/dm_verbs.py" sroce8 sroce9 hoard 2>&1) || { echo "$out"; return 1; }
	[ "$out" = "ok hoard" ] || { echo "$out"; return 1; }
}
pyverbs_dm() {
	local out ran res
	out=$(PYTHONUNBUFFERED=1 timeout 300 "$SROCE_TOP/scripts/pyverbs-tests" sroce8 1 -v \
		tests.test_device.DMTest tests.test_device.SharedDMTest \
		tests.test_mr.DeviceMemoryAPITest tests.test_mr.DeviceMemoryTest 2>&1)
	ran=$(grep -E '^Ran [0-9]+ tests' <<< "$out")
	res=$(tail -1 <<< "$out")
	echo "$ran: $res"
	grep -E 'skipped|ERROR|FAIL' <<< "$out" | head -20
	[ "$ran" = "Ran 14 tests" ] || [[ "$ran" == "Ran 14 tests in"* ]] || return 1
	[ "$res" = "OK" ]
}

ktap_header $((1 + 1 + 9 + 1 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
ktap_result "DM: a process exits holding all of the device's DM (and MRs on it)" hoard
run_cases $CASES
for c in $CASES; do
	ktap_result "DM: $c" verdict "$c"
done
ktap_result "rdma-core pyverbs DM tests: 14 run, all pass" pyverbs_dm
ktap_result "dmesg clean" dmesg_clean_since_mark
rm -f "$log"
ktap_finish
