#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce under the newest rdma-core (Debian sid's, private ABI 65): the
# provider built for it (make sid-root) is loaded by its libibverbs, and
# its unmodified tools and test suite run chrooted in build/sid-root:
# ibv_devinfo, ibv_rc_pingpong --chk between two sroce devices over a veth
# (both ends rdma-core 65, and 65 against the host's rdma-core), perftest's
# ib_write_bw, and rdma-core 65's own pyverbs suite (no failure or error,
# the counts printed beside 93-pyverbs.sh's run of the host's suite).
# Skipped when there is no sid root (make check builds it: scripts/sid-root;
# make sid-root by hand); make check runs it on its newest kernel only.
# sroce-timeout: 2400
# sroce-kernels: newest
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pyverbs-lib.sh"
. "$(dirname "$0")/net-topo.sh"

. "$(dirname "$0")/sid-lib.sh"

hp=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	topo_down
	eth0_dev_down
	echo "$hp" > /proc/sys/vm/nr_hugepages
}
trap cleanup EXIT

# shellcheck disable=SC2154  # prov: set by sid-lib.sh
versions() {
	echo "sid root: libibverbs1 $(sid dpkg-query -W -f='${Version}' libibverbs1)," \
		"perftest $(sid dpkg-query -W -f='${Version}' perftest), provider ${prov#"$SID"}"
	echo "host: libibverbs1 $(dpkg-query -W -f='${Version}' libibverbs1)"
}

# libibverbs 65 lists the devices, loading the ABI-65 provider without a
# warning (a provider it cannot load is reported on stderr)
listed() {
	local out err
	err=$(sid ibv_devices 2>&1 >/dev/null)
	out=$(sid ibv_devices 2>/dev/null)
	echo "$out"
	[ -z "$err" ] || { echo "stderr: $err"; return 1; }
	grep -qw sroce8 <<< "$out" && grep -qw sroce9 <<< "$out"
}
devinfo() {
	local out
	out=$(sid ibv_devinfo -v -d sroce8 2>&1) || { echo "$out"; return 1; }
	grep -E '^\s*(transport|state|link_layer|max_mtu):' <<< "$out"
	grep -qE 'transport:\s+InfiniBand' <<< "$out" &&
	grep -qE 'state:\s+PORT_ACTIVE' <<< "$out" &&
	grep -qE 'link_layer:\s+Ethernet' <<< "$out" &&
	grep -E 'GID\[ *1\]' <<< "$out" | grep -q 'RoCE v2'
}

# pp SERVER CLIENT SIZE: ibv_rc_pingpong --chk, the server on sroce9 in
# srpeer, the client on sroce8; each side "sid" (rdma-core 65) or "host"
pp() {
	local srv=$1 cli=$2 n=$3 s rc
	local args=(ibv_rc_pingpong -g 1 -n 8 --chk -s "$n")
	local sp=(ip netns exec srpeer) cp=()
	[ "$srv" = sid ] && sp=("${SIDPEER[@]}")
	[ "$cli" = sid ] && cp=("${SID_RUN[@]}")
	timeout 120 "${sp[@]}" "${args[@]}" -d sroce9 > /tmp/srv.$$ 2>&1 &
	s=$!
	wait_listening peer 18515 "$s"
	timeout 120 ${cp[@]+"${cp[@]}"} "${args[@]}" -d sroce8 192.0.2.2 > /tmp/cli.$$ 2>&1
	rc=$?
	wait "$s" || rc=1
	tail -n 1 /tmp/cli.$$
	[ $rc -eq 0 ] || tail -n 3 /tmp/cli.$$ /tmp/srv.$$
	rm -f /tmp/srv.$$ /tmp/cli.$$
	return $rc
}

# perftest 25.01's ib_write_bw, both ends rdma-core 65 (numbers printed,
# not judged)
write_bw() {
	local args=(ib_write_bw -x 1 -s 65536 -n 200 -F) s rc
	timeout 120 "${SIDPEER[@]}" "${args[@]}" -d sroce9 > /tmp/srv.$$ 2>&1 &
	s=$!
	wait_listening peer 18515 "$s"
	timeout 120 "${SID_RUN[@]}" "${args[@]}" -d sroce8 192.0.2.2 > /tmp/cli.$$ 2>&1
	rc=$?
	wait "$s" || rc=1
	grep -A1 -E '^ *#bytes' /tmp/cli.$$
	[ $rc -eq 0 ] || tail -n 5 /tmp/cli.$$ /tmp/srv.$$
	rm -f /tmp/srv.$$ /tmp/cli.$$
	return $rc
}

# Does this kernel's rdma_ucm have the WRITE_CM_EVENT command (Linux 7.x;
# not 6.1 or 6.12) librdmacm 65's rdma_resolve_addrinfo() needs? Command
# 24 with an id no context has: ENOENT where the command exists, EINVAL
# where it is past the kernel's table. rdma_ucm's, not sroce's.
ucma_write_cm_event() {
	python3 - <<'PY'
import errno, os, struct, sys
fd = os.open('/dev/infiniband/rdma_cm', os.O_RDWR)
body = struct.pack('=I', 0xffffffff) + bytes(508)
try:
    os.write(fd, struct.pack('=IHH', 24, len(body), 0) + body)
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(0 if e.errno == errno.ENOENT else 4 if e.errno == errno.EINVAL else 1)
sys.exit(1)
PY
}
skips=()
if ! ucma_write_cm_event > /dev/null 2>&1; then
	skips+=(--skip "test_rdmacm.CMTestCase.test_rdmacm_async_resolve_addrinfo=this kernel's rdma_ucm has no WRITE_CM_EVENT (rdma_resolve_addrinfo)")
fi
log=$(mktemp)
suite() {
	PYVERBS_TIMEOUT=$((1500 * ${SROCE_TIMEOUT_SCALE:-1})) pyverbs_suite "pyverbs 65" "$log" \
		"$SROCE_TOP/scripts/pyverbs-tests" --root "$SID" sroce0 1 ${skips[@]+"${skips[@]}"} -v
}
# rdma-core 65's suite passes more generic tests than 44's (146 in
# 93-pyverbs.sh): 170 on 6.12 today, the floor leaves a margin
MIN_PASSED=160
enough() { pyverbs_enough "$log" "$MIN_PASSED"; }

ktap_header 10
dmesg_mark
ktap_diag "$(versions)"
ktap_result "topology up (sroce in two namespaces)" topo_up sroce
ktap_result "rdma-core 65 ibv_devices loads the ABI-65 provider" listed
ktap_result "rdma-core 65 ibv_devinfo -v: InfiniBand, PORT_ACTIVE, Ethernet, RoCE v2 GID" devinfo
ktap_result "ibv_rc_pingpong --chk, 65 to 65, 64 KiB" pp sid sid 65536
ktap_result "ibv_rc_pingpong --chk, 65 to 65, 1 MiB" pp sid sid 1048576
ktap_result "ibv_rc_pingpong --chk, 65 client, host rdma-core server" pp host sid 65537
ktap_result "perftest ib_write_bw, 65 to 65" write_bw
topo_down
# the suite on one device over eth0, as 93-pyverbs.sh runs the host's
echo 16 > /proc/sys/vm/nr_hugepages
eth0_dev_up_or_fail
[ ${#skips[@]} -eq 0 ] || ktap_diag "pyverbs 65: skipping ${skips[1]%%=*}: ${skips[1]#*=}"
ktap_result "rdma-core 65 pyverbs suite: no failure, no error" suite
ktap_diag "rdma-core 65 pyverbs: $(pyverbs_counts "$log")"
ktap_result "rdma-core 65 pyverbs: at least $MIN_PASSED tests pass" enough
ktap_diag "after the suite: $(grep -E '^(MemTotal|MemAvailable|Mlocked):' /proc/meminfo | tr -s ' \n' ' ')"
ktap_result "dmesg clean" dmesg_clean_since_mark
rm -f "$log" "$log.passed"
ktap_finish
