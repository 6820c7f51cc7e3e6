#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 420
# sroce-kernels: newest
# RC atomics: ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD on 8-byte aligned
# targets. pyverbs on one device (loopback, rc_atomics.py): the device
# reports atomic_cap IBV_ATOMIC_HCA, good atomics return the original value
# and change the target, and the error paths (misaligned target: NAK
# invalid request, IBV_WC_REM_INV_REQ_ERR; bad rkey, an MR or a QP without
# IBV_ACCESS_REMOTE_ATOMIC, a target beyond the MR: IBV_WC_REM_ACCESS_ERR)
# leave the target untouched. sroce-verify --ops cas,faa across the veth
# (every returned original value and every target's final value checked:
# an atomic executed twice leaves a wrong value), mixed with READs, WRITEs
# and SENDs 8 deep; 10 % of the ATOMIC ACKs dropped (the requester resends,
# the responder must answer the duplicate from the result it kept, never
# execute it again); rdma_rxe as the requester of every atomic against a
# sroce responder, and the other way round. ATOMIC WRITE (IBTA 1.5,
# ibv_wr_atomic_write): the capability bit, the 8 bytes stored as they are
# and seen by a CMP_SWAP after it, and its refusals (misaligned:
# REM_INV_REQ; bad rkey, an MR or a QP without remote write, beyond the MR:
# REM_ACCESS) with the target untouched; sroce-verify --ops atomic_write
# mixed with WRITEs and READs sroce<->sroce, with 10 % of the READ
# responses (which answer ATOMIC WRITE) dropped, and against rdma_rxe in
# both roles where rxe has ATOMIC WRITE (Linux 6.2+).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-topo.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/fault-lib.sh"

here=$(dirname "$0")
LOG=/tmp/96-atomics.$$
cleanup() {
	bg_kill_all
	fault_clear
	topo_down_bounded
	rm -f "$LOG".*
}
trap cleanup EXIT
trap 'exit 143' TERM INT

[ -x "$VERIFY" ] || ktap_skip_all "$VERIFY not built"
[ -n "$(ls "${SROCE_TOP:-.}"/build/provider/libsroce-rdmav*.so 2>/dev/null)" ] ||
	ktap_skip_all "the libibverbs provider is not built"

# local ACK timeout 4.096 us << 16 (0.27 s), 7 retries: a lost ATOMIC ACK
# costs one timeout, an honest retry exhaustion eight in a row
QP=(--qp-timeout 16 --retry-cnt 7 --timeout 20)
ATOMICS=(--ops "cas,faa")
PY_CASES=(caps good misaligned bad_rkey mr_no_atomic qp_no_atomic out_of_bounds
	aw_caps aw_good aw_misaligned aw_bad_rkey aw_mr_no_write aw_qp_no_write aw_out_of_bounds)

# the pyverbs cases run in one process (Python and pyverbs start slowly
# under TCG); py_case CASE reports the line of one of them
py_run() {
	bounded 120 python3 "$here/rc_atomics.py" sroce8 1 "${PY_CASES[@]}" > "$LOG.py" 2>&1
}
py_case() {
	grep -qx "ok $1" "$LOG.py" && return 0
	grep -E "^not ok $1:" "$LOG.py" ||
		{ echo "rc_atomics.py reported nothing for $1:"; tail -n 5 "$LOG.py"; }
	return 1
}

# does rxe8 advertise ATOMIC WRITE (IB_UVERBS_DEVICE_ATOMIC_WRITE)?
rxe_atomic_write() {
	python3 -c 'import sys
from pyverbs.device import Context
sys.exit(0 if Context(name="rxe8").query_device_ex().device_cap_flags_ex & (1 << 40) else 1)'
}

# drop_class CLASS RATE ARGS...: RATE % of the packets of CLASS
# (fault-lib.sh) dropped in both directions; byte-exact or fail; exit 4
# when nothing was dropped
drop_class() {
	local class=$1 rate=$2 rc dropped before t0=$SECONDS
	shift 2
	fault_drop "$class" "$rate" || return 1
	before=$(snap sroce8)
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" "$@"
	rc=$?
	dropped=$(fault_dropped)
	fault_clear
	echo "dropped $dropped $class packets in $((SECONDS - t0)) s; $(deltas "$before")"
	[ "$rc" -eq 0 ] && [ "$dropped" -eq 0 ] && return 4
	return "$rc"
}

ktap_header 26
dmesg_mark
modprobe -q nf_tables 2>/dev/null
ktap_result "topology sroce8 <-> sroce9" topo_up sroce
py_run
ktap_result "sroce8 reports atomic_cap IBV_ATOMIC_HCA" py_case caps
ktap_result "CMP_SWAP (equal, differing) and FETCH_ADD: original value back, target changed once" \
	py_case good
ktap_result "misaligned target: IBV_WC_REM_INV_REQ_ERR, target untouched" py_case misaligned
ktap_result "bad rkey: IBV_WC_REM_ACCESS_ERR, target untouched" py_case bad_rkey
ktap_result "MR without IBV_ACCESS_REMOTE_ATOMIC: IBV_WC_REM_ACCESS_ERR, target untouched" \
	py_case mr_no_atomic
ktap_result "QP without IBV_ACCESS_REMOTE_ATOMIC: IBV_WC_REM_ACCESS_ERR, target untouched" \
	py_case qp_no_atomic
ktap_result "target beyond the MR: IBV_WC_REM_ACCESS_ERR, target untouched" py_case out_of_bounds
ktap_result "sroce8 reports the ATOMIC WRITE capability" py_case aw_caps
ktap_result "ATOMIC WRITE: the 8 bytes stored as they are, a CMP_SWAP sees them" py_case aw_good
ktap_result "ATOMIC WRITE misaligned: IBV_WC_REM_INV_REQ_ERR, target untouched" py_case aw_misaligned
ktap_result "ATOMIC WRITE bad rkey: IBV_WC_REM_ACCESS_ERR, target untouched" py_case aw_bad_rkey
ktap_result "ATOMIC WRITE to an MR without remote write: IBV_WC_REM_ACCESS_ERR" py_case aw_mr_no_write
ktap_result "ATOMIC WRITE on a QP without remote write: IBV_WC_REM_ACCESS_ERR" py_case aw_qp_no_write
ktap_result "ATOMIC WRITE beyond the MR: IBV_WC_REM_ACCESS_ERR, target untouched" \
	py_case aw_out_of_bounds
ktap_result "sroce8 <-> sroce9 --ops cas,faa: every result and target exact" \
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" "${ATOMICS[@]}" -n 300 --seed 1
ktap_result "sroce8 <-> sroce9 --ops read,write,send,cas,faa --depth 8" \
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" --ops read,write,send,cas,faa \
	--depth 8 --max-size 64K -m 1024 -n 240 --seed 2
ktap_result "sroce8 <-> sroce9 --ops atomic_write,write,read --depth 8: targets exact" \
	verify_run exact peer sroce9 sroce8 192.0.2.2 "${QP[@]}" --ops atomic_write,write,read \
	--depth 8 --max-size 16K -n 240 --seed 6
if require_cmd nft > /dev/null; then
	ktap_case "drop 10 % READ responses: every ATOMIC WRITE answered again, targets exact" \
		drop_class rdresp 10 --ops atomic_write --depth 8 -n 320 --seed 7
else
	ktap_skip "drop 10 % READ responses" "nft missing"
fi
if require_cmd nft > /dev/null; then
	ktap_case "drop 10 % ATOMIC ACKs: duplicates answered from the kept result, never re-executed" \
		drop_class atomicack 10 "${ATOMICS[@]}" --depth 8 -n 320 --seed 3
else
	ktap_skip "drop 10 % ATOMIC ACKs" "nft missing"
fi
topo_down_bounded

# rdma_rxe (in init_net) against sroce9: --initiator pins the requester
if require_module rdma_rxe > /dev/null; then
	ktap_result "topology rxe8 <-> sroce9" topo_up rxe
	ktap_result "rxe8 requester -> sroce9 responder: --ops cas,faa" \
		verify_run exact peer sroce9 rxe8 192.0.2.2 "${QP[@]}" "${ATOMICS[@]}" \
		--initiator client --depth 4 -n 200 --seed 4
	ktap_result "sroce9 requester -> rxe8 responder: --ops cas,faa" \
		verify_run exact peer sroce9 rxe8 192.0.2.2 "${QP[@]}" "${ATOMICS[@]}" \
		--initiator server --depth 4 -n 200 --seed 5
	if rxe_atomic_write; then
		ktap_result "rxe8 requester -> sroce9 responder: --ops atomic_write,write" \
			verify_run exact peer sroce9 rxe8 192.0.2.2 "${QP[@]}" \
			--ops atomic_write,write --initiator client --depth 4 -n 200 --seed 8
		ktap_result "sroce9 requester -> rxe8 responder: --ops atomic_write,write" \
			verify_run exact peer sroce9 rxe8 192.0.2.2 "${QP[@]}" \
			--ops atomic_write,write --initiator server --depth 4 -n 200 --seed 9
	else
		ktap_skip "rxe8 requester -> sroce9 responder: atomic_write" \
			"rdma_rxe has no ATOMIC WRITE on $(uname -r) (Linux 6.2+)"
		ktap_skip "sroce9 requester -> rxe8 responder: atomic_write" \
			"rdma_rxe has no ATOMIC WRITE on $(uname -r) (Linux 6.2+)"
	fi
	topo_down_bounded
else
	ktap_skip "topology rxe8 <-> sroce9" "rdma_rxe missing"
	ktap_skip "rxe8 requester -> sroce9 responder" "rdma_rxe missing"
	ktap_skip "sroce9 requester -> rxe8 responder" "rdma_rxe missing"
	ktap_skip "rxe8 requester -> sroce9 responder: atomic_write" "rdma_rxe missing"
	ktap_skip "sroce9 requester -> rxe8 responder: atomic_write" "rdma_rxe missing"
fi
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
