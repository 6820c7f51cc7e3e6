#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 480
# sroce-kernels: oldest newest
# On-demand paging: ODP MRs (IBV_ACCESS_ON_DEMAND) on one sroce device
# (loopback, odp_verbs.py): the capabilities; RDMA WRITE, READ, SEND and
# atomics through ODP MRs whose pages were just taken from the process
# (MADV_DONTNEED on a memfd mapping), so every transfer meets missing
# pages, faults them in (odp_faults) and moves exactly the bytes the
# process sees; invalidation (pages dropped between transfers, the process
# writing in between: never a stale page); ibv_advise_mr prefetch and its
# refusals; an ODP MR on huge pages (faults and invalidation at 2 MiB
# granularity, read through PAGE_SIZE entries on the HMM kernels);
# HUGETLB without ON_DEMAND refused; an ODP MR whose memory is
# unmapped fails transfers (remote access / local protection error)
# instead of waiting for ever; cold memory on both sides of a hole in an
# ODP MR, written at once (the hole is never faulted in); an implicit ODP
# MR (the whole address space) as lkey and rkey; ODP ranges bounded by
# 4 x RAM (ENOMEM past it: the core's page lists are charged to no one);
# UC and UD QPs, whose
# receive has no RNR NAK and waits for the fault with its packet held
# (odp_rx_waits), SEND/WRITE/WRITE with immediate and datagrams none
# lost, through an RQ and an SRQ. A fault that never completes stalls
# nobody else (odp_stall.py): while process A's ODP fault sleeps in a
# FUSE READ its server never answers, process B's ODP RC WRITE faults and
# completes, a WRITE from a never-served userfaultfd range fails at once
# (hmm_range_fault() makes handle_userfault() answer SIGBUS), A's
# dereg_mr and exit return, the device can be deleted, and the stuck
# fault holds the module (rmmod refused, not hung) until the server goes. rdma_rxe has no ODP on
# these kernels (explicit ODP came in 6.15): nothing to compare with.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")
LOG=/tmp/90-odp.$$
LOG2=/tmp/90-odp-stall.$$
HP=/proc/sys/vm/nr_hugepages
hp_old=$(cat "$HP")
cleanup() {
	echo "$hp_old" > "$HP" 2>/dev/null
	rdma link delete sroce0 2>/dev/null
	ip addr del 192.0.2.5/24 dev eth0 2>/dev/null
	rm -f "$LOG" "$LOG2"
}
trap cleanup EXIT

CASES=(caps write read send atomic invalidate advise huge refused unmapped hole implicit budget uc ud)
STALL_CASES=8
py_case() {	# py_case CASE [LOG]
	local log=${2:-$LOG}
	sed -n "s/^info $1: //p" "$log"	# what the case measured
	grep -qx "ok $1" "$log" && return 0
	grep -E "^not ok $1:" "$log" ||
		{ echo "$(basename "$log") reported nothing for $1:"; tail -n 5 "$log"; }
	return 1
}

ktap_header $(( ${#CASES[@]} + STALL_CASES + 2 ))
dmesg_mark
ip link set eth0 up
ip addr add 192.0.2.5/24 dev eth0
ktap_result "sroce0 on eth0" rdma link add sroce0 type sroce netdev eth0
sleep 1
echo $((hp_old + 2)) > "$HP"	# the huge case's two 2 MiB pages
timeout 180 python3 "$here/odp_verbs.py" sroce0 "${CASES[@]}" > "$LOG" 2>&1
ktap_result "ODP capabilities: implicit; RC all, XRC all but RECV, UC all but READ/ATOMIC, UD SEND/RECV/SRQ_RECV" \
	py_case caps
ktap_result "RDMA WRITE into dropped ODP pages: byte-exact, odp_faults counted" py_case write
ktap_result "RDMA READ out of and into dropped ODP pages: byte-exact" py_case read
ktap_result "SEND from and into dropped ODP pages: byte-exact" py_case send
ktap_result "FETCH_ADD and CMP_SWAP on a dropped ODP word: values exact" py_case atomic
ktap_result "invalidation: the process' own writes and new data seen, never stale pages" \
	py_case invalidate
ktap_result "ibv_advise_mr PREFETCH_WRITE: no fault after it; EINVAL for pinned MR, past end" \
	py_case advise
if [ "$(cat "$HP")" -ge $((hp_old + 2)) ]; then
	ktap_result "ODP on huge pages: WRITE across 2 MiB pages, freed pages never seen" \
		py_case huge
else
	ktap_skip "ODP on huge pages" "no two 2 MiB pages free"
fi
ktap_result "HUGETLB without ON_DEMAND: EOPNOTSUPP" py_case refused
ktap_result "unmapped ODP memory: REM_ACCESS_ERR / LOC_PROT_ERR, no endless wait" \
	py_case unmapped
ktap_result "cold memory both sides of a hole, two QPs at once: every WRITE succeeds" py_case hole
ktap_result "implicit ODP MR as lkey and rkey: WRITE/READ/SEND/FETCH_ADD exact, 2 MiB cross, prefetch; unmapped and kernel addresses fail" \
	py_case implicit
ktap_result "ODP ranges bounded by 4 x RAM: ENOMEM past it, implicit children too; freed with the MRs" \
	py_case budget
ktap_result "UC over dropped ODP pages: SEND, 1 MiB WRITE, WRITE with immediate, SRQ; none lost, byte-exact; unmapped: dropped, QP stays RTS" \
	py_case uc
ktap_result "UD over dropped ODP pages: 8 datagrams via RQ, 4 via SRQ, none lost, byte-exact with GRH; unmapped: LOC_PROT_ERR" \
	py_case ud
# the stuck faults need a FUSE mount: /dev/fuse appears when fuse loads
# (a module on 6.1, built in on later Debian kernels)
[ -e /dev/fuse ] || modprobe fuse 2>/dev/null || true
timeout 300 python3 "$here/odp_stall.py" run sroce0 > "$LOG2" 2>&1
stall_case() {	# stall_case CASE: py_case on odp_stall.py's report
	py_case "$1" "$LOG2"
}
ktap_step "faults stuck in a FUSE READ never answered: WRITEs via an ODP and an implicit MR wait" \
	stall_case stuck
ktap_step "meanwhile rdma resource show mr -dd answers" stall_case restrack
ktap_step "meanwhile another process' ODP RC WRITE faults and completes, byte-exact" \
	stall_case other
ktap_step "a never-served userfaultfd range: the WRITE fails at once (LOC_PROT_ERR)" \
	stall_case uffd
ktap_step "dereg_mr of the stuck MR returns within 10 s" stall_case dereg
ktap_step "its process exits within 10 s (QPs, PD, context destroyed by the exit)" \
	stall_case exit
ktap_step "rdma link delete while the faults are stuck returns within 10 s" stall_case unlink
ktap_step "each stuck fault holds the module (rmmod refused) until its server goes" \
	stall_case module
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
