#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Wide segments (sysfs wide_segments, on by default; transport.rst, *Wide
# segments*): between two sroce devices at path MTU 1024, an RC QP's
# SEND and WRITE packets carry 1408 bytes each but the last once the
# peer's responses offered them, at path MTU 4096 7168 (copied a page at
# a time when zcopy is off); READ responses likewise once the responder
# offered them to a requester whose READs asked (the BTH's Resv7).
# Checked across the veth with a
# capture (dumpcap on srB, every SEND/WRITE MIDDLE of the requester
# measured by its UDP length) and every byte and completion with
# sroce-verify: on, with 2 % of the WRITE packets or of the READ responses
# lost (selective repeat places the later ones by their segment, READ
# repairs ask for the lost responses by it), off on the
# responder, and with its netdev MTU at 1400, too small for them. rdma_rxe
# never offers them: 91-rxe-interop's 1 MiB messages at MTU 1024 both ways.
# sroce-timeout: 300
# One kernel: the wide path itself runs on every kernel, in every
# sroce<->sroce test at path MTU 1024.
# sroce-kernels: newest
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"

VERIFY=${SROCE_TOP:-$(dirname "$0")/..}/build/userspace/sroce-verify
LOG=/tmp/93-wide.$$
ZC=/sys/module/sroce/parameters/zcopy
cleanup() { bg_kill_all; fault_clear; echo Y > "$ZC"; topo_down_bounded; rm -f "$LOG".*; }
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd dumpcap tshark nft > /dev/null || ktap_skip_all "dumpcap, tshark or nft missing"

# UDP lengths of a request packet of P payload bytes: UDP 8, BTH 12, ICRC 4
# (RETH 16 in a WRITE FIRST: those are left out, MIDDLEs suffice)
udp_len() { echo $((8 + 12 + $1 + 4)); }
DEPTH=8
QP=(--depth "$DEPTH" --timeout 60 --qp-timeout 16 --retry-cnt 7)

# segments SEED PMTU WANT ARGS...: sroce-verify from sroce8 to sroce9 at
# path MTU PMTU with the veth captured; the SEND and WRITE MIDDLEs sroce8
# sent and the READ response MIDDLEs sroce9 sent carry WANT bytes each.
# WANT above PMTU: some of each do, none carries another size but PMTU,
# and those of PMTU are at most what the first DEPTH messages hold: an SQ
# entry's segment is fixed when the requester first reads it, and the
# first ones go before any response made the offer.
segments() {
	local seed=$1 pmtu=$2 want=$3 cap=$LOG.pcapng cpid rc sizes n bad rd rdbad mtu
	shift 3
	bg_start cpid 200 /dev/null ip netns exec srpeer dumpcap -q -i srB \
		-f 'udp port 4791' -s 96 -w "$cap"
	sleep 2
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" -m "$pmtu" --seed "$seed" "$@"
	rc=$?
	pkill -INT -s "$cpid" 2>/dev/null
	bg_shorten "$cpid" 10
	bg_wait "$cpid" dumpcap /dev/null > /dev/null
	[ "$rc" -eq 0 ] || return "$rc"
	# opcodes 1 SEND MIDDLE, 7 WRITE MIDDLE (from 192.0.2.1), 14 READ
	# RESPONSE MIDDLE (from 192.0.2.2)
	sizes=$(tshark -r "$cap" -T fields -E separator=' ' -e ip.src \
		-e infiniband.bth.opcode -e udp.length 2>/dev/null)
	# READ response MIDDLEs have no RETH either: the same UDP lengths
	read -r n mtu bad rd rdmtu rdbad < <(awk -v w="$(udp_len "$want")" -v r="$(udp_len "$pmtu")" '
		$1 == "192.0.2.1" && ($2 == 1 || $2 == 7) {
			if ($3 == w) n++; else if ($3 == r) m++; else b++
		}
		$1 == "192.0.2.2" && $2 == 14 {
			if ($3 == w) rd++; else if ($3 == r) rm++; else rb++
		}
		END { print n + 0, m + 0, b + 0, rd + 0, rm + 0, rb + 0 }' <<< "$sizes")
	[ "$want" -eq "$pmtu" ] && mtu=0 rdmtu=0
	echo "SEND/WRITE MIDDLEs: $n of $want bytes, $mtu of $pmtu before the offer, $bad of another size; READ response MIDDLEs: $rd of $want, $rdmtu of $pmtu before the offer, $rdbad of another size"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && [ "$rd" -gt 0 ] && [ "$rdbad" -eq 0 ] &&
		[ "$mtu" -le $((DEPTH * 64)) ] && [ "$rdmtu" -le $((DEPTH * 64)) ]
}

# lossy_run SEED PMTU COUNT OPS CLASS NS: 2 % of the packets of CLASS
# (fault_drop) dropped on arrival in NS, COUNT messages of OPS of 16-256
# KiB byte-exact (at 7168 bytes a packet 96 of them make about 600
# packets), and sroce8 resent some; sets PLACED to the packets sroce9
# placed early meanwhile (selective repeat, by the message's segment)
lossy_run() {
	local before after rc pmtu=$2 count=$3 ops=$4 cls=$5 ns=$6
	before=$(port_counter sroce8 retx_pkts)
	PLACED=$(port_counter sroce9 sr_placed_pkts)
	fault_drop "$cls" 2 "$ns" || return 1
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" -m "$pmtu" --seed "$1" --ops "$ops" \
		--min-size 16K --max-size 256K -n "$count"
	rc=$?
	echo "dropped $(fault_dropped) $cls packets"
	fault_clear
	after=$(port_counter sroce8 retx_pkts)
	PLACED=$(($(port_counter sroce9 sr_placed_pkts) - PLACED))
	echo "sroce8 resent or asked again $((after - before)) times, sroce9 placed $PLACED early"
	[ "$rc" -eq 0 ] && [ "$after" -gt "$before" ]
}

# lossy SEED PMTU COUNT: sroce8's WRITE packets lost at sroce9, which
# placed some early; lossy_read SEED PMTU COUNT: the READ responses
# sroce9 sends lost at sroce8, which asked again (repairs, resent READs)
lossy() { lossy_run "$1" "$2" "$3" write write peer && [ "$PLACED" -gt 0 ]; }
lossy_read() { lossy_run "$1" "$2" "$3" read rdresp init; }

wide() { echo "$2" > "/sys/class/infiniband/$1/wide_segments"; }
# up to 64 KiB: at most 63 MIDDLEs a message (segments())
MIXED=(--ops 'send,send_imm,write,write_imm,read' --min-size 8K --max-size 64K -n 48)

ktap_header 13
dmesg_mark
modprobe -q nf_tables 2>/dev/null
ktap_result "topology up" topo_up sroce
ktap_result "wide_segments on by default on both, rejects a non-boolean" \
	bash -c "grep -qx 1 /sys/class/infiniband/sroce8/wide_segments &&
		 grep -qx 1 /sys/class/infiniband/sroce9/wide_segments &&
		 ! echo maybe > /sys/class/infiniband/sroce8/wide_segments"
ktap_result "on, path MTU 1024: SEND/WRITE MIDDLEs and READ responses of 1408 bytes, byte-exact" \
	segments 51 1024 1408 "${MIXED[@]}"
ktap_result "path MTU 4096 (veth MTU 9000): SEND/WRITE MIDDLEs and READ responses of 7168 bytes, byte-exact" \
	segments 55 4096 7168 --ops 'send,send_imm,write,write_imm,read' --min-size 32K --max-size 256K -n 24
echo N > "$ZC"
ktap_result "zcopy off, path MTU 4096: 7168-byte MIDDLEs copied a page at a time, byte-exact" \
	segments 56 4096 7168 --ops 'send,send_imm,write,write_imm,read' --min-size 32K --max-size 256K -n 24
echo Y > "$ZC"
ktap_result "on, 2 % of WRITE packets lost: byte-exact, resent" lossy 52 1024 32
ktap_result "path MTU 4096 (7168-byte segments), 2 % of WRITE packets lost: byte-exact, resent" \
	lossy 57 4096 96
ktap_result "on, 2 % of READ responses lost: byte-exact, asked again" lossy_read 58 1024 32
ktap_result "path MTU 4096, 2 % of 7168-byte READ responses lost: byte-exact, asked again" \
	lossy_read 59 4096 96
wide sroce9 0
ktap_result "off on the responder: MIDDLEs and READ responses of 1024 bytes, byte-exact" \
	segments 53 1024 1024 "${MIXED[@]}"
wide sroce9 1
in_peer ip link set srB mtu 1400
ktap_result "responder's netdev MTU 1400 (under 1408 + 84): MIDDLEs of 1024 bytes, byte-exact" \
	segments 54 1024 1024 "${MIXED[@]}"
topo_down_bounded
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_result "nothing left running" bash -c "! pgrep -x dumpcap && ! pgrep -x sroce-verify"
ktap_finish
