#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The provider and unmodified rdma-core tools see an honest device:
# ibv_devices, ibv_devinfo -v, node GUID from the MAC, and verbs that are
# not implemented yet fail with EOPNOTSUPP (never crash or mis-complete).
. "$(dirname "$0")/lib.sh"

cleanup() { rdma link delete sroce0 2>/dev/null; ip addr del 192.0.2.7/24 dev eth0 2>/dev/null; }
trap cleanup EXIT

# modified EUI-64 of eth0's MAC, as ibv_devinfo prints a GUID
expected_guid() {
	local m
	IFS=: read -r -a m < /sys/class/net/eth0/address
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x${m[0]} ^ 2)) "${m[1]}" "${m[2]}" "${m[3]}" "${m[4]}" "${m[5]}"
}
info() { ibv_devinfo -v -d sroce0 2>&1; }
field() { info | grep -E "^[[:space:]]*$1:" | head -1 | sed 's/^[^:]*:[[:space:]]*//'; }

listed() { ibv_devices | grep -qw sroce0; }
guid_ok() { [ "$(field node_guid)" = "$(expected_guid)" ]; }
gid_v2() { info | grep -E 'GID\[ *0\]' | grep -q 'RoCE v2'; }
v4_gid() { info | grep -q '::ffff:192.0.2.7'; }
# what sroce does not offer must be refused (huge pages without on-demand paging: EOPNOTSUPP); ODP MRs
# (explicit and implicit), memory windows (type 1 and 2), SRQs and UC QPs are created, an MW of an unknown
# type is refused
eopnotsupp() {
	python3 - <<'PY'
import ctypes, errno, sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.mr import MR, MW
from pyverbs.srq import SRQ, SrqInitAttr, SrqAttr
from pyverbs.qp import QP, QPInitAttr, QPCap
from pyverbs.pyverbs_error import PyverbsRDMAError
import pyverbs.enums as e
ctx = Context(name='sroce0')
pd = PD(ctx)
cq = CQ(ctx, 16)
def refused(what, make):
    try:
        make()
    except PyverbsRDMAError as ex:
        if ex.error_code == errno.EOPNOTSUPP:
            return True
        print('%s: errno %d, expected EOPNOTSUPP' % (what, ex.error_code))
        return False
    print('%s: created' % what)
    return False
# explicit and implicit ODP (the whole address space) are supported
# (90-odp.sh); IBV_ACCESS_HUGETLB means something only for ODP
ok = True
MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND)
MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND, implicit=True)
buf = ctypes.create_string_buffer(4096)    # not pyverbs' huge-page buffer
ok = refused('HUGETLB MR without ON_DEMAND', lambda: MR(pd, 4096,
             e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_HUGETLB,
             address=ctypes.addressof(buf)))
MW(pd, e.IBV_MW_TYPE_1)
MW(pd, e.IBV_MW_TYPE_2)
try:
    MW(pd, 3)
    print('MW type 3: created')
    ok = False
except PyverbsRDMAError:
    pass
SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UC, scq=cq, rcq=cq, cap=QPCap(max_send_wr=4, max_recv_wr=4)))
sys.exit(0 if ok else 1)
PY
}

ktap_header 11
dmesg_mark
ip link set eth0 up
ip addr add 192.0.2.7/24 dev eth0
rdma link add sroce0 type sroce netdev eth0

if ! ls "$SROCE_TOP"/build/provider/libsroce-rdmav*.so >/dev/null 2>&1; then
	for t in "ibv_devices lists sroce0" "transport InfiniBand" "link_layer Ethernet" \
		 "PORT_ACTIVE" "node_guid is the MAC's EUI-64" "GID 0 is RoCE v2" \
		 "IPv4 GID present" "max_mtu 4096" "ODP MRs (implicit too), MW, SRQ and UC QP created; HUGETLB without ODP refused" \
		 "rdma dev show"; do
		ktap_skip "$t" "provider not built (build/provider)"
	done
else
	ktap_result "ibv_devices lists sroce0" listed
	ktap_result "transport InfiniBand" test "$(field transport)" = "InfiniBand (0)"
	ktap_result "link_layer Ethernet" test "$(field link_layer)" = "Ethernet"
	ktap_result "PORT_ACTIVE" test "$(field state)" = "PORT_ACTIVE (4)"
	ktap_result "node_guid is the MAC's EUI-64" guid_ok
	ktap_result "GID 0 is RoCE v2" gid_v2
	ktap_result "IPv4 GID present" v4_gid
	ktap_result "max_mtu 4096" test "$(field max_mtu)" = "4096 (5)"
	ktap_result "ODP MRs (implicit too), MW, SRQ and UC QP created; HUGETLB without ODP refused" eopnotsupp
	ktap_result "rdma dev show" sh -c 'rdma dev show sroce0 | grep -q "node_type ca"'
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
