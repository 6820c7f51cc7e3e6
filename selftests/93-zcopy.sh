#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 300
# sroce-kernels: oldest newest
# Zero-copy transmit (module parameter zcopy, on by default; see
# Documentation/datapath.rst): RC requests and READ responses carry the
# pages of user MRs by reference, and the receive side reads packets in
# place, fragments and all (zcopy_verbs.py, sroce8 -> sroce9 across the
# veth):
#   data on/off   SEND/WRITE/READ of 64 KiB from odd SGE layouts, byte-exact,
#                 by reference with zcopy on (tx_zcopy_pkts) and copied when
#                 a packet needs more fragments than an skb has
#                 (tx_zcopy_fallbacks); nothing by reference with zcopy off
#   uc_reuse      across a path delaying 300 ms (netem): a UC WRITE's buffer,
#                 rewritten as soon as it completes, still arrives as posted
#                 (UC completes once sent: it is copied, never referenced)
#   dereg         across the same path: an RC WRITE's MR deregistered and
#                 its buffer freed while its packets wait, then memory
#                 allocated and filled: dereg returns at once and the
#                 responder gets only the posted bytes (the packets hold
#                 their own page references)
# Then sroce-verify between the two devices, and a clean kernel log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
here=$(cd "$(dirname "$0")" && pwd)
ZC=/sys/module/sroce/parameters/zcopy
cleanup() {
	bg_kill_all
	[ -w "$ZC" ] && echo 1 > "$ZC"
	tc qdisc del dev srA root 2>/dev/null
	topo_down_bounded
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd tc > /dev/null || ktap_skip_all "tc missing"

case_ok() { timeout 90 python3 "$here/zcopy_verbs.py" sroce8 sroce9 "$@"; }
delayed() {
	tc qdisc replace dev srA root netem delay 300ms limit 100000 || return 1
	case_ok "$1"
	local rc=$?
	tc qdisc del dev srA root
	return $rc
}
zc_counted() { [ "$(port_counter sroce8 tx_zcopy_pkts)" -gt 0 ]; }
zcopy_is() { [ "$(cat "$ZC")" = "$1" ]; }
verify() { verify_veth 60 5; }

ktap_header 9
dmesg_mark
ktap_result "topology up" topo_up sroce
ktap_result "zcopy on by default" zcopy_is Y
ktap_result "data, zcopy on" case_ok data on
echo 0 > "$ZC"
ktap_result "data, zcopy off" case_ok data off
echo 1 > "$ZC"
ktap_result "uc_reuse: a completed UC WRITE's buffer rewritten" delayed uc_reuse
ktap_result "dereg: MR deregistered, buffer freed under packets in flight" delayed dereg
ktap_result "sroce-verify sroce8 -> sroce9 (every byte checked)" verify
ktap_result "tx_zcopy_pkts counted" zc_counted
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
