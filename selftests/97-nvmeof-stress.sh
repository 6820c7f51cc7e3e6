#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sroce-timeout: 600
# sroce-kernels: newest
# NVMe over Fabrics (RDMA) on sroce under churn and removal, with the
# kernel's nvme-rdma host and nvmet-rdma target on one sroce device in
# init_net (the setup of 97-nvmeof.sh, nvmet-lib.sh):
#  - the target's port removed under fio (subsystem unlinked, port rmdir'd;
#    the target deletes the controllers behind it): the host, connected
#    with --reconnect-delay=1 --ctrl-loss-tmo=30, goes to "connecting" and
#    back to "live" once the port is back, and fio ends with every block
#    crc32c-verified (its I/O waits for the reconnection); with
#    ctrl_loss_tmo 3 s and the port not back the host deletes the
#    controller and fio fails with I/O errors;
#  - `rdma link delete sroce8` under fio: the RDMA core removes its clients
#    from the device first, nvme-rdma deletes the controller (I/O fails
#    with errors), nvmet-rdma's listener goes with the device (nvmet-rdma
#    listens again after an address change, not after a device removal:
#    the port is re-created); `rdma link add`, then connect/disconnect
#    rounds (NVMF_ROUNDS, 3: the time budget under TCG, ~10 s a round),
#    1 MiB byte-exact through each, on the RAM disk too.
# Every step has a time limit: nothing may hang, and dmesg stays clean.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bounded.sh"
. "$(dirname "$0")/nvmet-lib.sh"

trap nvmf_cleanup EXIT
nvmf_require
require_cmd fio > /dev/null || ktap_skip_all "fio missing"

# sroce8's counter NAME (exact name)
counter() {
	rdma statistic show link sroce8/1 2>/dev/null | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1
}

# churn N: N rounds of connect, 1 MiB byte-exact, disconnect, the
# controller gone
ROUNDS=${NVMF_ROUNDS:-3}
churn() {
	local i n
	for i in $(seq "$1"); do
		nvmf_connect > /dev/null || { echo "round $i: connect failed"; return 1; }
		nvmf_data $(( i % 32 )) 1 || { echo "round $i: data mismatch"; return 1; }
		nvmf_disconnect > /dev/null || { echo "round $i: disconnect failed"; return 1; }
		for n in $(seq 50); do
			nvmf_ctrl > /dev/null || continue 2
			sleep 0.1
		done
		echo "round $i: controller still there after disconnect"
		return 1
	done
}

# wait_state STATE SECS: our controller in STATE (its sysfs "state")
wait_state() {
	local n c s=
	for n in $(seq $(( $2 * 10 ))); do
		c=$(nvmf_ctrl) && s=$(cat "$c/state" 2>/dev/null)
		[ "$s" = "$1" ] && { echo "${c##*/} $s after $((n / 10)).$((n % 10)) s"; return 0; }
		sleep 0.1
	done
	echo "controller ${c##*/} in state '$s', not $1, after $2 s"
	return 1
}

# wait_gone SECS: our controller deleted
wait_gone() {
	local n c
	for n in $(seq $(( $1 * 10 ))); do
		c=$(nvmf_ctrl) || { echo "gone after $((n / 10)).$((n % 10)) s"; return 0; }
		sleep 0.1
	done
	echo "${c##*/} still there after $1 s, state $(cat "$c/state" 2>/dev/null)"
	return 1
}

# fio_start SECS: fio in the background (FIO: its PID), random 4K-64K
# writes 16 deep for SECS seconds, every 64 written blocks read back and
# crc32c-verified (time_based: the run ends, whatever happened meanwhile,
# with what it wrote verified)
FIO=
fio_start() {
	local cmd
	cmd=$(nvmf_fio_cmd --rw=randwrite --bsrange=4k-64k --iodepth=16 --size=24M \
		--time_based --runtime="$1" --verify_backlog=64) || return 1
	# shellcheck disable=SC2086  # no blanks in its words
	bg_start FIO $(( $1 + 60 )) "$NVMF_T/fio.log" $cmd
}

# fio_writing: fio's I/O goes through sroce8 (its WQE counter moves)
fio_writing() {
	local a b n
	a=$(counter sq_wqes)
	for n in $(seq 150); do
		sleep 0.2
		b=$(counter sq_wqes)
		[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt $((a + 200)) ] && return 0
	done
	echo "no I/O: sq_wqes $a -> $b"; tail -n 5 "$NVMF_T/fio.log"
	return 1
}

# under_io CMD..: CMD while fio still runs (else the step proves nothing)
under_io() {
	local st
	st=$(proc_state "$FIO")
	[ -n "$st" ] && [ "$st" != Z ] || { echo "fio ended before: $(tail -n 2 "$NVMF_T/fio.log")"; return 1; }
	"$@"
}

# fio_end NAME EXPECT: wait for fio (at most its time limit); EXPECT ok:
# it must succeed; EXPECT eio: it must fail with I/O errors (and end)
fio_end() {
	local rc
	bg_wait "$FIO" fio "$NVMF_T/fio.log"
	rc=$?
	case $2:$rc in
	ok:0) ktap_ok "$1" ;;
	eio:124|eio:125|eio:0|ok:*)
		ktap_diag "$(tail -n 5 "$NVMF_T/fio.log")"
		ktap_fail "$1" "fio exit status $rc" ;;
	eio:*)
		if grep -q -i "input/output error\|error=" "$NVMF_T/fio.log"; then
			ktap_diag "$(grep -i -m 2 "error" "$NVMF_T/fio.log")"
			ktap_ok "$1"
		else
			ktap_diag "$(tail -n 5 "$NVMF_T/fio.log")"
			ktap_fail "$1" "fio exit status $rc without an I/O error"
		fi ;;
	esac
}

# the port back after a second and more of reconnection attempts refused
port_back() { sleep 2; nvmf_port_add && wait_state live 30; }

# set_tmo S: the controller's ctrl_loss_tmo S seconds (sysfs; where it
# is not writable, connected again with --ctrl-loss-tmo=S)
set_tmo() {
	local c
	c=$(nvmf_ctrl) || return 1
	if [ -w "$c/ctrl_loss_tmo" ]; then
		echo "$1" > "$c/ctrl_loss_tmo" || return 1
	else
		nvmf_disconnect && nvmf_connect --reconnect-delay=1 --ctrl-loss-tmo="$1" || return 1
		c=$(nvmf_ctrl) || return 1
	fi
	echo "${c##*/}: ctrl_loss_tmo $(cat "$c/ctrl_loss_tmo" 2>/dev/null), reconnect_delay $(cat "$c/reconnect_delay" 2>/dev/null)"
}

port_back_connect() { nvmf_port_add && nvmf_connect; }

relink() {
	bounded 30 rdma link add sroce8 type sroce netdev srA || return 1
	echo "nvmet-rdma's listener went with the old device, and it listens" \
		"again only after an address change (rxe: the same): port 1 re-created"
	nvmf_port_del && nvmf_port_add
}

ktap_header 20
dmesg_mark
ktap_result "RAM disk exported over nvmet-rdma on sroce8 (192.0.2.1:4420)" nvmf_setup

# the port goes and comes back
ktap_result "nvme connect --reconnect-delay=1 --ctrl-loss-tmo=30" nvmf_connect --reconnect-delay=1 --ctrl-loss-tmo=30
fio_start 20
ktap_result "fio random writes 4K-64K, iodepth 16, under way" fio_writing
ktap_result "target port removed under I/O (subsystem unlinked, port rmdir'd)" under_io nvmf_port_del
ktap_result "host lost its queues, reconnecting (state connecting) within 20 s" wait_state connecting 20
ktap_result "port back: the host reconnected (state live) within 30 s" port_back
fio_end "fio resumed and ended, every block written crc32c-verified" ok

# the port goes for good
ktap_result "ctrl_loss_tmo 3 s" set_tmo 3
fio_start 60
ktap_result "fio under way" fio_writing
ktap_result "target port removed under I/O" under_io nvmf_port_del
ktap_result "host gave up after ctrl_loss_tmo: controller deleted within 30 s" wait_gone 30
fio_end "fio failed with I/O errors, no task hung" eio

# the device goes
ktap_result "port back, nvme connect" port_back_connect
fio_start 60
ktap_result "fio under way" fio_writing
ktap_result "rdma link delete sroce8 under I/O (within 60 s)" under_io bounded 60 rdma link delete sroce8
ktap_result "host controller deleted with the device (within 30 s)" wait_gone 30
fio_end "fio failed with I/O errors, no task hung" eio
ktap_result "rdma link add sroce8 again, port 1 re-created" relink
ktap_result "$ROUNDS rounds of connect, 1 MiB written and read back byte-exact, disconnect" churn "$ROUNDS"
ktap_result "dmesg clean" dmesg_clean_since_mark
ktap_finish
