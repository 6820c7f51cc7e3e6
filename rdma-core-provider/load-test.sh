#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# load-test.sh PROVIDER_SO [MATCH_TEST]
#
# Host-side smoke test of the built provider, no sroce device needed:
#  1. every symbol of PROVIDER_SO resolves against the installed libraries
#     (ldd -r);
#  2. it dlopen()s with RTLD_NOW next to the installed libibverbs and binds
#     its private symbols there (LD_DEBUG), and ibv_devices with RDMAV_DRIVERS
#     pointing at it prints no load warning;
#  3. (if MATCH_TEST is given, we are root and RDMA netlink is unavailable)
#     inside a private mount namespace, a fake sysfs with sroce0, sroce1,
#     rxe0 and look-alike names checks which devices the provider claims.
#     Their uverbs nodes are /dev/null clones, so GET_CONTEXT "succeeds"
#     with an all-zero response and must be refused by the ABI check.
set -eu

prov=$(readlink -f "$1") match=${2:-}
me="sroce load-test"
fail() { echo "$me: FAIL: $*" >&2; exit 1; }

# 1. symbol resolution
out=$(ldd -r "$prov" 2>&1)
if echo "$out" | grep -Eq 'undefined symbol|not found'; then
	echo "$out" >&2
	fail "unresolved symbols in $prov"
fi
echo "$me: ldd -r: all symbols of $(basename "$prov") resolve"

# 2. libibverbs only dlopen()s providers once an RDMA device exists, so on a
# host without one also load it the way libibverbs does.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$match" ]; then
	LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" "$match" dlopen "$prov" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" >&2; fail "dlopen(RTLD_NOW) of $prov failed"; }
	cat "$tmp"/ld.* >"$tmp/ld"
	grep -q "binding file $prov .* normal symbol .verbs_register_driver_[0-9]*' \[IBVERBS_PRIVATE_" "$tmp/ld" ||
		fail "provider did not bind verbs_register_driver in libibverbs"
	nb=$(grep "binding file $prov .*libibverbs.so.* \[IBVERBS_PRIVATE_" "$tmp/ld" | wc -l)
	echo "$me: dlopen(RTLD_NOW) next to installed libibverbs: ok; LD_DEBUG shows $nb IBVERBS_PRIVATE_* bindings into it"
fi

out=$(RDMAV_DRIVERS="${prov%-rdmav*.so}" IBV_SHOW_WARNINGS=1 ibv_devices 2>&1 || true)
if echo "$out" | grep -q "couldn't load driver"; then
	echo "$out" >&2
	fail "libibverbs could not load the provider"
fi
echo "$me: RDMAV_DRIVERS=${prov%-rdmav*.so} ibv_devices: no load warning"

# 3. device matching against a fake sysfs
[ -n "$match" ] || exit 0
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "$me: SKIP match test (needs root and unshare -m)"
	exit 0
fi
sys=$tmp/sys
mkdir -p "$sys/class/infiniband_verbs"
echo 6 >"$sys/class/infiniband_verbs/abi_version"
i=0
for name in sroce0 sroce1 rxe0 sroce xNsroce0 sroce0x; do
	uv=$sys/class/infiniband_verbs/uverbs$i
	mkdir -p "$uv" "$sys/class/infiniband/$name"
	echo "$name" >"$uv/ibdev"
	echo "1:3" >"$uv/dev"	# the /dev/null cdev, see below
	echo 1 >"$uv/abi_version"
	echo "1: CA" >"$sys/class/infiniband/$name/node_type"
	i=$((i + 1))
done
ndev=$i

# The build's sroce.driver (absolute path) must work as a libibverbs.d entry.
drvfile=$(dirname "$prov")/sroce.driver
mkdir -p "$tmp/etc"
cp /etc/libibverbs.d/*.driver "$tmp/etc/" 2>/dev/null || true
cp "$drvfile" "$tmp/etc/"

# fake_run HOW: run the match test in a private mount namespace whose /dev
# has /dev/null clones as uverbs nodes; HOW is "env" (RDMAV_DRIVERS) or
# "conf" (sroce.driver bind-mounted into /etc/libibverbs.d).
fake_run() {
	if [ "$1" = env ]; then
		set -- env RDMAV_DRIVERS="${prov%-rdmav*.so}"
	else
		set -- env -u RDMAV_DRIVERS -u IBV_DRIVERS
	fi
	"$@" SYSFS_PATH="$sys" unshare -m sh -c '
	if [ -n "$3" ]; then mount --bind "$3" /etc/libibverbs.d || exit 1; fi
	mount -t tmpfs none /dev || exit 1
	mkdir /dev/infiniband
	i=0; while [ $i -lt "$2" ]; do
		mknod /dev/infiniband/uverbs$i c 1 3 || exit 1; i=$((i + 1))
	done
	exec "$1" open' sh "$match" "$ndev" "$conf" 2>&1
}

check_fake() {
	ours=$(echo "$got" | awk '$2 == "sroce" { print $1 }' | sort | tr '\n' ' ')
	[ "$ours" = "sroce0 sroce1 " ] ||
		fail "$1: provider claimed '$ours', expected exactly 'sroce0 sroce1'"
	echo "$got" | grep -q "^sroce0 open: Protocol not supported" ||
		fail "$1: opening a device that does not answer with the sroce ABI did not fail with EPROTONOSUPPORT"
}

conf=
got=$(fake_run env) || fail "match test did not run: $got"
if ! echo "$got" | grep -Eq '^(sroce|rxe|xNsroce)'; then
	echo "$me: SKIP match test (RDMA netlink present, fake sysfs unused)"
	exit 0
fi
echo "$got" | sed "s/^/$me:   /"
check_fake RDMAV_DRIVERS
echo "$me: RDMAV_DRIVERS: sroce0 sroce1 claimed; rxe0 and look-alikes (sroce, xNsroce0, sroce0x) not; ABI mismatch rejected"

conf=$tmp/etc
got=$(fake_run conf) || fail "match test (driver file) did not run: $got"
check_fake "$drvfile"
echo "$me: $drvfile in libibverbs.d ($(cat "$drvfile")): same result"
