#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: newest
# ibv_query_port_speed() (rdma-core 6x, Linux 7.x) under the sid userland
# (pyverbs and ibv_asyncwatch of rdma-core 65 chrooted in build/sid-root):
# the port's bandwidth is the netdev's link speed in 100 Mb/s (1000 Mb/s
# when the netdev does not know, as query_port's active speed takes it); a
# new link speed (ethtool on the virtio-net eth0, then a link flap, as a
# renegotiation does) shows in the next query and raises one
# IBV_EVENT_DEVICE_SPEED_CHANGE, a flap at the same speed none. Kernels
# without the uverbs method (6.1, 6.12) skip, naming it; make check runs
# it on its newest kernel only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sid-lib.sh"

AW=/tmp/93-port-speed.$$
aw=""
speed0=$(ethtool eth0 2>/dev/null | awk '/Speed:/ { print $2 }')
cleanup() {
	[ -n "$aw" ] && kill "$aw" 2>/dev/null && wait "$aw" 2>/dev/null
	eth0_dev_down
	case "$speed0" in [0-9]*Mb/s) ethtool -s eth0 speed "${speed0%Mb/s}" duplex full ;; esac
	rm -f "$AW"
}
trap cleanup EXIT

# the port's speed from rdma-core 65's pyverbs, or "errno N"
qspeed() {
	timeout 30 "${SID_RUN[@]}" python3 -c '
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError
try:
    print(Context(name="sroce0").query_port_speed(1))
except PyverbsRDMAError as ex:
    print("errno", ex.error_code)'
}
# the speed ethtool shows for eth0, in 100 Mb/s (10 when unknown)
want() {
	local s
	s=$(ethtool eth0 | awk '/Speed:/ { print $2 }')
	case "$s" in [0-9]*Mb/s) echo $((${s%Mb/s} / 100)) ;; *) echo 10 ;; esac
}
flap() { ip link set eth0 down && ip link set eth0 up && sleep 1; }
events() { grep -c "IBV_EVENT_DEVICE_SPEED_CHANGE" "$AW"; }

ktap_header 5
dmesg_mark
eth0_dev_up_or_fail
NAMES=("query_port_speed is the link speed in 100 Mb/s"
       "a new link speed shows in the next query (250)"
       "one IBV_EVENT_DEVICE_SPEED_CHANGE"
       "a flap at the same speed raises none")
got=$(qspeed)
case "$got" in
"errno 95"|"errno 93")
	for n in "${NAMES[@]}"; do
		ktap_skip "$n" "ibv_query_port_speed: ${got} on $(uname -r): no UVERBS_METHOD_QUERY_PORT_SPEED (Linux 7.x has it)"
	done
	ktap_result "dmesg clean" dmesg_clean_since_mark
	ktap_finish ;;
esac
check_now() { echo "# speed ${got}, ethtool $(want)"; [ "$got" = "$(want)" ]; }
ktap_result "${NAMES[0]}" check_now

timeout 60 "${SID_RUN[@]}" stdbuf -oL ibv_asyncwatch -d sroce0 > "$AW" 2>&1 &
aw=$!
# its context is open (events before that are not its): it says so
for _ in $(seq 120); do grep -q "async event FD" "$AW" && break; sleep 0.5; done
sleep 1
change() {
	ethtool -s eth0 speed 25000 duplex full || return 1
	flap
	got=$(qspeed)
	echo "# after ethtool speed 25000 and a flap: ${got}"
	[ "$got" = 250 ]
}
ktap_result "${NAMES[1]}" change
one_event() {
	local n
	for _ in $(seq 20); do n=$(events); [ "$n" -ge 1 ] && break; sleep 0.5; done
	sed "s/^/# /" "$AW"
	[ "$n" = 1 ]
}
ktap_result "${NAMES[2]}" one_event
same() { flap; sleep 1; [ "$(events)" = 1 ]; }
ktap_result "${NAMES[3]}" same
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
