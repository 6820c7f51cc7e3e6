#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 420
# sroce-kernels: newest
# Selective repeat (sysfs selective_repeat, on by default unless the module
# parameter sr_default was off when the device was created; see
# Documentation/multipath.rst): across a veth that reorders (netem), two
# sroce devices that both allow it hold out-of-order SEND/WRITE packets,
# NAK a gap with a SACK block (at once: no adaptive routing here), and resend
# only what is missing. The same sroce-verify run (WRITE and SEND, 8
# outstanding, every byte checked) goes once with go-back-N and once with
# selective repeat: both byte-exact, and selective repeat held the
# out-of-order packets that go-back-N drops and has resent. How many
# fewer packets it resent is printed, not judged: netem's reordering is
# random, and how much of it either pays for depends on how many packets
# the host has in flight (an RNR NAK makes selective repeat resend all
# too); make bench --sr measures it. That it resends only the holes is
# judged where it is deterministic: one 3-packet WRITE at a time, its
# MIDDLE dropped, exactly the dropped packets are resent. READs are left
# out of those runs (the runs after them add READ): their responses go
# the other way, and selective READ is judged on its own: the same READs
# lose 3 % of their responses, once going back to the first lost one
# (module parameter selective_read=N) and once keeping the later responses
# and asking again only for the lost (READ repairs): both byte-exact, and
# the repairs sent fewer packets in all (by far: a go-back resends the
# rest of its READ and every later one in flight, a repair one packet);
# with every other repair lost as well, the resend timer asks for the
# holes again before it goes back. What the QPs hold counts in the
# device's receive backlog bound: at its least, holds past it are
# refused, still byte-exact. Also
# with 2 % loss, in NCCL's pattern, and with selective repeat on one end
# only and against rdma_rxe, where it falls back to go-back-N and never
# sends a SACK. In the lossy runs no SEND or WRITE packet arrived further
# ahead than the responder holds (sr_far_drops: the requester's reach).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"

CTRDIR=$(mktemp -d /tmp/93-sr.XXXXXX)
DEVKB=/sys/module/sroce/parameters/rx_backlog_dev_kb
DEVKB0=$(cat "$DEVKB" 2>/dev/null)
SRDEF=/sys/module/sroce/parameters/sr_default
cleanup() {
	bg_kill_all
	[ -z "$DEVKB0" ] || echo "$DEVKB0" > "$DEVKB"
	echo Y > "$SELRD" 2>/dev/null
	echo Y > "$SRDEF" 2>/dev/null
	rdma link delete sroce7 2>/dev/null
	ip link del srdum 2>/dev/null
	rm -rf "$CTRDIR"
	tc qdisc del dev srA root 2>/dev/null
	topo_down_bounded
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd tc > /dev/null || ktap_skip_all "tc missing"

sys() { echo "/sys/class/infiniband/$1/selective_repeat"; }
sr_set() { echo "$1" > "$(sys sroce8)" && echo "$2" > "$(sys sroce9)"; }

# netem on both ends of the veth: ARGS, or none
netem() {
	tc qdisc del dev srA root 2>/dev/null
	in_peer tc qdisc del dev srB root 2>/dev/null
	[ $# -gt 0 ] || return 0
	tc qdisc add dev srA root netem "$@" && in_peer tc qdisc add dev srB root netem "$@"
}

# shellcheck disable=SC2034 # read by fault-lib.sh (ctr_snap, ctr_delta)
CTRS="tx_pkts selrd_repairs selrd_reasks selrd_placed_pkts retx_pkts retx_bytes sr_ooo_rx_pkts sr_placed_pkts sr_sack_tx sr_sack_rx sr_retx_skipped_pkts sr_window_pkts sr_sack_rx_drops sr_hold_drops sr_far_drops local_ack_timeouts"
# ctr_val NAME: counter NAME of sroce8 and sroce9 added up (fault-lib.sh,
# ctr_snap; got NAME CTR: how CTR moved in run NAME)
ctr_val() { echo $(($(port_counter sroce8 "$1") + $(port_counter sroce9 "$1"))); }

# run NAME ARGS...: sroce-verify sroce9 (server, srpeer) <-> sroce8
run() {
	local name=$1 rc t0=$SECONDS
	shift
	ctr_snap
	verify_run exact peer sroce9 sroce8 192.0.2.2 "$@"
	rc=$?
	ctr_delta "$name"
	echo "$((SECONDS - t0)) s"
	return $rc
}

# held SR GBN: selective repeat held out-of-order packets (go-back-N
# drops them and has them resent), no SACK dropped; both runs' resends
# printed, not judged (random reordering, host-dependent: make bench --sr)
held() {
	echo "selective repeat: $(got "$1" sr_ooo_rx_pkts) packets held, $(got "$1" retx_pkts) resent," \
	     "$(got "$1" sr_retx_skipped_pkts) resends skipped; go-back-N: $(got "$2" retx_pkts) resent"
	test "$(got "$1" sr_ooo_rx_pkts)" -gt 0 -a "$(got "$2" sr_ooo_rx_pkts)" -eq 0 -a \
	     "$(got "$1" sr_sack_rx_drops)" -eq 0
}

# in srpeer, drop WRITE MIDDLE packets 3, 8, 13, ... (nft numgen counts
# the MIDDLEs only): with one 3-packet WRITE at a time, the LAST after the
# gap is the last packet on the wire, nothing comes to NAK it
tail_drop() { fault_rule peer "@th,64,8 0x07 numgen inc mod 5 == 2"; }

# selective READ: READs of 16-64 KiB (16-64 responses), 8 outstanding,
# 3 % of the READ responses arriving at sroce8 dropped (a drop pattern
# that repeats itself can make a go-back lose the same response every
# time until the retry budget is spent)
SELRD=/sys/module/sroce/parameters/selective_read
RDARGS=(-m 1024 -n 48 --depth 8 --min-size 16K --max-size 64K --ops read --initiator client
	--timeout 30 --seed 18)
# rd_run NAME Y|N [lose]: the READ run with selective_read Y or N; lose:
# every other READ repair request lost too (RC READ request, BTH Resv8a's
# REPAIR bit 0x08 set; dropped in srpeer, where sroce9 answers them)
rd_run() {
	local rc
	echo "$2" > "$SELRD" || return 1
	fault_drop rdresp 3 init || return 1
	if [ "${3:-}" = lose ]; then
		fault_rule peer "@th,64,8 0x0c @th,100,1 1 numgen inc mod 2 == 0" || return 1
	fi
	run "$1" "${RDARGS[@]}"
	rc=$?
	echo "dropped $(fault_dropped)" >> "$CTRDIR/$1"
	fault_clear
	echo Y > "$SELRD"
	return $rc
}
# selective READ placed responses after the holes and sent repairs, going
# back did neither, and the repairs cost fewer packets than going back
rd_ok() {
	echo "selective READ: $(got rdsel dropped) lost, $(got rdsel selrd_repairs) repairs," \
	     "$(got rdsel selrd_placed_pkts) responses placed past a hole, $(got rdsel tx_pkts) packets sent;" \
	     "going back: $(got rdgbn dropped) lost, $(got rdgbn tx_pkts) packets sent"
	test "$(got rdsel dropped)" -gt 0 -a "$(got rdsel selrd_repairs)" -gt 0 -a \
	     "$(got rdsel selrd_placed_pkts)" -gt 0 -a "$(got rdgbn selrd_repairs)" -eq 0 -a \
	     "$(got rdgbn selrd_placed_pkts)" -eq 0 -a "$(got rdsel tx_pkts)" -lt "$(got rdgbn tx_pkts)"
}

# the run that lost repairs too asked for its holes again on the timer
reask_ok() {
	echo "lost $(got rdlose dropped) responses and repairs; $(got rdlose selrd_repairs) repairs," \
	     "$(got rdlose selrd_reasks) timer expiries asked for the holes again"
	test "$(got rdlose selrd_reasks)" -gt 0
}

VARGS=(-m 1024 -n 40 --depth 8 --max-size 64K --ops 'write,send,read' --timeout 30)
# what selective repeat covers: SEND and WRITE
SRARGS=(-m 1024 -n 40 --depth 8 --max-size 64K --ops 'write,send' --timeout 30)

# a device created while the module parameter sr_default is N starts
# with sysfs selective_repeat 0, and the parameter back at Y changes no
# existing device
param_off() {
	ip link add srdum type dummy || return 1
	echo N > "$SRDEF" || return 1
	rdma link add sroce7 type sroce netdev srdum || return 1
	echo Y > "$SRDEF"
	echo "new device with the parameter N: selective_repeat $(cat "$(sys sroce7)")"
	[ "$(cat "$(sys sroce7)")" = 0 ] && [ "$(cat "$(sys sroce8)")" = 1 ] &&
		rdma link delete sroce7 && ip link del srdum
}

ktap_header 27
dmesg_mark
ktap_result "topology sroce8 <-> sroce9" topo_up sroce
ktap_result "selective_repeat on by default, rejects a non-boolean" \
	bash -c "test \"\$(cat $(sys sroce8))\" = 1 -a \"\$(cat $(sys sroce9))\" = 1 && ! echo maybe > $(sys sroce8)"
ktap_result "module parameter sr_default=N: new devices start with 0" param_off

netem delay 2ms reorder 25% 50%
sr_set 0 0
ktap_case "go-back-N, reorder 25 %: byte-exact" run gbn "${SRARGS[@]}" --seed 11
sr_set 1 1
ktap_case "selective repeat, reorder 25 %: byte-exact" run sr "${SRARGS[@]}" --seed 11
ktap_result "selective repeat held out-of-order packets, go-back-N none" \
	held sr gbn

netem delay 2ms reorder 50% 50% loss 2%
ktap_case "selective repeat, reorder 50 % and 2 % loss: byte-exact" run sr50 "${VARGS[@]}" --seed 12
ktap_result "reorder 50 % and loss: packets held, SACKs sent, none dropped" \
	test "$(got sr50 sr_ooo_rx_pkts)" -gt 0 -a "$(got sr50 sr_sack_tx)" -gt 0 -a \
	     "$(got sr50 sr_sack_rx_drops)" -eq 0
# the window counts from the oldest unacknowledged PSN: while a SACK's
# hole is filled, what went behind it (held by the responder) leaves the
# count, and packets past the plain window go (transport.rst, Loss window)
ktap_result "a hole being filled: packets sent past the plain window (sr_window_pkts)" \
	test "$(got sr50 sr_window_pkts)" -gt 0
# (at 25 % a packet that jumps the queue mostly jumps its WRITE's FIRST too:
# held, not placed; placement needs the FIRST executed, see transport.rst)
ktap_result "early WRITE packets placed at arrival (sr_placed_pkts), none by go-back-N" \
	test "$(got sr50 sr_placed_pkts)" -gt 0 -a "$(got gbn sr_placed_pkts)" -eq 0
# the device-wide bound: what its QPs hold counts in rx_backlog_dev_kb with
# the packets queued to them; at its least (64 KiB, a few dozen packets)
# the holds past it are refused and the gap NAKed, still byte-exact (SENDs
# of 32-64 KiB, 8 outstanding: a SEND's early packets are held, never
# placed, and a 2 ms reordering gap lets more than 64 KiB arrive after it)
echo 64 > "$DEVKB"
ktap_case "selective repeat within a 64 KiB device backlog, reorder 50 % and 2 % loss: byte-exact" \
	run srdev -m 1024 -n 40 --depth 8 --min-size 32K --max-size 64K --ops send \
	--timeout 30 --seed 17
echo "$DEVKB0" > "$DEVKB"
ktap_result "holds past the device's backlog bound refused (sr_hold_drops)" \
	test "$(got srdev sr_hold_drops)" -gt 0
netem
tail_drop
# the requester's ACK timeout 2^22 x 4.096 us = 17 s (--qp-timeout 22),
# not the default 537 ms: the responder's NAK then wins by construction,
# not by the host's speed, and an ACK timeout seen means the gap was not
# NAKed by the responder at all
ktap_case "selective repeat, a lost packet with nothing after it: byte-exact" \
	run tail -m 1024 -n 10 --depth 1 --min-size 3072 --max-size 3072 \
	--ops write --initiator client --seed 16 --qp-timeout 22 --timeout 60
echo "dropped $(fault_dropped)" >> "$CTRDIR/tail"
fault_clear
# the held LAST NAKs the gap with a SACK at once (no adaptive routing on
# either end, so no reordering window: transport.rst): the requester
# resends the MIDDLE only (exactly one packet per drop; go-back-N sends
# the LAST again too) and never waits for its ACK timeout (17 s here)
tail_ok() {
	echo "dropped $(got tail dropped), resent $(got tail retx_pkts), SACKs $(got tail sr_sack_tx), skipped $(got tail sr_retx_skipped_pkts), ACK timeouts $(got tail local_ack_timeouts)"
	test "$(got tail dropped)" -gt 0 -a "$(got tail sr_sack_tx)" -gt 0 -a \
	     "$(got tail retx_pkts)" -eq "$(got tail dropped)" -a \
	     "$(got tail sr_retx_skipped_pkts)" -gt 0 -a "$(got tail local_ack_timeouts)" -eq 0
}
ktap_result "a gap nothing follows: NAKed with a SACK, only the hole resent, no ACK timeout" tail_ok
# 8 WRITEs of 64 KiB in flight (512 PSNs, which the loss window lets go
# over a 2 ms path), one WRITE MIDDLE in 600 lost in srpeer
netem delay 2ms
fault_rule peer "@th,64,8 0x07 numgen inc mod 600 == 300"
ktap_case "selective repeat, 8 WRITEs of 64 KiB in flight, one packet in 600 lost: byte-exact" \
	run far -m 1024 -n 40 --depth 8 --min-size 64K --max-size 64K --ops write \
	--initiator client --seed 19 --timeout 60
echo "dropped $(fault_dropped)" >> "$CTRDIR/far"
fault_clear
netem
ktap_case "READs, 3 % of responses lost, going back (selective_read=N): byte-exact" \
	rd_run rdgbn N
ktap_case "READs, 3 % of responses lost, selective READ: byte-exact" rd_run rdsel Y
ktap_result "selective READ: later responses kept, only the lost asked again, fewer packets" rd_ok
# a lost repair leaves its hole open: the resend timer asks for every
# hole again once (selrd_reasks) before it would go back
ktap_case "READs, 3 % of responses and every other repair lost, selective READ: byte-exact" \
	rd_run rdlose Y lose
ktap_result "selective READ: a lost repair asked for again by the resend timer" reask_ok
netem delay 2ms reorder 50% 50% loss 2%
ktap_case "selective repeat, NCCL pattern, 2 QPs, reorder 50 % and 2 % loss: byte-exact" \
	run nccl --nccl --qps 2 -m 1024 -n 24 --max-size 128K --timeout 30 --seed 13
# the requester keeps SEND and WRITE packets within 126 PSNs of the oldest
# unacknowledged one, as far as the responder holds past a lost one
# (multipath.rst, Reach): in the lossy runs none arrived further ahead
far_ok() {
	echo "lost $(got far dropped) of 512 PSNs in flight: held $(got far sr_ooo_rx_pkts)," \
	     "$(got far retx_pkts) resent; arrived too far ahead to be held: $(got far sr_far_drops)," \
	     "$(got sr50 sr_far_drops) (reorder 50 %), $(got nccl sr_far_drops) (NCCL pattern)"
	test "$(got far dropped)" -gt 0 -a "$(got far sr_ooo_rx_pkts)" -gt 0 -a \
	     "$(got far sr_far_drops)" -eq 0 -a "$(got sr50 sr_far_drops)" -eq 0 -a \
	     "$(got nccl sr_far_drops)" -eq 0
}
ktap_result "requests kept within the responder's reach: none came too far ahead (sr_far_drops)" far_ok

netem delay 2ms reorder 25% 50%
sr_set 1 0
ktap_case "selective repeat on one end only, reorder 25 %: byte-exact" run one "${VARGS[@]}" --seed 14
ktap_result "one end only: go-back-N, nothing held, no SACK sent" \
	test "$(got one sr_ooo_rx_pkts)" -eq 0 -a "$(got one sr_sack_tx)" -eq 0
netem
topo_down_bounded
if require_module rdma_rxe > /dev/null; then
	if topo_up rxe; then
		echo 1 > "$(sys sroce9)"
		s0=$(port_counter sroce9 sr_sack_tx) o0=$(port_counter sroce9 sr_ooo_rx_pkts)
		ktap_case "rxe <-> sroce (selective_repeat 1): byte-exact" \
			verify_run exact peer sroce9 rxe8 192.0.2.2 "${VARGS[@]}" --seed 15
		ktap_result "rxe peer: falls back, nothing held, no SACK sent" \
			test "$(port_counter sroce9 sr_sack_tx)" -eq "$s0" -a \
			"$(port_counter sroce9 sr_ooo_rx_pkts)" -eq "$o0"
		topo_down_bounded
	else
		ktap_fail "rxe <-> sroce (selective_repeat 1): byte-exact" "topology with rxe8 failed"
		ktap_skip "rxe peer: falls back" "no topology"
	fi
else
	ktap_skip "rxe <-> sroce (selective_repeat 1): byte-exact" "rdma_rxe missing"
	ktap_skip "rxe peer: falls back" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
