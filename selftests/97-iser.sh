#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 300
# sroce-kernels: oldest newest
# iSCSI Extensions for RDMA on sroce: the LIO iSCSI target with an iSER
# network portal (ib_isert) and the open-iscsi initiator (iscsid with the
# built-in "iser" interface, ib_iser). A 32 MiB RAM disk is a LIO iblock
# backstore behind the target's LUN 0. SendTargets discovery, login over
# iSER; data written through the SCSI disk must read back, and be on the
# RAM disk, byte for byte (dd with O_DIRECT), then fio writes and verifies
# crc32c checksums; logout. ib_iser registers its buffers with fast
# registration and invalidates them locally or by the target's SEND with
# Invalidate; ib_isert moves the data with RDMA READ and WRITE. Target and
# initiator run in init_net (neither is namespace-aware): the initiator
# reaches the target's address on the same sroce device, through the local
# path and, for one more 8 MiB, with the loopback parameter off (through
# lo). open-iscsi keeps its node database in /etc/iscsi: a tmpfs over it
# holds a private one (the VM's root file system is read-only).
# sroce-impl: sroce rxe
# (rxe: target and initiator on rxe8, through rxe's own loopback)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/blk-lib.sh"

CFG=/sys/kernel/config/target
IQN=iqn.2026-11.org.sroce:iser-target
INI=iqn.2026-11.org.sroce:iser-initiator
TPG=$CFG/iscsi/$IQN/tpgt_1
NP=192.0.2.1:3260
T=/tmp/97-iser.$$
ISCSID=
scale=${SROCE_TIMEOUT_SCALE:-1}

teardown() {
	[ -d "$TPG" ] && echo 0 > "$TPG/enable" 2>/dev/null
	rm -f "$TPG"/lun/lun_0/* 2>/dev/null
	rmdir "$TPG/lun/lun_0" "$TPG/np/$NP" "$TPG" "$CFG/iscsi/$IQN" 2>/dev/null
	rmdir "$CFG/iscsi" 2>/dev/null
	rmdir "$CFG/core/iblock_0/iser0" "$CFG/core/iblock_0" 2>/dev/null
	return 0
}

unload() {
	local m
	for m in ib_iser libiscsi scsi_transport_iscsi ib_isert iscsi_target_mod \
		 target_core_iblock target_core_file target_core_pscsi \
		 target_core_user target_core_mod; do
		[ -d "/sys/module/$m" ] || continue
		timeout 30 modprobe -r "$m" || { echo "$m held by: $(ls "/sys/module/$m/holders")"; return 1; }
	done
}

stop_iscsid() {
	[ -n "$ISCSID" ] || return 0
	kill "$ISCSID" 2>/dev/null
	wait "$ISCSID" 2>/dev/null
	ISCSID=
}

cleanup() {
	iscsiadm -m node -T "$IQN" -u > /dev/null 2>&1
	stop_iscsid
	mountpoint -q /etc/iscsi && umount /etc/iscsi
	teardown
	unload > /dev/null 2>&1
	cl_veth_down
	modprobe -r brd 2>/dev/null
	[ -w "$BLK_LOOPBACK" ] && echo Y > "$BLK_LOOPBACK"
	rm -rf "$T"
}
trap cleanup EXIT

require_cmd iscsiadm iscsid > /dev/null || ktap_skip_all "open-iscsi missing"
for m in iscsi_target_mod ib_isert ib_iser target_core_iblock brd; do
	modprobe -n -q "$m" || ktap_skip_all "module $m missing"
done
unload > /dev/null 2>&1
modprobe -r brd 2>/dev/null	# loaded with our size by setup()

target() {
	mkdir -p "$T" &&
	modprobe brd rd_nr=1 rd_size=32768 max_part=0 &&
	modprobe target_core_mod && modprobe target_core_iblock &&
	modprobe iscsi_target_mod && modprobe ib_isert &&
	modprobe ib_iser && modprobe sd_mod || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	cl_veth_up || return 1
	mkdir -p "$CFG/core/iblock_0/iser0" &&
	echo "udev_path=/dev/ram0" > "$CFG/core/iblock_0/iser0/control" &&
	echo sroce-iser0 > "$CFG/core/iblock_0/iser0/wwn/vpd_unit_serial" &&
	echo 1 > "$CFG/core/iblock_0/iser0/enable" &&
	mkdir -p "$TPG/lun/lun_0" &&
	ln -s "$CFG/core/iblock_0/iser0" "$TPG/lun/lun_0/iser0" &&
	# TCP for SendTargets discovery, iSER on the same address and port
	mkdir "$TPG/np/$NP" &&
	echo 1 > "$TPG/np/$NP/iser" &&
	echo 0 > "$TPG/attrib/authentication" &&
	echo 1 > "$TPG/attrib/generate_node_acls" &&
	echo 1 > "$TPG/attrib/cache_dynamic_acls" &&
	echo 0 > "$TPG/attrib/demo_mode_write_protect" &&
	echo 1 > "$TPG/enable"
}

# initiator: a private /etc/iscsi, iscsid in the foreground (its PID is
# the main shell's: started there, not in ktap_result's subshell; setsid
# execs it in place, a background job being no process group leader)
initiator_conf() {
	mount -t tmpfs -o size=4m,mode=0755 none /etc/iscsi || return 1
	echo "InitiatorName=$INI" > /etc/iscsi/initiatorname.iscsi
	cat > /etc/iscsi/iscsid.conf <<-EOF
	node.startup = manual
	node.session.timeo.replacement_timeout = 5
	node.conn[0].timeo.login_timeout = 15
	node.conn[0].timeo.logout_timeout = 15
	node.conn[0].timeo.noop_out_interval = 0
	node.conn[0].timeo.noop_out_timeout = 0
	node.session.initial_login_retry_max = 2
	node.session.scan = auto
	EOF
}

iscsid_up() {
	for _ in $(seq $((50 * scale))); do
		# listening on its abstract control socket
		grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix && return 0
		kill -0 "$ISCSID" 2>/dev/null || { echo "iscsid exited:"; tail -n 5 "$T/iscsid.log"; return 1; }
		sleep 0.1
	done
	echo "iscsid does not answer"
	return 1
}

# why: what iscsid and the kernel said (after a failed step)
why() {
	echo "iscsid:"; tail -n 15 "$T/iscsid.log"
	echo "kernel:"; dmesg | tail -n 40
	rdma statistic show link "$CL_DEV/1"
	[ -e /sys/kernel/debug/sroce/qps ] && timeout 5 cat /sys/kernel/debug/sroce/qps
}

# (usually 2-5 s; on a loaded host a first discovery was seen taking 35 s
# and once more than 60 s: the bound is generous, the time is shown)
discover() {
	local t0=$SECONDS
	bounded $((90 * scale)) iscsiadm -m discovery -t sendtargets -p "$NP" -I iser || { why; return 1; }
	echo "took $((SECONDS - t0)) s"
}

# find_dev: the SCSI disk of our iSCSI session
find_dev() {
	local s d
	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
		for d in "$s"/device/target*/*/block/*; do
			[ -e "$d" ] || continue
			[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
		done
	done
	return 1
}

login() {
	bounded $((60 * scale)) iscsiadm -m node -T "$IQN" -p "$NP" -I iser --login || { why; return 1; }
	iscsiadm -m session | grep -q "^iser: .*$IQN" || { iscsiadm -m session; return 1; }
	for _ in $(seq $((150 * scale))); do
		find_dev && return 0
		sleep 0.1
	done
	echo "no SCSI disk behind the session:"; ls /sys/class/iscsi_session/ /sys/class/scsi_device/ 2>&1
	return 1
}

# (rx_settled_at_err: packets the QPs had queued when the disconnect moved
# them to ERR, handled first; the logout response's ACK was once among them
# and, flushed instead, made LIO free the command twice)
logout() {
	bounded $((60 * scale)) iscsiadm -m node -T "$IQN" -p "$NP" -I iser --logout || return 1
	echo "rx_settled_at_err: $(port_counter "$CL_DEV" rx_settled_at_err)"
	iscsiadm -m node -T "$IQN" -p "$NP" -I iser -o delete || return 1
	! find_dev
}

ktap_header 10
dmesg_mark
ktap_result "RAM disk behind LIO iSCSI with an iSER portal on $CL_DEV ($NP)" target
if initiator_conf; then
	# its own session: on SIGTERM iscsid signals its whole process group
	setsid iscsid -f -n -d 1 > "$T/iscsid.log" 2>&1 &
	ISCSID=$!
	ktap_result "iscsid up (private /etc/iscsi)" iscsid_up
else
	ktap_fail "iscsid up (private /etc/iscsi)" "tmpfs over /etc/iscsi failed"
fi
ktap_result "SendTargets discovery ($NP, iface iser)" discover
ktap_result "login over iSER: SCSI disk" login
ktap_result "8 MiB written and read back byte-exact (O_DIRECT), on the RAM disk too" blk_data 0
ktap_step "fio random writes 4K-128K, iodepth 8, crc32c verified" blk_fio sroce-iser
ktap_step "loopback=N (through lo): 8 MiB written and read back, on the RAM disk too" blk_lo_data
ktap_result "logout, node record deleted" logout
stop_iscsid
umount /etc/iscsi 2>/dev/null
ktap_result "target torn down, ib_iser ib_isert LIO unloaded" eval 'teardown && unload'
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
