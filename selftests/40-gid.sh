#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RoCE v2 GIDs follow the netdev's IPv4 and IPv6 addresses. A VLAN on the
# netdev adds its addresses to the table too (the core's GID management):
# an RC QP's path and an AH from such a source GID are refused (EINVAL),
# as sroce sends on its own netdev only, untagged.
. "$(dirname "$0")/lib.sh"

port=/sys/class/infiniband/sroce0/ports/1
cleanup() { rdma link delete sroce0 2>/dev/null; ip link del sgid0 2>/dev/null; }
# the index of GID $1 (populated, on netdev $2)
gid_index() {
	local f i
	for _ in $(seq 30); do
		for f in "$port"/gids/*; do
			i=${f##*/}
			[ "$(<"$f")" = "$1" ] && [ "$(cat "$port/gid_attrs/ndevs/$i" 2>/dev/null)" = "$2" ] &&
				{ echo "$i"; return 0; }
		done
		sleep 0.1
	done
	return 1
}
# pyverbs: an RC QP to RTR and an AH from source GID index $1; prints
# "ok" or the errno of each
from_gid() {
	python3 - "$1" <<'PY'
import sys
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
import pyverbs.enums as e
idx = int(sys.argv[1])
ctx = Context(name='sroce0')
pd = PD(ctx)
cq = CQ(ctx, 4)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=QPCap(1, 1, 1, 1)))
dgid = ctx.query_gid(1, idx)
out = []
def attempt(fn):
    try:
        fn()
        out.append('ok')
    except PyverbsRDMAError as ex:
        out.append('errno %d' % ex.error_code)
qp.to_init(QPAttr())
a = QPAttr()
a.path_mtu = e.IBV_MTU_1024
a.dest_qp_num = qp.qp_num
a.ah_attr = AHAttr(gr=GlobalRoute(dgid=dgid, sgid_index=idx), is_global=1, port_num=1)
attempt(lambda: qp.to_rtr(a))
attempt(lambda: AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=dgid, sgid_index=idx), is_global=1,
                                   port_num=1)))
print(' '.join(out))
PY
}
# the VLAN's GID refused, sgid0's own accepted
vlan_gid() {
	local v o
	v=$(gid_index 0000:0000:0000:0000:0000:ffff:c000:024d sgid0.7) || { echo "no VLAN GID"; return 1; }
	o=$(gid_index 0000:0000:0000:0000:0000:ffff:cb00:710b sgid0) || { echo "no sgid0 GID"; return 1; }
	echo "VLAN GID $v: $(from_gid "$v"); sgid0's GID $o: $(from_gid "$o")"
	[ "$(from_gid "$v")" = "errno 22 errno 22" ] && [ "$(from_gid "$o")" = "ok ok" ]
}
trap cleanup EXIT

# every populated GID of port 1, one per line, with its type
gids() {
	local f i t g
	# bash builtins only: one fork per entry is seconds per poll under TCG
	for f in "$port"/gids/*; do
		i=${f##*/}
		{ t=$(<"$port/gid_attrs/types/$i"); } 2>/dev/null
		[ -n "$t" ] || continue
		g=$(<"$f")
		echo "$g $t"
	done
}
# wait up to 3 s for the GID table (updated from a work item) to match
has_gid() { for _ in $(seq 30); do gids | grep -q "^$1 " && return 0; sleep 0.1; done; return 1; }
lacks_gid() { for _ in $(seq 30); do gids | grep -q "^$1 " || return 0; sleep 0.1; done; return 1; }
all_v2() { ! gids | grep -v 'RoCE v2$' | grep -q .; }
lladdr_gid() {
	local m; IFS=: read -r -a m < /sys/class/net/sgid0/address
	has_gid "$(printf 'fe80:0000:0000:0000:%02x%s:%sff:fe%s:%s%s' $((0x${m[0]} ^ 2)) "${m[1]}" "${m[2]}" "${m[3]}" "${m[4]}" "${m[5]}")"
}

ktap_header 10
dmesg_mark
ip link add sgid0 type veth peer name sgid1
ip link set sgid0 up; ip link set sgid1 up
rdma link add sroce0 type sroce netdev sgid0

ktap_result "default GID is fe80::EUI-64 of the MAC" lladdr_gid
ip addr add 198.51.100.10/24 dev sgid0
ktap_result "IPv4 address add -> ::ffff:a.b.c.d GID" has_gid 0000:0000:0000:0000:0000:ffff:c633:640a
ip -6 addr add 2001:db8:1::10/64 dev sgid0 nodad
ktap_result "IPv6 address add -> GID" has_gid 2001:0db8:0001:0000:0000:0000:0000:0010
# another subnet: deleting a primary address also deletes its secondaries
ip addr add 203.0.113.11/24 dev sgid0
ktap_result "second IPv4 address -> second GID" has_gid 0000:0000:0000:0000:0000:ffff:cb00:710b
ktap_result "every GID is RoCE v2" all_v2
ip addr del 198.51.100.10/24 dev sgid0
ktap_result "IPv4 address del -> GID removed" lacks_gid 0000:0000:0000:0000:0000:ffff:c633:640a
ip -6 addr del 2001:db8:1::10/64 dev sgid0
ktap_result "IPv6 address del -> GID removed" lacks_gid 2001:0db8:0001:0000:0000:0000:0000:0010
ktap_result "other IPv4 GID kept" has_gid 0000:0000:0000:0000:0000:ffff:cb00:710b
modprobe 8021q 2>/dev/null
if ip link add link sgid0 name sgid0.7 type vlan id 7 2>/dev/null; then
	ip link set sgid0.7 up && ip addr add 192.0.2.77/24 dev sgid0.7
	ktap_result "a VLAN's GID: RC path and AH refused (EINVAL), the netdev's own accepted" \
		vlan_gid
else
	ktap_skip "a VLAN's GID refused" "this kernel has no 802.1Q (CONFIG_VLAN_8021Q)"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
