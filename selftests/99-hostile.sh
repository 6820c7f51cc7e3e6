#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: newest
# A hostile RC peer (rc_hostile.py: pyverbs drives the victim QP on sroce8,
# scapy and a raw socket in the peer namespace forge packets from the
# victim's peer address 192.0.2.2 with valid ICRCs):
#   write_first_dereg  WRITE FIRST without LAST, then dereg_mr and
#                      destroy_qp: each returns within 2 s
#   read_err_dereg     16 READ requests queue responses, QP to ERR,
#                      dereg_mr: each returns within 2 s
#   spoofed_responses  ACKs, NAKs and READ responses for PSNs never sent
#                      are ignored, also while a real READ is in flight
#                      (which completes byte-exact)
#   out_of_window      WRITE/SEND/READ requests with PSNs far ahead or
#                      behind are never executed; the QP goes on both ways
#   forged_no_icrc     SENDs marked "sent without ICRC" (the opt-in ICRC
#                      skip's BTH mark) with a zero ICRC, to a QP that did
#                      not opt in: dropped and counted (rx_drop_icrc),
#                      never received; the QP goes on
#   forged_sack        PSN sequence NAKs with a selective repeat SACK block
#                      (well-formed and malformed) to a QP that did not
#                      negotiate it: dropped and counted (sr_sack_rx_drops,
#                      rx_drop_hdr), nothing resent; the QP goes on
#   sr_place           selective repeat's direct placement (victim opted
#                      in, the forged peer claims it): the WRITE MIDDLE and
#                      LAST after a gap are in the MR before the gap is
#                      filled, a MIDDLE past the WRITE's end is never
#                      placed (and NAKed as invalid in its turn)
#   dup_ack_storm      duplicate ACKs while a 4 MiB WRITE is in flight:
#                      it completes once, byte-exact
#   nak_storm          every packet answered by a PSN sequence NAK: the
#                      requester ends with IBV_WC_RETRY_EXC_ERR (retry_cnt 3)
#   reset_init         packets to a QP in RESET or INIT (fresh, or once
#                      connected) are dropped, counted (rx_drop_*), never
#                      answered, and not executed after RTR
#   kill_requester     kill -9 of a process mid 8 MiB WRITE+READ: gone
#                      within 10 s; the survivor's SEND ends RETRY_EXC_ERR
#   kill_responder     kill -9 of the process answering an 8 MiB READ:
#                      gone within 10 s; the requester gets an error
#   flush              IBTA 1.5 FLUSH requests: on a device with FLUSH
#                      (6.12) a range, its duplicate and the whole MR are
#                      answered by zero-length READ Response Only; an MR
#                      without FLUSH_GLOBAL and a persistence flush get a
#                      remote access NAK; without FLUSH (6.1) a FLUSH gets
#                      an invalid request NAK
#   ack_psn            a WRITE, a READ, the WRITE again: both WRITEs are
#                      acknowledged with the WRITE's PSN, never the READ's
#                      (rdma_rxe completes a READ on an ACK of its PSN)
#   mw_inv_write       a type 2 window invalidated (LOCAL_INV) between the
#                      FIRST and the MIDDLEs of a WRITE through it: nothing
#                      after the FIRST lands, a remote access NAK at the
#                      MIDDLE
#   cq_resize_pending  resize_cq up and down with 16 completions not
#                      polled: all 16 polled after, in order
#   rto_goback         an RTO probe answered late (judged needed), then a
#                      sequence NAK's go-back and a duplicate ACK of it:
#                      the duplicate does not count the RTO resend
#                      needless (rto_spurious unchanged)
# After each case a fresh QP pair carries SEND/WRITE/READ both ways
# (":health") and the kernel log is clean (":dmesg"). At the end
# ibv_rc_pingpong and sroce-verify still run between the two devices.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/hostile-lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
VERIFY=${SROCE_TOP:-$here/..}/build/userspace/sroce-verify
LOG=/tmp/99-hostile.$$
CASES=(write_first_dereg read_err_dereg spoofed_responses out_of_window forged_no_icrc
       forged_sack sr_place dup_ack_storm nak_storm reset_init kill_requester kill_responder flush
       ack_psn mw_inv_write cq_resize_pending rto_goback)
cleanup() {
	bg_kill_all
	topo_down_bounded
	rm -f "$LOG" "$LOG".*
}
trap cleanup EXIT
trap 'exit 143' TERM INT

python3 -c 'import scapy, pyverbs' 2>/dev/null || ktap_skip_all "python3-scapy or python3-pyverbs missing"
[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"

# after_all: the two devices still talk (ibv_rc_pingpong, sroce-verify)
pingpong() { pingpong_check 20 "$LOG"; }
verify() {
	local s c
	bg_start s 90 "$LOG.s" ip netns exec srpeer "$VERIFY" -d sroce9 -g 1
	bg_start c 85 "$LOG.c" "$VERIFY" -d sroce8 -g 1 --depth 8 -n 200 --max-size 256K --seed 9 192.0.2.2
	bg_wait_both "$c" "$s" "sroce-verify client" "sroce-verify server"
	tail -n 1 "$LOG.c"; grep -h FAILED "$LOG.c" "$LOG.s"
	[ "$BG_RC_A" -eq 0 ] && [ "$BG_RC_B" -eq 0 ]
}

ktap_header $((1 + 3 * ${#CASES[@]} + 3))
dmesg_mark
ktap_result "topology sroce8 <-> sroce9" topo_up sroce

rc_hostile_cases 480 "$LOG" "${CASES[@]}"

ktap_result "ibv_rc_pingpong --chk sroce8 <-> sroce9 after the hostile cases" pingpong
ktap_result "sroce-verify --depth 8 sroce8 <-> sroce9 after the hostile cases" verify
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
