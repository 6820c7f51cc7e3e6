#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# NVMe over Fabrics (RDMA) on sroce, the kernel's own host (nvme-rdma) and
# target (nvmet-rdma): the host registers every data buffer with fast
# registration (ib_alloc_mr, map_mr_sg, IB_WR_REG_MR) and gets it
# invalidated by the target's SEND with Invalidate or by its own LOCAL_INV;
# the target moves the data with RDMA READ and WRITE. A 32 MiB RAM disk is
# exported; data written through /dev/nvmeXnY must read back, and be on
# the RAM disk, byte for byte (dd with O_DIRECT), then fio checks crc32c
# checksums of random 4K-256K writes, and of 4K random reads and writes
# mixed (local path) or 128K sequential writes read back (through lo),
# 16 deep each.
# Both run in init_net (nvmet and nvme-rdma are not namespace-aware): the
# host reaches the target's address on the same device, once through the
# local path (loopback=Y) and once through lo (loopback=N).
# (Controller churn and removal under I/O: 97-nvmeof-stress.sh.)
# sroce-impl: sroce rxe
# (rxe: host and target on rxe8, through rxe's own loopback; the
# loopback=N rows are sroce's parameter, skipped)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/nvmet-lib.sh"

trap nvmf_cleanup EXIT
nvmf_require

# fio_step NAME ARG..: nvmf_fio ARGs as one test line
fio_step() { local name=$1; shift; ktap_step "$name" nvmf_fio "$@"; }

STEPS=(connect data "fio random writes" "fio mixed or sequential" disconnect)
ktap_header $(( 2 + 2 * ${#STEPS[@]} ))
dmesg_mark
ktap_result "RAM disk exported over nvmet-rdma on $CL_DEV (192.0.2.1:4420)" nvmf_setup
for lb in Y N; do
	if [ "$lb" = N ] && [ "$CL_IMPL" = rxe ]; then
		for c in "${STEPS[@]}"; do ktap_skip "loopback=N: $c" "sroce's loopback parameter: sroce only (rxe mode)"; done
		continue
	fi
	if [ "$lb" = N ] && ! [ -w "$NVMF_LOOPBACK" ]; then
		for c in "${STEPS[@]}"; do ktap_skip "loopback=N: $c" "no loopback parameter"; done
		continue
	fi
	echo "$lb" > "$NVMF_LOOPBACK" 2>/dev/null
	ktap_result "loopback=$lb: nvme connect -t rdma" nvmf_connect
	ktap_result "loopback=$lb: 8 MiB written and read back byte-exact (O_DIRECT), on the RAM disk too" \
		nvmf_data "$([ "$lb" = Y ] && echo 0 || echo 1)"
	fio_step "loopback=$lb: fio random writes 4K-256K, iodepth 16, crc32c verified" \
		--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=24M
	# one more shape per path (the time budget): mixed 4K on the local
	# path, 128K sequential through lo
	if [ "$lb" = Y ]; then
		fio_step "loopback=$lb: fio 4K random reads and writes mixed, iodepth 16, crc32c verified" \
			--rw=randrw --bs=4k --iodepth=16 --size=8M
	else
		fio_step "loopback=$lb: fio 128K sequential writes read back, iodepth 16, crc32c verified" \
			--rw=write --bs=128k --iodepth=16 --size=24M
	fi
	ktap_result "loopback=$lb: nvme disconnect" nvmf_disconnect
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
