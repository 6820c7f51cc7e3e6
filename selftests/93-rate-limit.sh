#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# Per-QP rate limits (rate_limit.py, pyverbs, one device in loopback):
# packet_pacing_caps; an RC and a UC QP limited in RTS (IBV_QP_RATE_LIMIT)
# send no faster than the limit allows, byte-exact; a limit set on the way
# RTR -> RTS holds from the first packet; limit 0 and RESET lift it (the
# rate_limit_kbps attribute of `rdma resource show qp -dd` comes and
# goes); out-of-range limits, a QP not in or going to RTS, and a UD QP are
# refused.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")

cleanup() { eth0_dev_down; }
trap cleanup EXIT

python3 -c 'import pyverbs' 2>/dev/null || ktap_skip_all "python3-pyverbs missing"


CASES=(caps paced uc rtr reset refused)
ktap_header $((${#CASES[@]} + 1))
dmesg_mark
eth0_dev_up_or_fail
# every case in one python3 (py_cases, lib.sh)
py_cases 120 "$here/rate_limit.py" sroce0 1 -- "${CASES[@]}"
for c in "${CASES[@]}"; do
	ktap_result "rate limit: $c" py_case_result "$c"
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
