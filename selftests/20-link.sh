#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma link add/delete: several devices, refusals, sysfs identity, parenting,
# the transmit-burst default (tx_gso) per kind of netdev.
. "$(dirname "$0")/lib.sh"

sys=/sys/class/infiniband
cleanup() {
	for d in sroce0 sroce1 sroce2 sroce3; do rdma link delete $d 2>/dev/null; done
	ip link del slk0 2>/dev/null; ip link del slkd 2>/dev/null
}
trap cleanup EXIT

dup_refused() {
	local out
	out=$(rdma link add sroce9 type sroce netdev eth0 2>&1) && return 1
	echo "$out" | grep -qi 'exists'
}
name_taken_refused() {
	local out
	out=$(rdma link add sroce1 type sroce netdev slkd 2>&1) && return 1
	echo "$out" | grep -qi 'exists'
}
lo_refused() { ! rdma link add sroce9 type sroce netdev lo 2>/dev/null; }
missing_netdev_refused() { ! rdma link add sroce9 type sroce netdev nosuch0 2>/dev/null; }
shows() { rdma link show "$1/1" | grep -q "netdev $2"; }
three_devices() { [ "$(compgen -G "$sys/sroce*" | wc -l)" -eq 3 ]; }
delete_one() {
	rdma link delete sroce2 && [ ! -e $sys/sroce2 ] && [ -e $sys/sroce1 ]
}
parented_to_pci() { [ -d $sys/sroce0/device/net/eth0 ]; }
# transmit bursts (tx_gso) on by default where the stack segments them
# before the driver (virtio-net), off where the netdev takes them whole
gso_defaults() {
	echo "tx_gso: eth0 $(cat $sys/sroce0/tx_gso), veth $(cat $sys/sroce1/tx_gso)," \
	     "dummy $(cat $sys/sroce2/tx_gso)"
	[ "$(cat $sys/sroce0/tx_gso)" = 1 ] && [ "$(cat $sys/sroce1/tx_gso)" = 0 ] &&
		[ "$(cat $sys/sroce2/tx_gso)" = 0 ]
}
# module parameter tx_gso_default=N: a new device on virtio-net starts at 0
gso_param_off() {
	local p=/sys/module/sroce/parameters/tx_gso_default rc=0
	echo N > $p || return 1
	{ rdma link delete sroce0 && rdma link add sroce0 type sroce netdev eth0 &&
		[ "$(cat $sys/sroce0/tx_gso)" = 0 ]; } || rc=1
	echo Y > $p
	return $rc
}
no_parent_for_veth() { [ ! -e $sys/sroce1/device ]; }

ktap_header 17
dmesg_mark
ip link set eth0 up
ip link add slk0 type veth peer name slk1
ip link add slkd type dummy
ip link set slk0 up; ip link set slk1 up; ip link set slkd up

ktap_result "add on virtio-net" rdma link add sroce0 type sroce netdev eth0
ktap_result "add on veth" rdma link add sroce1 type sroce netdev slk0
ktap_result "add on dummy" rdma link add sroce2 type sroce netdev slkd
ktap_result "three devices at once" three_devices
ktap_result "tx_gso 1 on virtio-net (segments bursts), 0 on veth and dummy (take them whole)" \
	gso_defaults
ktap_result "rdma link show names the netdev" shows sroce1 slk0
ktap_result "second device on one netdev refused (EEXIST)" dup_refused
ktap_result "name already in use refused (EEXIST)" name_taken_refused
ktap_result "non-Ethernet netdev (lo) refused" lo_refused
ktap_result "unknown netdev refused" missing_netdev_refused
ktap_result "hca_type is sroce" grep -qx sroce $sys/sroce0/hca_type
ktap_result "parent attribute names the netdev" grep -qx slk0 $sys/sroce1/parent
ktap_result "virtio-net device parented to its PCI function" parented_to_pci
ktap_result "veth device has no bus parent" no_parent_for_veth
ktap_result "delete one of several" delete_one
ktap_result "module parameter tx_gso_default=N: a new device on virtio-net starts at 0" \
	gso_param_off
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
