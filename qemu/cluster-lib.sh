# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# qemu/cluster-lib.sh - guest-side helpers for commands that qemu/cluster
# runs on every node (sourced; qemu/cluster-node sources it too). The nodes
# share $SROCE_CLUSTER_DIR, a directory of the checkout (9p, no caching,
# writable in every guest): they coordinate through files in it.
#
# Environment (set by qemu/cluster-node):
#   SROCE_NODE          this node's index, 0..N-1
#   SROCE_NODES         N
#   SROCE_CLUSTER_DIR   the run directory, shared by all nodes (and the host)
#   SROCE_NODE_IMPL     sroce, rxe or none: what this node's device is
#   SROCE_NODE_DEV      this node's RDMA device on eth0 (sroce0, rxe0, "")
#   SROCE_NODE_ADDR     this node's IPv4 address on the cluster L2
#   SROCE_NODE_NETDEV   the interface carrying it and the RDMA device:
#                       eth0, or bond0 with qemu/cluster --paths P > 1
#   SROCE_NODE_SLAVES   that interface's NICs: "eth0", or "eth0 eth1 .."
#   SROCE_TIMEOUT_SCALE multiplier for every time limit (default 1)
#
# Helpers:
#   cluster_addr I          node I's IPv4 address (10.77.0.I+1)
#   cluster_gid DEV ADDR    the GID index of DEV's RoCE v2 GID for IPv4
#                           ADDR (waits up to 10 s for it)
#   cluster_put KEY VALUE   publish VALUE under KEY (atomic rename)
#   cluster_get KEY [S]     print KEY's value, waiting up to S seconds
#                           (default 120, times the scale) for it; 1 if absent
#   cluster_barrier NAME [S]
#                           wait until every node reached barrier NAME (up
#                           to S seconds, default 300, times the scale);
#                           1 on timeout, with the nodes missing on stderr
#   cluster_wait S CMD...   run CMD every 0.2 s until it succeeds, for up
#                           to S seconds (not scaled); 1 on timeout
#   cluster_kill_node I [S] have qemu/cluster kill node I's QEMU (SIGKILL:
#                           the machine vanishes, no shutdown, no FIN, no
#                           link down); waits up to S seconds (default 30,
#                           times the scale) until the host did; 1 if it
#                           did not. Node I's end is no failure of the run

[ ! -r /usr/lib/bash/sleep ] || enable -f /usr/lib/bash/sleep sleep 2>/dev/null

CL_SCALE=${SROCE_TIMEOUT_SCALE:-1}

cluster_addr() { echo "10.77.0.$(($1 + 1))"; }

cluster_wait() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

cluster_gid() {
	local dev=$1 want end f g
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	end=$((SECONDS + 10))
	while :; do
		for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			read -r g 2>/dev/null < "$f" || continue
			[ "$g" = "$want" ] || continue
			# a RoCE v2 entry (rxe and sroce list v1 and v2 for an address)
			grep -q 'RoCE v2' "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/${f##*/}" 2>/dev/null || continue
			echo "${f##*/}"
			return 0
		done
		[ "$SECONDS" -lt "$end" ] || { echo "cluster_gid: $dev has no RoCE v2 GID for $2" >&2; return 1; }
		sleep 0.2
	done
}

cluster_put() {
	mkdir -p "$SROCE_CLUSTER_DIR/kv" &&
	printf '%s\n' "$2" > "$SROCE_CLUSTER_DIR/kv/.$1.$SROCE_NODE" &&
	mv -f "$SROCE_CLUSTER_DIR/kv/.$1.$SROCE_NODE" "$SROCE_CLUSTER_DIR/kv/$1"
}

cluster_get() {
	local f=$SROCE_CLUSTER_DIR/kv/$1
	cluster_wait $((${2:-120} * CL_SCALE)) test -e "$f" || { echo "cluster_get: no $1" >&2; return 1; }
	cat "$f"
}

cluster_barrier() {
	local name=$1 secs=$((${2:-300} * CL_SCALE)) d=$SROCE_CLUSTER_DIR/barrier i miss
	mkdir -p "$d" && : > "$d/$name.$SROCE_NODE" || return 1
	_cl_all() {
		local j
		for ((j = 0; j < SROCE_NODES; j++)); do [ -e "$d/$name.$j" ] || return 1; done
	}
	cluster_wait "$secs" _cl_all && return 0
	miss=""
	for ((i = 0; i < SROCE_NODES; i++)); do [ -e "$d/$name.$i" ] || miss+=" $i"; done
	echo "cluster_barrier $name: node(s)$miss did not arrive within ${secs}s" >&2
	return 1
}

cluster_kill_node() {
	local d=$SROCE_CLUSTER_DIR
	mkdir -p "$d/ctl" &&
	echo "$SROCE_NODE" > "$d/ctl/.kill.$1" && mv -f "$d/ctl/.kill.$1" "$d/ctl/kill.$1" || return 1
	cluster_wait $((${2:-30} * CL_SCALE)) test -e "$d/node$1.killed" &&
		! grep -qx none "$d/node$1.killed"
}
