#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: oldest newest
# NFS over RDMA on sroce: the kernel's NFS server (nfsd with svcrdma,
# listening on RDMA port 20049) and NFSv4.2 client (xprtrdma, proto=rdma).
# The client moves data with RDMA READ/WRITE against fast-registered MRs
# (FRWR) and the server with its own reads and writes; a file written
# through the mount must read back (O_DIRECT) and be in the exported
# directory byte for byte, and a file written on the server must read
# right through the mount. Then the mount under load: a writer and a
# reader work in it (their working directory) while it is unmounted. A
# plain umount must be refused at once (EBUSY, "target is busy": umount(2)
# and umount(8) document it for a mount in use; umount.nfs4 says "device
# is busy"), so the lazy umount (-l,
# the documented way to detach a busy mount) does it: the mount is gone
# from the namespace at once, the writer and reader go on through the
# detached mount byte-exact, and once they end the client's transport
# (its RDMA QP) must be released, nothing left hanging; a new mount then
# works. (umount -f would only abort the RPCs in flight, and then fail
# with EBUSY all the same.) Server and client share init_net (the host
# reaches the server's address on the same sroce device, through the
# local path).
# sroce-impl: sroce rxe
# (rxe: server and client on rxe8, through rxe's own loopback)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"

EXP=/tmp/97-nfs-export.$$
MNT=/tmp/97-nfs-mnt.$$
MOUNTD=
cleanup() {
	rm -f "$EXP.run"
	bg_kill_all
	umount -f "$MNT" 2>/dev/null
	exportfs -ua 2>/dev/null
	rpc.nfsd 0 2>/dev/null
	[ -n "$MOUNTD" ] && kill "$MOUNTD" 2>/dev/null
	umount /proc/fs/nfsd 2>/dev/null
	umount /var/lib/nfs 2>/dev/null
	umount "$EXP" 2>/dev/null
	cl_veth_down
	rmdir "$EXP" "$MNT" 2>/dev/null
	rm -f "$EXP".*
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
	cl_veth_up || return 1
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

# load: a writer (1 MiB O_DIRECT, read back) and a reader (a server-side
# file, O_DIRECT), each in a loop while $EXP.run exists, each with its
# working directory in the mount; rounds done in $EXP.w and $EXP.r
WRITER=
READER=
# shellcheck disable=SC2016  # expanded by the loop's bash
LOOP='cd "$1" || exit 1; n=0
while [ -e "$2" ]; do
	case $4 in
	w) dd if="$3" of=w bs=64k oflag=direct status=none &&
	   dd if=w of="$3.$4" bs=64k iflag=direct status=none ;;
	r) dd if=r of="$3.$4" bs=64k iflag=direct status=none ;;
	esac || { echo "round $n: I/O failed"; exit 1; }
	cmp "$3" "$3.$4" || { echo "round $n: data differs"; exit 1; }
	n=$((n + 1)); echo $n > "$3.n$4"
done
echo "$n rounds"'

load_start() {
	head -c 1M /dev/urandom > "$EXP.pat" && cp "$EXP.pat" "$EXP/r" &&
	echo 0 > "$EXP.pat.nw" && echo 0 > "$EXP.pat.nr" && touch "$EXP.run" || return 1
	bg_start WRITER 240 "$EXP.wlog" bash -c "$LOOP" w "$MNT" "$EXP.run" "$EXP.pat" w
	bg_start READER 240 "$EXP.rlog" bash -c "$LOOP" r "$MNT" "$EXP.run" "$EXP.pat" r
}

# load_moves SECS: writer and reader each finish one more round within SECS
load_moves() {
	local w0 r0 n
	w0=$(cat "$EXP.pat.nw") r0=$(cat "$EXP.pat.nr")
	for n in $(seq $(( $1 * 5 ))); do
		[ "$(cat "$EXP.pat.nw")" -gt "$w0" ] && [ "$(cat "$EXP.pat.nr")" -gt "$r0" ] && return 0
		sleep 0.2
	done
	echo "writer rounds $w0 -> $(cat "$EXP.pat.nw"), reader rounds $r0 -> $(cat "$EXP.pat.nr")"
	cat "$EXP.wlog" "$EXP.rlog"
	return 1
}

load_started() {
	load_moves 60 || return 1
	echo "$(rc_qps) RC QPs on $CL_DEV"
	[ "$(rc_qps)" -gt 0 ]
}

# umount_busy: a plain umount of the mount in use fails at once, EBUSY
umount_busy() {
	local out rc
	out=$(bounded 30 umount "$MNT" 2>&1)
	rc=$?
	echo "umount: exit status $rc: $out"
	# umount(8) says 32, umount.nfs4 16: any failure that says busy
	[ $rc -ne 0 ] && [ $rc -lt 124 ] && [[ $out == *busy* ]] && mountpoint -q "$MNT"
}

umount_lazy() { bounded 30 umount -l "$MNT" && ! mountpoint -q "$MNT"; }

# load_end: both loops stop after their round, and every round was right
load_end() {
	rm -f "$EXP.run"
	bg_wait_both "$WRITER" "$READER" writer reader
	ktap_diag "writer: $(tail -n 2 "$EXP.wlog")"$'\n'"reader: $(tail -n 2 "$EXP.rlog")"
	if [ "$BG_RC_A" -eq 0 ] && [ "$BG_RC_B" -eq 0 ]; then
		ktap_ok "writer and reader ended on the detached mount, every round byte-exact"
	else
		ktap_fail "writer and reader ended on the detached mount, every round byte-exact" \
			"exit status writer $BG_RC_A, reader $BG_RC_B"
	fi
}

# RC QPs on $CL_DEV (client's and server's ends of the transport)
rc_qps() { rdma resource show qp link "$CL_DEV" 2>/dev/null | grep -c 'type RC'; }

# released SECS: no NFS client left, and no RC QP on $CL_DEV, within SECS
released() {
	local n
	for n in $(seq $(( $1 * 5 ))); do
		# (/proc/fs/nfsfs/servers: a header line, then one per server)
		[ "$(rc_qps)" -eq 0 ] && [ "$(wc -l < /proc/fs/nfsfs/servers)" -le 1 ] &&
			{ echo "after $((n / 5)).$((n % 5 * 2)) s"; return 0; }
		sleep 0.2
	done
	echo "still $(rc_qps) RC QPs on $CL_DEV after $1 s:"
	rdma resource show qp link "$CL_DEV" 2>&1 | head -n 4
	cat /proc/fs/nfsfs/servers 2>&1
	return 1
}

remount_read() { client > /dev/null && read_through; }

ktap_header 15
dmesg_mark
ktap_result "a tmpfs exported to 192.0.2.0/24, $CL_DEV on 192.0.2.1" server
rpc.mountd -N 2 -N 3 -F > /dev/null 2>&1 &
MOUNTD=$!
ktap_result "nfsd listening on RDMA port 20049" nfsd_start
ktap_result "mount -t nfs4 -o proto=rdma" client
ktap_result "8 MiB written through the mount (O_DIRECT), read back, on the server" write_through
ktap_result "3 MiB written on the server read through the mount (O_DIRECT)" read_through
ktap_result "32 files of 4 KiB..128 KiB copied through the mount, on the server" many_files
load_start
ktap_result "a writer and a reader at work in the mount" load_started
ktap_result "plain umount under load refused at once: target is busy (EBUSY)" umount_busy
ktap_result "umount -l under load: detached at once" umount_lazy
ktap_result "writer and reader go on through the detached mount" load_moves 30
load_end
ktap_result "the client's transport released (no RC QP on $CL_DEV) within 30 s" released 30
ktap_result "a new mount works: 3 MiB written on the server read through it" remount_read
ktap_result "umount" umount "$MNT"
rm -f "$EXP".pat "$EXP".back "$EXP".f "$EXP".pat.*
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
