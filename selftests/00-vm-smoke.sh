#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 00-vm-smoke.sh - sanity checks of the qemu/vm-run guest itself: module
# loading through the modprobe wrapper and request_module, veth, rdma_rxe
# with the host's rdma-core tools, the libibverbs provider overlay, the
# writable checkout. Runs inside the VM (selftests/run).
# shellcheck source=selftests/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${SROCE_VM:-}" = 1 ] || ktap_skip_all "not inside a qemu/vm-run guest"

ktap_header 9
dmesg_mark smoke

ktap_result "modprobe veth" modprobe veth
ktap_result "ip link add type veth" sh -c \
	'ip link add smk0 type veth peer name smk1 && ip link set smk0 up && ip link set smk1 up && ip link del smk0'
ktap_result "ib_uverbs and rdma_ucm are loaded" sh -c \
	'test -d /sys/module/ib_uverbs && test -d /sys/module/rdma_ucm'

if require_cmd rdma ibv_devices; then
	ktap_result "rdma link add rxe0 (rdma_rxe on eth0)" sh -c \
		'modprobe rdma_rxe && ip link set eth0 up && rdma link add rxe0 type rxe netdev eth0'
	ktap_result "ibv_devices lists rxe0" sh -c 'ibv_devices | grep -w rxe0'
	# rdma_rxe holds UDP port 4791 while loaded: unload it for later tests
	ktap_result "rdma link delete rxe0, rmmod rdma_rxe" sh -c \
		'rdma link delete rxe0 && modprobe -r rdma_rxe'
else
	ktap_skip "rdma link add rxe0 (rdma_rxe on eth0)" "rdma-core tools missing"
	ktap_skip "ibv_devices lists rxe0" "rdma-core tools missing"
	ktap_skip "rdma link delete rxe0, rmmod rdma_rxe" "rdma-core tools missing"
fi

ktap_result "/etc/libibverbs.d/sroce.driver" \
	grep -qx "driver $SROCE_TOP/build/provider/libsroce" /etc/libibverbs.d/sroce.driver
f=$SROCE_TOP/build/.vm-smoke.$$
ktap_result "checkout is writable" sh -c "echo ok > '$f' && grep -qx ok '$f' && rm -f '$f'"

if dmesg_clean_since_mark; then ktap_ok "dmesg clean"; else ktap_fail "dmesg clean"; fi
ktap_finish
