#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
#
# kmemleak scan at the end of a debug-kernel run (`make check-debug` runs
# it after the other scripts, in the same VM). Not a [0-9]* script, so a
# plain `selftests/run` never picks it; on a kernel without kmemleak it
# skips. Two scans: with sroce loaded (a leaked object's backtrace names
# "[sroce]"), then after `rmmod sroce`, which turns objects only the module
# still pointed to into leaks (their sroce frames no longer resolve: an
# address inside the range sroce was loaded at counts as sroce, symbolized
# with nm from build/kernel/$SROCE_KERNEL/sroce.ko). A test fails if an
# unreferenced object's backtrace has a sroce frame; every such object is
# printed in full, other leaks are only counted and listed briefly.
. "$(dirname "$0")/lib.sh"

KL=/sys/kernel/debug/kmemleak
[ -r "$KL" ] || ktap_skip_all "no $KL (kernel without CONFIG_DEBUG_KMEMLEAK)"
if ! cat "$KL" > /dev/null 2>&1; then
	ktap_skip_all "$KL not readable: kmemleak disabled at run time ($(dmesg | grep -m1 'kmemleak:.*disabled'))"
fi
ko=${SROCE_TOP:-$(dirname "$0")/..}/build/kernel/${SROCE_KERNEL:-}/sroce.ko
work=$(mktemp -d /tmp/kmemleak.XXXXXX)
trap 'rm -rf "$work"' EXIT

# scan: two scans, some seconds apart (objects younger than 5 s are never
# reported; RCU-deferred frees settle)
scan() {
	echo scan > "$KL" || return 1
	sleep 6
	echo scan > "$KL" || return 1
	cat "$KL" > "$1"
}

# sroce's load range and section addresses, for the frames of an unloaded sroce
sroce_range() {
	awk '$1 == "sroce" { printf "%s %s\n", $NF, $2 }' /proc/modules > "$work/range"
	: > "$work/sections"
	local f
	for f in /sys/module/sroce/sections/.text*; do
		[ -r "$f" ] && echo "${f##*/} $(cat "$f")" >> "$work/sections"
	done
}

# split FILE: one object per record (blank-line separated) on stdout,
# only those with a sroce frame ($1 = sroce) or only the others ($1 = other)
objects() {
	local which=$1 file=$2 lo=0 size=0
	if [ -s "$work/range" ]; then read -r lo size < "$work/range"; fi
	awk -v which="$which" -v lo="$lo" -v size="$size" '
	function flush() {
		if (obj == "") return
		if ((which == "sroce") == (hit > 0)) printf "%s\n", obj
		obj = ""; hit = 0
	}
	function h2n(s,   i, n, c) {
		n = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; n = n * 16 + c }
		return n
	}
	BEGIN { l = h2n(lo); hi = l + size }
	/^unreferenced object/ { flush() }
	{
		obj = obj $0 "\n"
		if ($0 ~ /\[sroce\]/) hit++
		else if (size > 0 && match($0, /\] 0x[0-9a-f]+$/)) {
			a = h2n(substr($0, RSTART + 2))
			if (a >= l && a < hi) hit++
		}
	}
	END { flush() }' "$file"
}

# symbolize: append "<- func+0xoff/0xsize [sroce SECTION]" to the raw
# addresses (frames of the unloaded sroce) inside its last load's sections
symbolize() {
	if [ -s "$work/sections" ] && [ -f "$ko" ] && command -v objdump > /dev/null; then
		python3 -c "$SYMBOLIZE_PY" "$work/sections" "$ko"
	else
		cat
	fi
}
SYMBOLIZE_PY='
import re, subprocess, sys
secs = {}
for l in open(sys.argv[1]):
    n, a = l.split()
    secs[n] = int(a, 16)
# function symbols per section (section-relative values in a .ko)
syms = {}
out = subprocess.run(["objdump", "-t", sys.argv[2]], capture_output=True, text=True).stdout
for l in out.splitlines():
    m = re.match(r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+) (\S+)$", l)
    if m and "F" in m.group(2) and m.group(3).startswith(".text"):
        syms.setdefault(m.group(3), []).append((int(m.group(1), 16), int(m.group(4), 16), m.group(5)))
def name(a):
    for s, base in secs.items():
        for v, sz, f in syms.get(s, []):
            if base + v <= a < base + v + max(sz, 1):
                return "%s+0x%x/0x%x [sroce %s]" % (f, a - base - v, sz, s)
    return None
for l in sys.stdin:
    l = l.rstrip("\n")
    m = re.search(r"\] (0x[0-9a-f]+)$", l)
    n = name(int(m.group(1), 16)) if m else None
    print(l + ("  <- " + n if n else ""))
'

report() {	# report NAME FILE
	local name=$1 f=$2 n no
	objects sroce "$f" > "$work/sroce.txt"
	objects other "$f" > "$work/other.txt"
	n=$(grep -c '^unreferenced object' "$work/sroce.txt")
	no=$(grep -c '^unreferenced object' "$work/other.txt")
	if [ "$no" -gt 0 ]; then
		ktap_diag "$name: $no unreferenced object(s) without a sroce frame (not counted), first frames:"
		awk '/^unreferenced object/ { if (o != "") print o; o = "size " $5; sub(/\):$/, "", o); k = 0 }
		     /^    \[</ && k < 4 { sub(/^    \[<[^>]*>\] /, ""); o = o " <- " $0; k++ }
		     END { if (o != "") print o }' \
			"$work/other.txt" | sort | uniq -c | sort -rn | head -n 20 | sed 's/^/  /' | while IFS= read -r l; do ktap_diag "$l"; done
	fi
	if [ "$n" -eq 0 ]; then
		ktap_ok "$name"
		return 0
	fi
	ktap_diag "$name: $n unreferenced object(s) with a sroce frame:"
	symbolize < "$work/sroce.txt" | while IFS= read -r l; do echo "# kmemleak: $l"; done
	ktap_fail "$name" "$n leak(s) attributed to sroce"
}

ktap_header 2
dmesg_mark

# 1. with sroce loaded, devices removed (the selftests delete theirs)
modprobe sroce 2>/dev/null
sroce_range
if scan "$work/loaded"; then
	report "kmemleak: no leak with a sroce frame (sroce loaded)" "$work/loaded"
else
	ktap_fail "kmemleak: no leak with a sroce frame (sroce loaded)" "echo scan > $KL failed"
fi

# 2. after rmmod sroce (objects only the module pointed to are leaks now)
for d in /sys/class/infiniband/sroce*; do [ -e "$d" ] && rdma link delete "${d##*/}" 2>/dev/null; done
if ! rmmod sroce 2>"$work/rmmod.err"; then
	ktap_fail "kmemleak: no leak with a sroce frame (after rmmod sroce)" "rmmod sroce failed: $(cat "$work/rmmod.err")"
elif ! scan "$work/unloaded"; then
	ktap_fail "kmemleak: no leak with a sroce frame (after rmmod sroce)" "echo scan > $KL failed"
else
	report "kmemleak: no leak with a sroce frame (after rmmod sroce)" "$work/unloaded"
fi
modprobe sroce 2>/dev/null
ktap_finish
