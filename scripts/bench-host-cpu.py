#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-host-cpu.py - this host's CPU during each row of a
scripts/bench-cluster run, per node and per QEMU thread.

    scripts/bench-host-cpu.py RUN_DIR OUT_JSONL

Runs beside qemu/cluster (bench-cluster starts it and ends it by PID).
A node marks a row's start and end with the files RUN_DIR/hostcpu/KEY.start
and KEY.stop (scripts/bench-cluster-node); at each new mark this reads
/proc/stat and the CPU time of every thread of each node's QEMU (the
process ids qemu/cluster leaves in RUN_DIR/nodeI.qemu.pid). At a stop it
appends one line to OUT_JSONL:

    {"key": KEY, "secs": S, "host_busy": B, "host_cores": N,
     "nodes": [{"vcpu": V, "main": M, "other": O}, ...]}

B, V, M and O in cores (1.0 = one host core busy for the whole row): B is
the whole host (all but idle and iowait), V a node's vCPU threads (named
"CPU n/TCG" or "CPU n/KVM": qemu/vm-run names its threads), M its main
thread (the I/O loop: virtio-net's transmit, the socket netdev, timers),
O its other threads. The marks are polled every 0.1 s: a row shorter than
a few seconds is measured with that error.
"""
import json
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def host_cpu():
    with open("/proc/stat") as f:
        # user..steal: guest time is counted in user already
        v = [int(x) for x in f.readline().split()[1:9]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def thread_ticks(pid):
    """{tid: (kind, ticks)} of the QEMU process pid ({} once it is gone)."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        rest = s[s.rindex(")") + 2:].split()
        ticks = int(rest[11]) + int(rest[12])   # utime, stime
        if comm.startswith("CPU ") and "/" in comm:
            kind = "vcpu"
        elif int(tid) == pid:
            kind = "main"
        else:
            kind = "other"
        out[int(tid)] = (kind, ticks)
    return out


def node_pids(run):
    pids = []
    i = 0
    while True:
        try:
            with open(os.path.join(run, "node%d.qemu.pid" % i)) as f:
                pids.append(int(f.read().strip()))
        except (OSError, ValueError):
            return pids
        i += 1


def snapshot(run):
    return {"t": time.monotonic(), "host": host_cpu(),
            "nodes": [thread_ticks(p) for p in node_pids(run)]}


def delta(a, b):
    secs = b["t"] - a["t"]
    if secs <= 0:
        return None
    busy = (b["host"][0] - a["host"][0]) / HZ / secs
    cores = (b["host"][1] - a["host"][1]) / HZ / secs
    nodes = []
    for ta, tb in zip(a["nodes"], b["nodes"]):
        n = {"vcpu": 0.0, "main": 0.0, "other": 0.0}
        for tid, (kind, ticks) in tb.items():
            was = ta.get(tid, (kind, ticks))[1]
            n[kind] += (ticks - was) / HZ / secs
        nodes.append({k: round(v, 3) for k, v in n.items()})
    return {"secs": round(secs, 2), "host_busy": round(busy, 3),
            "host_cores": round(cores, 1), "nodes": nodes}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench-host-cpu.py RUN_DIR OUT_JSONL")
    run, out = sys.argv[1:3]
    marks = os.path.join(run, "hostcpu")
    seen, started = set(), {}
    while True:
        try:
            names = sorted(os.listdir(marks))
        except OSError:
            names = []
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            key, _, what = name.rpartition(".")
            if what == "start":
                started[key] = snapshot(run)
            elif what == "stop" and key in started:
                d = delta(started.pop(key), snapshot(run))
                if d:
                    d["key"] = key
                    with open(out, "a") as f:
                        f.write(json.dumps(d) + "\n")
        time.sleep(0.1)


if __name__ == "__main__":
    main()
