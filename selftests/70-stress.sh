#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: newest
# 100x add/delete leaves no leak: module refcount back to 0, the netdev
# can still be deleted at once (no reference leak), slab usage does not grow
# with the iteration count, dmesg stays clean.
. "$(dirname "$0")/lib.sh"

cleanup() { rdma link delete sroce0 2>/dev/null; ip link del sst0 2>/dev/null; }
trap cleanup EXIT

# kmalloc + ib objects in KiB, after letting RCU-freed objects go
slab_kb() { sync; sleep 1; echo 2 > /proc/sys/vm/drop_caches; awk '/^Slab:/ {print $2}' /proc/meminfo; }
cycles() {
	for _ in $(seq "$1"); do
		rdma link add sroce0 type sroce netdev sst0 || return 1
		rdma link delete sroce0 || return 1
	done
}
modref() { awk '$1 == "sroce" {print $3}' /proc/modules; }

ktap_header 6
dmesg_mark
ip link add sst0 type veth peer name sst1
ip link set sst0 up; ip link set sst1 up
# warm caches: on 6.1 the first hundred cycles grow Slab by up to ~300 KiB
# (per-CPU partial slabs filling), the next hundred by ~25 KiB; a leak of
# a device's objects grows every hundred alike
cycles 100
s0=$(slab_kb)
ktap_result "100x rdma link add/delete" cycles 100
s1=$(slab_kb)
# one device is a few KiB: 100 leaked ones would be hundreds of KiB
ktap_slab_bound "slab growth under 256 KiB after 100 cycles" "$s0" "$s1" 256
ktap_result "module refcount back to 0" test "$(modref)" = 0
ktap_result "netdev deletes at once" timeout 20 ip link del sst0
ktap_result "rmmod after the cycles" sh -c 'rmmod sroce && modprobe sroce'
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
