#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# The extended verbs of the provider (verbs_ex.py, pyverbs, one device in
# loopback): an ibv_wr_* batch mixing inline SEND, two-SGE RDMA WRITE and
# SEND with immediate, read back through an extended CQ (ibv_start_poll);
# wr_abort; batches that fail (too many SGEs, too much inline data, a full
# SQ, a QP in RESET) posting nothing; and what must be refused
# (EOPNOTSUPP: send ops without a transport behind them, create_flags,
# CQ CVLAN/flow tag); completion time stamps (device clock and wall clock)
# bracketed by ibv_query_rt_values_ex() and the host's clock.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")

cleanup() { eth0_dev_down; }
trap cleanup EXIT


ktap_header 6
dmesg_mark
eth0_dev_up_or_fail
# every case in one python3 (py_cases, lib.sh)
py_cases 60 "$here/verbs_ex.py" sroce0 1 -- batch abort errors refused timestamps
for c in batch abort errors refused timestamps; do
	ktap_result "extended verbs: $c" py_case_result "$c"
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
