# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Fault injection for RC transport tests (sourced after lib.sh, net-topo.sh
# and bounded.sh): drop one class of RoCEv2 packets at a random rate with
# nftables, run sroce-verify across the loss, judge the outcome.
#
#   fault_drop CLASS[,CLASS...] RATE [NS...]
#                              drop RATE % of the packets of CLASS (below)
#                              arriving in namespaces NS (init, peer;
#                              default both: the two directions of the
#                              veth). The receiver drops them (hook input),
#                              as the wire would: a drop on the sender's
#                              output hook fails its ip_local_out(), which
#                              rdma_rxe takes for a local error
#   fault_rule NS MATCH        the table in namespace NS (init, peer) with
#                              one input rule: RoCEv2 packets that match
#                              the nft expression MATCH are dropped
#   fault_dropped              packets the rules dropped since fault_drop
#   fault_clear                remove the rules
#   snap DEV...                "DEV retransmits seq_naks_sent" lines, for:
#   deltas SNAP                "DEV retransmits +N seq_naks_sent +M" lines:
#                              how the counters moved since SNAP
#   ktap_case NAME CMD...      ktap_result, but exit 4 of CMD is a SKIP
#                              (vacuous: nothing of the class dropped, or
#                              nothing else to judge) and the skip or a
#                              failure is named by CMD's last line that is
#                              not a counter line
#   verify_run ALLOW WHERE SDEV CDEV SIP ARGS...
#                              sroce-verify server on SDEV, client on CDEV
#                              against SIP with ARGS; WHERE: peer (server
#                              in srpeer, client in init_net), init (the
#                              other way round) or local (both in
#                              init_net); prints
#                              why it failed, returns 0 when both sides
#                              verified every byte or - ALLOW=retry only,
#                              for the cases about the retry budget - the
#                              run ended with IBV_WC_RETRY_EXC_ERR on a send
#                              queue and nothing else went wrong, in a
#                              named iteration after the first batch (the
#                              batches before it were verified by both
#                              sides); such a run prints a line that
#                              starts "retry budget ran out", which
#                              ktap_case records in $FAULT_ACCEPTED
#   fault_accepted_report      "# N run(s) accepted with the retry budget
#                              run out" and one line per run
#   ctr_snap                   remember the counters $CTRS, each read by the
#                              script's ctr_val NAME
#   ctr_delta RUN              print how each moved since ("counters: NAME
#                              +N ..."), kept in $CTRDIR/RUN (ktap_case runs
#                              its command in a subshell)
#   got RUN NAME               how NAME moved in RUN (-1 if it did not run)
#
# Classes (the BTH opcode is the first byte after the UDP header):
#   rdresp  READ responses, 0x0d..0x10     ack    ACK/NAK, 0x11
#   rdonly  READ RESPONSE ONLY, 0x10 (the answer of a one-packet READ)
#   rdreq   READ request, 0x0c             write  WRITE FIRST/MIDDLE/LAST
#   send    SEND FIRST/MIDDLE/LAST         atomicack  ATOMIC ACKNOWLEDGE, 0x12
#   atomic  CMP_SWAP 0x13, FETCH_ADD 0x14 requests
#   writeimm  WRITE LAST and ONLY with Immediate, 0x09 and 0x0b

FAULT_TABLE=sroce_fault
VERIFY=${SROCE_TOP:-$(dirname "${BASH_SOURCE[0]}")/..}/build/userspace/sroce-verify
# bound of one sroce-verify process; scaled on a debug kernel (run --timeout-scale)
VERIFY_SECS=${VERIFY_SECS:-$((90 * ${SROCE_TIMEOUT_SCALE:-1}))}
# its verdict: printed, it only has to tear down and exit
VERIFY_LAST='all verified|FAILED:|the peer failed'
# the runs accepted with IBV_WC_RETRY_EXC_ERR (ALLOW=retry), one per line
# (a file: ktap_case runs the case in a subshell); the script removes it
FAULT_ACCEPTED=${FAULT_ACCEPTED:-/tmp/fault-accepted.$$}

declare -A CTR0
ctr_snap() { local c; for c in $CTRS; do CTR0[$c]=$(ctr_val "$c"); done; }
ctr_delta() {
	local c d line=
	: > "$CTRDIR/$1"
	for c in $CTRS; do
		d=$(($(ctr_val "$c") - CTR0[$c]))
		echo "$c $d" >> "$CTRDIR/$1"
		line+=" $c +$d"
	done
	echo "counters:$line"
}
got() { awk -v c="$2" '$1 == c { print $2; f = 1 } END { if (!f) print -1 }' "$CTRDIR/$1" 2>/dev/null || echo -1; }

# fault_values CLASS[,CLASS...]: the BTH opcodes of the classes, as the
# elements of an nft set
fault_values() {
	local cls out=() IFS=,
	for cls in $1; do
		case "$cls" in
		rdresp) out+=(0x0d-0x10) ;;
		rdonly) out+=(0x10) ;;
		ack) out+=(0x11) ;;
		rdreq) out+=(0x0c) ;;
		write) out+=(0x06 0x07 0x08) ;;
		writeimm) out+=(0x09 0x0b) ;;
		send) out+=(0x00 0x01 0x02) ;;
		atomicack) out+=(0x12) ;;
		atomic) out+=(0x13 0x14) ;;
		*) return 1 ;;
		esac
	done
	IFS=' '
	local joined=${out[*]}
	echo "${joined// /, }"
}

fault_ns() { if [ "$1" = peer ]; then ip netns exec srpeer "${@:2}"; else "${@:2}"; fi; }

# (one nft run per namespace and change: under TCG every process costs)
fault_rule() {
	fault_ns "$1" nft -f - <<-EOF
	table inet $FAULT_TABLE
	delete table inet $FAULT_TABLE
	table inet $FAULT_TABLE {
		chain input {
			type filter hook input priority 0; policy accept;
			udp dport 4791 $2 counter drop
		}
	}
	EOF
}

fault_drop() {
	local cls=$1 rate=$2 match ns nss
	shift 2
	match=$(fault_values "$cls") || { echo "unknown packet class in $cls"; return 1; }
	nss=("$@")
	[ ${#nss[@]} -gt 0 ] || nss=(init peer)
	for ns in "${nss[@]}"; do
		fault_rule "$ns" "@th,64,8 { $match } numgen random mod 100 < $rate" || return 1
	done
}

fault_dropped() {
	local n=0 c ns
	for ns in init peer; do
		[ "$ns" = init ] || [ -e /run/netns/srpeer ] || continue
		for c in $(fault_ns "$ns" nft list table inet "$FAULT_TABLE" 2>/dev/null |
			   sed -n 's/.*counter packets \([0-9]*\).*/\1/p'); do
			n=$((n + c))
		done
	done
	echo "$n"
}

fault_clear() {
	nft delete table inet "$FAULT_TABLE" 2>/dev/null
	[ ! -e /run/netns/srpeer ] || ip netns exec srpeer nft delete table inet "$FAULT_TABLE" 2>/dev/null
	return 0
}

snap() {
	local d
	for d in "$@"; do
		echo "$d $(port_counter "$d" retransmits) $(port_counter "$d" seq_naks_sent)" \
		     "$(port_counter "$d" local_ack_timeouts)"
	done
}

# ("-" where a device has no such counter: rdma_rxe names its own otherwise)
deltas() {
	local d r0 n0 t0 r n t
	while read -r d r0 n0 t0; do
		r=$(port_counter "$d" retransmits) n=$(port_counter "$d" seq_naks_sent)
		t=$(port_counter "$d" local_ack_timeouts)
		[ "$r" = - ] || [ "$r0" = - ] || r=+$((r - r0))
		[ "$n" = - ] || [ "$n0" = - ] || n=+$((n - n0))
		[ "$t" = - ] || [ "$t0" = - ] || t=+$((t - t0))
		echo "$d retransmits $r seq_naks_sent $n timeouts $t"
	done <<< "$1"
}

ktap_case() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || ktap_diag "$out"
	case $rc in
	0)	# a run accepted with its retry budget run out: counted
		grep '^retry budget ran out' <<< "$out" | sed "s|^|$name: |" >> "$FAULT_ACCEPTED"
		ktap_ok "$name" ;;
	4) ktap_skip "$name" "vacuous: $(grep -v -e '^ *$' -e 'retransmits' <<< "$out" | tail -n 1)" ;;
	*) ktap_fail "$name" "$name: $(grep -v -e '^ *$' -e 'retransmits' <<< "$out" | tail -n 1)" ;;
	esac
}

verify_run() {
	local allow=$1 sns=$2 sdev=$3 cdev=$4 sip=$5 s c src crc slog clog run=() failed where
	shift 5
	[ "$sns" = peer ] && run=(ip netns exec srpeer)
	slog=$(mktemp /tmp/vs.XXXXXX) clog=$(mktemp /tmp/vc.XXXXXX)
	bg_start s "$VERIFY_SECS" "$slog" "${run[@]}" "$VERIFY" -d "$sdev" -g 1
	run=()
	[ "$sns" = init ] && run=(ip netns exec srpeer)
	bg_start c "$VERIFY_SECS" "$clog" "${run[@]}" "$VERIFY" -d "$cdev" -g 1 "$@" "$sip"
	bg_wait "$c" "sroce-verify client" "$clog" "$VERIFY_LAST"
	crc=$?
	# a server whose client is gone may wait for it for ever
	bg_shorten "$s" 10
	bg_wait "$s" "sroce-verify server" "$slog" "$VERIFY_LAST"
	src=$?
	failed=$(grep -h 'FAILED:' "$clog" "$slog")
	# where the first failure was: "  in iteration N (slot S): ..."
	where=$(grep -h -m1 -A1 'FAILED:' "$clog" "$slog" | grep -m1 -oE '^  in iteration [0-9]+ \(slot [0-9]+\)' | sed 's/^ *//')
	tail -n 1 "$clog" | sed 's/^/client: /'
	[ -z "$failed" ] || echo "$failed" | sed 's/^/    /'
	rm -f "$slog" "$clog"
	if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ]; then
		return 0
	fi
	if [ "$crc" -eq 125 ] || [ "$src" -eq 125 ]; then
		echo "a sroce-verify process is stuck in the kernel (see its stack above)"
		return 1
	fi
	if [ "$crc" -eq 124 ] || [ "$src" -eq 124 ]; then
		echo "hang: sroce-verify killed after ${VERIFY_SECS} s (client $crc, server $src)"
		return 1
	fi
	# the retry budget ran out: only where the case allows it, only
	# IBV_WC_RETRY_EXC_ERR on a send queue (every FAILED line), and in a
	# named iteration past the first batch: every batch before its own
	# was verified by both sides
	if [ "$allow" = retry ] && [ -n "$failed" ] &&
	   ! grep -qvE 'FAILED: (client|server): send queue: bad completion \{status IBV_WC_RETRY_EXC_ERR [^}]*\}: status IBV_WC_RETRY_EXC_ERR$' <<< "$failed"; then
		if [[ $where =~ iteration\ ([0-9]+)\ \(slot\ ([0-9]+)\) ]] &&
		   [ $((BASH_REMATCH[1] - BASH_REMATCH[2])) -gt 0 ]; then
			echo "retry budget ran out: IBV_WC_RETRY_EXC_ERR in iteration ${BASH_REMATCH[1]}," \
			     "the $((BASH_REMATCH[1] - BASH_REMATCH[2])) transfers before its batch verified"
			return 0
		fi
		echo "IBV_WC_RETRY_EXC_ERR ${where:-(no iteration named)}, but no transfer verified before it: not accepted"
		return 1
	fi
	echo "sroce-verify failed (client $crc, server $src)${failed:+: ${failed%%$'\n'*}}"
	return 1
}

fault_accepted_report() {
	local n
	n=$(grep -c . "$FAULT_ACCEPTED" 2>/dev/null)
	echo "${n:-0} run(s) accepted with the retry budget run out"
	[ "${n:-0}" -eq 0 ] || sed 's/^/  /' "$FAULT_ACCEPTED"
}
