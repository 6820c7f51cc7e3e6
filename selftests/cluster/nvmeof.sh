#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster-nodes: 2
#
# selftests/cluster/nvmeof.sh - NVMe over Fabrics (RDMA) across machines,
# between the two VMs of a qemu/cluster (selftests/cluster/run): the
# kernel's target (nvmet-rdma) on node 0 exports a 32 MiB RAM disk on
# 10.77.0.1:4420 (sroce0), the kernel's host (nvme-rdma) on node 1
# connects to it over the L2. Data node 1 writes through /dev/nvmeXnY
# (O_DIRECT) reads back byte-exact and is on node 0's RAM disk byte for
# byte; fio checks crc32c checksums of random 4K-256K writes and of 4K
# random reads and writes mixed, 16 deep; then node 1 disconnects and node
# 0 takes the target down. Node 0 prints the KTAP lines (selftests/
# nvmet-lib.sh does the configfs work, as for selftests/97-nvmeof.sh).
#
#   nvmeof.sh --list   the checks' names, one a line (on the host)
set -uo pipefail

CHECKS=(
	"target:node 0 exports a 32 MiB RAM disk over nvmet-rdma on sroce0 (10.77.0.1:4420)"
	"connect:node 1: nvme connect -t rdma to node 0, a block device"
	"data:8 MiB written on node 1 read back byte-exact (O_DIRECT), and on node 0's RAM disk"
	"fio_rand:fio random writes 4K-256K, iodepth 16, crc32c verified, node 1 -> node 0"
	"fio_mixed:fio 4K random reads and writes mixed, iodepth 16, crc32c verified"
	"disconnect:node 1 disconnects, node 0 takes the target down"
)
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=selftests/cluster/lib.sh
. "$here/lib.sh"
cluster_script_init nvmeof 2 "$@"
NVMF_ADDR=$(cluster_addr 0)
# shellcheck source=selftests/nvmet-lib.sh
. "$top/selftests/nvmet-lib.sh"

trap 'bg_kill_all; nvmf_target_down 2> /dev/null; rm -rf "$NVMF_T"' EXIT

target() {
	mkdir -p "$NVMF_T" || return 1
	if [ "$me" = 0 ]; then
		nvmf_target_up && cat "$NVMF_PORT/addr_traddr"
	else
		modprobe nvme-rdma
	fi
}
connect() { [ "$me" = 0 ] || nvmf_connect; }
# data: node 1 writes the pattern (kept in the run directory), node 0
# finds it on its RAM disk
data() {
	local dev rc
	if [ "$me" = 1 ]; then
		dev=$(nvmf_find_dev) || { echo "no block device"; return 1; }
		head -c 8M /dev/urandom > "$D/pattern" || return 1
		# shellcheck disable=SC2016  # expanded by sh
		bounded $((120 * S)) sh -c '
		dd if="$1" of="$2" bs=1M seek=8 oflag=direct status=none &&
		dd if="$2" of="$3" bs=1M skip=8 count=8 iflag=direct status=none &&
		cmp "$1" "$3"' sh "$D/pattern" "$dev" "$NVMF_T/back"
		rc=$?
		cluster_put data.written "$rc"
		return "$rc"
	fi
	[ "$(cluster_get data.written 300)" = 0 ] || { echo "node 1 failed"; return 1; }
	dd if=/dev/ram0 of="$NVMF_T/disk" bs=1M skip=8 count=8 iflag=direct status=none &&
		cmp "$D/pattern" "$NVMF_T/disk" && echo "8 MiB at 8 MiB on /dev/ram0: the pattern"
}
# fio on node 1 (nvmet-lib's nvmf_fio: bounded, crc32c verified)
fio_node1() {
	[ "$me" = 1 ] || return 0
	nvmf_fio "$@" || return
	# terse v3: read KiB, KiB/s, IOPS in fields 6-8, written in 47-49
	tail -n 1 "$NVMF_T/fio" | awk -F';' '{ printf "fio: read %s KiB (%s KiB/s, %s IOPS), written %s KiB (%s KiB/s, %s IOPS)\n", $6, $7, $8, $47, $48, $49 }'
}
disconnect() {
	if [ "$me" = 1 ]; then
		nvmf_disconnect
		return
	fi
	# node 1 disconnected first (the barrier of the next step is too late)
	cluster_wait $((120 * S)) test -e "$D/disconnect.1.rc"
	nvmf_port_del && nvmf_target_down && ! grep -qE '^nvmet_rdma ' /proc/modules
}

[ "$me" = 1 ] || ktap_header "${#CHECKS[@]}"
dmesg_mark
step target both target target
step connect both connect connect
step data both data data
step fio_rand both fio_rand fio_node1 --rw=randwrite --bsrange=4k-256k --iodepth=16 --size=16M
step fio_mixed both fio_mixed fio_node1 --rw=randrw --bs=4k --iodepth=16 --size=8M
step disconnect both disconnect disconnect
cluster_barrier finished 600
[ "$me" = 1 ] && exit 0
ktap_finish
