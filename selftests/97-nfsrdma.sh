#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# NFS over RDMA on sroce: the kernel's NFS server (nfsd with svcrdma,
# listening on RDMA port 20049) and NFSv4.2 client (xprtrdma, proto=rdma).
# The client moves data with RDMA READ/WRITE against fast-registered MRs
# (FRWR) and the server with its own reads and writes; a file written
# through the mount must read back (O_DIRECT) and be in the exported
# directory byte for byte, and a file written on the server must read
# right through the mount. Server and client share init_net (the host
# reaches the server's address on the same sroce device, through the
# local path).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"

EXP=/tmp/97-nfs-export.$$
MNT=/tmp/97-nfs-mnt.$$
MOUNTD=
cleanup() {
	umount -f "$MNT" 2>/dev/null
	exportfs -ua 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	[ -n "$MOUNTD" ] && kill "$MOUNTD" 2>/dev/null
	umount /proc/fs/nfsd 2>/dev/null
	umount /var/lib/nfs 2>/dev/null
	umount "$EXP" 2>/dev/null
	rdma link delete sroce8 2>/dev/null
	ip link del srA 2>/dev/null
	rmdir "$EXP" "$MNT" 2>/dev/null
}
trap cleanup EXIT

require_cmd rpc.nfsd rpc.mountd exportfs mount.nfs > /dev/null ||
	ktap_skip_all "nfs-kernel-server or nfs-common missing"
for m in nfsd rpcrdma nfsv4; do
	require_module "$m" > /dev/null || ktap_skip_all "module $m missing"
done

server() {
	mkdir -p "$EXP" "$MNT" &&
	mount -t tmpfs -o size=64m none "$EXP" &&
	mount -t tmpfs none /var/lib/nfs && mkdir -p /var/lib/nfs/v4recovery &&
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab &&
	{ mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd; } || return 1
	# a short grace period: OPENs wait for it to end
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	ip link add srA type veth peer name srB &&
	ip link set srA up && ip link set srB up &&
	ip addr add 192.0.2.1/24 dev srA &&
	rdma link add sroce8 type sroce netdev srA || return 1
	exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check 192.0.2.0/24:"$EXP"
}

# after rpc.mountd runs (started by the main shell: its PID is ours to end)
nfsd_start() {
	rpc.nfsd -N 3 4 || return 1
	echo "rdma 20049" > /proc/fs/nfsd/portlist || return 1
	grep rdma /proc/fs/nfsd/portlist
}

client() {
	# nfsd's grace period: the first OPEN may wait up to its end
	bounded 90 mount -t nfs4 -o proto=rdma,port=20049,vers=4.2 192.0.2.1:/ "$MNT" || return 1
	grep " $MNT " /proc/mounts | grep -q 'proto=rdma' || { grep " $MNT " /proc/mounts; return 1; }
	grep " $MNT " /proc/mounts | cut -d' ' -f3,4
}

write_through() {
	head -c 8M /dev/urandom > "$EXP.pat" &&
	bounded 120 dd if="$EXP.pat" of="$MNT/through" bs=1M oflag=direct status=none &&
	bounded 120 dd if="$MNT/through" of="$EXP.back" bs=1M iflag=direct status=none &&
	cmp "$EXP.pat" "$EXP.back" && cmp "$EXP.pat" "$EXP/through"
}

read_through() {
	head -c 3M /dev/urandom > "$EXP/server-side" &&
	bounded 120 dd if="$MNT/server-side" of="$EXP.back" bs=1M iflag=direct status=none &&
	cmp "$EXP/server-side" "$EXP.back"
}

many_files() {
	local i
	for i in $(seq 32); do
		head -c $((i * 4099)) /dev/urandom > "$EXP.f" &&
		cp "$EXP.f" "$MNT/f$i" && sync "$MNT/f$i" && cmp "$EXP.f" "$EXP/f$i" || return 1
	done
}

ktap_header 8
dmesg_mark
ktap_result "a tmpfs exported to 192.0.2.0/24, sroce8 on 192.0.2.1" server
rpc.mountd -N 2 -N 3 -F > /dev/null 2>&1 &
MOUNTD=$!
ktap_result "nfsd listening on RDMA port 20049" nfsd_start
ktap_result "mount -t nfs4 -o proto=rdma" client
ktap_result "8 MiB written through the mount (O_DIRECT), read back, on the server" write_through
ktap_result "3 MiB written on the server read through the mount (O_DIRECT)" read_through
ktap_result "32 files of 4 KiB..128 KiB copied through the mount, on the server" many_files
ktap_result "umount" umount "$MNT"
rm -f "$EXP".pat "$EXP".back "$EXP".f
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
