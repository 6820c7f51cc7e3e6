#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# abi-check.sh PABI PROVIDER_SO LIBIBVERBS_SO
#
# Fails (exit 1) unless the provider built against rdma-core headers with
# private ABI PABI can be loaded by the libibverbs at LIBIBVERBS_SO:
#  1. LIBIBVERBS_SO must define exactly the version node IBVERBS_PRIVATE_<PABI>;
#  2. every IBVERBS_PRIVATE_* symbol PROVIDER_SO imports must be exported by
#     LIBIBVERBS_SO under the same version.
# Invoked by CMake after linking; see Documentation/provider.rst.
set -eu

pabi=$1 prov=$2 lib=$(readlink -f "$3")
me="sroce abi-check"

die() {
	echo "$me: ERROR: $*" >&2
	echo "$me: FAILED - the provider would not load (or would misbehave) in $lib" >&2
	exit 1
}

[ -r "$prov" ] || die "provider $prov not found"
[ -r "$lib" ] || die "libibverbs $lib not found"

# Version nodes the installed library defines (.gnu.version_d).
defs=$(objdump -p "$lib" | awk '
	/^Version definitions:/ { d = 1; next }
	/^Version References:/ { d = 0 }
	d && $NF ~ /^IBVERBS_PRIVATE_/ { print $NF }' | sort -u)
[ -n "$defs" ] || die "$lib defines no IBVERBS_PRIVATE_* version (not a libibverbs?)"
[ "$(echo "$defs" | wc -l)" -eq 1 ] ||
	die "$lib defines several private versions: $(echo $defs)"
have=${defs#IBVERBS_PRIVATE_}

# 1. private ABI of the headers vs. the installed library
if [ "$have" != "$pabi" ]; then
	die "private ABI mismatch: provider compiled against rdma-core headers with IBVERBS_PABI_VERSION=$pabi, but $lib provides IBVERBS_PRIVATE_$have; use an rdma-core source tree whose IBVERBS_PABI_VERSION is $have"
fi
echo "$me: headers IBVERBS_PABI_VERSION=$pabi, $lib defines IBVERBS_PRIVATE_$have: OK"

# 2. every private symbol the provider imports is exported by the library
exports=$(objdump -T "$lib" | awk 'NF >= 2 && $0 !~ /\*UND\*/ && $(NF-1) ~ /IBVERBS_PRIVATE_/ {
		v = $(NF-1); gsub(/[()]/, "", v);
		print $NF "@" v }' | sort -u)
imports=$(objdump -T "$prov" | awk 'NF >= 2 && /\*UND\*/ && $(NF-1) ~ /IBVERBS_PRIVATE_/ {
		v = $(NF-1); gsub(/[()]/, "", v); print $NF "@" v }' | sort -u)
[ -n "$imports" ] || die "$prov imports no IBVERBS_PRIVATE_* symbols; was it linked against libibverbs?"

missing=$(printf '%s\n' "$imports" | while read -r s; do
	printf '%s\n' "$exports" | grep -qxF "$s" || echo "$s"
done)
if [ -n "$missing" ]; then
	die "$prov imports private symbols that $lib does not export: $(echo $missing) - only call functions the installed libibverbs exports"
fi
n=$(printf '%s\n' "$imports" | wc -l)
echo "$me: provider imports $n IBVERBS_PRIVATE_$pabi symbols, all exported by $lib: OK"
echo "$me:   $(printf '%s\n' "$imports" | sed 's/@.*//' | tr '\n' ' ')"
