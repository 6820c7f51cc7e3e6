#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster-nodes: 3
#
# selftests/cluster/mpi.sh - a distributed MPI job on three machines: the
# three VMs of a qemu/cluster (selftests/cluster/run, make check), sroce
# on each. mpirun on node 0 starts one rank per
# node: Open MPI's daemons on nodes 1 and 2 are started through
# selftests/cluster/mpi-rsh (--mca plm_rsh_agent; the nodes run no sshd),
# which hands the command to this script's rsh_serve on that node through
# the run directory. The daemons talk TCP over the L2; the ranks talk
# through UCX restricted to rc_verbs (UCX_TLS=rc_v, pml ucx, no shared
# memory or TCP), so every rank's traffic is RoCE on sroce0:
#   - mpi_pingpong (selftests/mpi_pingpong.c, two ranks: nodes 0 and 1):
#     every byte of a ping-pong from 1 B to 1 MiB, Allreduce and Bcast
#     checked
#   - mpi_collectives.py (mpi4py): Allreduce SUM/MAX/MIN, Alltoall,
#     Allgather and ping-pongs from rank 0 to each rank, every element
#     checked (timings printed only)
#   - mpi_train.py: a data-parallel logistic regression (each rank a shard,
#     gradients Allreduced) whose weights equal a single-process run to
#     1e-9 and are identical on every rank
#   - every node's sroce0 sent packets
# Without mpirun or mpi_pingpong the MPI checks are skipped, without
# python3-mpi4py or numpy the two Python ones (the reason named).
# Node 0 prints the KTAP lines.
#
#   mpi.sh --list   the checks' names, one a line (on the host)
set -uo pipefail

CHECKS=(
	"up:three nodes, sroce0 on each, host names set, remote shells served"
	"pingpong:mpi_pingpong, ranks on nodes 0 and 1 (UCX rc_verbs): ping-pong bytes, Allreduce, Bcast checked"
	"collectives:mpi4py Allreduce, Alltoall, Allgather, ping-pongs, 3 ranks on 3 nodes, every element checked"
	"train:data-parallel training on 3 nodes equals the single-process run (1e-9), same weights on every rank"
	"traffic:every node's sroce0 sent packets during the MPI jobs"
)
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=selftests/cluster/lib.sh
. "$here/lib.sh"
cluster_script_init mpi 2+ "$@"

N=$SROCE_NODES
BIN=$top/build/userspace/mpi_pingpong
export UCX_TLS=rc_v UCX_NET_DEVICES=$dev:1 UCX_WARN_UNUSED_ENV_VARS=n

# rsh_serve: run the commands mpi-rsh left for this node, each in the
# background with its output and status beside it, until D/stop
rsh_serve() {
	local r=$SROCE_CLUSTER_DIR/rsh f id
	mkdir -p "$r"
	while [ ! -e "$D/stop" ]; do
		for f in "$r/$me".*.cmd; do
			[ -e "$f" ] || continue
			id=${f##*/} id=${id%.cmd}
			mv "$f" "$r/$id.run" || continue
			( cd /tmp && sh -c "$(cat "$r/$id.run")" > "$r/$id.out" 2>&1 < /dev/null
			  echo $? > "$r/.$id.rc" && mv "$r/.$id.rc" "$r/$id.rc" ) &
		done
		sleep 0.2
	done
}

up() {
	hostname "node$me" || return 1
	echo "node$me: $(rdma link show "$dev/1")"
	rdma link show "$dev/1" | grep -q 'state ACTIVE' || return 1
	[ "$me" = 0 ] || { rsh_serve & echo $! > /tmp/rsh_serve.pid; }
}

hosts() { local i h=""; for ((i = 0; i < $1; i++)); do h+="${h:+,}$(cluster_addr "$i"):1"; done; echo "$h"; }
# job NP CMD..: mpirun, one rank a node on nodes 0..NP-1, on node 0; the
# other nodes' side is their rsh_serve
job() {
	local np=$1
	shift
	[ "$me" = 0 ] || return 0
	timeout $((600 * S)) mpirun --allow-run-as-root -np "$np" -H "$(hosts "$np")" --bind-to none \
		--mca plm_rsh_agent "$here/mpi-rsh" --mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include 10.77.0.0/24 \
		--mca pml ucx --mca btl self \
		-x UCX_TLS -x UCX_NET_DEVICES -x UCX_WARN_UNUSED_ENV_VARS -x SROCE_CLUSTER_DIR \
		"$@"
}
tx0=$(port_counter "$dev" tx_pkts)
traffic() {
	local tx
	tx=$(($(port_counter "$dev" tx_pkts) - tx0))
	echo "node $me: $dev sent $tx packets"
	[ "$tx" -gt 0 ]
}
# passed NAME WANT..: job NAME printed "ok WANT:" for each WANT, no FAIL
passed() {
	local name=$1 w
	shift
	[ "$me" = 0 ] || return 0
	grep -q FAIL "$D/$name.0.out" && return 1
	for w in "$@"; do grep -q "^ok $w:" "$D/$name.0.out" || { echo "no 'ok $w'"; return 1; }; done
}
mpi_step() {	# mpi_step NAME NP WANTS -- CMD..: job NP CMD, then passed NAME WANTS
	local name=$1 np=$2 w=()
	shift 2
	while [ "$1" != -- ]; do w+=("$1"); shift; done
	shift
	job "$np" "$@" && passed "$name" "${w[@]}"
}

# what this host lacks (every node runs on its root): those checks are
# skipped, the reason named
no_mpi="" no_py=""
command -v mpirun > /dev/null || no_mpi="openmpi-bin missing (scripts/deps installs it)"
[ -n "$no_mpi" ] || [ -x "$BIN" ] || no_mpi="$BIN not built (make userspace, with libopenmpi-dev)"
/usr/bin/python3 -c 'import mpi4py, numpy' 2> /dev/null ||
	no_py="python3-mpi4py or python3-numpy missing (scripts/deps installs them)"
[ -z "$no_mpi" ] || no_py=$no_mpi
# mstep NAME WHY FUNC ARGS..: step NAME FUNC ARGS, or (WHY set) a skip
mstep() {
	local name=$1 why=$2
	shift 2
	if [ -z "$why" ]; then
		step "$name" "$@"
	elif [ "$me" = 0 ]; then
		ktap_skip "$(title "$name")" "$why"
	fi
}

[ "$me" = 0 ] && ktap_header "${#CHECKS[@]}"
dmesg_mark
step up both up up
mstep pingpong "$no_mpi" both pingpong mpi_step pingpong 2 pingpong allreduce bcast -- "$BIN" 4
mstep collectives "$no_py" both collectives mpi_step collectives "$N" allreduce alltoall allgather pingpong -- \
	/usr/bin/python3 "$here/mpi_collectives.py"
mstep train "$no_py" both train mpi_step train "$N" train -- /usr/bin/python3 "$here/mpi_train.py"
mstep traffic "$no_mpi" both traffic traffic
: > "$D/stop"
cluster_barrier finished 600
[ "$me" = 0 ] || exit 0
ktap_finish
