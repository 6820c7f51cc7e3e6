#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce.ko load/unload: auto-load through the rdma-link alias, unload with
# devices present, reload, and the UDP 4791 sockets' lifetime across it.
. "$(dirname "$0")/lib.sh"

udp4791() { ss -Hlun "sport = :4791" 2>/dev/null | wc -l; }
no_sroce_devs() { ! compgen -G '/sys/class/infiniband/sroce*' > /dev/null; }
autoload() {
	rmmod sroce 2>/dev/null
	! grep -qw '^sroce' /proc/modules &&
	rdma link add sroce0 type sroce netdev eth0 &&
	grep -qw '^sroce' /proc/modules &&
	rdma link delete sroce0
}
reload_cycle() {
	modprobe sroce && rdma link add sroce0 type sroce netdev eth0 &&
	rdma link delete sroce0
}

ktap_header 9
dmesg_mark
ip link set eth0 up
modprobe sroce 2>/dev/null
ktap_result "module loaded" grep -qw '^sroce' /proc/modules
ktap_result "rdma link add auto-loads sroce (rdma-link-sroce alias)" autoload
ktap_result "no socket without devices" test "$(udp4791)" -eq 0
rdma link add sroce0 type sroce netdev eth0
ip link add smod0 type veth peer name smod1
rdma link add sroce1 type sroce netdev smod0
ktap_result "IPv4 and IPv6 sockets open with the first device" test "$(udp4791)" -eq 2
ktap_result "rmmod with devices present" rmmod sroce
ktap_result "devices gone after rmmod" no_sroce_devs
ktap_result "sockets closed after rmmod" test "$(udp4791)" -eq 0
ip link del smod0 2>/dev/null
ktap_result "reload, add, delete" reload_cycle
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
