#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 240
# sroce-kernels: newest
# Open MPI over UCX (pml ucx) on sroce, unmodified: two ranks, one in
# each namespace. mpirun runs rank 0 here on sroce8 and starts the remote
# daemon for "host" 192.0.2.2 through mpi-netns-rsh (--mca
# plm_rsh_agent), which enters srpeer instead of ssh-ing: rank 1 runs
# there on sroce9. Each side has a UTS namespace with a host name of its
# own (sroce-a, sroce-b: ORTE refuses the guest's "(none)"). The daemons
# talk TCP over the veth; MPI traffic goes through UCX restricted to one
# verbs transport, UCX_TLS=rc_v (rc_verbs, ud_verbs only to connect) or
# ud_verbs (no shared memory, TCP or self), so both devices' packet
# counters must move.
# mpi_pingpong (selftests/mpi_pingpong.c, built by the userspace CMake,
# else compiled here with mpicc) checks every byte of a ping-pong from
# 1 B to 1 MiB (eager and rendezvous) and the results of MPI_Allreduce
# (sum, max) and MPI_Bcast; its timings are printed, never judged.
# UCX's UD transport finds the destination address in a receive's GRH
# area by the RoCE packet type in the completion's SL (bit 3 UDP, bits
# 2:0 2 = IPv4), as RoCE NICs report it; sroce does the same for user CQs.
# sroce-impl: sroce rxe
# (rxe: rank 0 on rxe8, whose sent_pkts must move, rank 1 on sroce9)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
DIR=$(cd "$(dirname "$0")" && pwd)
LOG=/tmp/92-mpi.$$
cleanup() { bg_kill_all; topo_down_bounded; rm -rf "$LOG".*; }
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd mpirun > /dev/null || ktap_skip_all "openmpi-bin missing"
BIN=${SROCE_TOP:-$DIR/..}/build/userspace/mpi_pingpong
if [ ! -x "$BIN" ]; then
	require_cmd mpicc > /dev/null || ktap_skip_all "no mpi_pingpong built and no mpicc (libopenmpi-dev)"
	BIN=$LOG.mpi_pingpong
	mpicc -O2 -o "$BIN" "$DIR/mpi_pingpong.c" || ktap_skip_all "mpicc failed on mpi_pingpong.c"
fi


# mpi TL: mpi_pingpong with 2 ranks over UCX transport TL; its output in
# $LOG.TL; every check of the program must pass (exit 0)
mpi() {
	local tl=$1 p a0 b0 a1 b1
	mkdir -p "$LOG.peer"
	a0=$(cl_tx_pkts "$CL_DEV"); b0=$(cl_tx_pkts sroce9)
	bg_start p 90 "$LOG.$tl" unshare --uts sh -c 'hostname sroce-a && exec "$@"' sh \
		env UCX_TLS="$tl" UCX_NET_DEVICES="$CL_DEV:1" \
		UCX_WARN_UNUSED_ENV_VARS=n MPI_PEER_UCX_DEV=sroce9:1 MPI_PEER_TMPDIR="$LOG.peer" \
		mpirun --allow-run-as-root -np 2 -H 192.0.2.1,192.0.2.2 --bind-to none \
		--mca plm_rsh_agent "$DIR/mpi-netns-rsh" \
		--mca oob_tcp_if_include 192.0.2.0/24 \
		--mca pml ucx --mca btl self \
		"$BIN" 4
	bg_wait "$p" mpirun
	local rc=$?
	a1=$(cl_tx_pkts "$CL_DEV"); b1=$(cl_tx_pkts sroce9)
	cat "$LOG.$tl"
	echo "$CL_DEV sent +$((a1 - a0)), sroce9 tx_pkts +$((b1 - b0))"
	[ "$rc" -eq 0 ] || { echo "mpirun exit status $rc"; return 1; }
	grep -q "^rank 1 of 2" "$LOG.$tl" || { echo "rank 1 did not run"; return 1; }
	[ "$((a1 - a0))" -gt 0 ] && [ "$((b1 - b0))" -gt 0 ] ||
		{ echo "traffic did not go through both devices"; return 1; }
}

# passed TL PART: mpi_pingpong reported PART ok over TL
passed() { grep -q "^ok $2:" "$LOG.$1" || { echo "no 'ok $2' from mpi_pingpong"; return 1; }; }

ktap_header 10
dmesg_mark
ktap_result "topology up ($(topo_title))" topo_up "$CL_IMPL"
for tl in rc_v ud_verbs; do
	if ktap_result "mpirun -np 2 (pml ucx, UCX_TLS=$tl), one rank per namespace" mpi "$tl"; then
		ktap_result "$tl: ping-pong 1 B..1 MiB, every byte checked" passed "$tl" pingpong
		ktap_result "$tl: MPI_Allreduce sum/max checked" passed "$tl" allreduce
		ktap_result "$tl: MPI_Bcast checked" passed "$tl" bcast
	else
		for p in ping-pong MPI_Allreduce MPI_Bcast; do
			ktap_fail "$tl: $p" "mpirun failed"
		done
	fi
done
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
