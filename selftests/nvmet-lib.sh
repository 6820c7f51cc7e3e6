# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# NVMe over Fabrics (RDMA) on sroce, shared by 97-nvmeof.sh,
# 97-nvmeof-stress.sh and scripts/bench-clients (sourced after lib.sh and
# bounded.sh): a RAM disk (/dev/ram0, $NVMF_RD_MIB MiB, default 32)
# exported by nvmet-rdma on $CL_DEV (lib.sh: sroce8, or rxe8 with
# SROCE_CLIENT_IMPL=rxe; veth srA, 192.0.2.1:4420) and the kernel's
# nvme-rdma host connected to it, both in init_net (nvmet and nvme-rdma
# are not namespace-aware).
#
#   nvmf_require          skip the whole script unless nvme-cli and the
#                         modules are there (before ktap_header)
#   nvmf_setup            veth, $CL_DEV, then nvmf_target_up
#   nvmf_target_up        RAM disk, modules, the subsystem, port 1 (on
#                         whatever device holds 192.0.2.1)
#   nvmf_target_down      disconnected, port and subsystem removed, nvme
#                         and brd modules unloaded
#   nvmf_port_add         port 1 on $NVMF_ADDR (default 192.0.2.1):4420,
#                         the subsystem linked
#   nvmf_port_del         the subsystem unlinked from port 1, port removed
#   nvmf_connect [ARG..]  nvme connect (ARGs added), then the block device
#   nvmf_find_dev         our namespace's block device (/dev/nvmeXnY)
#   nvmf_ctrl             our controller's sysfs directory, if any
#   nvmf_disconnect       nvme disconnect
#   nvmf_data TAG [MIB]   MIB (8) MiB of random data written through the host
#                         at a TAG-dependent offset, read back and found on
#                         the RAM disk byte for byte (O_DIRECT)
#   nvmf_fio ARG..        fio on the namespace, verify=crc32c, ARGs added;
#                         exit 4 without fio, the tail of its output on error
#   nvmf_cleanup          everything nvmf_setup did undone (for an EXIT
#                         trap)
# The namespace holds 32 MiB: nvmf_data's TAG * MIB + MIB <= 32.

NVMF_CFG=/sys/kernel/config/nvmet
# the target's address (selftests/cluster/nvmeof.sh: node 0's on the L2)
NVMF_ADDR=${NVMF_ADDR:-192.0.2.1}
NVMF_NQN=nqn.2026-11.org.sroce:selftest
NVMF_RD_MIB=${NVMF_RD_MIB:-32}
NVMF_PORT=$NVMF_CFG/ports/1
NVMF_LOOPBACK=/sys/module/sroce/parameters/loopback
NVMF_T=/tmp/nvmf.$$

nvmf_require() {
	local m
	require_cmd nvme > /dev/null || ktap_skip_all "nvme-cli missing"
	for m in nvmet nvmet-rdma nvme-rdma brd; do
		require_module "$m" > /dev/null || ktap_skip_all "module $m missing"
	done
	modprobe -r brd	# loaded again with our size by nvmf_setup()
}

nvmf_port_add() {
	mkdir "$NVMF_PORT" &&
	echo rdma > "$NVMF_PORT/addr_trtype" &&
	echo ipv4 > "$NVMF_PORT/addr_adrfam" &&
	echo "$NVMF_ADDR" > "$NVMF_PORT/addr_traddr" &&
	echo 4420 > "$NVMF_PORT/addr_trsvcid" &&
	ln -s "$NVMF_CFG/subsystems/$NVMF_NQN" "$NVMF_PORT/subsystems/$NVMF_NQN"
}

# unlinking the subsystem deletes the controllers connected through the
# port (the target disconnects their queues); the last one disables it
nvmf_port_del() {
	bounded 30 sh -c 'rm -f "$1/subsystems/$2" && rmdir "$1"' sh "$NVMF_PORT" "$NVMF_NQN"
}

nvmf_setup() {
	mkdir -p "$NVMF_T" &&
	cl_veth_up &&
	nvmf_target_up
}

nvmf_target_up() {
	modprobe brd rd_nr=1 rd_size=$((NVMF_RD_MIB * 1024)) max_part=0 &&
	modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	mkdir "$NVMF_CFG/subsystems/$NVMF_NQN" &&
	echo 1 > "$NVMF_CFG/subsystems/$NVMF_NQN/attr_allow_any_host" &&
	mkdir "$NVMF_CFG/subsystems/$NVMF_NQN/namespaces/1" &&
	echo -n /dev/ram0 > "$NVMF_CFG/subsystems/$NVMF_NQN/namespaces/1/device_path" &&
	echo 1 > "$NVMF_CFG/subsystems/$NVMF_NQN/namespaces/1/enable" &&
	nvmf_port_add
}

nvmf_target_down() {
	timeout 30 nvme disconnect -n "$NVMF_NQN" > /dev/null 2>&1
	rm -f "$NVMF_PORT/subsystems/$NVMF_NQN" 2>/dev/null
	rmdir "$NVMF_PORT" 2>/dev/null
	echo 0 > "$NVMF_CFG/subsystems/$NVMF_NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$NVMF_CFG/subsystems/$NVMF_NQN/namespaces/1" "$NVMF_CFG/subsystems/$NVMF_NQN" 2>/dev/null
	timeout 30 modprobe -r nvme-rdma nvmet-rdma nvmet 2>/dev/null
	modprobe -r brd 2>/dev/null
	return 0
}

nvmf_cleanup() {
	bg_kill_all
	nvmf_target_down
	cl_veth_down
	[ -w "$NVMF_LOOPBACK" ] && echo Y > "$NVMF_LOOPBACK"
	rm -rf "$NVMF_T"
}

# with native multipath the subsystem's nvmeXnY, not the controller's path
# device nvmeXcYnZ
nvmf_find_dev() {
	local d b
	for d in /sys/class/nvme-subsystem/*/nvme*n* /sys/class/nvme/*/nvme*n*; do
		b=${d##*/}
		[[ $b =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "${d%/*}/subsysnqn" 2>/dev/null)" = "$NVMF_NQN" ] || continue
		[ -b "/dev/$b" ] && { echo "/dev/$b"; return 0; }
	done
	return 1
}

nvmf_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVMF_NQN" ] && { echo "$c"; return 0; }
	done
	return 1
}

# (ktap_result runs its command in a subshell: every step finds the device)
nvmf_connect() {
	bounded 60 nvme connect -t rdma -a "$NVMF_ADDR" -s 4420 -n "$NVMF_NQN" \
		-q "$NVMF_NQN:host" "$@" || return 1
	for _ in $(seq 150); do
		nvmf_find_dev > /dev/null && return 0
		sleep 0.1
	done
	echo "no block device for $NVMF_NQN:"
	ls /sys/class/nvme/*/ /sys/class/nvme-subsystem/*/ 2>&1 | head
	return 1
}

nvmf_disconnect() { bounded 60 nvme disconnect -n "$NVMF_NQN" | tail -n 1; }

nvmf_data() {
	local mib=${2:-8} dev
	dev=$(nvmf_find_dev) || { echo "no block device"; return 1; }
	head -c "${mib}M" /dev/urandom > "$NVMF_T/pat" || return 1
	# one bounded shell for it all: under TCG every process costs
	# shellcheck disable=SC2016  # expanded by sh
	bounded 120 sh -c '
	dd if="$1/pat" of="$2" bs=1M seek="$3" oflag=direct status=none &&
	dd if="$2" of="$1/back" bs=1M skip="$3" count="$4" iflag=direct status=none &&
	cmp "$1/pat" "$1/back" &&
	dd if=/dev/ram0 of="$1/disk" bs=1M skip="$3" count="$4" iflag=direct status=none &&
	cmp "$1/pat" "$1/disk"' sh "$NVMF_T" "$dev" $(( $1 * mib )) "$mib"
	# (O_DIRECT on the RAM disk: the target writes it with bios, past its
	# page cache)
}

# fio's command line for the namespace with crc32c verify (for bg_start)
nvmf_fio_cmd() {
	local dev
	dev=$(nvmf_find_dev) || return 1
	echo fio --name=sroce --filename="$dev" --direct=1 --ioengine=libaio \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output-format=terse --terse-version=3 "$@"
}

nvmf_fio() {
	local cmd rc
	command -v fio > /dev/null || { echo "fio missing"; return 4; }
	cmd=$(nvmf_fio_cmd "$@") || { echo "no block device"; return 1; }
	# shellcheck disable=SC2086  # no blanks in its words
	bounded 180 $cmd > "$NVMF_T/fio" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -n 5 "$NVMF_T/fio"
	return $rc
}
