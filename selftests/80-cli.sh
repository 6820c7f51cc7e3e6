#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sroce CLI over RDMA netlink: link add/del and show (text and JSON),
# checked against what the kernel and sysfs say.
. "$(dirname "$0")/lib.sh"

SROCE=$SROCE_TOP/build/userspace/sroce
sys=/sys/class/infiniband
cleanup() {
	for d in sroce0 sroce1 sroce3 rxe0; do rdma link delete $d 2>/dev/null; done
	ip link del scli0 2>/dev/null; ip netns del scli 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
}
trap cleanup EXIT

json() { "$SROCE" show --json; }
# python3 asserts on the JSON document: $1 is a python expression over `d`
json_ok() {
	json | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($1) else 1)"
}
dev_json() { json_ok "len(d) == 2 and sorted(x['ifname'] for x in d) == ['sroce0', 'sroce1']"; }
guid_json() {
	json_ok "[x for x in d if x['ifname'] == 'sroce0'][0]['node_guid'] == open('$sys/sroce0/node_guid').read().strip()"
}
fields_json() {
	json_ok "all(x['port'] == 1 and x['state'] == 'ACTIVE' and x['netdev'] == 'scli0' and x['netdev_mtu'] == 1500 and x['active_mtu'] == 1024 for x in d if x['ifname'] == 'sroce1')"
}
gids_json() {
	json_ok "any(g['ipv4'] == '203.0.113.9' and g['type'] == 'RoCE v2' for x in d if x['ifname'] == 'sroce1' for g in x['gids'])"
}
text_show() { "$SROCE" show sroce1 | grep -q scli0; }
# rxe binds UDP 4791 in init_net when it loads, so the sroce device that
# shares the listing lives in its own namespace
filters_rxe() {
	ip netns add scli && ip link add scli2 type veth peer name scli3 netns scli &&
	ip netns exec scli "$SROCE" link add sroce3 netdev scli3 &&
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
	json_ok "[x['ifname'] for x in d] == ['sroce3']" &&
	"$SROCE" show --all --json | python3 -c "import json,sys; sys.exit(0 if sorted(x['ifname'] for x in json.load(sys.stdin)) == ['rxe0', 'sroce3'] else 1)"
}
add_dup_fails() { ! "$SROCE" link add sroce2 netdev scli0 2>/dev/null; }
del_missing_fails() { ! "$SROCE" link del nosuch0 2>/dev/null; }
usage_exit2() { "$SROCE" link frobnicate >/dev/null 2>&1; [ $? -eq 2 ]; }
empty_json() { [ "$(json)" = "[]" ]; }

ktap_header 13
dmesg_mark
ip link set eth0 up
ip link add scli0 type veth peer name scli1
ip link set scli0 up; ip link set scli1 up
ip addr add 203.0.113.9/24 dev scli0

ktap_result "sroce link add (virtio-net)" "$SROCE" link add sroce0 netdev eth0
ktap_result "sroce link add (veth)" "$SROCE" link add sroce1 netdev scli0
ktap_result "kernel has both devices" test -e $sys/sroce0 -a -e $sys/sroce1
ktap_result "show --json lists both" dev_json
ktap_result "node_guid matches sysfs" guid_json
ktap_result "port, state, netdev, MTUs" fields_json
ktap_result "IPv4 GID listed as RoCE v2" gids_json
ktap_result "text show names the netdev" text_show
ktap_result "add on a netdev that has one fails" add_dup_fails
ktap_result "del of an unknown device fails" del_missing_fails
ktap_result "usage error exits 2" usage_exit2
"$SROCE" link del sroce0 && "$SROCE" link del sroce1
ktap_result "sroce link del removes both; show is []" empty_json
ktap_result "rxe devices hidden unless --all" filters_rxe
ktap_finish
