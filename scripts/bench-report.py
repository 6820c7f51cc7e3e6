#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench-report.py - turn scripts/bench-vm samples into the report.

  bench-report.py --out DIR --run SERIES:EXIT:SECONDS[:OTHER_VMS]... [--accel MODE]
                  [--smp N] [--mem MIB] [--smoke] [--git-rev REV] [--date ISO]

Reads DIR/raw-SERIES.jsonl (one JSON object per measurement, the first
one "meta") for every --run, and writes DIR/bench.json (meta, raw samples
and summary), DIR/bench.md (Markdown tables) and DIR/bench.png (chart).
Exits 1 if a row has no number or a VM failed, else 0: timings never fail.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# column titles per path, in the report's order (PATHS): loopback compares
# like with like; rxe's UDP socket lives in init_net only, so across the
# veth the baseline is sroce -> rxe (rxe responds). veth-crc-lib: sroce<->sroce with the kernel's
# crc32_le() for the ICRC (what rxe uses) instead of crc=auto's choice.
# veth-tx-gso: sroce<->sroce with tx_gso on both devices, ICRC on.
# veth-icrc-skip: sroce<->sroce with icrc_skip
# on both devices, against the same sroce->rxe and TCP samples as veth;
# veth-gso: the same with tx_gso on both devices too (transmit bursts).
IMPLS = {"loopback": (("sroce", "sroce"), ("rxe", "rxe")),
         "veth": (("sroce", "sroce↔sroce"), ("rxe", "sroce→rxe")),
         "veth-crc-lib": (("sroce", "sroce↔sroce crc=lib"), ("rxe", "sroce→rxe")),
         "veth-tx-gso": (("sroce", "sroce↔sroce tx_gso"), ("rxe", "sroce→rxe")),
         "veth-icrc-skip": (("sroce", "sroce↔sroce icrc_skip"), ("rxe", "sroce→rxe")),
         "veth-gso": (("sroce", "sroce↔sroce icrc_skip+tx_gso"), ("rxe", "sroce→rxe"))}
PATHS = tuple(IMPLS)
VETH = tuple(p for p in PATHS if p.startswith("veth"))
# paths bench-vm measures only sometimes: veth-crc-lib not in a smoke run
# nor when crc=auto already chose crc32_le(); a row is expected only if
# the VM ran the path (a sample, ok or failed, exists)
CONDITIONAL = ("veth-crc-lib",)
SHORT = {"ib_write_bw": "write", "ib_read_bw": "read", "ib_send_bw": "send",
         "ib_write_lat": "write", "ib_read_lat": "read", "ib_send_lat": "send"}


def size_str(n):
    n = int(n)
    if n >= 1024 and n % 1024 == 0:
        return "%d KiB" % (n // 1024)
    return "%d B" % n


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


def fmt(v, digits=3):
    """v with at least `digits` significant digits, never an exponent"""
    if v is None:
        return "—"
    if v == 0:
        return "0"
    return "%.*f" % (max(digits - 1 - math.floor(math.log10(abs(v))), 0), v)


def cell(s, digits=3):
    if not s:
        return "**fail**"
    if s["n"] == 1:
        return fmt(s["median"], digits)
    return "%s (%s–%s)" % (fmt(s["median"], digits), fmt(s["min"], digits), fmt(s["max"], digits))


def ratio(a, b):
    if not a or not b or not b["median"]:
        return None
    return a["median"] / b["median"]


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty", "--abbrev=12"],
                             capture_output=True, text=True, check=True).stdout.strip()
        branch = subprocess.run(["git", "-C", TOP, "rev-parse", "--abbrev-ref", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        return rev, branch
    except (OSError, subprocess.CalledProcessError):
        return "unknown", "unknown"


def host_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        qemu = "unknown"
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(),
            "qemu": qemu, "loadavg": os.getloadavg()}


def load_raw(path):
    meta, samples = {}, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue  # a line cut short by a VM timeout
            if "meta" in obj:
                meta = dict(meta, **obj["meta"])
            elif "rates" in obj:
                meta = dict(meta, rates=obj["rates"])
            else:
                samples.append(obj)
    return meta, samples


# the real-client rows (scripts/bench-clients): tool, the number, its
# title and unit; lower is better for latencies
CLIENTS = (("nvmeof_randread", "iops", "NVMe-oF/RDMA fio 4 KiB random read, QD16", "IOPS"),
           ("nvmeof_seqread", "bw_MBps", "NVMe-oF/RDMA fio 128 KiB sequential read, QD4", "MiB/s"),
           ("ucx_tag_bw", "bw_MBps", "UCX ucx_perftest tag_bw 64 KiB, rc_verbs", "MB/s"),
           ("ucx_tag_lat", "lat_typ_us", "UCX ucx_perftest tag_lat 8 B, rc_verbs", "µs"))
# the client rows' columns: NVMe-oF runs host and target on one device
# (the kernel ULPs live in init_net), UCX runs across the veth like the
# veth perftest rows
CLIENT_IMPLS = (("sroce", "sroce"), ("rxe", "rxe"))
# rows rxe cannot produce (scripts/bench-clients says why): "n/a", not a failure
CLIENT_NA = {("rxe", "ucx_tag_bw"): "n/a (UCX's UD wire-up fails on rxe)",
             ("rxe", "ucx_tag_lat"): "n/a (UCX's UD wire-up fails on rxe)"}


def summarize(series, meta, samples):
    """one summary row per (path, tool, size); every expected row is
    present, with None where no sample succeeded"""
    rows = []

    def pick(topo, impl, tool, size):
        if topo in VETH and impl != "sroce":
            topo = "veth"
        return [s for s in samples if s.get("topo") == topo and s.get("impl") == impl
                and s.get("tool") == tool and s.get("size") == size]

    def failures(sel):
        return ["rep %s: %s%s" % (s["rep"], s.get("error", "?"),
                                  " (%s)" % s["detail"].strip()[:100] if s.get("detail", "").strip() else "")
                for s in sel if not s.get("ok")]

    sizes = [int(x) for x in meta.get("bw_sizes", "").split()]
    groups = meta.get("rows", "perftest,tcp,clients").split(",")
    measured = meta.get("paths", "loopback veth").split()  # --veth-bw: veth only
    ran = {s.get("topo") for s in samples}
    for topo in [p for p in PATHS if "perftest" in groups and
                 (p in measured or (p in VETH and "veth" in measured)) and
                 (p not in CONDITIONAL or p in ran)]:
        for tool in meta.get("bw_tools", "").split():
            for size in sizes:
                row = {"kernel": series, "path": topo, "kind": "bw", "tool": tool, "size": size}
                for impl, _ in IMPLS[topo]:
                    sel = pick(topo, impl, tool, size)
                    ok = [s for s in sel if s.get("ok")]
                    row[impl] = {
                        "bw_MBps": stats([s.get("bw_MBps") for s in ok]),
                        "mpps": stats([s.get("mpps") for s in ok]),
                        "doorbells_per_post": stats([s["doorbells"] / s["sq_wqes"] for s in ok
                                                     if s.get("sq_wqes")]),
                        "failures": failures(sel)}
                row["ratio"] = {"bw": ratio(row["sroce"]["bw_MBps"], row["rxe"]["bw_MBps"]),
                                "mpps": ratio(row["sroce"]["mpps"], row["rxe"]["mpps"])}
                if topo in VETH and "tcp" in groups:
                    sel = pick("veth", "tcp", "iperf3", size)
                    row["tcp"] = {"bw_MBps": stats([s.get("bw_MBps") for s in sel if s.get("ok")]),
                                  "failures": failures(sel)}
                rows.append(row)
        for tool in meta.get("lat_tools", "").split():
            for size in [int(x) for x in meta.get("lat_sizes", "").split()]:
                row = {"kernel": series, "path": topo, "kind": "lat", "tool": tool, "size": size}
                for impl, _ in IMPLS[topo]:
                    sel = pick(topo, impl, tool, size)
                    ok = [s for s in sel if s.get("ok")]
                    row[impl] = {k: stats([s.get(k) for s in ok])
                                 for k in ("lat_typ_us", "lat_p99_us", "lat_min_us", "lat_avg_us")}
                    row[impl]["failures"] = failures(sel)
                row["ratio"] = {"lat_typ": ratio(row["sroce"]["lat_typ_us"], row["rxe"]["lat_typ_us"]),
                                "lat_p99": ratio(row["sroce"]["lat_p99_us"], row["rxe"]["lat_p99_us"])}
                rows.append(row)
    if meta.get("clients"):
        for tool, key, _, _ in CLIENTS:
            row = {"kernel": series, "path": "clients", "kind": "client", "tool": tool,
                   "size": 0, "key": key}
            for impl, _ in CLIENT_IMPLS:
                sel = [s for s in samples if s.get("topo") == "clients" and s.get("impl") == impl
                       and s.get("tool") == tool]
                row[impl] = {key: stats([s.get(key) for s in sel if s.get("ok")]),
                             "failures": failures(sel)}
                row["size"] = next((s["size"] for s in sel if s.get("size")), 0)
            row["ratio"] = {key: ratio(row["sroce"][key], row["rxe"][key])}
            rows.append(row)
    return rows


def missing(rows):
    """names of rows where some implementation produced no number"""
    out = []
    for r in rows:
        if r["kind"] == "client":
            out += ["%s clients %s %s" % (r["kernel"], impl, r["tool"])
                    for impl, _ in CLIENT_IMPLS
                    if not r[impl][r["key"]] and (impl, r["tool"]) not in CLIENT_NA]
            continue
        key = "bw_MBps" if r["kind"] == "bw" else "lat_typ_us"
        impls = [i for i, _ in IMPLS[r["path"]]] + (["tcp"] if "tcp" in r else [])
        for impl in impls:
            if not r[impl][key]:
                out.append("%s %s %s %s %s" % (r["kernel"], r["path"], impl, r["tool"], size_str(r["size"])))
    return out


def rates_lines(r):
    """The module's load-time per-byte rates (the cost model's inputs)."""
    if not r:
        return []
    def rate(key):
        v = r.get(key)
        return "%d MB/s (%.2f ns/byte)" % (v, 1000.0 / v) if v else "n/a"
    return ["Per-byte passes as the module measured them at load, in this VM: CRC-32 "
            "`crc32_le()` %s, slicing-by-8 table %s, crypto `%s` %s, using **%s**; "
            "copy `memcpy()` %s, word loop %s, using **%s**." % (
                rate("crc_lib_mbs"), rate("crc_table_mbs"), r.get("crc_shash_driver", "none"),
                rate("crc_shash_mbs"), r.get("crc_using", "?"), rate("copy_memcpy_mbs"),
                rate("copy_words_mbs"), r.get("copy_using", "?")), ""]


def markdown(report):
    m = report["meta"]
    out = ["# sroce benchmark", "",
           "%s, git %s (%s), %s, %d vCPU, %d MiB, %d rep(s)%s. Cells: median (min–max)." % (
               m["date"], m["git_rev"], m["git_branch"], m["vm"]["accel"], m["vm"]["smp"],
               m["vm"]["mem_mib"], m["reps"], ", **smoke run: numbers are meaningless**" if m["smoke"] else ""),
           ""]
    for series, run in m["runs"].items():
        rows = [r for r in report["summary"] if r["kernel"] == series]
        out += ["## Kernel %s (%s)" % (series, run.get("kernel_release", "?")), "",
                "VM exit %s after %s s." % (run["exit"], run["seconds"]), ""]
        if run.get("other_vms"):
            out += ["**The host was not idle**: up to %d other VM(s) ran beside this one, so these "
                    "numbers are lower than an idle run's and not comparable with one." % run["other_vms"],
                    ""]
        out += rates_lines(run.get("rates"))
        for topo in PATHS:
            (_, a), (_, b) = IMPLS[topo]
            bw = [r for r in rows if r["path"] == topo and r["kind"] == "bw"]
            if bw:
                head = ["op", "size", "%s MB/s" % a, "%s MB/s" % b, "ratio"]
                if "tcp" in bw[0]:
                    head.append("TCP MB/s")
                head += ["%s Mpps" % a, "%s Mpps" % b, "doorbells/post"]
                out += ["### %s: bandwidth" % topo, "", "| " + " | ".join(head) + " |",
                        "|" + "---|" * len(head)]
                for r in bw:
                    line = [SHORT[r["tool"]], size_str(r["size"]), cell(r["sroce"]["bw_MBps"]),
                            cell(r["rxe"]["bw_MBps"]), fmt(r["ratio"]["bw"], 2)]
                    if "tcp" in r:
                        line.append(cell(r["tcp"]["bw_MBps"]))
                    d = r["sroce"]["doorbells_per_post"]
                    line += [fmt(r["sroce"]["mpps"] and r["sroce"]["mpps"]["median"], 3),
                             fmt(r["rxe"]["mpps"] and r["rxe"]["mpps"]["median"], 3),
                             fmt(d and d["median"], 2)]
                    out.append("| " + " | ".join(line) + " |")
                out.append("")
            lat = [r for r in rows if r["path"] == topo and r["kind"] == "lat"]
            if lat:
                head = ["op", "size", "%s µs" % a, "%s µs" % b, "ratio",
                        "%s p99 µs" % a, "%s p99 µs" % b, "p99 ratio"]
                out += ["### %s: latency" % topo, "", "| " + " | ".join(head) + " |",
                        "|" + "---|" * len(head)]
                for r in lat:
                    out.append("| " + " | ".join([
                        SHORT[r["tool"]], size_str(r["size"]),
                        cell(r["sroce"]["lat_typ_us"]), cell(r["rxe"]["lat_typ_us"]),
                        fmt(r["ratio"]["lat_typ"], 2),
                        cell(r["sroce"]["lat_p99_us"]), cell(r["rxe"]["lat_p99_us"]),
                        fmt(r["ratio"]["lat_p99"], 2)]) + " |")
                out.append("")
        cl = [r for r in rows if r["kind"] == "client"]
        if cl:
            head = ["client", "unit", "sroce", "rxe", "sroce/rxe"]
            out += ["### real clients", "",
                    "NVMe-oF: host and target on one device (the kernel ULPs live in init_net); "
                    "UCX: client on that device, server on sroce9 across the veth.", "",
                    "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            for r in cl:
                title, unit = next((t, u) for tool, _, t, u in CLIENTS if tool == r["tool"])
                out.append("| " + " | ".join([
                    title, unit, cell(r["sroce"][r["key"]]),
                    CLIENT_NA.get(("rxe", r["tool"])) or cell(r["rxe"][r["key"]]),
                    fmt(r["ratio"][r["key"]], 2)]) + " |")
            out.append("")
        # the other veth paths' rxe and TCP cells are veth's: list
        # their failures once
        fails = [(r, i, f) for r in rows
                 for i in (("sroce",) if r["path"] != "veth" and r["path"] in VETH
                           else ("sroce", "rxe", "tcp"))
                 if i in r for f in r[i]["failures"]]
        if fails:
            out += ["Failed samples:", ""]
            out += ["* %s %s %s %s: %s" % (r["path"], i, r["tool"], size_str(r["size"]), f)
                    for r, i, f in fails]
            out.append("")
    return "\n".join(out)


def chart(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = list(report["meta"]["runs"])
    fig, axes = plt.subplots(2 * len(runs), len(PATHS), figsize=(7 * len(PATHS), 8 * len(runs)),
                             squeeze=False)
    colors = {"sroce": "#1f77b4", "rxe": "#ff7f0e", "tcp": "#7f7f7f"}
    for k, series in enumerate(runs):
        rows = [r for r in report["summary"] if r["kernel"] == series]
        for j, topo in enumerate(PATHS):
            for i, (kind, key, unit) in enumerate((("bw", "bw_MBps", "MB/s (higher is better)"),
                                                   ("lat", "lat_typ_us", "µs, typical (lower is better)"))):
                ax = axes[2 * k + i][j]
                sel = [r for r in rows if r["path"] == topo and r["kind"] == kind]
                bars = list(IMPLS[topo]) + ([("tcp", "TCP (iperf3)")] if sel and "tcp" in sel[0] else [])
                width = 0.8 / len(bars)
                for b, (impl, label) in enumerate(bars):
                    xs, ys, lo, hi = [], [], [], []
                    for x, r in enumerate(sel):
                        s = r[impl][key]
                        if s:
                            xs.append(x + (b - (len(bars) - 1) / 2) * width)
                            ys.append(s["median"])
                            lo.append(s["median"] - s["min"])
                            hi.append(s["max"] - s["median"])
                    ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=label, color=colors[impl])
                ax.set_xticks(range(len(sel)))
                ax.set_xticklabels(["%s\n%s" % (SHORT[r["tool"]], size_str(r["size"])) for r in sel],
                                   fontsize=8)
                ax.set_yscale("log")
                ax.set_ylabel(unit)
                ax.set_title("%s: %s, %s" % (series, topo, "bandwidth" if kind == "bw" else "latency"))
                ax.grid(axis="y", which="both", alpha=0.3)
                ax.legend(fontsize=8)
    m = report["meta"]
    fig.suptitle("sroce vs rdma_rxe vs TCP — %s, %s, git %s%s" % (
        m["vm"]["accel"], m["date"][:10], m["git_rev"], " (smoke)" if m["smoke"] else ""))
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--run", action="append", default=[], help="SERIES:EXIT:SECONDS")
    ap.add_argument("--accel", default="unknown")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--mem", type=int, default=2048)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--git-rev", help="revision measured (default: the tree's now)")
    ap.add_argument("--date", help="start of the run, ISO 8601 (default: now)")
    args = ap.parse_args()

    rev, branch = git_rev()
    rev = args.git_rev or rev
    date = args.date or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    report = {"meta": {"date": date,
                       "git_rev": rev, "git_branch": branch, "smoke": args.smoke, "reps": 0,
                       "vm": {"accel": args.accel, "smp": args.smp, "mem_mib": args.mem},
                       "host": host_info(), "runs": {}},
              "summary": [], "samples": []}
    bad = []
    for spec in args.run:
        series, code, secs, others = (spec.split(":") + ["0"])[:4]
        raw = os.path.join(args.out, "raw-%s.jsonl" % series)
        meta, samples = load_raw(raw) if os.path.exists(raw) else ({}, [])
        report["meta"]["runs"][series] = dict(meta, exit=int(code), seconds=int(secs),
                                              other_vms=int(others))
        report["meta"]["reps"] = max(report["meta"]["reps"], meta.get("reps", 0))
        report["samples"] += [dict(s, kernel=series) for s in samples]
        report["summary"] += summarize(series, meta, samples)
        if int(code) != 0:
            bad.append("VM for %s exited %s" % (series, code))
        if not meta:
            bad.append("no samples from %s" % series)
    bad += ["no number: " + m for m in missing(report["summary"])]

    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    md = markdown(report)
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write(md + "\n")
    chart(report, os.path.join(args.out, "bench.png"))
    print(md)
    for b in bad:
        print("bench: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
