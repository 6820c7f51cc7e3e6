#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# Memory windows (IBTA 10.6.7), with pyverbs on one sroce device
# (mw_verbs.py): type 1 (ibv_bind_mw) and type 2 (BIND_MW work request)
# windows carry WRITE and READ byte for byte; accesses before, past or
# wrapping around a window, without the right, or through another QP
# (type 2B) fail with REM_ACCESS_ERR and leave memory alone; binds IBTA
# refuses complete with MW_BIND_ERR; LOCAL_INV and SEND with Invalidate
# end a type 2 window (IBV_WC_WITH_INV at the receiver), a type 1 window
# cannot be invalidated; deallocating a window or deregistering its MR
# ends remote access. A type 1 bind naming the window by a stale rkey (its
# key before the last rebind) fails with MW_BIND_ERR; a bound type 2
# window is bound again or invalidated (LOCAL_INV) by no other QP than its
# own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
trap topo_down EXIT

CASES="type1 type2 bounds rights other_qp bind_errors invalidate teardown stale_key other_qp_inv"
caps() {
	local out
	out=$(ibv_devinfo -v -d sroce8) || return 1
	grep -q 'max_mw:[[:space:]]*[1-9]' <<< "$out" &&
	grep -q 'MEM_WINDOW' <<< "$out" || { echo "$out" | grep -E 'max_mw|MEM_WINDOW|cap_flags'; return 1; }
}

ktap_header $((1 + 1 + 10 + 1))
dmesg_mark
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
ktap_result "ibv_devinfo: max_mw and MEM_WINDOW advertised" caps
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/mw_verbs.py" sroce8 -- $CASES
for c in $CASES; do
	ktap_result "MW: $c" py_case_result "$c"
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
