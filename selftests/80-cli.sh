#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-kernels: oldest newest
# The sroce CLI over RDMA netlink: link add/del and show (text and JSON),
# checked against what the kernel and sysfs say; rdma's forms (link add
# ... type sroce, -j before or after the command, link show with rdma -j's
# keys and values), the resource listings, stat and set.
. "$(dirname "$0")/lib.sh"

SROCE=$SROCE_TOP/build/userspace/sroce
sys=/sys/class/infiniband
T=$(mktemp -d)
cleanup() {
	for d in sroce0 sroce1 sroce2 sroce3 rxe0; do rdma link delete $d 2>/dev/null; done
	ip link del scli0 2>/dev/null; ip netns del scli 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
	rm -rf "$T"
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
# pyexpr CMD... EXPR: CMD's JSON output as `d` makes EXPR true
pyexpr() {
	local expr=${*: -1}
	"${@:1:$#-1}" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if ($expr) else 1)"
}
# -j before the command, after it, or in the middle: the same document
json_anywhere() {
	local a b c
	a=$("$SROCE" -j show) && b=$("$SROCE" show -j) && c=$("$SROCE" show --json -p) || return 1
	[ "$a" = "$b" ] && [ "$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$a")" = \
		"$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$c")" ]
}
# sroce -j link show against rdma -j link show: each key both print (rdma's
# names) has the same value, and ifname, port, state, netdev are among them
link_show_as_rdma() {
	"$SROCE" -j link show sroce1/1 > "$T/sroce-link.json" &&
	rdma -j link show sroce1/1 > "$T/rdma-link.json" || return 1
	cat "$T/sroce-link.json" "$T/rdma-link.json"
	python3 - "$T/sroce-link.json" "$T/rdma-link.json" <<'PY'
import json, sys
s, r = (json.load(open(p)) for p in sys.argv[1:3])
assert len(s) == 1 and len(r) == 1, (s, r)
s, r = s[0], r[0]
common = set(s) & set(r)
assert {'ifname', 'port', 'state', 'netdev'} <= common, common
assert all(s[k] == r[k] for k in common), [(k, s[k], r[k]) for k in common if s[k] != r[k]]
PY
	"$SROCE" link show | grep -q '^[0-9]*/1: sroce1/1: state ACTIVE physical_state LINK_UP netdev scli0$'
}
# `rdma link add`'s words, pasted: a device on the veth peer, then link delete
rdma_link_add() {
	"$SROCE" link add sroce2 type sroce netdev scli1 && test -e $sys/sroce2 &&
	"$SROCE" link delete sroce2 && ! test -e $sys/sroce2
}
# QP1 (ib_core's GSI QP) and ib_mad's CQ in the resource listings
res_json() {
	pyexpr "$SROCE" -j show qp sroce1 "any(q['lqpn'] == 1 and q['ifname'] == 'sroce1' and q['type'] == 'GSI' for q in d)" &&
	pyexpr "$SROCE" show cq sroce1 -j "len(d) >= 1 and all(c['ifname'] == 'sroce1' and 'cqe' in c and 'drv_cq_entries' in c for c in d)" &&
	pyexpr "$SROCE" show mr -j "isinstance(d, list)" &&
	pyexpr "$SROCE" show srq -j "isinstance(d, list)"
}
# stat: the port's hw_counters, as sysfs has them (read after: no fewer)
stat_json() {
	pyexpr "$SROCE" -j stat sroce1 "len(d) == 1 and d[0]['ifname'] == 'sroce1' and d[0]['port'] == 1 and d[0]['tx_pkts'] <= int(open('$sys/sroce1/ports/1/hw_counters/tx_pkts').read())"
}
# set: a device knob written and put back; an unknown knob is a usage error
set_knob() {
	local old
	old=$(cat $sys/sroce1/tx_gso) || return 1
	"$SROCE" set sroce1 tx_gso 1 && [ "$(cat $sys/sroce1/tx_gso)" = 1 ] &&
	"$SROCE" set sroce1 tx_gso "$old" && [ "$(cat $sys/sroce1/tx_gso)" = "$old" ] || return 1
	"$SROCE" set frobnicate 1 2>/dev/null
	[ $? -eq 2 ]
}

ktap_header 19
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
ktap_result "-j before or after the command: the same JSON" json_anywhere
ktap_result "link show: rdma -j link show's keys and values" link_show_as_rdma
ktap_result "link add NAME type sroce netdev DEV; link delete" rdma_link_add
ktap_result "show qp|cq|mr|srq -j: QP1 and its CQ, rdma's keys" res_json
ktap_result "stat -j: the port's hw_counters" stat_json
ktap_result "set DEV KNOB VALUE; unknown knob exits 2" set_knob
ktap_result "add on a netdev that has one fails" add_dup_fails
ktap_result "del of an unknown device fails" del_missing_fails
ktap_result "usage error exits 2" usage_exit2
"$SROCE" link del sroce0 && "$SROCE" link del sroce1
ktap_result "sroce link del removes both; show is []" empty_json
ktap_result "rxe devices hidden unless --all" filters_rxe
ktap_finish
