#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Completion counters (ibv_create_comp_cntr(), ibv_qp_attach_comp_cntr();
# Linux 7.x, rdma-core 65): rdma-core 65's pyverbs in build/sid-root runs
# comp_cntr.py on sroce0 (two RC QPs over loopback): the caps, set/inc/read
# of both entries, attach refusals (a class taken: EBUSY; past INIT:
# EINVAL), 8 SENDs, WRITEs and READs (only the last of each signaled)
# counted at both ends per class, a refused WRITE counted in error at
# both ends, an attached counter not destroyable (EBUSY) until its QP is
# gone, a process exiting with a counter attached cleaned up after, and
# max_counters enforced (ENOMEM; none of the above left over). Skipped
# without a sid root (make check builds it: scripts/sid-root), or on a
# kernel whose RDMA core has no completion counters (6.1, 6.12); make
# check runs it on its newest kernel only.
# sroce-timeout: 180
# sroce-kernels: newest
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sid-lib.sh"
here=$(dirname "$0")

cleanup() { eth0_dev_down; }
trap cleanup EXIT

eth0_dev_up || { ktap_header 1; ktap_fail "sroce0 up on eth0 with its RoCEv2 GID"; ktap_finish; }
# does this kernel's RDMA core have completion counters (and this
# pyverbs the module)? The caps query: EOPNOTSUPP or EPROTONOSUPPORT (no
# such uverbs method) where it has not. Anything else is the test's to
# report.
why=$(sid python3 - 2>&1 <<'PY'
import errno, sys
try:
    from pyverbs.device import Context
    from pyverbs.pyverbs_error import PyverbsRDMAError
    import pyverbs.comp_cntr  # noqa: F401
except ImportError as ex:
    print("pyverbs has no completion counters (%s)" % ex)
    sys.exit(4)
try:
    with Context(name='sroce0') as ctx:
        ctx.query_comp_cntr_caps()
except PyverbsRDMAError as ex:
    if ex.error_code in (errno.EOPNOTSUPP, errno.EPROTONOSUPPORT):
        print("this kernel's RDMA core has no completion counters (%s)" %
              errno.errorcode[ex.error_code])
        sys.exit(4)
    raise
PY
)
[ $? -ne 4 ] || ktap_skip_all "$(tail -n 1 <<< "$why")"

ktap_header 15
dmesg_mark
cp "$here/comp_cntr.py" "$SID/tmp/" || exit 1
out=$(timeout $((120 * ${SROCE_TIMEOUT_SCALE:-1})) "${SID_RUN[@]}" python3 /tmp/comp_cntr.py sroce0 1 2>&1)
rc=$?
while IFS= read -r l; do
	case $l in
	"ok "*) ktap_ok "${l#ok }" ;;
	"not ok "*) ktap_fail "${l#not ok }" ;;
	*) ktap_diag "$l" ;;
	esac
done <<< "$out"
ktap_result "comp_cntr.py ran to its end" test "$rc" -eq 0
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
