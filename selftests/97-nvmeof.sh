#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# NVMe over Fabrics (RDMA) on sroce, the kernel's own host (nvme-rdma) and
# target (nvmet-rdma): the host registers every data buffer with fast
# registration (ib_alloc_mr, map_mr_sg, IB_WR_REG_MR) and gets it
# invalidated by the target's SEND with Invalidate or by its own LOCAL_INV;
# the target moves the data with RDMA READ and WRITE. A 32 MiB RAM disk is
# exported; data written through /dev/nvmeXnY must read back, and be on
# the RAM disk, byte for byte (dd with O_DIRECT, then fio with verify).
# Both run in init_net (nvmet and nvme-rdma are not namespace-aware): the
# host reaches the target's address on the same device, once through the
# local path (loopback=Y) and once through lo (loopback=N).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"

CFG=/sys/kernel/config/nvmet
NQN=nqn.2026-11.org.sroce:selftest
PARAM=/sys/module/sroce/parameters/loopback
T=/tmp/97-nvmeof.$$
DEV=

cleanup() {
	nvme disconnect -n "$NQN" > /dev/null 2>&1
	rm -f "$CFG/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFG/ports/1" 2>/dev/null
	echo 0 > "$CFG/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$CFG/subsystems/$NQN/namespaces/1" "$CFG/subsystems/$NQN" 2>/dev/null
	modprobe -r nvme-rdma nvmet-rdma nvmet 2>/dev/null
	rdma link delete sroce8 2>/dev/null
	ip link del srA 2>/dev/null
	modprobe -r brd 2>/dev/null
	[ -w "$PARAM" ] && echo Y > "$PARAM"
	rm -rf "$T"
}
trap cleanup EXIT

require_cmd nvme > /dev/null || ktap_skip_all "nvme-cli missing"
for m in nvmet nvmet-rdma nvme-rdma brd; do
	require_module "$m" > /dev/null || ktap_skip_all "module $m missing"
done
modprobe -r brd	# loaded again with our size by setup()

setup() {
	mkdir -p "$T" &&
	modprobe brd rd_nr=1 rd_size=32768 max_part=0 &&
	modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config || return 1
	ip link add srA type veth peer name srB &&
	ip link set srA up && ip link set srB up &&
	ip addr add 192.0.2.1/24 dev srA &&
	rdma link add sroce8 type sroce netdev srA || return 1
	mkdir "$CFG/subsystems/$NQN" &&
	echo 1 > "$CFG/subsystems/$NQN/attr_allow_any_host" &&
	mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
	echo -n /dev/ram0 > "$CFG/subsystems/$NQN/namespaces/1/device_path" &&
	echo 1 > "$CFG/subsystems/$NQN/namespaces/1/enable" &&
	mkdir "$CFG/ports/1" &&
	echo rdma > "$CFG/ports/1/addr_trtype" &&
	echo ipv4 > "$CFG/ports/1/addr_adrfam" &&
	echo 192.0.2.1 > "$CFG/ports/1/addr_traddr" &&
	echo 4420 > "$CFG/ports/1/addr_trsvcid" &&
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
}

# connect: nvme connect, then the block device of our subsystem (with
# native multipath the subsystem's nvmeXnY, not the controller's path
# device nvmeXcYnZ)
find_dev() {
	local d b
	for d in /sys/class/nvme-subsystem/*/nvme*n* /sys/class/nvme/*/nvme*n*; do
		b=${d##*/}
		[[ $b =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "${d%/*}/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		[ -b "/dev/$b" ] && { echo "/dev/$b"; return 0; }
	done
	return 1
}

# (ktap_result runs its command in a subshell: every step finds the device)
connect() {
	local n
	bounded 60 nvme connect -t rdma -a 192.0.2.1 -s 4420 -n "$NQN" -q "$NQN:host" || return 1
	for n in $(seq 150); do
		find_dev && return 0
		sleep 0.1
	done
	echo "no block device for $NQN:"; ls /sys/class/nvme/*/ /sys/class/nvme-subsystem/*/ 2>&1 | head
	return 1
}

disconnect() { bounded 60 nvme disconnect -n "$NQN" | tail -n 1; }

# data TAG: 8 MiB of random data through the host, read back, and on the
# RAM disk (at a TAG-dependent offset)
data() {
	local off=$(( $1 * 8 ))
	DEV=$(find_dev) || return 1
	head -c 8M /dev/urandom > "$T/pat" &&
	bounded 120 dd if="$T/pat" of="$DEV" bs=1M seek="$off" oflag=direct status=none &&
	bounded 120 dd if="$DEV" of="$T/back" bs=1M skip="$off" count=8 iflag=direct status=none &&
	cmp "$T/pat" "$T/back" &&
	# O_DIRECT: the target writes the RAM disk with bios, past its page cache
	dd if=/dev/ram0 of="$T/disk" bs=1M skip="$off" count=8 iflag=direct status=none &&
	cmp "$T/pat" "$T/disk"
}

# fio_verify: random 4 KiB - 256 KiB writes and reads, 16 deep, checked
fio_verify() {
	command -v fio > /dev/null || { echo "fio missing"; return 4; }
	DEV=$(find_dev) || return 1
	bounded 180 fio --name=sroce --filename="$DEV" --direct=1 --ioengine=libaio \
		--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=24M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 --output-format=terse \
		--terse-version=3 > "$T/fio" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || tail -n 5 "$T/fio"
	return $rc
}

ktap_header 10
dmesg_mark
ktap_result "RAM disk exported over nvmet-rdma on sroce8 (192.0.2.1:4420)" setup
for lb in Y N; do
	if [ "$lb" = N ] && ! [ -w "$PARAM" ]; then
		for c in connect data fio disconnect; do ktap_skip "loopback=N: $c" "no loopback parameter"; done
		continue
	fi
	echo "$lb" > "$PARAM" 2>/dev/null
	ktap_result "loopback=$lb: nvme connect -t rdma" connect
	ktap_result "loopback=$lb: 8 MiB written and read back byte-exact (O_DIRECT), on the RAM disk too" data "$([ "$lb" = Y ] && echo 0 || echo 1)"
	out=$(fio_verify 2>&1); rc=$?
	[ -z "$out" ] || ktap_diag "$out"
	case $rc in
	0) ktap_ok "loopback=$lb: fio random writes 4K-256K, iodepth 16, crc32c verified" ;;
	4) ktap_skip "loopback=$lb: fio" "fio missing" ;;
	*) ktap_fail "loopback=$lb: fio random writes 4K-256K, iodepth 16, crc32c verified" ;;
	esac
	ktap_result "loopback=$lb: nvme disconnect" disconnect
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
