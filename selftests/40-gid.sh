#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RoCE v2 GIDs follow the netdev's IPv4 and IPv6 addresses.
. "$(dirname "$0")/lib.sh"

port=/sys/class/infiniband/sroce0/ports/1
cleanup() { rdma link delete sroce0 2>/dev/null; ip link del sgid0 2>/dev/null; }
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

ktap_header 9
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
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
