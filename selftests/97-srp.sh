#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 300
# sroce-kernels: oldest newest
# SCSI RDMA Protocol on sroce, the kernel's own target (ib_srpt under LIO)
# and initiator (ib_srp), connected through the RDMA/CM (the way RoCE
# carries SRP: add_target with dest=IP:port). A 32 MiB RAM disk is a LIO
# iblock backstore behind the target port; data written through the SCSI
# disk must read back, and be on the RAM disk, byte for byte (dd with
# O_DIRECT), then fio writes and verifies crc32c checksums. ib_srp
# registers its buffers with fast registration (IB_WR_REG_MR) and
# invalidates them locally or by the target's SEND with Invalidate;
# ib_srpt moves the data with RDMA READ and WRITE through the rw API.
# Target and initiator run in init_net (neither is namespace-aware): the
# initiator reaches the target's address on the same sroce device, through
# the local path and, for one more 8 MiB, with the loopback parameter off
# (through lo).
# sroce-impl: sroce rxe
# (rxe: target and initiator on rxe8, through rxe's own loopback)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/blk-lib.sh"

CFG=/sys/kernel/config/target
PORT=5555
T=/tmp/97-srp.$$
scale=${SROCE_TIMEOUT_SCALE:-1}

# teardown: log out, then the LIO configuration from the leaves up
teardown() {
	local p
	for p in /sys/class/srp_remote_ports/*/delete; do
		[ -e "$p" ] && echo 1 > "$p" 2>/dev/null
	done
	for p in "$CFG"/srpt/*/*/enable; do
		[ -e "$p" ] && echo 0 > "$p" 2>/dev/null
	done
	rm -f "$CFG"/srpt/*/*/acls/*/lun_0/* 2>/dev/null
	rmdir "$CFG"/srpt/*/*/acls/*/lun_0 "$CFG"/srpt/*/*/acls/* 2>/dev/null
	rm -f "$CFG"/srpt/*/*/lun/lun_0/* 2>/dev/null
	rmdir "$CFG"/srpt/*/*/lun/lun_0 "$CFG"/srpt/*/* "$CFG"/srpt/* "$CFG"/srpt 2>/dev/null
	rmdir "$CFG"/core/iblock_0/srp0 "$CFG"/core/iblock_0 2>/dev/null
	return 0
}

unload() {
	local m
	for m in ib_srp scsi_transport_srp ib_srpt target_core_iblock target_core_file \
		 target_core_pscsi target_core_user target_core_mod; do
		[ -d "/sys/module/$m" ] || continue
		timeout 30 modprobe -r "$m" || { echo "$m held by: $(ls "/sys/module/$m/holders")"; return 1; }
	done
}

cleanup() {
	teardown
	unload > /dev/null 2>&1
	cl_veth_down
	modprobe -r brd 2>/dev/null
	[ -w "$BLK_LOOPBACK" ] && echo Y > "$BLK_LOOPBACK"
	rm -rf "$T"
}
trap cleanup EXIT

for m in ib_srpt ib_srp target_core_iblock brd; do
	modprobe -n -q "$m" || ktap_skip_all "module $m missing"
done
unload > /dev/null 2>&1
modprobe -r brd 2>/dev/null	# loaded with our size by setup()

# wwns: the target port names ib_srpt accepts for $CL_DEV port 1: its GUID
# form (the GID's interface ID, xxxx:xxxx:xxxx:xxxx) and its GID form
wwns() {
	local g
	g=$(cat "/sys/class/infiniband/$CL_DEV/ports/1/gids/0") || return 1
	echo "${g#????:????:????:????:}"
	echo "0x${g//:/}"
}

setup() {
	local w ok=0
	mkdir -p "$T" &&
	modprobe brd rd_nr=1 rd_size=32768 max_part=0 &&
	modprobe target_core_mod && modprobe target_core_iblock &&
	modprobe ib_srpt && modprobe ib_srp && modprobe sd_mod || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	cl_veth_up || return 1
	mkdir -p "$CFG/core/iblock_0/srp0" &&
	echo "udev_path=/dev/ram0" > "$CFG/core/iblock_0/srp0/control" &&
	echo sroce-srp0 > "$CFG/core/iblock_0/srp0/wwn/vpd_unit_serial" &&
	echo 1 > "$CFG/core/iblock_0/srp0/enable" &&
	mkdir "$CFG/srpt" &&
	echo "$PORT" > "$CFG/srpt/discovery_auth/rdma_cm_port" || return 1
	for w in $(wwns); do
		mkdir "$CFG/srpt/$w" 2>/dev/null || continue
		mkdir "$CFG/srpt/$w/$w" &&
		mkdir "$CFG/srpt/$w/$w/lun/lun_0" &&
		ln -s "$CFG/core/iblock_0/srp0" "$CFG/srpt/$w/$w/lun/lun_0/srp0" &&
		# the RDMA/CM initiator is known by its source address
		mkdir -p "$CFG/srpt/$w/$w/acls/192.0.2.1/lun_0" &&
		ln -s "$CFG/srpt/$w/$w/lun/lun_0" "$CFG/srpt/$w/$w/acls/192.0.2.1/lun_0/lun_0" &&
		echo 1 > "$CFG/srpt/$w/$w/enable" || return 1
		ok=$((ok + 1))
	done
	[ "$ok" -gt 0 ] || { echo "ib_srpt took none of: $(wwns)"; ls "$CFG/srpt"; return 1; }
}

# find_dev: the SCSI disk behind our SRP remote port
find_dev() {
	local p h d
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p" ] || continue
		h=${p##*/port-}
		h=${h%%:*}
		for d in /sys/class/scsi_device/"$h":*/device/block/*; do
			[ -e "$d" ] || continue
			[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
		done
	done
	return 1
}

login() {
	local g
	g=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid) || return 1
	g=${g#0x}
	[ -e "/sys/class/infiniband_srp/srp-$CL_DEV-1/add_target" ] || {
		echo "no srp-$CL_DEV-1 host:"; ls /sys/class/infiniband_srp/; return 1; }
	echo "id_ext=$g,ioc_guid=$g,dest=192.0.2.1:$PORT" > \
		"/sys/class/infiniband_srp/srp-$CL_DEV-1/add_target" || return 1
	for _ in $(seq $((150 * scale))); do
		find_dev && return 0
		sleep 0.1
	done
	echo "no SCSI disk behind the SRP remote port:"; ls /sys/class/srp_remote_ports/ /sys/class/scsi_device/ /sys/class/scsi_disk/ 2>&1
	lsmod | grep -E '^(sd_mod|scsi)'; dmesg | tail -n 30
	return 1
}

logout() {
	local p
	for p in /sys/class/srp_remote_ports/port-*/delete; do
		[ -e "$p" ] || { echo "no SRP remote port"; return 1; }
		echo 1 > "$p" || return 1
	done
	for _ in $(seq $((100 * scale))); do
		compgen -G "/sys/class/srp_remote_ports/*" > /dev/null || return 0
		sleep 0.1
	done
	echo "remote port still there:"; ls /sys/class/srp_remote_ports/
	return 1
}

ktap_header 8
dmesg_mark
ktap_result "RAM disk behind ib_srpt on $CL_DEV (RDMA/CM port $PORT)" setup
ktap_result "ib_srp add_target dest=192.0.2.1:$PORT: SCSI disk" login
ktap_result "8 MiB written and read back byte-exact (O_DIRECT), on the RAM disk too" blk_data 0
ktap_step "fio random writes 4K-128K, iodepth 8, crc32c verified" blk_fio sroce-srp
ktap_step "loopback=N (through lo): 8 MiB written and read back, on the RAM disk too" blk_lo_data
ktap_result "logout (srp_remote_ports delete)" logout
ktap_result "target torn down, ib_srp ib_srpt LIO unloaded" eval 'teardown && unload'
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
