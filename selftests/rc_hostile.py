# SPDX-License-Identifier: GPL-2.0
"""A scripted hostile RC peer against a sroce QP (used by 99-hostile.sh,
99-hostile-limits.sh and 93-adaptive-routing.sh):

    python3 rc_hostile.py VICTIM_DEV PEER_DEV IFACE CASE...

Run it in the namespace of PEER_DEV's netdev IFACE: every victim QP is
connected to IFACE's address (to a real QP on PEER_DEV, or to a QP number
nobody has), and hand-made RoCEv2 packets (rc_wire.py: valid ICRC, scapy
for the IP/UDP layers) are sent from that address with a raw socket, so the
victim takes them for its peer's; a scapy sniffer on IFACE sees what the
victim sends back. pyverbs drives the victim (rc_verbs.py).

Each case runs in a child process, so that a verb stuck in the kernel
cannot stop the others: the child reports every step, the parent gives it
CASE_SECS, kills it, and reports the step it hung in with its kernel stack.
Every victim verb must return while what it could wait for is still
pending (the peer never finishes its WRITE; checked on the victim QP's
transport state after the verb), and at all within VERB_SECS, a hang
bound scaled like the others (its time is printed, never judged: a
bound in seconds would be one on the host's speed). After each case a fresh QP
pair must still carry SEND, WRITE and READ both ways between the two
devices, and the kernel log must be clean. Output, per case:

    # diagnostics
    ok|not ok CASE[:health|:dmesg] [# reason]

(99-hostile.sh turns these into KTAP.)
"""
import contextlib
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import pyverbs.enums as e  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.sendrecv import AsyncSniffer  # noqa: E402

from pyverbs.mr import MR, MW, MWBindInfo  # noqa: E402
from pyverbs.wr import SendWR  # noqa: E402
from rc_verbs import (GID_INDEX, Fail, Rc, counter, counters, drops, expect_wc,  # noqa: E402
                      pattern, traffic)
from rc_wire import (ACK, MTU, RD_FIRST, RD_LAST, RD_ONLY, READ_REQ, ROCE_PORT,  # noqa: E402
                     SEND_ONLY, SYN_ACK, SYN_NAK_ACCESS, SYN_NAK_SEQ, WRITE_FIRST, WRITE_LAST,
                     WRITE_MIDDLE, WRITE_ONLY, Wire, aeth, bth, reth, roce_opcodes, sniffer)

# selftests/run --timeout-scale (a debug kernel): the bounds on transfers
# and hangs grow with it; KILL_SECS (SIGKILL's own promptness) does not
SCALE = max(1, int(os.environ.get('SROCE_TIMEOUT_SCALE', '1') or 1))
FAKE_QPN = 0xabcde      # no QP has it: the victim's packets are dropped
VERB_SECS = 30 * SCALE  # a victim verb still running after this is stuck
CASE_SECS = 40 * SCALE  # a case child is killed after this
KILL_SECS = 10          # a killed process must be gone within this

BAD_DMESG = re.compile(r'Kernel panic|Oops|kernel BUG at|BUG:|WARNING:|-+\[ cut here \]-+|KASAN|'
                       r'UBSAN|general protection fault|INFO: task .* blocked for more than|'
                       r'rcu: INFO: .*detected stall')


def qp_state(dev, qpn):
    """QP QPN of DEV as `rdma -j -dd resource show qp` has it, iproute2's
    drv_ prefix of sroce's attributes dropped ({} when not listed)."""
    out = subprocess.run(['rdma', '-j', '-dd', 'resource', 'show', 'qp', 'link', dev + '/1',
                          'lqpn', str(qpn)], capture_output=True, text=True, timeout=10,
                         check=False).stdout
    try:
        objs = json.loads(out or '[]')
    except ValueError:
        return {}
    for o in objs:
        if o.get('lqpn') == qpn:
            return {k[4:] if k.startswith('drv_') else k: v for k, v in o.items()}
    return {}


# ---- one case: a child process reporting on a pipe ------------------------

class Devs:
    """Both devices opened by this process: contexts, PDs, GIDs."""

    def __init__(self, args):
        self.vctx = Context(name=args.victim)
        self.pctx = Context(name=args.peer)
        self.vpd, self.ppd = PD(self.vctx), PD(self.pctx)
        self.peer_gid = self.pctx.query_gid(1, GID_INDEX)
        self.victim_gid = self.vctx.query_gid(1, GID_INDEX)


class Env:
    """What a case child has: the devices (opened on first use, so that a
    case can fork processes with verbs contexts of their own first), the
    wire, reporting."""

    def __init__(self, args, fd):
        self.args, self.fd = args, fd
        self.wire = Wire(args.src, args.dst)
        self._devs = None

    def __getattr__(self, name):
        if name in ('vctx', 'pctx', 'vpd', 'ppd', 'peer_gid', 'victim_gid'):
            if self._devs is None:
                self._devs = Devs(self.args)
            return getattr(self._devs, name)
        raise AttributeError(name)

    def say(self, msg):
        os.write(self.fd, ('# %s\n' % msg).encode())

    def step(self, msg):
        os.write(self.fd, ('STEP %s\n' % msg).encode())

    def timed(self, what, fn):
        """Run a victim verb; the parent gives it VERB_SECS to return (a
        hang), its time is printed, not judged."""
        os.write(self.fd, ('VERB %s\n' % what).encode())
        t = time.monotonic()
        r = fn()
        self.say('%s returned in %.2f s' % (what, time.monotonic() - t))
        return r

    def still(self, what, qpn, **want):
        """After a victim verb returned: the victim QP QPN's transport state
        (rdma resource show qp -dd, sroce's attributes) still shows what
        the verb could have waited for as pending, e.g. the responder still
        expecting the rest of a WRITE: it did not wait for that to end."""
        got = qp_state(self.args.victim, qpn)
        seen = {k: got.get(k) for k in want}
        self.say('%s: %s' % (what, ' '.join('%s %s' % kv for kv in sorted(seen.items()))))
        if seen != want:
            raise Fail('%s: %s, expected %s' % (what, seen, want))

    def victim(self, **kw):
        return Rc(self.vctx, self.vpd, **kw)

    def pair(self, vpsn=0x1000, ppsn=0x2000, **kw):
        """A victim QP and a real peer QP on PEER_DEV, connected."""
        v, p = Rc(self.vctx, self.vpd, **kw), Rc(self.pctx, self.ppd, **kw)
        v.connect(self.peer_gid, p.qpn, rq_psn=ppsn, sq_psn=vpsn)
        p.connect(self.victim_gid, v.qpn, rq_psn=vpsn, sq_psn=ppsn)
        return v, p


# ---- the cases -----------------------------------------------------------

def case_write_first_dereg(env):
    """WRITE FIRST without its LAST: the responder holds the MR; dereg_mr
    must return with the WRITE still half received (the responder's
    expected PSN unchanged, the QP in RTS: it waited for nothing that
    would end the WRITE), and destroy_qp must return."""
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    payload = pattern(7, MTU)
    env.wire.send(bth(WRITE_FIRST, v.qpn, 100, ackreq=True) + reth(v.mr.buf, v.mr.rkey, 4 * MTU) +
                  payload)
    end = time.monotonic() + 3
    while v.mr.read(MTU, 0) != payload:
        if time.monotonic() > end:
            raise Fail('the WRITE FIRST was not placed within 3 s')
        time.sleep(0.01)
    env.say('WRITE FIRST placed: the responder is in the middle of a WRITE')
    env.still('before ibv_dereg_mr', v.qpn, qp_state='RTS', expected_psn=101)
    env.timed('ibv_dereg_mr with a WRITE half received', v.mr.close)
    # returned with the WRITE still half received: nothing ended it first
    env.still('after ibv_dereg_mr', v.qpn, qp_state='RTS', expected_psn=101)
    # the rest of the WRITE arrives after the MR is gone: refused, never placed
    env.wire.send(bth(WRITE_MIDDLE, v.qpn, 101) + pattern(8, MTU),
                  bth(WRITE_LAST, v.qpn, 102, ackreq=True) + pattern(9, 2 * MTU)[:MTU])
    time.sleep(0.3)
    env.say('QP state after the rest of the WRITE hit the deregistered MR: %d' % v.state())
    env.timed('ibv_destroy_qp', v.qp.close)


def case_read_err_dereg(env):
    """READ requests queue responses, the QP goes to ERR, dereg_mr and
    destroy_qp must return (each within VERB_SECS: a hang)."""
    v = env.victim(size=1 << 20)
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    snif = sniffer(env.args.iface)
    reqs = [bth(READ_REQ, v.qpn, 100 + 64 * i, ackreq=True) +
            reth(v.mr.buf + i * 65536, v.mr.rkey, 65536) for i in range(16)]
    env.wire.send(*reqs)
    env.timed('modify QP to ERR with READ responses queued', lambda: v.set_state(e.IBV_QPS_ERR))
    env.timed('ibv_dereg_mr of the READ source', v.mr.close)
    env.timed('ibv_destroy_qp', v.qp.close)
    time.sleep(0.3)
    ops = roce_opcodes(snif.stop(), env.args.dst)
    env.say('the victim sent %d of 1024 READ responses' %
            sum(1 for o in ops if RD_FIRST <= o <= RD_ONLY))


def case_spoofed_responses(env):
    """ACKs, NAKs and READ responses for PSNs the victim never sent are
    ignored; a real READ in flight meanwhile completes byte-exact."""
    v, p = env.pair(vpsn=0x1000, ppsn=0x2000)
    # the victim sends PSNs 0x1000.. (the READ below takes 1024 of them):
    # these it never sends while the spoofs come
    never = 0x1000 + 0x800
    junk = pattern(3, MTU)
    spoof = []
    for k in range(32):
        psn = never + k
        spoof += [bth(ACK, v.qpn, psn) + aeth(SYN_ACK, k),
                  bth(RD_ONLY, v.qpn, psn) + aeth(SYN_ACK, k) + junk,
                  bth(RD_FIRST, v.qpn, psn) + aeth(SYN_ACK, k) + junk,
                  bth(RD_LAST, v.qpn, psn) + aeth(SYN_ACK, k) + junk[:64]]
    spoof += [bth(ACK, v.qpn, never) + aeth(SYN_NAK_ACCESS),
              bth(ACK, v.qpn, never + 1) + aeth(SYN_NAK_SEQ)]
    packets = [env.wire.build(t) for t in spoof]
    env.wire.send_raw(packets)
    if v.poll(1, 0.5):
        raise Fail('a completion appeared on an idle QP after spoofed responses')
    if v.state() != e.IBV_QPS_RTS:
        raise Fail('spoofed responses for PSNs never sent moved the QP to state %d' % v.state())
    # a real 1 MiB READ (PSNs 0x1000..0x13ff) while spoofs for later PSNs keep coming
    size = 1 << 20
    data = pattern(4, size)
    p.mr.write(data, size, 0)
    v.mr.write(bytes(size), size, 0)
    stop = threading.Event()
    sent = [0]

    def storm():
        while not stop.is_set():
            env.wire.send_raw(packets)
            sent[0] += len(packets)

    t = threading.Thread(target=storm)
    t.start()
    try:
        while sent[0] < 2 * len(packets):     # the storm is on before the READ
            time.sleep(0.01)
        v.send(e.IBV_WR_RDMA_READ, size, 0, p.mr.buf, p.mr.rkey)
        expect_wc(v, 'READ during the spoof storm', secs=20)
    finally:
        stop.set()
        t.join()
    env.say('%d spoofed packets sent around the READ' % sent[0])
    if v.mr.read(size, 0) != data:
        raise Fail('the READ completed, but with wrong data (spoofed payload placed?)')
    traffic(v, p, 'victim -> peer after the spoofs')
    traffic(p, v, 'peer -> victim after the spoofs')


def real_send_arrives(v, p, seed, what):
    """The RECV of 4 KiB the victim V posted at MR offset 4096 before WHAT
    packets is still there: the peer P's real SEND lands in it, byte-exact."""
    data = pattern(seed, 4096)
    p.mr.write(data, 4096, 0)
    p.send(e.IBV_WR_SEND, 4096, 0)
    expect_wc(p, 'peer SEND after the %s packets' % what)
    wc = expect_wc(v, 'victim RECV after the %s packets' % what)
    if wc.byte_len != 4096 or v.mr.read(4096, 4096) != data:
        raise Fail('the real SEND after the %s packets arrived wrong' % what)


def case_out_of_window(env):
    """Requests whose PSN is far ahead of or behind the expected one are
    never executed; the QP goes on in both directions."""
    v, p = env.pair(vpsn=0x1000, ppsn=0x2000)
    epsn = 0x2000
    v.mr.write(pattern(5, 8192), 8192, 0)
    v.recv(4096, 4096)
    hostile = b'\xee' * 64
    for psn in (epsn + (1 << 22), epsn + (1 << 23) - 1, epsn - (1 << 22), epsn - 5):
        env.wire.send(bth(WRITE_ONLY, v.qpn, psn, ackreq=True) + reth(v.mr.buf, v.mr.rkey, 64) +
                      hostile,
                      bth(SEND_ONLY, v.qpn, psn, ackreq=True) + hostile,
                      bth(READ_REQ, v.qpn, psn, ackreq=True) + reth(v.mr.buf, v.mr.rkey, 4096))
    time.sleep(0.5)
    if v.mr.read(8192, 0)[:4096] != pattern(5, 8192)[:4096]:
        raise Fail('a WRITE with an out-of-window PSN was executed')
    if v.poll(1, 0.2):
        raise Fail('a SEND with an out-of-window PSN was received')
    real_send_arrives(v, p, 6, 'hostile')
    traffic(v, p, 'victim -> peer', seed=11)
    traffic(p, v, 'peer -> victim', seed=21)


def case_dup_ack_storm(env):
    """A storm of duplicate ACKs while a 4 MiB WRITE (more than the window
    of 1024 packets) is in flight: the WRITE completes once, byte-exact."""
    size = 4 << 20
    v, p = env.pair(vpsn=0x1000, ppsn=0x2000, size=size)
    traffic(v, p, 'before the storm')     # PSNs 0x1000..0x102f, acknowledged
    data = pattern(12, size)
    v.mr.write(data, size, 0)
    # copies of ACKs the victim has had already (for 0x102f and before),
    # never one for a PSN of the WRITE in flight (that would be a forgery)
    old = [env.wire.build(bth(ACK, v.qpn, 0x102f - (k % 4) - 0x30 * (k % 2)) +
                          aeth(SYN_ACK, k % 3)) for k in range(64)]
    stop = threading.Event()
    sent = [0]

    def storm():
        while not stop.is_set():
            env.wire.send_raw(old)
            sent[0] += len(old)

    t = threading.Thread(target=storm)
    t.start()
    try:
        while sent[0] < 256:          # the storm is on before the WRITE starts
            time.sleep(0.01)
        v.send(e.IBV_WR_RDMA_WRITE, size, 0, p.mr.buf, p.mr.rkey)
        expect_wc(v, '4 MiB WRITE during the duplicate ACK storm', secs=30 * SCALE)
    finally:
        stop.set()
        t.join()
    env.say('%d duplicate ACKs sent' % sent[0])
    if p.mr.read(size, 0) != data:
        raise Fail('the WRITE completed, but the peer holds wrong data')
    if v.poll(1, 0.2):
        raise Fail('an extra completion after the storm')
    traffic(v, p, 'after the storm', seed=31)


def case_nak_storm(env):
    """A NAK loop: each time the victim (re)sends the first packet of its
    SEND, a PSN sequence NAK for it comes back. The requester must give up
    with IBV_WC_RETRY_EXC_ERR within its retry budget, not loop for ever."""
    retry, first = 3, 500
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=first, timeout=14, retry=retry)
    nak = env.wire.build(bth(ACK, v.qpn, first) + aeth(SYN_NAK_SEQ, 0))
    naks = [0]

    def first_packet(p):
        if IP not in p or p[IP].src != env.args.dst:
            return False
        b = bytes(p[UDP].payload)
        return len(b) >= 12 and b[0] <= 0x05 and \
            struct.unpack('!I', b[8:12])[0] & 0xffffff == first

    def answer(_):
        env.wire.send_raw([nak])
        naks[0] += 1

    snif = AsyncSniffer(iface=env.args.iface, store=False, prn=answer,
                        lfilter=lambda p: UDP in p and p[UDP].dport == ROCE_PORT and
                        first_packet(p))
    snif.start()
    time.sleep(0.3)
    before = counter(env.args.victim, 'retransmits')
    t0 = time.monotonic()
    try:
        v.send(e.IBV_WR_SEND, 4096, 0)
        wcs = v.poll(1, 15)
    finally:
        snif.stop()
    env.say('%d sequence NAKs in %.1f s, retransmits +%d' %
            (naks[0], time.monotonic() - t0, counter(env.args.victim, 'retransmits') - before))
    if not wcs:
        raise Fail('no completion within 15 s of a NAK loop (%d NAKs): retry_cnt %d never ran out'
                   % (naks[0], retry))
    if wcs[0].status != e.IBV_WC_RETRY_EXC_ERR:
        raise Fail('completion status %d after %d NAKs, expected IBV_WC_RETRY_EXC_ERR (%d)' %
                   (wcs[0].status, naks[0], e.IBV_WC_RETRY_EXC_ERR))


def case_forged_no_icrc(env):
    """A SEND marked as sent without ICRC (Resv8a bit 0x02 of the BTH, the
    mark of sroce's opt-in ICRC skip) to a QP that did not opt in, its ICRC
    wrong: the victim checks the ICRC all the same, drops the packet and
    counts it; it is never received, and the QP goes on. (The devices of
    99-hostile.sh keep icrc_skip at its default, off.)"""
    v, p = env.pair(vpsn=0x1000, ppsn=0x2000)
    v.recv(4096, 4096)
    before = counter(env.args.victim, 'rx_drop_icrc')
    hdr = bytearray(bth(SEND_ONLY, v.qpn, 0x2000, ackreq=True))
    hdr[4] = 0x02               # Resv8a: "sent without ICRC"
    forged = bytearray(env.wire.build(bytes(hdr) + b'\xee' * 256))
    forged[-4:] = bytes(4)      # what a skipping sender leaves there
    env.wire.send_raw([bytes(forged)] * 4)
    time.sleep(0.5)
    if v.poll(1, 0.2):
        raise Fail('a SEND marked "no ICRC" with a wrong ICRC was received by a QP '
                   'that did not opt in')
    dropped = counter(env.args.victim, 'rx_drop_icrc') - before
    env.say('rx_drop_icrc +%d for 4 forged packets' % dropped)
    if dropped < 4:
        raise Fail('4 forged "no ICRC" packets, rx_drop_icrc only +%d' % dropped)
    real_send_arrives(v, p, 7, 'forged')


def sack_block(kind=1, words=5, lo=0, hi=0):
    """A selective repeat SACK block (kernel/proto/sroce_sr.h)."""
    return struct.pack('!BBHQQ', kind, words, 0, hi, lo)


def case_forged_sack(env):
    """Forged PSN sequence NAKs carrying a SACK block (Resv8a 0x08, the
    sroce-only selective repeat extension), claiming selective repeat
    (Resv8a 0x04) for a QP that never negotiated it, well-formed and
    malformed (wrong kind, a bit past the 128-PSN window, a block of the
    wrong length): every one is dropped and counted (sr_sack_rx_drops, or
    rx_drop_hdr for the length), none makes the victim resend anything,
    and the QP goes on. (The victim's device does not allow selective
    repeat while the pair is set up, so its QP never negotiates it.)"""
    with sr_allowed(env, '0'):
        v, p = env.pair(vpsn=0x1000, ppsn=0x2000)
    traffic(v, p, 'before the forged SACKs', seed=71)
    v.recv(4096, 4096)
    sacks, bad_hdr = 0, 0
    before = counter(env.args.victim, 'sr_sack_rx_drops')
    hdr_before = counter(env.args.victim, 'rx_drop_hdr')
    retx = counter(env.args.victim, 'retransmits')
    pkts = []
    for psn in (0x1000, 0x1001, 0x1010, 0x7fffff):
        for block in (sack_block(lo=0x5), sack_block(kind=2, lo=1), sack_block(hi=1 << 63),
                      sack_block(lo=0)):
            h = bytearray(bth(ACK, v.qpn, psn))
            h[4] = 0x0c         # Resv8a: SACK follows, "selective repeat"
            pkts.append(env.wire.build(bytes(h) + aeth(SYN_NAK_SEQ, 0) + block))
            sacks += 1
        h = bytearray(bth(ACK, v.qpn, psn))
        h[4] = 0x0c
        pkts.append(env.wire.build(bytes(h) + aeth(SYN_NAK_SEQ, 0) + sack_block()[:12]))
        bad_hdr += 1
    env.wire.send_raw(pkts)
    time.sleep(0.5)
    dropped = counter(env.args.victim, 'sr_sack_rx_drops') - before
    hdr = counter(env.args.victim, 'rx_drop_hdr') - hdr_before
    resent = counter(env.args.victim, 'retransmits') - retx
    env.say('sr_sack_rx_drops +%d of %d forged SACK NAKs, rx_drop_hdr +%d of %d short blocks, '
            'retransmits +%d' % (dropped, sacks, hdr, bad_hdr, resent))
    if dropped != sacks:
        raise Fail('%d forged SACK NAKs, sr_sack_rx_drops +%d' % (sacks, dropped))
    if hdr < bad_hdr:
        raise Fail('%d SACK NAKs with a short block, rx_drop_hdr only +%d' % (bad_hdr, hdr))
    if resent:
        raise Fail('forged SACK NAKs made the victim resend (retransmits +%d)' % resent)
    if v.poll(1, 0.2):
        raise Fail('a completion out of nothing after the forged SACKs')
    real_send_arrives(v, p, 8, 'forged SACK')
    traffic(p, v, 'peer -> victim after the forged SACKs', seed=81)


def sr_sysfs(dev, value=None):
    """Set DEV's selective_repeat to VALUE, or read it (the case runs in the
    peer namespace, whose sysfs may not show the attribute: then through
    init's mounts)."""
    path = '/sys/class/infiniband/%s/selective_repeat' % dev
    try:
        if value is None:
            with open(path) as f:
                return f.read().strip()
        with open(path, 'w') as f:
            f.write(value)
        return value
    except OSError:
        cmd = 'cat %s' % path if value is None else 'echo %s > %s' % (value, path)
        return subprocess.run(['nsenter', '-t', '1', '-m', '-n', 'sh', '-c', cmd], check=True,
                              timeout=5, capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def sr_allowed(env, value):
    """The victim device's selective_repeat at VALUE while the QPs made in
    the block reach RTR (they sample it there), then back to what it was."""
    old = sr_sysfs(env.args.victim)
    sr_sysfs(env.args.victim, value)
    try:
        yield
    finally:
        sr_sysfs(env.args.victim, old)


def case_sr_place(env):
    """Selective repeat's direct placement, from a peer that claims it
    (Resv8a 0x04) to a victim that opted in: after a WRITE FIRST (RETH:
    4 MTUs), PSN +1 is left out; the MIDDLE after it must be in the MR at
    once (placed at arrival, sr_placed_pkts +1), the LAST must not be (it
    is held, so that a WRITE's last bytes land after all before them), and
    a MIDDLE one PSN past the WRITE's end (a packet of a later message)
    must not be placed: the bytes after the WRITE's range stay untouched.
    When the gap is filled the WRITE is done byte-exact, and the stray
    MIDDLE is then executed in order, out of sequence: the victim NAKs it
    (invalid request) and its QP goes to the error state."""
    with sr_allowed(env, '1'):
        v = env.victim()
        v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    v.mr.write(bytes(8 * MTU), 8 * MTU, 0)
    data = pattern(91, 4 * MTU)
    stray = b'\xee' * MTU

    def pkt(op, psn, body):
        h = bytearray(bth(op, v.qpn, psn))
        h[4] = 0x04         # Resv8a: the sender does selective repeat
        return bytes(h) + body

    placed0 = counter(env.args.victim, 'sr_placed_pkts')
    snif = sniffer(env.args.iface)
    env.wire.send(pkt(WRITE_FIRST, 100, reth(v.mr.buf, v.mr.rkey, 4 * MTU) + data[:MTU]),
                  pkt(WRITE_MIDDLE, 102, data[2 * MTU:3 * MTU]),
                  pkt(WRITE_LAST, 103, data[3 * MTU:]),
                  pkt(WRITE_MIDDLE, 104, stray))
    time.sleep(0.3)
    got = v.mr.read(8 * MTU, 0)
    placed = counter(env.args.victim, 'sr_placed_pkts') - placed0
    env.say('before the gap is filled: sr_placed_pkts +%d, MTU 2 %s, MTU 3 (LAST) %s, MTU 1 %s' %
            (placed, 'placed' if got[2 * MTU:3 * MTU] == data[2 * MTU:3 * MTU] else 'NOT placed',
             'empty' if got[3 * MTU:4 * MTU] == bytes(MTU) else 'written',
             'empty' if got[MTU:2 * MTU] == bytes(MTU) else 'written'))
    if got[2 * MTU:3 * MTU] != data[2 * MTU:3 * MTU] or placed != 1:
        snif.stop()
        raise Fail('the MIDDLE after the gap was not placed at arrival '
                   '(sr_placed_pkts +%d)' % placed)
    if got[3 * MTU:4 * MTU] != bytes(MTU):
        snif.stop()
        raise Fail('the WRITE\'s LAST was written before the bytes before it')
    if got[MTU:2 * MTU] != bytes(MTU) or got[4 * MTU:] != bytes(4 * MTU):
        snif.stop()
        raise Fail('bytes outside the packets placed were written before the gap was filled')
    env.wire.send(pkt(WRITE_MIDDLE, 101, data[MTU:2 * MTU]))
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    got = v.mr.read(8 * MTU, 0)
    if got[:4 * MTU] != data:
        raise Fail('the WRITE is not byte-exact once the gap is filled')
    if got[4 * MTU:] != bytes(4 * MTU):
        raise Fail('the MIDDLE past the WRITE\'s end was placed after it')
    inval = [a for a in ans if a[0] == ACK and a[2] == SYN_NAK_INV]
    env.say('the victim answered %s' % ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans))
    if len(inval) != 1 or inval[0][1] != 104:
        raise Fail('the stray MIDDLE (PSN 104) was not NAKed as an invalid request')
    if counter(env.args.victim, 'sr_placed_pkts') - placed0 != 1:
        raise Fail('sr_placed_pkts moved after the gap was filled')



# ---- adaptive routing: early WRITE ONLYs with their own RETH -------------

AR_BIT = 0x10           # BTH Resv8a: adaptive routing (kernel/proto/sroce_sr.h)
SR_ADV = 0x04           # BTH Resv8a: the sender does selective repeat
SEND_ONLY_INV = 0x17    # SEND ONLY with Invalidate (IETH)


def ar_victim(env, **kw):
    """A victim QP that does selective repeat with the forging peer."""
    with sr_allowed(env, '1'):
        v = env.victim(**kw)
        v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    return v


def ar_pkt(op, qpn, psn, body, ar=True):
    """A request from a selective repeat peer; AR sets the AR bit."""
    h = bytearray(bth(op, qpn, psn, ackreq=True))
    h[4] = SR_ADV | (AR_BIT if ar else 0)
    return bytes(h) + body


def ar_write(qpn, psn, va, rkey, data, ar=True):
    return ar_pkt(WRITE_ONLY, qpn, psn, reth(va, rkey, len(data)) + data, ar)


def ar_counts(env):
    c = counters(env.args.victim)
    return c.get('sr_placed_pkts', -1), c.get('sr_held_pkts', -1)


def case_ar_place(env):
    """Adaptive routing placement: PSN 100 is left out; AR WRITE ONLYs at
    101-103 (each its own RETH) must be in the MR at once (sr_placed_pkts
    +3), a WRITE ONLY without the AR bit at 104 held, not placed (its
    requester did not ask for out-of-order placement: sr_held_pkts +1).
    Once 100 arrives everything is executed in order and ACKed, the MR
    byte-exact."""
    v = ar_victim(env)
    v.mr.write(bytes(8 * MTU), 8 * MTU, 0)
    data = pattern(93, 5 * MTU)
    p0, h0 = ar_counts(env)
    snif = sniffer(env.args.iface)
    env.wire.send(*[ar_write(v.qpn, 100 + k, v.mr.buf + k * MTU, v.mr.rkey,
                             data[k * MTU:(k + 1) * MTU]) for k in (1, 2, 3)])
    env.wire.send(ar_write(v.qpn, 104, v.mr.buf + 4 * MTU, v.mr.rkey, data[4 * MTU:], ar=False))
    time.sleep(0.3)
    got = v.mr.read(8 * MTU, 0)
    p1, h1 = ar_counts(env)
    env.say('before the gap is filled: sr_placed_pkts +%d, sr_held_pkts +%d' % (p1 - p0, h1 - h0))
    if got[MTU:4 * MTU] != data[MTU:4 * MTU] or p1 - p0 != 3:
        snif.stop()
        raise Fail('the AR WRITE ONLYs after the gap were not placed at arrival')
    if got[4 * MTU:5 * MTU] != bytes(MTU) or h1 - h0 != 1:
        snif.stop()
        raise Fail('the WRITE ONLY without the AR bit was placed (or not held)')
    if got[:MTU] != bytes(MTU):
        snif.stop()
        raise Fail('bytes of the missing PSN were written')
    env.wire.send(ar_write(v.qpn, 100, v.mr.buf, v.mr.rkey, data[:MTU]))
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    got = v.mr.read(8 * MTU, 0)
    env.say('the victim answered %s' % ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans))
    if got[:5 * MTU] != data or got[5 * MTU:] != bytes(3 * MTU):
        raise Fail('not byte-exact once the gap is filled')
    if not any(a[0] == ACK and a[2] & 0xe0 == 0 and a[1] == 104 for a in ans):
        raise Fail('no ACK of PSN 104 once the gap was filled')
    if ar_counts(env)[0] != p1:
        raise Fail('sr_placed_pkts moved after the gap was filled')


def case_ar_bounds(env):
    """An early AR WRITE ONLY whose RETH runs past the MR's end: not placed
    (nothing written), held; when the gap is filled the in-order pass NAKs
    it with a remote access error at its PSN and the QP goes to the error
    state (IBTA 9.7.5.2.4), what came before it executed."""
    v = ar_victim(env, size=4 * MTU)
    v.mr.write(bytes(4 * MTU), 4 * MTU, 0)
    good, bad = pattern(94, MTU), b'\xee' * MTU
    p0, h0 = ar_counts(env)
    snif = sniffer(env.args.iface)
    env.wire.send(ar_write(v.qpn, 101, v.mr.buf + 4 * MTU - MTU // 2, v.mr.rkey, bad))
    time.sleep(0.3)
    p1, h1 = ar_counts(env)
    env.say('RETH past the end: sr_placed_pkts +%d, sr_held_pkts +%d' % (p1 - p0, h1 - h0))
    if p1 != p0 or h1 - h0 != 1 or v.mr.read(4 * MTU, 0) != bytes(4 * MTU):
        snif.stop()
        raise Fail('a WRITE ONLY past the MR end was placed (or not held)')
    env.wire.send(ar_write(v.qpn, 100, v.mr.buf, v.mr.rkey, good))
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    env.say('the victim answered %s' % ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans))
    got = v.mr.read(4 * MTU, 0)
    if got[:MTU] != good or got[MTU:] != bytes(3 * MTU):
        raise Fail('PSN 100 not executed, or bytes of the bad WRITE landed')
    if not any(a[0] == ACK and a[2] == SYN_NAK_ACCESS and a[1] == 101 for a in ans):
        raise Fail('no remote access NAK at PSN 101')
    if v.state() != e.IBV_QPS_ERR:
        raise Fail('the QP is not in the error state (state %d)' % v.state())


def bound_window(env, v):
    """A type 2 window over a zeroed 8-MTU MR, bound with REMOTE_WRITE on
    victim QP V: (the MW, kept alive by the caller; the MR; its rkey)."""
    mw = MW(env.vpd, e.IBV_MW_TYPE_2)
    bmr = MR(env.vpd, 8 * MTU, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND)
    bmr.write(bytes(8 * MTU), 8 * MTU, 0)
    w = SendWR(wr_id=9, opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    w.set_bind_wr(mw, MWBindInfo(bmr, bmr.buf, 8 * MTU, e.IBV_ACCESS_REMOTE_WRITE))
    v.qp.post_send(w)
    wcs = v.poll(1)
    if len(wcs) != 1 or wcs[0].status != e.IBV_WC_SUCCESS:
        raise Fail('binding the window: %s' % [c.status for c in wcs])
    return mw, bmr, w.rkey


def case_ar_inv(env):
    """Invalidation ordering: a SEND with Invalidate (PSN 101) that names a
    type 2 memory window arrives after a gap and is held; an AR WRITE ONLY
    through that window (PSN 102) behind it must be held, not placed (the
    window's state depends on the SEND): nothing lands. When the gap is
    filled, the SEND invalidates the window (its receive completion says
    so) and the WRITE is NAKed with a remote access error at PSN 102."""
    v = ar_victim(env)
    _mw, bmr, rkey = bound_window(env, v)
    v.recv(MTU, 0, wr_id=71)
    v.recv(MTU, MTU, wr_id=72)
    p0, h0 = ar_counts(env)
    snif = sniffer(env.args.iface)
    env.wire.send(ar_pkt(SEND_ONLY_INV, v.qpn, 101, struct.pack('!I', rkey) + bytes(64)),
                  ar_write(v.qpn, 102, bmr.buf, rkey, b'\xee' * MTU))
    time.sleep(0.3)
    p1, h1 = ar_counts(env)
    env.say('behind a held SEND with Invalidate: sr_placed_pkts +%d, sr_held_pkts +%d' %
            (p1 - p0, h1 - h0))
    if p1 != p0 or h1 - h0 != 2 or bmr.read(8 * MTU, 0) != bytes(8 * MTU):
        snif.stop()
        raise Fail('the AR WRITE ONLY behind a held SEND with Invalidate was placed')
    env.wire.send(ar_pkt(SEND_ONLY, v.qpn, 100, bytes(64)))
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    env.say('the victim answered %s' % ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans))
    if bmr.read(8 * MTU, 0) != bytes(8 * MTU):
        raise Fail('bytes landed through the invalidated window')
    wcs = v.poll(2, secs=5)
    inv = [c for c in wcs if c.wr_id == 72]
    if not inv or inv[0].status != e.IBV_WC_SUCCESS or not inv[0].wc_flags & e.IBV_WC_WITH_INV:
        raise Fail('no successful receive completion with invalidate: %s' %
                   [(c.wr_id, c.status, c.wc_flags) for c in wcs])
    if not any(a[0] == ACK and a[2] == SYN_NAK_ACCESS and a[1] == 102 for a in ans):
        raise Fail('no remote access NAK at PSN 102')


def case_mw_inv_write(env):
    """A window invalidated in the middle of a WRITE through it: the forged
    peer sends the FIRST packet of a 4-MTU WRITE through a bound type 2
    window, the victim's LOCAL_INV of the window completes, then the
    MIDDLEs and LAST come. Only the FIRST's bytes may land (the
    invalidation returned before the rest arrived: none may be written
    through the window after it), and the MIDDLE after it is NAKed with a
    remote access error, as through an invalidated FR MR."""
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    _mw, bmr, rkey = bound_window(env, v)
    data = b'\xee' * (4 * MTU)
    snif = sniffer(env.args.iface)
    env.wire.send(bth(WRITE_FIRST, v.qpn, 100) + reth(bmr.buf, rkey, 4 * MTU) + data[:MTU])
    time.sleep(0.3)
    inv = SendWR(wr_id=10, opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
    inv.imm_data = rkey
    v.qp.post_send(inv)
    wcs = v.poll(1)
    if len(wcs) != 1 or wcs[0].status != e.IBV_WC_SUCCESS:
        snif.stop()
        raise Fail('LOCAL_INV of the window: %s' % [c.status for c in wcs])
    env.wire.send(bth(WRITE_MIDDLE, v.qpn, 101) + data[MTU:2 * MTU],
                  bth(WRITE_MIDDLE, v.qpn, 102) + data[2 * MTU:3 * MTU],
                  bth(WRITE_LAST, v.qpn, 103, ackreq=True) + data[3 * MTU:])
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    got = bmr.read(8 * MTU, 0)
    landed = sum(got[k * MTU:(k + 1) * MTU] == data[:MTU] for k in range(4))
    env.say('MTUs of the WRITE that landed: %d of 4; the victim answered %s' %
            (landed, ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans)))
    if got[MTU:] != bytes(7 * MTU):
        raise Fail('bytes landed through the window after its LOCAL_INV completed')
    if not any(a[0] == ACK and a[2] == SYN_NAK_ACCESS and a[1] == 101 for a in ans):
        raise Fail('no remote access NAK at PSN 101')


def case_cq_resize_pending(env):
    """resize_cq with completions not polled yet: 16 SENDs complete on the
    victim's CQ, which grows to 1024 entries and then shrinks to 32 before
    anything is polled (a user ring's entries are carried outside the CQ's
    lock); all 16 are then polled, in order, once each."""
    v, p = env.pair(vpsn=0x3000, ppsn=0x4000)
    for k in range(16):
        p.recv(64, 64 * k, wr_id=100 + k)
    for k in range(16):
        v.send(e.IBV_WR_SEND, 64, 64 * k, wr_id=k)
    got = p.poll(16, 10 * SCALE)
    if len(got) != 16:
        raise Fail('%d of 16 SENDs received' % len(got))
    time.sleep(0.2)
    v.cq.resize(1000)
    v.cq.resize(20)
    env.say('victim CQ resized to %d entries with 16 completions pending' % v.cq.cqe)
    wcs = v.poll(17, 2)
    ids = [(w.wr_id, w.status) for w in wcs]
    if ids != [(k, e.IBV_WC_SUCCESS) for k in range(16)]:
        raise Fail('after the resizes the victim polled %s' % ids)
    traffic(v, p, 'after the resizes', seed=41)


def case_ar_dereg(env):
    """An MR deregistered mid-stream: an AR WRITE ONLY placed early (PSN
    101, MR valid then); ibv_dereg_mr returns at once (placement keeps no
    reference); a later AR WRITE ONLY to the gone rkey (PSN 102) is held,
    not placed; when the gap is filled (a zero-length WRITE ONLY, PSN 100)
    the in-order pass finds the rkey gone and NAKs PSN 101 with a remote
    access error."""
    v = ar_victim(env)
    mr2 = MR(env.vpd, 4 * MTU, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE)
    mr2.write(bytes(4 * MTU), 4 * MTU, 0)
    buf, rkey, data = mr2.buf, mr2.rkey, pattern(95, MTU)
    p0, h0 = ar_counts(env)
    snif = sniffer(env.args.iface)
    env.wire.send(ar_write(v.qpn, 101, buf, rkey, data))
    time.sleep(0.3)
    if mr2.read(MTU, 0) != data or ar_counts(env)[0] - p0 != 1:
        snif.stop()
        raise Fail('the AR WRITE ONLY to a valid MR was not placed at arrival')
    env.timed('ibv_dereg_mr with a placed WRITE not yet executed', mr2.close)
    env.wire.send(ar_write(v.qpn, 102, buf + MTU, rkey, b'\xee' * MTU))
    time.sleep(0.3)
    p1, h1 = ar_counts(env)
    env.say('after ibv_dereg_mr: sr_placed_pkts +%d, sr_held_pkts +%d' % (p1 - p0, h1 - h0))
    if p1 - p0 != 1 or h1 - h0 != 1:
        snif.stop()
        raise Fail('a WRITE ONLY to a deregistered MR was placed (or not held)')
    env.wire.send(ar_pkt(WRITE_ONLY, v.qpn, 100, reth(0, 0, 0)))
    time.sleep(0.3)
    ans = answers(snif.stop(), env.args.dst)
    env.say('the victim answered %s' % ', '.join('op %#x psn %d syn %#x' % a[:3] for a in ans))
    if not any(a[0] == ACK and a[2] == SYN_NAK_ACCESS and a[1] == 101 for a in ans):
        raise Fail('no remote access NAK at PSN 101 (its MR was deregistered)')

def state_burst(env, qpn, rkey, va, psn, n=4):
    """N SENDs and N WRITEs to QPN at PSN.. with 0xee bytes."""
    for k in range(n):
        env.wire.send(bth(SEND_ONLY, qpn, psn + 2 * k, ackreq=True) + b'\xee' * 256,
                      bth(WRITE_ONLY, qpn, psn + 2 * k + 1, ackreq=True) + reth(va, rkey, 256) +
                      b'\xee' * 256)
    return 2 * n


def case_reset_init(env):
    """Packets for a QP in RESET or INIT are dropped and counted, never
    answered, and not executed when the QP is connected later."""
    dev = env.args.victim
    x = env.victim()                                  # fresh, RESET
    snif = sniffer(env.args.iface)
    x.mr.write(pattern(13, 4096), 4096, 0)
    for state in ('RESET (never connected)', 'INIT (never connected)'):
        if state.startswith('INIT'):
            x.init()
        d0 = drops(dev)
        n = state_burst(env, x.qpn, x.mr.rkey, x.mr.buf, 0)
        time.sleep(0.3)
        got = drops(dev) - d0
        env.say('%s: %d packets, rx_drop_* grew by %d' % (state, n, got))
        if got < n:
            raise Fail('%d packets to a QP in %s, only %d counted as dropped' % (n, state, got))
    answered = roce_opcodes(snif.stop(), env.args.dst)
    # a QP that was connected: RTS -> RESET -> INIT keeps its peer address
    y, p = env.pair(vpsn=0x1000, ppsn=0x3000)
    traffic(y, p, 'before the reset', seed=41)   # y -> p: p's next PSN stays 0x3000
    y.set_state(e.IBV_QPS_RESET)
    y.mr.write(pattern(14, 8192), 8192, 0)
    epsn = 0x3000
    snif = sniffer(env.args.iface)
    for state in ('RESET (was connected)', 'INIT (was connected)'):
        if state.startswith('INIT'):
            y.init()
            y.recv(4096, 4096)        # posted in INIT: only the real SEND may fill it
        d0 = drops(dev)
        n = state_burst(env, y.qpn, y.mr.rkey, y.mr.buf, epsn)
        time.sleep(0.3)
        got = drops(dev) - d0
        env.say('%s: %d packets, rx_drop_* grew by %d' % (state, n, got))
        if got < n:
            raise Fail('%d packets to a QP in %s, only %d counted as dropped' % (n, state, got))
    answered += roce_opcodes(snif.stop(), env.args.dst)
    if answered:
        raise Fail('the victim answered packets sent to a QP in RESET/INIT (opcodes %s)' %
                   sorted(set(answered)))
    y.connect(env.peer_gid, p.qpn, rq_psn=epsn, sq_psn=0x5000)
    time.sleep(0.3)
    if y.poll(1, 0.2):
        raise Fail('a SEND received in RESET/INIT was delivered after RTR (it was queued)')
    if y.mr.read(256, 0) != pattern(14, 8192)[:256]:
        raise Fail('a WRITE received in RESET/INIT was executed after RTR (it was queued)')
    data = pattern(15, 4096)
    p.mr.write(data, 4096, 0)
    p.send(e.IBV_WR_SEND, 4096, 0)
    expect_wc(p, 'peer SEND after the reconnect')
    wc = expect_wc(y, 'victim RECV after the reconnect')
    if wc.byte_len != 4096 or y.mr.read(4096, 4096) != data:
        raise Fail('the first real SEND after the reconnect arrived wrong')


def worker(env, role, fd_out, fd_in, size):
    """A child of a kill case: one side of a transfer loop, in its own
    process with its own verbs contexts. Writes "QPN ADDR RKEY", reads the
    peer's, connects, transfers."""
    ctx, pd = (env.vctx, env.vpd) if role == 'victim' else (env.pctx, env.ppd)
    me = Rc(ctx, pd, size=size)
    os.write(fd_out, b'%d %d %d\n' % (me.qpn, me.mr.buf, me.mr.rkey))
    peer_qpn, peer_addr, peer_rkey = (int(x) for x in readline(fd_in, 10).split())
    gid = env.peer_gid if role == 'victim' else env.victim_gid
    me.connect(gid, peer_qpn, rq_psn=0x100, sq_psn=0x100, timeout=16, retry=7)
    os.write(fd_out, b'UP\n')
    if role == 'victim':           # the requester: WRITE and READ for ever
        n = 0
        while True:
            me.send(e.IBV_WR_RDMA_WRITE, size, 0, peer_addr, peer_rkey)
            me.send(e.IBV_WR_RDMA_READ, size, 0, peer_addr, peer_rkey)
            wcs = me.poll(2, 30 * SCALE)
            if len(wcs) < 2 or any(w.status != e.IBV_WC_SUCCESS for w in wcs):
                os.write(fd_out, ('ERR %s\n' % [w.status for w in wcs]).encode())
                os._exit(1)
            n += 1
            os.write(fd_out, b'ROUND %d\n' % n)
    else:                          # the responder: until told to send
        os.read(fd_in, 10)
        me.send(e.IBV_WR_SEND, 4096, 0)
        wcs = me.poll(1, 15)
        os.write(fd_out, b'WC %d\n' % (wcs[0].status if wcs else -1))
        os._exit(0)


def spawn(env, role, size):
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            worker(env, role, a_w, b_r, size)
        finally:
            os._exit(3)
    return pid, a_r, b_w


def readline(fd, secs):
    buf = b''
    end = time.monotonic() + secs
    while not buf.endswith(b'\n'):
        if not select.select([fd], [], [], max(0, end - time.monotonic()))[0]:
            return None
        c = os.read(fd, 1)
        if not c:
            return None
        buf += c
    return buf.decode().strip()


def reap(pid, secs):
    """Wait for PID up to SECS; True when it is gone."""
    end = time.monotonic() + secs
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)


def kill_case(env, victim_dies):
    size = 8 << 20
    vp, v_in, v_out = spawn(env, 'victim', size)
    pp, p_in, p_out = spawn(env, 'peer', size)
    try:
        vq, pq = readline(v_in, 15), readline(p_in, 15)
        if not vq or not pq:
            raise Fail('the transfer processes did not start')
        os.write(v_out, (pq + '\n').encode())
        os.write(p_out, (vq + '\n').encode())
        if readline(v_in, 10) != 'UP' or readline(p_in, 10) != 'UP':
            raise Fail('the transfer processes did not connect')
        r = readline(v_in, 30 * SCALE)
        if not r or not r.startswith('ROUND'):
            raise Fail('the 8 MiB WRITE+READ round did not complete: %s' % r)
        time.sleep(0.2)            # well into the next round
        who = vp if victim_dies else pp
        env.step('kill -9 of the %s mid-transfer' % ('requester' if victim_dies else 'responder'))
        t = time.monotonic()
        os.kill(who, signal.SIGKILL)
        if not reap(who, KILL_SECS):
            raise Fail('the killed process did not exit within %d s' % KILL_SECS)
        env.say('the killed process exited in %.2f s' % (time.monotonic() - t))
        if victim_dies:
            # the responder's SEND to the dead QP must end with RETRY_EXC_ERR
            os.write(p_out, b'go\n')
            r = readline(p_in, 25 * SCALE)
            env.say('the survivor\'s SEND to the dead QP: %s' % r)
            if r != 'WC %d' % e.IBV_WC_RETRY_EXC_ERR:
                raise Fail('the survivor\'s SEND to the dead QP ended with %s, expected '
                           'IBV_WC_RETRY_EXC_ERR' % r)
            if not reap(pp, KILL_SECS):
                raise Fail('the survivor did not exit within %d s' % KILL_SECS)
        else:
            r = readline(v_in, 30 * SCALE)
            while r and r.startswith('ROUND'):
                r = readline(v_in, 30 * SCALE)
            env.say('the requester after its responder died: %s' % r)
            if not r or not r.startswith('ERR'):
                raise Fail('the requester did not see an error completion after its '
                           'responder died: %s' % r)
            if not reap(vp, KILL_SECS):
                raise Fail('the requester did not exit within %d s' % KILL_SECS)
    finally:
        for pid in (vp, pp):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def case_kill_requester(env):
    """kill -9 of the requester during 8 MiB WRITE+READ: it exits within
    10 s; the survivor's next SEND ends with IBV_WC_RETRY_EXC_ERR."""
    kill_case(env, True)


def case_kill_responder(env):
    """kill -9 of the responder while it answers an 8 MiB READ: it exits
    within 10 s; the requester gets an error completion."""
    kill_case(env, False)


FLUSH = 0x1c                    # IBTA 1.5 RC FLUSH
ACCESS_FLUSH_GLOBAL = 1 << 8    # IBV_ACCESS_FLUSH_GLOBAL
SYN_NAK_INV = 0x61              # NAK invalid request


def feth(sel, plt):
    """FLUSH Extended Transport Header: selectivity bits 5:4, placement 3:0."""
    return struct.pack('!I', (sel << 4) | plt)


def answers(pkts, src):
    """(opcode, PSN, AETH syndrome, payload bytes) of SRC's RoCEv2 packets."""
    out = []
    for p in pkts:
        if IP in p and UDP in p and p[IP].src == src and p[UDP].dport == ROCE_PORT:
            b = bytes(p[UDP].payload)
            pad = (b[1] >> 4) & 3
            out.append((b[0], int.from_bytes(b[9:12], 'big'), b[12],
                        len(b) - 12 - 4 - 4 - pad))
    return out


def flush_once(env, v, psn, rkey, va, length, sel, plt, expect):
    """Send one FLUSH to V, expect the one answer EXPECT (opcode, syndrome)."""
    snif = sniffer(env.args.iface)
    env.wire.send(bth(FLUSH, v.qpn, psn, ackreq=True) + feth(sel, plt) + reth(va, rkey, length))
    time.sleep(0.5)
    got = [a for a in answers(snif.stop(), env.args.dst) if a[1] == psn]
    want_op, want_syn = expect
    if not got:
        raise Fail('FLUSH psn %d: no answer' % psn)
    op, _, syn, n = got[-1]
    if op != want_op or (want_syn is not None and syn != want_syn) or \
            (want_syn is None and syn >> 5) or (op == RD_ONLY and n):
        raise Fail('FLUSH psn %d: answer opcode %#x syndrome %#x %d bytes, expected '
                   'opcode %#x syndrome %s' % (psn, op, syn, n, want_op,
                                              'ACK' if want_syn is None else hex(want_syn)))
    env.say('FLUSH psn %d (sel %d plt %d): opcode %#x syndrome %#x' % (psn, sel, plt, op, syn))


def case_flush(env):
    """IBTA 1.5 FLUSH from the peer. A device with FLUSH (6.12): a FLUSH of
    a range, again (a duplicate), and of the whole MR, each answered by a
    zero-length READ Response Only with an ACK syndrome; an MR without
    FLUSH_GLOBAL, and a persistence flush, NAK'd remote access. A device
    without it (6.1) NAKs a FLUSH as an invalid request."""
    import rc_verbs  # pylint: disable=import-outside-toplevel
    has = env.vctx.query_device_ex().device_cap_flags_ex & (1 << 38)
    if not has:
        v = env.victim()
        v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
        flush_once(env, v, 100, v.mr.rkey, v.mr.buf, 64, 0, 1, (ACK, SYN_NAK_INV))
        return
    rc_verbs.ACCESS |= ACCESS_FLUSH_GLOBAL     # this child's QPs and MRs grant FLUSH
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    flush_once(env, v, 100, v.mr.rkey, v.mr.buf + 64, 4096, 0, 1, (RD_ONLY, None))
    flush_once(env, v, 100, v.mr.rkey, v.mr.buf + 64, 4096, 0, 1, (RD_ONLY, None))
    flush_once(env, v, 101, v.mr.rkey, v.mr.buf, 0, 1, 1, (RD_ONLY, None))
    plain = rc_verbs.MR(env.vpd, 4096, rc_verbs.ACCESS & ~ACCESS_FLUSH_GLOBAL)
    flush_once(env, v, 102, plain.rkey, plain.buf, 64, 0, 1, (ACK, SYN_NAK_ACCESS))
    w = env.victim()
    w.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    flush_once(env, w, 100, w.mr.rkey, w.mr.buf, 64, 0, 2, (ACK, SYN_NAK_ACCESS))


def case_ack_psn(env):
    """An ACK never names a READ's PSN (rdma_rxe completes a READ on an ACK
    of its PSN, data or not). WRITE at 100, READ at 101, then the WRITE
    again (a go-back): the duplicate is acknowledged with PSN 100, the
    newest WRITE, not 101, the newest request; the READ is answered."""
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    snif = sniffer(env.args.iface)
    write = bth(WRITE_ONLY, v.qpn, 100, ackreq=True) + reth(v.mr.buf, v.mr.rkey, 8) + pattern(3, 8)
    env.wire.send(write, bth(READ_REQ, v.qpn, 101) + reth(v.mr.buf + 64, v.mr.rkey, 8))
    time.sleep(0.3)
    env.wire.send(write)
    time.sleep(0.5)
    got = answers(snif.stop(), env.args.dst)
    env.say('answers (opcode, PSN, syndrome, bytes): %s' % got)
    if not any(op == RD_ONLY and psn == 101 and n == 8 for op, psn, _, n in got):
        raise Fail('no READ Response Only of 8 bytes at PSN 101')
    acks = [psn for op, psn, syn, _ in got if op == ACK and syn >> 5 == 0]
    if 101 in acks:
        raise Fail('an ACK names PSN 101, the READ\'s: ACK PSNs %s' % acks)
    if acks.count(100) < 2:
        raise Fail('the WRITE and its duplicate are not both acknowledged with PSN 100: '
                   'ACK PSNs %s' % acks)


def psn_of(pkt):
    """The BTH PSN of a RoCEv2 packet (scapy)."""
    return int.from_bytes(bytes(pkt[UDP].payload)[9:12], 'big')


def rto_goback_once(env, v):
    """Two WRITEs, at PSNs N and N + 1, to a peer that has gone silent: the
    RTO probes N twice; an ACK of N (2 ms after the latest probe, so that
    the resend is judged needed), then at once a PSN sequence NAK at N + 1
    (a go-back) and two ACKs of N + 1 (the second a duplicate the go-back
    drew). Returns how many resends rto_spurious counted needless at the
    ACK of N, and after it."""
    seen, lock = [], threading.Lock()

    def note(p):
        if IP in p and p[IP].src == env.args.dst:
            with lock:
                seen.append((time.monotonic(), psn_of(p)))

    snif = AsyncSniffer(iface=env.args.iface, store=False, prn=note,
                        lfilter=lambda p: UDP in p and p[UDP].dport == ROCE_PORT)
    snif.start()
    time.sleep(0.3)
    try:
        v.send(e.IBV_WR_RDMA_WRITE, 8, 0, v.mr.buf + 4096, v.mr.rkey, wr_id=1)
        v.send(e.IBV_WR_RDMA_WRITE, 8, 64, v.mr.buf + 4160, v.mr.rkey, wr_id=2)
        end, psn, probes = time.monotonic() + 10 * SCALE, None, []
        while time.monotonic() < end:       # the first WRITE and two probes of it
            with lock:
                psn = seen[0][1] if seen else None
                probes = [t for t, n in seen if n == psn]
            if len(probes) >= 3 and time.monotonic() - probes[-1] > 0.002:
                break
            time.sleep(0.001)
        else:
            raise Fail('the first WRITE went %d times in %d s: no RTO probed it twice' %
                       (len(probes), 10 * SCALE))
        s0 = counter(env.args.victim, 'rto_spurious')
        env.wire.send(bth(ACK, v.qpn, psn) + aeth(SYN_ACK, 1))
        time.sleep(0.05)
        s1 = counter(env.args.victim, 'rto_spurious')
        env.wire.send(bth(ACK, v.qpn, psn + 1) + aeth(SYN_NAK_SEQ, 1),
                      bth(ACK, v.qpn, psn + 1) + aeth(SYN_ACK, 2),
                      bth(ACK, v.qpn, psn + 1) + aeth(SYN_ACK, 2))
        time.sleep(0.2)
        s2 = counter(env.args.victim, 'rto_spurious')
    finally:
        snif.stop()
    with lock:
        env.say('PSN %d went %d times, PSN %d %d times' %
                (psn, sum(n == psn for _, n in seen), psn + 1,
                 sum(n == psn + 1 for _, n in seen)))
    wcs = v.poll(2, 5 * SCALE)
    if [(w.wr_id, w.status) for w in wcs] != [(1, e.IBV_WC_SUCCESS), (2, e.IBV_WC_SUCCESS)]:
        raise Fail('the two WRITEs completed as %s' % [(w.wr_id, w.status) for w in wcs])
    return s1 - s0, s2 - s1


def case_rto_goback(env):
    """A go-back that is not the RTO's makes a sroce responder acknowledge
    what it had again; those ACKs say nothing about the last RTO resend.
    The victim learns a short RTT from a real sroce peer, which then goes
    silent (its QP destroyed); the forged peer answers the RTO's probe of
    one WRITE (judged needed), NAKs the next with a sequence NAK and
    acknowledges it twice (rto_goback_once()). The duplicate ACK must not
    count the RTO resend needless (rto_spurious unchanged by it: with the
    judgment's own, the case retries, up to three QPs); both WRITEs
    complete."""
    for attempt in range(3):
        # the QP's timeout (1 s) must not go back before the NAK does
        v, p = env.victim(), Rc(env.pctx, env.ppd)
        v.connect(env.peer_gid, p.qpn, rq_psn=0x2000, sq_psn=0x1000, timeout=18)
        p.connect(env.victim_gid, v.qpn, rq_psn=0x1000, sq_psn=0x2000, timeout=18)
        for k in range(4):      # RTT samples from the real peer
            traffic(v, p, 'warm-up %d' % k, seed=101 + k)
        p.qp.close()
        judged, dup = rto_goback_once(env, v)
        env.say('attempt %d: rto_spurious +%d at the ACK of the probe, +%d after the NAK' %
                (attempt, judged, dup))
        if dup:
            raise Fail('a duplicate ACK of a sequence NAK\'s go-back counted an RTO resend '
                       'needless (rto_spurious +%d)' % dup)
        if not judged:
            return
        v.qp.close()
    raise Fail('the ACK of the RTO probe came sooner than the smallest RTT after it three '
               'times: the resend was never judged needed, the go-back not tested')


# ---- limits: the receive backlog, message length, XRC TGT ---------------

FORGED_SRC = '192.0.2.77'   # an address on the victim's subnet that is nobody's QP path


def qp_line(qpn):
    """The victim QP's line of /sys/kernel/debug/sroce/qps (debugfs is
    mounted in init's mount namespace: read it through nsenter)."""
    d = '/sys/kernel/debug'
    r = subprocess.run(['nsenter', '-t', '1', '-m', 'sh', '-c',
                        'mountpoint -q %s || mount -t debugfs none %s; cat %s/sroce/qps' %
                        (d, d, d)], capture_output=True, text=True, timeout=30 * SCALE, check=False)
    for ln in r.stdout.splitlines():
        if re.search(r'\bqpn %d\b' % qpn, ln):
            return ln
    return 'no line for QP %d (%s)' % (qpn, r.stderr.strip() or '%d lines' %
                                      len(r.stdout.splitlines()))


def case_rx_wrong_peer(env):
    """Large WRITEs and SENDs in a flood from an address that is not the
    victim QP's peer (valid ICRC, right QPN and PSN): each is dropped and
    counted before it is queued to the QP (rx_drop_* grows by the flood,
    rx_pkts - packets the transport took off the queue - does not), never
    executed; the next packet from the real peer address is received."""
    dev, n = env.args.victim, 200
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    v.mr.write(bytes(2 * MTU), 2 * MTU, 0)
    v.recv(4096, 8192)
    forged = Wire(FORGED_SRC, env.args.dst)
    pkts = []
    for k in range(n // 2):
        pkts.append(forged.build(bth(WRITE_ONLY, v.qpn, 100, ackreq=True) +
                                 reth(v.mr.buf, v.mr.rkey, MTU) + b'\xee' * MTU))
        pkts.append(forged.build(bth(SEND_ONLY, v.qpn, 100, ackreq=True) + b'\xee' * MTU))
    d0, rx0 = drops(dev), counter(dev, 'rx_pkts')
    forged.send_raw(pkts)
    time.sleep(0.5)
    dropped, rx = drops(dev) - d0, counter(dev, 'rx_pkts') - rx0
    env.say('%d packets from %s: rx_drop_* +%d, rx_pkts +%d' % (n, FORGED_SRC, dropped, rx))
    if dropped < n:
        raise Fail('%d packets from a wrong peer, only %d counted as dropped' % (n, dropped))
    if rx:
        raise Fail('%d packets from a wrong peer were queued to the QP (rx_pkts +%d: '
                   'dequeued by its transport)' % (n, rx))
    if v.mr.read(2 * MTU, 0) != bytes(2 * MTU):
        raise Fail('a WRITE from a wrong peer was executed')
    if v.poll(1, 0.2):
        raise Fail('a SEND from a wrong peer was received')
    data = pattern(17, 256)
    env.wire.send(bth(SEND_ONLY, v.qpn, 100, ackreq=True) + data)
    wc = expect_wc(v, 'RECV of a SEND from the real peer address after the flood')
    if wc.byte_len != 256 or v.mr.read(256, 8192) != data:
        raise Fail('the SEND from the real peer address arrived wrong')


def case_rx_backlog(env):
    """A flood of large packets from the real peer address: the victim QP's
    receive queue is bounded in bytes (skb truesize; debugfs "rxq N B/CAPB
    peak PB"): the cap is a few MiB, the peak stays within it (one packet
    per CPU of slack) and the queue's byte count is back at 0 after."""
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    # PSNs far ahead: each is parsed, queued, NAKed once and dropped
    pkts = [env.wire.build(bth(SEND_ONLY, v.qpn, 100 + 4096 + k, ackreq=True) + b'\xee' * MTU)
            for k in range(256)]
    stop = threading.Event()
    sent = [0]

    def storm():
        while not stop.is_set() and sent[0] < 10000:
            env.wire.send_raw(pkts)
            sent[0] += len(pkts)

    ts = [threading.Thread(target=storm) for _ in range(2)]
    for t in ts:
        t.start()
    peak = []
    try:
        end = time.monotonic() + 3
        while time.monotonic() < end:
            ln = qp_line(v.qpn)
            m = re.search(r'rxq (\d+) (\d+)/(\d+)B peak (\d+)B', ln)
            if not m:
                raise Fail('no receive queue byte count in the debugfs QP line: %s' % ln)
            peak.append(tuple(int(x) for x in m.groups()))
            time.sleep(0.1)
    finally:
        stop.set()
        for t in ts:
            t.join()
    time.sleep(0.5)
    m = re.search(r'rxq (\d+) (\d+)/(\d+)B peak (\d+)B', qp_line(v.qpn))
    n, now, cap, top = (int(x) for x in m.groups())
    env.say('%d packets of %d bytes: queue now %d packets %d bytes, peak %d bytes, cap %d '
            'bytes, longest seen %d packets' % (sent[0], MTU, n, now, top, cap,
                                               max(p[0] for p in peak)))
    if not 1 << 20 <= cap <= 16 << 20:
        raise Fail('receive queue cap %d bytes: not a few MiB' % cap)
    if top > cap + os.cpu_count() * 65536:
        raise Fail('the receive queue held %d bytes, cap %d' % (top, cap))
    if n or now:
        raise Fail('after the flood the queue counts %d packets, %d bytes' % (n, now))


DEV_KB = '/sys/module/sroce/parameters/rx_backlog_dev_kb'


def case_rx_dev_backlog(env):
    """The flood of rx_backlog with the device's bound (rx_backlog_dev_kb)
    set to its minimum, 64 KiB, far below the QP's own: packets past it
    are dropped and counted (rx_drop_dev_backlog grows), the QP's queue
    peaks within it (a packet per CPU of slack: near the bound the count
    is summed exactly), its byte count is back at 0 after, and back at
    the default bound the same packets are not dropped."""
    with open(DEV_KB) as f:
        old = f.read().strip()
    v = env.victim()
    v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
    pkts = [env.wire.build(bth(SEND_ONLY, v.qpn, 100 + 4096 + k, ackreq=True) + b'\xee' * MTU)
            for k in range(256)]
    before = counter(env.args.victim, 'rx_drop_dev_backlog')
    if before < 0:
        raise Fail('no rx_drop_dev_backlog counter on %s' % env.args.victim)
    stop = threading.Event()
    sent = [0]

    def storm():	# two CPUs' softirqs: one queues while the other runs the QP
        while not stop.is_set() and sent[0] < 40000:
            env.wire.send_raw(pkts)
            sent[0] += len(pkts)

    ts = [threading.Thread(target=storm) for _ in range(2)]
    try:
        with open(DEV_KB, 'w') as f:
            f.write('64')
        for t in ts:
            t.start()
        end = time.monotonic() + 30 * SCALE
        while time.monotonic() < end and any(t.is_alive() for t in ts):
            if counter(env.args.victim, 'rx_drop_dev_backlog') > before:
                break
            time.sleep(0.2)
    finally:
        stop.set()
        for t in ts:
            t.join()
        with open(DEV_KB, 'w') as f:
            f.write(old)
    sent = sent[0]
    time.sleep(0.5)
    dropped = counter(env.args.victim, 'rx_drop_dev_backlog') - before
    m = re.search(r'rxq (\d+) (\d+)/(\d+)B peak (\d+)B', qp_line(v.qpn))
    n, now, _, top = (int(x) for x in m.groups())
    env.say('%d packets of %d bytes with the device bound at 64 KiB: rx_drop_dev_backlog +%d, '
            'QP queue peak %d bytes, now %d packets %d bytes' % (sent, MTU, dropped, top, n, now))
    if dropped <= 0:
        raise Fail('%d packets flooded, none dropped at the device bound' % sent)
    if top > (64 << 10) + os.cpu_count() * 16384:
        raise Fail('the QP held %d bytes, the device bound is 64 KiB' % top)
    if n or now:
        raise Fail('after the flood the queue counts %d packets, %d bytes' % (n, now))
    # back at the default bound: nothing is dropped at it (the count did
    # not keep what the flood queued)
    before = counter(env.args.victim, 'rx_drop_dev_backlog')
    env.wire.send_raw(pkts)
    time.sleep(0.5)
    after = counter(env.args.victim, 'rx_drop_dev_backlog')
    if after != before:
        raise Fail('%d packets at the default bound: rx_drop_dev_backlog +%d' %
                   (len(pkts), after - before))


def nak_of(env, v, transport, psn):
    """Send TRANSPORT to V: the (opcode, syndrome) V answers PSN with, or None."""
    snif = sniffer(env.args.iface)
    env.wire.send(transport)
    time.sleep(1.5)
    got = [a for a in answers(snif.stop(), env.args.dst) if a[1] == psn]
    return got[-1][:3:2] if got else None


def case_msg_len(env):
    """Requests longer than max_msg_sz (1 GiB): WRITE FIRST and ONLY with a
    RETH DMA length of 4 GiB - 1 or 2 GiB, READs of as much. Each is NAKed
    as an invalid request (a length violation, IBTA 9.7.5.2.4), not as a
    remote access error, and nothing is placed."""
    big = [(WRITE_FIRST, 0xffffffff, MTU), (WRITE_FIRST, 0x80000000, MTU),
           (WRITE_ONLY, 0x80000000, 64), (READ_REQ, 0xffffffff, 0), (READ_REQ, 0x80000000, 0)]
    for op, length, n in big:
        v = env.victim()
        v.connect(env.peer_gid, FAKE_QPN, rq_psn=100, sq_psn=500)
        v.mr.write(bytes(2 * MTU), 2 * MTU, 0)
        ans = nak_of(env, v, bth(op, v.qpn, 100, ackreq=True) + reth(v.mr.buf, v.mr.rkey, length) +
                     b'\xee' * n, 100)
        env.say('opcode %#x DMA length %#x: answer %s' %
                (op, length, 'none' if ans is None else 'opcode %#x syndrome %#x' % ans))
        if ans != (ACK, SYN_NAK_INV):
            raise Fail('opcode %#x with DMA length %#x: answer %s, expected a NAK invalid '
                       'request (syndrome %#x)' % (op, length, ans and
                                                   'syndrome %#x' % ans[1], SYN_NAK_INV))
        if v.mr.read(2 * MTU, 0) != bytes(2 * MTU):
            raise Fail('opcode %#x with DMA length %#x: bytes were placed' % (op, length))
        v.qp.close()


XRC_FLUSH, XRC_ATOMIC_WRITE, XRC_SEND_ONLY = 0xbc, 0xbd, 0xa4


def xrceth(srqn):
    return struct.pack('!I', srqn & 0xffffff)


def case_xrc_aw_flush(env):
    """ATOMIC WRITE and FLUSH to an XRC TGT QP (which has no PD of its
    own): the XRC opcodes (0xbd, 0xbc, IBTA 1.5) and the RC ones with and
    without an XRCETH naming a live XRC SRQ. Each is dropped and counted
    or NAKed, never executed, and the kernel log stays clean; an XRC SEND
    after them is received on the XRC SRQ."""
    # pylint: disable=import-outside-toplevel
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.mr import MR
    from pyverbs.qp import QP, QPAttr, QPInitAttrEx
    from pyverbs.srq import SRQ, SrqInitAttrEx
    from pyverbs.wr import RecvWR, SGE
    from pyverbs.xrcd import XRCD, XRCDInitAttr
    import rc_verbs
    access = rc_verbs.ACCESS | e.IBV_ACCESS_REMOTE_ATOMIC | ACCESS_FLUSH_GLOBAL
    ctx, pd = env.vctx, env.vpd
    cq = CQ(ctx, 64)
    try:
        mr = MR(pd, 1 << 16, access)
    except Exception:  # pylint: disable=broad-except
        access &= ~ACCESS_FLUSH_GLOBAL      # 6.1: no FLUSH
        mr = MR(pd, 1 << 16, access)
    mr.write(bytes(8192), 8192, 0)
    xrcd = XRCD(ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD | e.IBV_XRCD_INIT_ATTR_OFLAGS,
                                  os.O_CREAT, -1))
    sa = SrqInitAttrEx(max_wr=16, max_sge=1)
    sa.srq_type = e.IBV_SRQT_XRC
    sa.pd, sa.xrcd, sa.cq = pd, xrcd, cq
    sa.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | \
        e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_XRCD
    srq = SRQ(ctx, sa)
    srq.post_recv(RecvWR(wr_id=5, num_sge=1, sg=[SGE(mr.buf + 4096, 4096, mr.lkey)]))
    srqn = srq.get_srq_num()
    tgt = QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV, xrcd=xrcd,
                               comp_mask=e.IBV_QP_INIT_ATTR_XRCD))
    a = QPAttr()
    a.qp_access_flags = access
    tgt.to_init(a)
    a = QPAttr()
    a.qp_access_flags = access
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = FAKE_QPN
    a.rq_psn = 100
    a.max_dest_rd_atomic = 16
    a.min_rnr_timer = 1
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=env.peer_gid, sgid_index=rc_verbs.GID_INDEX),
                       is_global=1, port_num=1)
    tgt.to_rtr(a)
    qpn, dev = tgt.qp_num, env.args.victim
    word = b'\x5a' * 8
    forged = [('XRC ATOMIC WRITE', bth(XRC_ATOMIC_WRITE, qpn, 100, ackreq=True) + xrceth(srqn) +
               reth(mr.buf, mr.rkey, 8) + word),
              ('XRC FLUSH', bth(XRC_FLUSH, qpn, 100, ackreq=True) + xrceth(srqn) + feth(0, 1) +
               reth(mr.buf, mr.rkey, 64)),
              ('RC ATOMIC WRITE', bth(0x1d, qpn, 100, ackreq=True) + reth(mr.buf, mr.rkey, 8) +
               word),
              ('RC FLUSH', bth(FLUSH, qpn, 100, ackreq=True) + feth(0, 1) +
               reth(mr.buf, mr.rkey, 64)),
              ('RC ATOMIC WRITE + XRCETH', bth(0x1d, qpn, 100, ackreq=True) + xrceth(srqn) +
               reth(mr.buf, mr.rkey, 8) + word),
              ('RC FLUSH + XRCETH', bth(FLUSH, qpn, 100, ackreq=True) + xrceth(srqn) +
               feth(0, 1) + reth(mr.buf, mr.rkey, 64))]
    try:
        for what, t in forged:
            d0 = drops(dev)
            snif = sniffer(env.args.iface)
            env.wire.send(t)
            time.sleep(0.3)
            ans = [x for x in answers(snif.stop(), env.args.dst) if x[1] == 100]
            dropped = drops(dev) - d0
            env.say('%s to XRC TGT QP %#x: rx_drop_* +%d, answers %s' %
                    (what, qpn, dropped, ['opcode %#x syndrome %#x' % x[::2][:2] for x in ans]))
            if ans and (ans[-1][0] != ACK or not ans[-1][2] >> 5):
                raise Fail('%s to an XRC TGT QP was executed (answer opcode %#x syndrome %#x)'
                           % (what, ans[-1][0], ans[-1][2]))
            if not ans and dropped < 1:
                raise Fail('%s to an XRC TGT QP: neither dropped nor NAKed' % what)
            if mr.read(8192, 0)[:4096] != bytes(4096):
                raise Fail('%s to an XRC TGT QP wrote memory' % what)
            if tgt.query(e.IBV_QP_STATE)[0].qp_state == e.IBV_QPS_ERR:
                env.say('the XRC TGT QP is in ERR after the NAK: brought back')
                a2 = QPAttr()
                a2.qp_state = e.IBV_QPS_RESET
                tgt.modify(a2, e.IBV_QP_STATE)
                a3 = QPAttr()
                a3.qp_access_flags = access
                tgt.to_init(a3)
                tgt.to_rtr(a)
        data = pattern(19, 512)
        env.wire.send(bth(XRC_SEND_ONLY, qpn, 100, ackreq=True) + xrceth(srqn) + data)
        end, wcs = time.monotonic() + 5, []
        while not wcs and time.monotonic() < end:
            n, got = cq.poll(num_entries=4)
            wcs = got[:n]
            time.sleep(0.01)
        if not wcs or wcs[0].status != e.IBV_WC_SUCCESS or mr.read(512, 4096) != data:
            raise Fail('the XRC SEND after the forged requests was not received right: %s' %
                       [(w.status, w.byte_len) for w in wcs])
    finally:
        tgt.close()
        srq.close()
        xrcd.close()
        mr.close()
        cq.close()


CASES = {
    'flush': case_flush,
    'ack_psn': case_ack_psn,
    'rto_goback': case_rto_goback,
    'write_first_dereg': case_write_first_dereg,
    'read_err_dereg': case_read_err_dereg,
    'spoofed_responses': case_spoofed_responses,
    'out_of_window': case_out_of_window,
    'forged_no_icrc': case_forged_no_icrc,
    'forged_sack': case_forged_sack,
    'sr_place': case_sr_place,
    'ar_place': case_ar_place,
    'ar_bounds': case_ar_bounds,
    'ar_inv': case_ar_inv,
    'ar_dereg': case_ar_dereg,
    'mw_inv_write': case_mw_inv_write,
    'cq_resize_pending': case_cq_resize_pending,
    'dup_ack_storm': case_dup_ack_storm,
    'nak_storm': case_nak_storm,
    'reset_init': case_reset_init,
    'kill_requester': case_kill_requester,
    'kill_responder': case_kill_responder,
    'rx_wrong_peer': case_rx_wrong_peer,
    'rx_backlog': case_rx_backlog,
    'rx_dev_backlog': case_rx_dev_backlog,
    'msg_len': case_msg_len,
    'xrc_aw_flush': case_xrc_aw_flush,
}


def health(env):
    v, p = env.pair(vpsn=0x7000, ppsn=0x8000)
    traffic(v, p, 'victim device -> peer device', seed=51)
    traffic(p, v, 'peer device -> victim device', seed=61)


# ---- the parent: run each piece in a child, bounded -----------------------

class Args:
    def __init__(self, argv):
        self.victim, self.peer, self.iface, self.src, self.dst = argv[:5]
        self.cases = argv[5:]


def stack_of(pid):
    out = []
    for p in [pid] + [int(x) for x in os.listdir('/proc') if x.isdigit()]:
        try:
            with open('/proc/%d/stat' % p) as fh:
                st = fh.read()
            if p != pid and int(st.rsplit(')', 1)[1].split()[1]) != pid:
                continue       # not PID nor one of its children
            with open('/proc/%d/stack' % p) as fh:
                frames = [ln.split()[-1] for ln in fh.read().splitlines()[:6]]
            out.append('pid %d state %s: %s' % (p, st.rsplit(')', 1)[1].split()[0],
                                                ' < '.join(frames)))
        except (OSError, ValueError, IndexError):
            continue
    return '; '.join(out)


def in_child(args, fn, secs):
    """Run FN(env) in a child; (ok, reason, diag lines)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 1
        try:
            env = Env(args, w)
            fn(env)
            os.write(w, b'OK\n')
            code = 0
        except Fail as x:
            os.write(w, ('FAIL %s\n' % x).encode())
        except Exception:  # pylint: disable=broad-except
            os.write(w, ('FAIL %s\n' % traceback.format_exc().strip().splitlines()[-1]).encode())
        os._exit(code)
    os.close(w)
    buf, end, verdict, step, diag = b'', time.monotonic() + secs, None, None, []
    verb_end = None       # a victim verb is running: it must return by then
    eof = False
    while time.monotonic() < min(end, verb_end or end):
        if select.select([r], [], [], 0.2)[0]:
            chunk = os.read(r, 4096)
            if not chunk:
                eof = True
                break
            buf += chunk
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                line = line.decode(errors='replace')
                if line.startswith('STEP '):
                    step, verb_end = line[5:], None
                elif line.startswith('VERB '):
                    step, verb_end = line[5:], time.monotonic() + VERB_SECS
                elif line.startswith('# '):
                    verb_end = None
                    diag.append(line)
                else:
                    verdict = line
            if verdict:
                break
    os.close(r)
    # the verdict is in (or not): the process must also get out of the kernel
    if not reap(pid, 5 if verdict else 3 if eof else 0):
        os.kill(pid, signal.SIGKILL)
        if not reap(pid, 3):
            where = 'tearing down after "%s"' % verdict if verdict else 'in "%s"' % step
            return False, 'stuck in the kernel %s: %s' % (where, stack_of(pid)), diag
    if verdict is None and eof:
        return False, 'the case process died (last step: %s)' % step, diag
    if verdict is None:
        return False, 'no verdict within %d s (last step: %s); killed' % (
            VERB_SECS if verb_end else secs, step), diag
    if verdict == 'OK':
        return True, '', diag
    return False, verdict[5:], diag


def dmesg_since(mark):
    out = subprocess.run(['dmesg'], capture_output=True, text=True, check=False).stdout
    i = out.rfind(mark)
    return [ln for ln in out[i:].splitlines() if BAD_DMESG.search(ln)] if i >= 0 else []


def report(name, ok, reason='', diag=()):
    for d in diag:
        print(d)
    print('%s %s%s' % ('ok' if ok else 'not ok', name, '' if ok else ' # ' + reason),
          flush=True)


def main():
    args = Args(sys.argv[1:])
    for name in args.cases:
        if name not in CASES:
            report(name, False, 'unknown case')
            continue
        mark = 'rc_hostile %s %d %f' % (name, os.getpid(), time.time())
        with open('/dev/kmsg', 'w') as fh:
            fh.write(mark + '\n')
        t = time.monotonic()
        ok, why, diag = in_child(args, CASES[name], CASE_SECS)
        diag.append('# %s: %.1f s' % (name, time.monotonic() - t))
        report(name, ok, why, diag)
        ok, why, diag = in_child(args, health, 20)
        report(name + ':health', ok, why, diag)
        bad = dmesg_since(mark)
        report(name + ':dmesg', not bad, 'kernel log: ' + ' | '.join(bad[:3]))


if __name__ == '__main__':
    main()
