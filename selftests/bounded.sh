# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Time-bounded steps for tests that expect the driver to hang (sourced).
#
# `timeout -k` cannot bound a process that sleeps uninterruptibly (a verb
# stuck in the kernel, D state): SIGKILL never takes effect and timeout
# waits for it for ever. These helpers start a command in its own process
# group under `timeout -k`, poll for its end, and give up on it a few
# seconds after the kill: the script goes on, the stuck process is reported
# (state, wchan, kernel stack) and left behind.
#
#   bg_start VAR SECS LOG CMD...  start CMD (an executable, not a function)
#                             in the background, output to LOG (never to
#                             the caller's stdout: a stuck process would
#                             hold a $(...) open); its PID (= its session)
#                             in VAR
#   bg_wait PID [WHAT [LOG PATTERN]]
#                             wait for it: CMD's exit status; 124 when it
#                             was killed at its time limit; 125 when it or
#                             a process of its group did not even die of
#                             SIGKILL (reported, left behind). Once LOG
#                             matches PATTERN (CMD's last words) it gets
#                             10 s more to exit, not the rest of its time
#   bg_wait_both PID_A PID_B [WHAT_A WHAT_B]
#                             bg_wait for two partners; once one has ended
#                             the other gets 10 s more, not the rest of its
#                             time (a peer that lost its partner may wait
#                             for it for ever). Statuses in BG_RC_A, BG_RC_B
#   bounded SECS CMD...       bg_start + bg_wait, CMD's output printed after
#   bg_kill_all               SIGKILL every session started by this script
#                             that is left (for cleanup traps; never waits)
#   proc_report PID           "# " lines: state, wchan and kernel stack of
#                             the processes of PID's session

# groups started, across the subshells ktap_result runs functions in
BG_PIDFILE=/tmp/bounded-pids.$$
declare -A BG_DEADLINE=()

bg_start() {
	local -n _bg_pid=$1
	local secs=$2 log=$3
	shift 3
	# sh in between: whatever kills timeout or CMD, this shell's child
	# exits normally (bash prints no "Killed" job notice)
	setsid sh -c 'timeout -k 3 "$@"; exit $?' sh "$secs" "$@" < /dev/null > "$log" 2>&1 &
	_bg_pid=$!
	echo "$_bg_pid" >> "$BG_PIDFILE"
	BG_DEADLINE[$_bg_pid]=$((EPOCHSECONDS + secs + 8))
}

# state letter of PID ("" when gone); a zombie is "Z"
proc_state() {
	proc_state_v "$1"
	echo "$PSTATE"
}

# proc_state_v PID: the same in PSTATE, by bash builtins alone: the polls
# below run every 0.2 s, and under TCG a fork and exec cost 60 ms or more
proc_state_v() {
	local s
	PSTATE=""
	IFS= read -r s 2>/dev/null < "/proc/$1/stat" || return 0
	s=${s##*) }
	PSTATE=${s%% *}
}

# bg_log_has LOG PATTERN: LOG matches the extended regex PATTERN (builtins)
bg_log_has() {
	local t
	[ -r "$1" ] || return 1
	IFS= read -r -d '' t < "$1"
	[[ $t =~ $2 ]]
}

# live (non-zombie) processes of session $1 (timeout puts its command in
# a process group of its own, the session holds them all)
group_alive() {
	local p st
	for p in $(pgrep -s "$1" 2>/dev/null); do
		st=$(proc_state "$p")
		[ -n "$st" ] && [ "$st" != Z ] && echo "$p"
	done
}

proc_report() {
	local p
	for p in $(group_alive "$1"); do
		echo "# pid $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-80)):" \
			"state $(proc_state "$p"), wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
		sed -n '1,8s/^/#     /p' "/proc/$p/stack" 2>/dev/null
	done | awk '!seen[$0]++'
}

bg_wait() {
	local pid=$1 what=${2:-command} log=${3:-} pat=${4:-} st rc
	local deadline=${BG_DEADLINE[$pid]:-$((EPOCHSECONDS + 5))} i=0
	while :; do
		# the log every second (a read of all of it)
		if [ -n "$pat" ] && [ $((i++ % 5)) = 0 ] && bg_log_has "$log" "$pat"; then
			pat=""
			[ "$deadline" -lt $((EPOCHSECONDS + 10)) ] || deadline=$((EPOCHSECONDS + 10))
		fi
		proc_state_v "$pid"
		st=$PSTATE
		if [ -z "$st" ] || [ "$st" = Z ]; then
			wait "$pid" 2>/dev/null
			rc=$?
			# 124: timeout's TERM worked; 137: its KILL did
			[ "$rc" -eq 137 ] && rc=124
			return "$rc"
		fi
		[ "$EPOCHSECONDS" -lt "$deadline" ] || break
		sleep 0.2
	done
	# all but the sh: it then exits by itself
	for st in $(group_alive "$pid"); do
		[ "$st" = "$pid" ] || kill -KILL "$st" 2>/dev/null
	done
	sleep 1
	if [ -z "$(group_alive "$pid")" ]; then
		wait "$pid" 2>/dev/null
		return 124
	fi
	echo "# $what did not end even with SIGKILL (uninterruptible sleep in the kernel):"
	proc_report "$pid"
	# reap timeout if it is gone; never wait for the stuck one
	st=$(proc_state "$pid")
	{ [ -z "$st" ] || [ "$st" = Z ]; } && wait "$pid" 2>/dev/null
	return 125
}

# bg_shorten PID SECS: PID's time limit is at most SECS from now
bg_shorten() {
	local t=$((EPOCHSECONDS + $2))
	[ "${BG_DEADLINE[$1]}" -le "$t" ] || BG_DEADLINE[$1]=$t
}

bg_wait_both() {
	local a=$1 b=$2 p st now
	while :; do
		for p in "$a" "$b"; do
			proc_state_v "$p"
			st=$PSTATE
			{ [ -z "$st" ] || [ "$st" = Z ]; } && break 2
		done
		now=$EPOCHSECONDS
		[ "$now" -lt "${BG_DEADLINE[$a]}" ] || [ "$now" -lt "${BG_DEADLINE[$b]}" ] || break
		sleep 0.2
	done
	bg_shorten "$a" 10
	bg_shorten "$b" 10
	bg_wait "$a" "${3:-}"
	# shellcheck disable=SC2034  # for the caller
	BG_RC_A=$?
	bg_wait "$b" "${4:-}"
	# shellcheck disable=SC2034
	BG_RC_B=$?
}

bounded() {
	local secs=$1 p rc log
	shift
	log=$(mktemp /tmp/bounded.XXXXXX)
	bg_start p "$secs" "$log" "$@"
	bg_wait "$p" "$1"
	rc=$?
	cat "$log"
	rm -f "$log"
	return "$rc"
}

bg_kill_all() {
	local p
	[ -f "$BG_PIDFILE" ] || return 0
	for p in $(cat "$BG_PIDFILE"); do
		[ -z "$(group_alive "$p")" ] || pkill -KILL -s "$p" 2>/dev/null
	done
	rm -f "$BG_PIDFILE"
	return 0
}

# topo_down (net-topo.sh) within 30 s: deleting a device waits for its
# users, and a process stuck in the kernel never lets go
topo_down_bounded() {
	bounded 30 bash -c "$(declare -f topo_down rxe_unload ktap_diag); topo_down" ||
		echo "# topo_down did not finish within 30 s"
}
