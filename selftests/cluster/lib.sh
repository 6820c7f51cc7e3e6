# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154  # me, D, S, CHECKS: the script's
#
# selftests/cluster/lib.sh - the opening and the two-node check structure
# shared by the scripts of selftests/cluster. Sourced first thing after
# CHECKS ("NAME:title" per check, in order); it sources qemu/cluster-lib.sh,
# selftests/lib.sh and selftests/bounded.sh itself. Each check leaves
# NAME.NODE.rc and NAME.NODE.out in D on each node taking part.
#
#   cluster_script_init NAME NODES "$@"
#                         the script's opening: with --list (on the host)
#                         print CHECKS' titles and exit 0; else exit 1
#                         unless the cluster has NODES nodes (N+: at least
#                         N), and set top (the checkout), me (this node),
#                         D ($SROCE_CLUSTER_DIR/NAME, created), S (the
#                         time scale), dev (the RDMA device), VERIFY
#                         (sroce-verify)
#   gid                   dev's RoCE v2 GID index for this node's address
#   listening PORT        a TCP listener on PORT
#   cm_listening          an rdma_cm listener
#   pair NAME SERVER WAIT -- SCMD.. -- CCMD..
#                         node SERVER runs SCMD, the other CCMD once
#                         WAIT says SCMD listens (@PEER@: SERVER's address)
#   both NAME CMD..       CMD on both nodes
#   step NAME FUNC ARG..  barrier NAME, FUNC (one of the above, or one
#                         that writes the status files itself), then node
#                         0 reports the check from both nodes' status
#   step0 NAME FUNC ARG.. a check of node 0 alone (no barrier, node 1's
#                         status not waited for: node 1 may be gone);
#                         node 1 does nothing
#   status NAME RC        write this node's status of check NAME

cl_here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
top=${cl_here%/selftests/*}
# shellcheck source=qemu/cluster-lib.sh
. "$top/qemu/cluster-lib.sh"
# shellcheck source=selftests/lib.sh
. "$top/selftests/lib.sh"
# shellcheck source=selftests/bounded.sh
. "$top/selftests/bounded.sh"

cluster_script_init() {
	local name=$1 want=$2 c
	shift 2
	if [ "${1:-}" = --list ]; then
		for c in "${CHECKS[@]}"; do echo "${c#*:}"; done
		exit 0
	fi
	case $want in
	*+) [ "$SROCE_NODES" -ge "${want%+}" ] ||
		{ echo "$name.sh: needs ${want%+} nodes or more, not $SROCE_NODES" >&2; exit 1; } ;;
	*) [ "$SROCE_NODES" -eq "$want" ] ||
		{ echo "$name.sh: needs $want nodes, not $SROCE_NODES" >&2; exit 1; } ;;
	esac
	me=$SROCE_NODE
	D=$SROCE_CLUSTER_DIR/$name
	mkdir -p "$D" || exit 1
	S=$CL_SCALE
	dev=$SROCE_NODE_DEV
	# shellcheck disable=SC2034  # the scripts' (as me, D, S, dev)
	VERIFY=$top/build/userspace/sroce-verify
}
gid() { cluster_gid "$dev" "$SROCE_NODE_ADDR"; }

# listening PORT: a TCP listener on PORT (the out-of-band exchange of
# ibv_*_pingpong, perftest and sroce-verify)
listening() { ss -Hltn | grep -q ":$1 "; }
cm_listening() { rdma res show cm_id 2>/dev/null | grep -q LISTEN; }

# pair NAME SERVER WAIT -- SERVER_CMD... -- CLIENT_CMD...: node SERVER
# starts SERVER_CMD, waits for WAIT (a command: it is listening) and says
# so; the other node then runs CLIENT_CMD (@PEER@ in it: the server's
# address). Each side's status and output go to $D/NAME.NODE.{rc,out}.
# PAIR_POST=FUNC: FUNC's output is added, and its failure fails the check
pair() {
	local name=$1 srv=$2 waitc=$3 s rc a
	local -a scmd=() ccmd=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	for a in "$@"; do ccmd+=("${a//@PEER@/$(cluster_addr "$srv")}"); done
	if [ "$me" = "$srv" ]; then
		"${scmd[@]}" > "$D/$name.$me.out" 2>&1 &
		s=$!
		if cluster_wait $((60 * S)) eval "$waitc"; then
			cluster_put "$name.ready" 1
		else
			echo "not listening after $((60 * S))s" >> "$D/$name.$me.out"
			cluster_put "$name.ready" 0
		fi
		wait "$s"; rc=$?
	else
		if [ "$(cluster_get "$name.ready" 300)" = 1 ]; then
			"${ccmd[@]}" > "$D/$name.$me.out" 2>&1
			rc=$?
		else
			echo "the server did not start" > "$D/$name.$me.out"
			rc=1
		fi
	fi
	# what the caller wants in the output too, before the status says
	# done; its failure fails the check
	[ -z "${PAIR_POST:-}" ] || "$PAIR_POST" >> "$D/$name.$me.out" 2>&1 || rc=1
	status "$name" "$rc"
}

# report NAME TITLE: on node 0, the check's result line from every
# node's status (the others' waited for, unless REPORT_ALONE=1: node 0's
# alone), their outputs as diagnostics
report() {
	local name=$1 title=$2 n r why="" fail=0
	[ "$me" = 0 ] || return 0
	for ((n = 0; n < SROCE_NODES; n++)); do
		[ "$n" = 0 ] || [ "${REPORT_ALONE:-0}" != 1 ] || break
		r=none
		if [ "$n" = 0 ] || cluster_wait $((360 * S)) test -e "$D/$name.$n.rc"; then
			read -r r < "$D/$name.$n.rc" 2>/dev/null || r=none
		fi
		why+="${why:+, }node $n exit $r"
		[ "$r" = 0 ] || fail=1
		[ -s "$D/$name.$n.out" ] || continue
		echo "# node $n:"
		tail -n 25 "$D/$name.$n.out" | sed 's/^/#   /'
	done
	if [ "$fail" = 0 ]; then
		ktap_ok "$title"
	else
		ktap_fail "$title" "$why"
	fi
}

# both NAME CMD...: CMD on both nodes (its own side of a check)
both() {
	local name=$1 rc
	shift
	"$@" > "$D/$name.$me.out" 2>&1
	rc=$?
	status "$name" "$rc"
}

title() { local c; for c in "${CHECKS[@]}"; do [ "${c%%:*}" = "$1" ] && echo "${c#*:}"; done; }
step() {	# step NAME FUNC ARGS...: one check on this node, then its result
	local name=$1
	shift
	cluster_barrier "$name" 600 || { echo "barrier $name failed" > "$D/$name.$me.out"; status "$name" 1; }
	[ -e "$D/$name.$me.rc" ] || "$@"
	# a function that failed before pair/both wrote a status
	[ -e "$D/$name.$me.rc" ] || status "$name" 1
	report "$name" "$(title "$name")"
}

step0() {	# step0 NAME FUNC ARGS...: FUNC on node 0 alone, its result
	local name=$1
	shift
	[ "$me" = 0 ] || return 0
	"$@" > "$D/$name.0.out" 2>&1
	status "$name" $?
	REPORT_ALONE=1 report "$name" "$(title "$name")"
}

status() { echo "$2" > "$D/$1.$me.rc.tmp" && mv "$D/$1.$me.rc.tmp" "$D/$1.$me.rc"; }
