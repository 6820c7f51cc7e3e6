#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 300
# dma-buf MRs (ibv_reg_dmabuf_mr, the GPUDirect RDMA path), with pyverbs
# (dmabuf_verbs.py): the dma-buf MRs live on sroce8, the traffic peer is
# sroce9 in the other namespace. The exporter is udmabuf (a sealed memfd;
# 6.12) or, where the kernel has no udmabuf (6.1), a vgem dumb buffer
# exported with DRM PRIME; every byte is checked through the exporter's
# own CPU mapping. NCCL's support probe (fd -1: EBADF); RDMA WRITE into and
# READ out of a dma-buf MR at an offset in its buffer, WRITE from and READ
# into dma-buf SGEs, SEND both ways, atomics; the refused arguments (bad
# fd, not a dma-buf, ranges past the buffer or wrapping, raw ioctls with
# hostile lengths and iovas, access flags, rereg; write access through a
# read-only vgem export); the MR keeps the buffer after user space closes
# every fd and mapping, dereg releases it (debugfs buffer count); dereg
# while the peer's READs and WRITEs of the MR are in flight.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
here=$(dirname "$0")
log=/tmp/90-dmabuf.$$
vgem_loaded=0
cleanup() {
	topo_down
	[ "$vgem_loaded" = 1 ] && rmmod vgem 2>/dev/null
	rm -f "$log"
}
trap cleanup EXIT

CASES=(probe write read local send atomic refused readonly lifetime inflight)

# vgem also gives the read-only export of the readonly case
vgem=0
grep -qw '^vgem' /proc/modules || vgem_loaded=1
if timeout 60 modprobe vgem 2>/dev/null; then
	for _ in $(seq 50); do
		compgen -G '/sys/class/drm/card*/device' > /dev/null && break
		sleep 0.1
	done
	vgem=1
fi
exporter=
if [ -c /dev/udmabuf ]; then
	exporter=udmabuf
elif [ "$vgem" = 1 ]; then
	exporter=vgem
fi
[ -n "$exporter" ] || ktap_skip_all "no CPU-mappable dma-buf exporter: no /dev/udmabuf (CONFIG_UDMABUF) and no vgem module"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null

verdict() {
	grep -qx "ok $1" "$log" && return 0
	grep -E "^not ok $1:" "$log" || { echo "no verdict for $1:"; tail -n 5 "$log"; }
	return 1
}

ktap_header $((1 + ${#CASES[@]} + 1))
dmesg_mark
ktap_diag "exporter: $exporter"
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
timeout 180 python3 "$here/dmabuf_verbs.py" "$exporter" sroce8 sroce9 "${CASES[@]}" > "$log" 2>&1
ktap_diag "$(grep '^# ' "$log" | cut -c3-)"
ktap_result "NCCL probe ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0): EBADF (supported)" verdict probe
ktap_result "peer RDMA WRITE into a dma-buf MR: byte-exact in the $exporter mapping, past the MR refused" \
	verdict write
ktap_result "peer RDMA READ of a dma-buf MR the CPU filled: byte-exact" verdict read
ktap_result "RDMA WRITE from and READ into dma-buf SGEs: byte-exact" verdict local
ktap_result "SEND into and from dma-buf SGEs: byte-exact" verdict send
ktap_result "FETCH_ADD and CMP_SWAP on a dma-buf MR word" verdict atomic
ktap_result "refused: bad fd, not a dma-buf, ranges past/wrapping, raw hostile ioctls, access flags, rereg" \
	verdict refused
if grep -qE "^skip readonly:" "$log"; then
	ktap_skip "read-only dma-buf fd: write access EACCES, REMOTE_READ works" \
		"$(sed -n 's/^skip readonly: //p' "$log")"
else
	ktap_result "read-only dma-buf fd: write access EACCES, REMOTE_READ works" verdict readonly
fi
ktap_result "fds and mapping closed after registration: the MR keeps the buffer, dereg releases it" \
	verdict lifetime
ktap_result "dereg while the peer's READs and WRITEs are in flight: completions, no hang, no leak" \
	verdict inflight
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
