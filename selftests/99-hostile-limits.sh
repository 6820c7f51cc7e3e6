#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 300
# sroce-kernels: oldest
# Limits against a hostile RC peer (rc_hostile.py, as 99-hostile.sh: pyverbs
# drives the victim QP on sroce8, a raw socket in the peer namespace forges
# packets with valid ICRCs):
#   rx_wrong_peer  a flood of large WRITEs and SENDs from an address that is
#                  not the QP's peer: dropped and counted before they are
#                  queued (rx_pkts does not move), never executed
#   rx_backlog     a flood from the real peer address: the QP's receive
#                  queue is bounded in bytes (debugfs "rxq N B/CAPB peak
#                  PB"), its byte count back at 0 after
#   rx_dev_backlog the same flood with the device's bound on all its QPs'
#                  queues (rx_backlog_dev_kb) at 64 KiB: dropped past it and
#                  counted (rx_drop_dev_backlog), the QP's queue within it
#   msg_len        WRITE FIRST/ONLY and READ with a DMA length past
#                  max_msg_sz (2 GiB, 4 GiB - 1): NAK invalid request,
#                  nothing placed
#   xrc_aw_flush   ATOMIC WRITE and FLUSH (XRC and RC opcodes) to an XRC
#                  TGT QP: dropped or NAKed, never executed; an XRC SEND
#                  after them is received
# After each case a fresh QP pair carries SEND/WRITE/READ both ways
# (":health") and the kernel log is clean (":dmesg").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/hostile-lib.sh"

LOG=/tmp/99-hostile-limits.$$
CASES=(rx_wrong_peer rx_backlog rx_dev_backlog msg_len xrc_aw_flush)
cleanup() {
	bg_kill_all
	topo_down_bounded
	echo 65536 > /sys/module/sroce/parameters/rx_backlog_dev_kb 2>/dev/null
	rm -f "$LOG"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

python3 -c 'import scapy, pyverbs' 2>/dev/null || ktap_skip_all "python3-scapy or python3-pyverbs missing"

ktap_header $((1 + 3 * ${#CASES[@]} + 1))
dmesg_mark
ktap_result "topology sroce8 <-> sroce9" topo_up sroce

rc_hostile_cases 240 "$LOG" "${CASES[@]}"

ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
