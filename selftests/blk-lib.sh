# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154  # $scale, $T: set by the script sourcing this
# A SCSI disk over RDMA on a RAM disk, checked byte for byte: shared by
# 97-srp.sh and 97-iser.sh (sourced after lib.sh and bounded.sh). The
# script defines find_dev (its SCSI disk), $T (a scratch directory) and
# $scale (its timeout scale); /dev/ram0 is the backstore.
#
#   blk_data OFF      8 MiB of random data written to the disk at OFF MiB
#                     (O_DIRECT), read back, and found on /dev/ram0
#   blk_lo_data       blk_data 24 with sroce's loopback parameter off (every
#                     packet through lo and the IP stack, ICRC and all);
#                     exit 4 (a skip, the reason printed) without the
#                     parameter or on rxe
#   blk_fio NAME      fio random writes 4K-128K, iodepth 8, from 8 MiB on,
#                     crc32c verified; exit 4 without fio

BLK_LOOPBACK=/sys/module/sroce/parameters/loopback

blk_data() {
	local dev off=$1
	dev=$(find_dev) || return 1
	head -c 8M /dev/urandom > "$T/pat" &&
	bounded $((120 * scale)) dd if="$T/pat" of="$dev" bs=1M seek="$off" oflag=direct status=none &&
	bounded $((120 * scale)) dd if="$dev" of="$T/back" bs=1M skip="$off" count=8 iflag=direct status=none &&
	cmp "$T/pat" "$T/back" &&
	dd if=/dev/ram0 of="$T/disk" bs=1M skip="$off" count=8 iflag=direct status=none &&
	cmp "$T/pat" "$T/disk"
}

blk_lo_data() {
	[ "$CL_IMPL" = sroce ] || { echo "sroce's loopback parameter: sroce only (rxe mode)"; return 4; }
	[ -w "$BLK_LOOPBACK" ] || { echo "no loopback parameter"; return 4; }
	echo N > "$BLK_LOOPBACK" || return 1
	blk_data 24
	local rc=$?
	echo Y > "$BLK_LOOPBACK"
	return $rc
}

blk_fio() {
	local dev rc
	command -v fio > /dev/null || { echo "fio missing"; return 4; }
	dev=$(find_dev) || return 1
	bounded $((120 * scale)) fio --name="$1" --filename="$dev" --direct=1 \
		--ioengine=libaio --rw=randwrite --bsrange=4k-128k --iodepth=8 \
		--offset=8M --size=16M --runtime=$((60 * scale)) --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output-format=terse --terse-version=3 > "$T/fio" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -n 5 "$T/fio"
	return $rc
}
