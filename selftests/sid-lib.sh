# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# sid-lib.sh: for a script that runs Debian sid's userland (rdma-core 65,
# build/sid-root, made by scripts/sid-root: in make check, or make
# sid-root) chrooted: skips the script when
# there is no such root, re-executes it in a mount namespace of its own
# (the chroot's mounts go when it ends, whatever way it ends), mounts
# /proc /sys /dev /tmp /run into the root, and offers
#   sid CMD...       CMD in the root
#   SID_RUN, SIDPEER arrays: the same (SIDPEER in the netns srpeer, with
#                    that namespace's sysfs), for timeout and bg_start
#   SID, prov        the root, the provider in it
# Source it after lib.sh.
SID=$SROCE_TOP/build/sid-root
prov=$(ls "$SID"/usr/lib/*/libibverbs/libsroce-rdmav*.so 2>/dev/null | head -1)
if [ ! -f "$SID/.sroce-stamp" ] || [ -z "$prov" ] || [ ! -f "$SID/etc/libibverbs.d/sroce.driver" ]; then
	ktap_skip_all "no sid root with the provider (build/sid-root): scripts/sid-root did not complete (make check's \"sid root\" line says why; make sid-root builds it)"
fi

# the chroot's mounts live in a mount namespace of this script's own: gone
# when it ends, whatever way it ends
if [ -z "${SROCE_SID_NS:-}" ]; then
	SROCE_SID_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
mount -t proc proc "$SID/proc" && mount --rbind /sys "$SID/sys" &&
	mount --rbind /dev "$SID/dev" && mount -t tmpfs -o mode=1777 tmpfs "$SID/tmp" &&
	mount -t tmpfs -o mode=0755 tmpfs "$SID/run" ||
	ktap_skip_all "cannot mount /proc /sys /dev /tmp /run into $SID"

# SID CMD...: CMD of the sid root; SIDPEER CMD...: the same in srpeer,
# with that namespace's sysfs (its netdevs) in the chroot (arrays, so that
# timeout can run them)
SENV=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
SID_RUN=(chroot "$SID" "${SENV[@]}")
# shellcheck disable=SC2034  # SIDPEER: for the scripts sourcing this file
SIDPEER=(ip netns exec srpeer sh -c 'r=$1; shift; mount -t sysfs sysfs "$r/sys" &&
	exec chroot "$r" "$@"' sh "$SID" "${SENV[@]}")
sid() { "${SID_RUN[@]}" "$@"; }
