#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: newest
# Adaptive routing (sysfs adaptive_routing, off by default, and ar_paths;
# Documentation/transport.rst, "Adaptive routing"): an RC WRITE leaves as
# one WRITE ONLY per MTU with its own RETH and the AR bit (BTH Resv8a 0x10),
# sprayed over ar_paths UDP source ports, and a sroce responder doing
# selective repeat places each early one at arrival. What the wire carries
# is counted by an nftables table at the receiver's input (BTH opcodes,
# the AR bit, a set of the source ports seen):
#   - without AR the wire is as before: WRITE FIRST/MIDDLE/LAST, no AR bit,
#     one source port;
#   - with AR across a veth that reorders (netem), WRITEs of 1 B .. 4 MiB
#     byte-exact, no FIRST/MIDDLE/LAST, exactly ar_paths source ports, and
#     at least 90 % of the early WRITE packets placed at arrival
#     (sr_placed_pkts against sr_held_pkts);
#   - NCCL's pattern (plain WRITEs, then a zero-length WRITE_WITH_IMM)
#     byte-exact, the immediate's completion after the data;
#   - hand-made early packets (rc_hostile.py): placement, a RETH past the
#     MR's end (NAK remote access, QP error), a WRITE behind a held SEND
#     with Invalidate (held, not placed; NAKed once the window is gone),
#     an MR deregistered mid-stream;
#   - an AR sender to an rdma_rxe receiver: byte-exact (IBTA WRITE ONLYs).
# Newest kernel only: the transport code is the same on every kernel.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"
. "$(dirname "$0")/hostile-lib.sh"

LOG=/tmp/93-ar.$$
TABLE=sroce_ar
CASES=(ar_place ar_bounds ar_inv ar_dereg)
cleanup() {
	bg_kill_all
	nft delete table inet "$TABLE" 2>/dev/null
	[ ! -e /run/netns/srpeer ] || ip netns exec srpeer nft delete table inet "$TABLE" 2>/dev/null
	tc qdisc del dev srA root 2>/dev/null
	topo_down_bounded
	rm -f "$LOG"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
require_cmd tc > /dev/null || ktap_skip_all "tc missing"
require_cmd nft > /dev/null || ktap_skip_all "nft missing"

sys() { echo "/sys/class/infiniband/$1/$2"; }
# knob NAME VALUE DEV...
knob() { local n=$1 v=$2 d; shift 2; for d in "$@"; do echo "$v" > "$(sys "$d" "$n")" || return 1; done; }

# wire_up NS: count what arrives in NS for UDP port 4791 (fault_ns: init, peer)
wire_up() {
	fault_ns "$1" nft -f - <<-EOF
	table inet $TABLE
	delete table inet $TABLE
	table inet $TABLE {
		counter fml {}
		counter only {}
		counter arbit {}
		set sports { type inet_service; flags dynamic; size 1024; }
		chain input {
			type filter hook input priority -10; policy accept;
			udp dport 4791 @th,64,8 { 0x06, 0x07, 0x08, 0x09 } counter name fml
			udp dport 4791 @th,64,8 { 0x0a, 0x0b } counter name only
			udp dport 4791 @th,96,8 & 0x10 == 0x10 counter name arbit
			udp dport 4791 @th,64,8 < 0x0c add @sports { udp sport }
		}
	}
	EOF
}
# wire NS NAME: packets of counter NAME, or "ports" for the source ports seen
wire() {
	if [ "$2" = ports ]; then
		fault_ns "$1" nft list set inet "$TABLE" sports | grep -oE '\b[0-9]{5}\b' | sort -u | wc -l
	else
		fault_ns "$1" nft list counter inet "$TABLE" "$2" | sed -n 's/.*packets \([0-9]*\).*/\1/p'
	fi
}

# the movement of the responder's placement counters: "placed held"
ctr_snap() { P0=$(port_counter sroce9 sr_placed_pkts) H0=$(port_counter sroce9 sr_held_pkts); }
ctr_move() { echo "$(($(port_counter sroce9 sr_placed_pkts) - P0)) $(($(port_counter sroce9 sr_held_pkts) - H0))"; }

netem() {
	tc qdisc del dev srA root 2>/dev/null
	[ $# -gt 0 ] || return 0
	tc qdisc add dev srA root netem "$@"
}

# run ARGS...: sroce-verify, sroce8 (init) writes to sroce9 (srpeer)
run() { verify_run exact peer sroce9 sroce8 192.0.2.2 --initiator client "$@"; }

WARGS=(-m 1024 --ops write --depth 4 --timeout 60)

ktap_header $((10 + 3 * ${#CASES[@]} + 3))
dmesg_mark
ktap_result "topology sroce8 <-> sroce9" topo_up sroce
ktap_result "adaptive_routing 0 and ar_paths 8 by default, ar_paths refuses 0 and 65" \
	bash -c "test \"\$(cat $(sys sroce8 adaptive_routing))\" = 0 -a \"\$(cat $(sys sroce8 ar_paths))\" = 8 &&
		 ! echo 0 > $(sys sroce8 ar_paths) && ! echo 65 > $(sys sroce8 ar_paths)"

# without AR: the wire as before (selective repeat on, as below)
knob selective_repeat 1 sroce8 sroce9
wire_up peer
ktap_case "without AR, WRITEs up to 64 KiB: byte-exact" run "${WARGS[@]}" -n 30 --max-size 64K --seed 1
no_ar_wire() {
	echo "FIRST/MIDDLE/LAST $(wire peer fml), ONLY $(wire peer only), AR bit $(wire peer arbit)," \
	     "source ports $(wire peer ports)"
	test "$(wire peer fml)" -gt 0 -a "$(wire peer arbit)" -eq 0 -a "$(wire peer ports)" -eq 1
}
ktap_result "without AR: WRITE FIRST/MIDDLE/LAST, no AR bit, one source port" no_ar_wire

# AR on both ends, 8 paths, a reordering veth
knob adaptive_routing 1 sroce8 sroce9
wire_up peer
netem delay 2ms reorder 25% 50%
ctr_snap
ktap_case "AR, reorder 25 %: WRITEs of 1 B .. 4 MiB byte-exact" \
	run "${WARGS[@]}" -n 24 --min-size 1 --max-size 4M --seed 2
read -r placed held <<< "$(ctr_move)"
ar_wire() {
	echo "FIRST/MIDDLE/LAST $(wire peer fml), ONLY $(wire peer only), AR bit $(wire peer arbit)," \
	     "source ports $(wire peer ports)"
	test "$(wire peer fml)" -eq 0 -a "$(wire peer only)" -gt 0 -a "$(wire peer arbit)" -gt 0
}
ktap_result "AR: only WRITE ONLYs, each with the AR bit" ar_wire
ktap_result "AR: the source ports seen are ar_paths (8) distinct values" \
	test "$(wire peer ports)" -eq 8
placed_ok() {
	echo "early WRITE packets: $placed placed at arrival, $held held"
	test "$placed" -gt 0 -a $((placed * 100)) -ge $(((placed + held) * 90))
}
ktap_result "AR: at least 90 % of the early WRITE packets placed at arrival" placed_ok

knob ar_paths 3 sroce8
wire_up peer
ktap_case "AR, ar_paths 3, NCCL pattern over 2 QPs, reorder 25 %: byte-exact" \
	run --nccl --qps 2 -m 1024 --ar-threshold 1024 --max-size 128K -n 24 --timeout 60 --seed 3
ktap_result "AR, ar_paths 3: 2 QPs x 3 source ports seen" test "$(wire peer ports)" -eq 6
knob ar_paths 8 sroce8
netem
fault_ns peer nft delete table inet "$TABLE"

# hand-made early packets against a victim on sroce8 (AR off there: the
# victim's placement depends on the AR bit of the packets, not its knob)
knob adaptive_routing 0 sroce8 sroce9
knob selective_repeat 0 sroce8 sroce9
if python3 -c 'import scapy, pyverbs' 2>/dev/null; then
	rc_hostile_cases 300 "$LOG" "${CASES[@]}"
else
	for c in "${CASES[@]}"; do
		for k in "" :health :dmesg; do ktap_skip "$c$k" "python3-scapy or python3-pyverbs missing"; done
	done
fi
topo_down_bounded

# an AR sender (sroce9) to rdma_rxe (rxe8): valid IBTA WRITE ONLYs
if require_module rdma_rxe > /dev/null && topo_up rxe; then
	knob adaptive_routing 1 sroce9
	wire_up init
	ktap_case "AR sroce -> rxe, WRITEs of 1 B .. 1 MiB: byte-exact" \
		verify_run exact peer sroce9 rxe8 192.0.2.2 --initiator server "${WARGS[@]}" \
		-n 24 --min-size 1 --max-size 1M --seed 4
	ktap_result "AR sroce -> rxe: WRITE ONLYs with the AR bit, 8 source ports" \
		bash -c "echo ONLY $(wire init only) FML $(wire init fml) AR $(wire init arbit) ports $(wire init ports);
			 test $(wire init only) -gt 0 -a $(wire init fml) -eq 0 -a $(wire init ports) -eq 8"
	nft delete table inet "$TABLE"
	topo_down_bounded
else
	ktap_skip "AR sroce -> rxe, WRITEs of 1 B .. 1 MiB: byte-exact" "rdma_rxe missing or no topology"
	ktap_skip "AR sroce -> rxe: WRITE ONLYs with the AR bit, 8 source ports" "rdma_rxe missing or no topology"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
