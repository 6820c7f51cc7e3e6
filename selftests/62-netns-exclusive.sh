#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 420
# sroce-kernels: oldest newest
# sroce in containers: ib_core in netns exclusive mode (`rdma system set
# netns exclusive`), two namespaces joined by a veth, each with its own
# sroce device:
#   - ctra0 is added from inside nsA (`rdma link add` in the namespace, a
#     name the provider only knows through hca_type), sroce7 from inside
#     nsB; sroce7 is taken to init_net and given back to nsB with `rdma
#     dev set sroce7 netns nsB` (as Kubernetes' rdma-cni does);
#   - each namespace sees its own device only (rdma dev, sysfs, ibv_devices),
#     init_net sees neither;
#   - perftest (ib_write_bw, ib_send_lat) and rdma_cm (rping) run between
#     the namespaces through those devices; pyverbs opens ctra0 in nsA and
#     brings a QP up;
#   - moving sroce7 back to init_net and into nsB again under traffic is
#     bounded (its processes end) and the device works afterwards;
#   - deleting nsA with ib_write_bw running in it: once the process is gone
#     the namespace dies and ctra0 is removed (its netdev died with it)
#     within 10 s, nothing of it is left;
#   - the kernel log is clean.
# The core's mode is put back to shared at the end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"

LOG=/tmp/62-netns.$$
cleanup() {
	bg_kill_all
	ip netns del nsA 2>/dev/null
	ip netns del nsB 2>/dev/null
	ip netns del srinit 2>/dev/null
	for _ in $(seq 50); do rdma dev | grep -q . || break; sleep 0.2; done
	rdma system set netns shared 2>/dev/null
	rm -f "$LOG".*
}
trap cleanup EXIT
trap 'exit 143' TERM INT

require_cmd rdma ib_write_bw rping ibv_devices > /dev/null || ktap_skip_all "rdma, perftest, rdmacm-utils or ibverbs-utils missing"
rdma system show 2>/dev/null | grep -q netns || ktap_skip_all "iproute2's rdma has no 'system' command"
# exclusive mode can only be entered while no other namespace and device exist
rdma dev | grep -q . && ktap_skip_all "RDMA devices exist before the test: exclusive mode refused"

in_a() { ip netns exec nsA "$@"; }
in_b() { ip netns exec nsB "$@"; }
names() { "$@" rdma dev 2>/dev/null | awk '{print $2}' | tr -d ':' | sort | tr '\n' ' '; }

setup() {
	rdma system set netns exclusive || return 1
	ip netns add nsA && ip netns add nsB || return 1
	ip netns attach srinit 1 || return 1	# a name for init_net
	ip link add vA type veth peer name vB || return 1
	ip link set vA netns nsA && ip link set vB netns nsB || return 1
	ip -n nsA addr add 192.0.2.1/24 dev vA && ip -n nsB addr add 192.0.2.2/24 dev vB || return 1
	ip -n nsA link set vA up && ip -n nsB link set vB up || return 1
	ip -n nsA link set lo up && ip -n nsB link set lo up || return 1
	in_a rdma link add ctra0 type sroce netdev vA || return 1
	in_b rdma link add sroce7 type sroce netdev vB || return 1
}

# the way Kubernetes' rdma-cni hands a device to a pod: from init_net
give_b() {
	in_b rdma dev set sroce7 netns srinit || return 1
	[ "$(names)" = "sroce7 " ] || { echo "init_net: [$(names)]"; return 1; }
	rdma dev set sroce7 netns nsB || return 1
}

visible() {
	local a b i
	a=$(names in_a) b=$(names in_b) i=$(names)
	echo "init: [$i] nsA: [$a] nsB: [$b]"
	[ "$a" = "ctra0 " ] && [ "$b" = "sroce7 " ] && [ -z "$i" ] || return 1
	[ -e /sys/class/infiniband/ctra0 ] && return 1
	in_a sh -c '[ -d /sys/class/infiniband/ctra0 ] && [ ! -e /sys/class/infiniband/sroce7 ]' || return 1
	in_a ibv_devices | grep -qw ctra0 || { echo "ibv_devices in nsA: $(in_a ibv_devices | tail -n +3)"; return 1; }
	in_b ibv_devices | grep -qw sroce7 || { echo "ibv_devices in nsB: $(in_b ibv_devices | tail -n +3)"; return 1; }
	in_a ibv_devices | grep -qw sroce7 && return 1
	return 0
}

# gid index of an IPv4 address on a device, inside a namespace
gidx() {
	local ns=$1 dev=$2 ip=$3 f
	for f in $(ip netns exec "$ns" sh -c "ls /sys/class/infiniband/$dev/ports/1/gids/"); do
		ip netns exec "$ns" cat "/sys/class/infiniband/$dev/ports/1/gids/$f" 2>/dev/null |
			grep -qi "$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ip//./ })" && { echo "$f"; return 0; }
	done
	return 1
}

perftest() {	# TOOL: server on sroce7 (nsB), client on ctra0 (nsA)
	local tool=$1 s c gb ga
	gb=$(gidx nsB sroce7 192.0.2.2) ga=$(gidx nsA ctra0 192.0.2.1) || { echo "no IPv4 GID"; return 1; }
	bg_start s 60 "$LOG.s" ip netns exec nsB "$tool" -d sroce7 -x "$gb" -n 200 -F
	sleep 2
	bg_start c 55 "$LOG.c" ip netns exec nsA "$tool" -d ctra0 -x "$ga" -n 200 -F 192.0.2.2
	bg_wait_both "$c" "$s" "$tool client" "$tool server"
	[ "$BG_RC_A" -eq 0 ] && [ "$BG_RC_B" -eq 0 ] || { tail -n 3 "$LOG.c" "$LOG.s"; return 1; }
}

rping_ns() {
	local s c
	bg_start s 40 "$LOG.rs" ip netns exec nsB rping -s -a 192.0.2.2 -C 5
	sleep 2
	bg_start c 35 "$LOG.rc" ip netns exec nsA rping -c -a 192.0.2.2 -C 5 -v
	bg_wait_both "$c" "$s" "rping client" "rping server"
	# rping's own teardown race after every ping was done (lib.sh)
	if [ "$BG_RC_A" -eq 255 ] && [ "$BG_RC_B" -eq 0 ] &&
	   rping_cm_exit_race "$LOG.rc" "ping data: " 5; then
		ktap_diag "client: all 5 pings done, then rping's cm thread exited 255 on the event channel its main thread destroyed (rping teardown race, not sroce)"
		BG_RC_A=0
	fi
	[ "$BG_RC_A" -eq 0 ] && [ "$BG_RC_B" -eq 0 ] || {
		echo "client exit $BG_RC_A, server exit $BG_RC_B"
		tail -n 12 "$LOG.rc" "$LOG.rs"
		return 1
	}
	grep -c "ping data" "$LOG.rc"
}

pyverbs_ns() {
	python3 -c 'import pyverbs' 2>/dev/null || { echo "python3-pyverbs missing"; return 4; }
	in_a timeout 60 python3 - <<'PY'
import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.qp import QP, QPCap, QPInitAttr, QPAttr
ctx = Context(name='ctra0')
print('max_qp', ctx.query_device().max_qp, 'port state', ctx.query_port(1).state)
pd = PD(ctx)
mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
cq = CQ(ctx, 16)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=QPCap(max_send_wr=4, max_recv_wr=4)))
qp.to_init(QPAttr())
print('qp', qp.qp_num, 'in INIT')
PY
}

move_under_traffic() {
	local s c t0 gb ga
	gb=$(gidx nsB sroce7 192.0.2.2) ga=$(gidx nsA ctra0 192.0.2.1) || return 1
	bg_start s 60 "$LOG.ms" ip netns exec nsB ib_write_bw -d sroce7 -x "$gb" -D 30 -F
	sleep 2
	bg_start c 55 "$LOG.mc" ip netns exec nsA ib_write_bw -d ctra0 -x "$ga" -D 30 -F 192.0.2.2
	sleep 3
	t0=$SECONDS
	timeout 20 ip netns exec nsB rdma dev set sroce7 netns srinit || { echo "move to init_net failed"; return 1; }
	echo "moved out in $((SECONDS - t0)) s"
	bg_wait "$s" "ib_write_bw server on the moved device" > /dev/null
	echo "server ended: $?"
	bg_wait "$c" "ib_write_bw client" > /dev/null
	t0=$SECONDS
	timeout 20 rdma dev set sroce7 netns nsB || { echo "move back failed"; return 1; }
	echo "moved back in $((SECONDS - t0)) s"
	[ "$(names in_b)" = "sroce7 " ] || return 1
	perftest ib_write_bw
}

delete_ns_live() {
	local s t0 pid
	bg_start s 60 "$LOG.ds" ip netns exec nsA ib_write_bw -d ctra0 -F
	sleep 2
	ip netns del nsA || return 1
	# the namespace lives while a process is in it
	names | grep -q ctra0 && { echo "ctra0 left nsA while a process still runs there"; return 1; }
	pid=$(cat "/proc/$s/task/$s/children" 2>/dev/null | awk '{print $1}')
	kill -TERM "$s" $pid 2>/dev/null
	bg_wait "$s" "ib_write_bw in the deleted namespace" > /dev/null
	t0=$SECONDS
	while [ $((SECONDS - t0)) -lt 10 ]; do
		rdma dev 2>/dev/null | grep -q ctra0 || break
		sleep 0.2
	done
	echo "init_net after the namespace died: [$(names)] after $((SECONDS - t0)) s"
	rdma dev | grep -q ctra0 && return 1
	return 0
}

ktap_header 10
dmesg_mark
ktap_result "exclusive mode, two namespaces, ctra0 and sroce7 added inside them" setup
ktap_result "sroce7 taken to init_net and given to nsB (rdma dev set DEV netns NS)" give_b
ktap_result "each namespace sees only its own device (rdma dev, sysfs, ibv_devices)" visible
ktap_result "ib_write_bw between the namespaces (ctra0 -> sroce7)" perftest ib_write_bw
ktap_result "ib_send_lat between the namespaces" perftest ib_send_lat
ktap_result "rping between the namespaces (rdma_cm through each namespace's routes)" rping_ns
ktap_step "pyverbs opens ctra0 in nsA, PD/MR/CQ/RC QP to INIT" pyverbs_ns
ktap_result "sroce7 moved out of nsB and back under traffic: bounded, works after" move_under_traffic
ktap_result "nsA deleted with ib_write_bw in it: ctra0 removed within 10 s" delete_ns_live
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
