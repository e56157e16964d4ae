#!/usr/bin/env python3
"""Issue 6's aims from tools/bench/aims.sh logs: per repetition the
budgeted runs against their baselines of the same repetition, then a
verdict per aim ("met in k of n runs").

  forest      compute at the budget / the unbudgeted GPU's compute +
              preprocess, the shorter of its two forests (mst-gpu: the
              in-core forest with its sort; mst-inplace: the in-place
              forest with every list on the device, what auto runs on a
              graph that fits): at most 2x; on R-MAT scale 26 also 0.44 s
              or less
  first round the forest's spilled lists (the plan's A and W host bytes)
              over its first round (counter first_round_us): at least
              70 % of PCIe + host memory (--pcie 54, --host 88 GB/s)
  sssp, bfs   the 16-thread CPU's compute / (compute + preprocess at the
              budget, SSSP's light index counted): at least 5x
  peak        every budgeted run's peak device memory within its budget

With the rates of `spillgraph calibrate` on the host that ran a log
(--rates FILE for every log, else the file aims.rates beside each log,
which aims.sh writes) the first round is also judged against that host's
own PCIe + host memory rates, and the fill's spilled bytes (over the
longer of the two sides' fill times, counters gpu_first_us and
cpu_first_us) are shown against the host's rate with both sides reading
at once (host_shared_gbps): what the host's memory gives the two
together. A rates file made without a GPU is named so: its GPU rates are
the defaults.

A budgeted run that fell back to the CPU (no GPU) or failed is shown so and
counted in no verdict. When one graph and scale come in more than one log
(several device calls), a last section gives each aim's verdict over all
of them.

Usage: tools/bench/aims_table.py [--pcie GBPS] [--host GBPS] [--rates FILE] LOG.jsonl ...
(LOG named aims-GRAPH-SCALE.jsonl, as aims.sh writes it)."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_table import rows  # noqa: E402 (JSON lines after "# label" lines)

BASE = {"mst": "gpu", "sssp": "cpu", "bfs": "cpu"}


def secs(o):
    s = o["seconds"]
    return s["compute"] + s["preprocess"]


def spilled_bytes(o):
    """The plan's host bytes of A and W (the lists the first round reads
    from host memory)."""
    p = o.get("plan") or {}
    return sum(a["host_bytes"] for a in p.get("arrays", []) if a["array"] in ("A", "W"))


def load(path):
    """{rep: {label: run}}; failed runs kept as None."""
    reps = {}
    for label, o in rows(path):
        if not label:
            continue
        name, _, rep = label.rpartition(" ")
        reps.setdefault(int(rep), {})[name] = None if "failed" in o else o
    return reps


def verdict(vals, ok):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "no runs"
    met = sum(1 for v in vals if ok(v))
    return f"met in {met} of {len(vals)}" + (" (every run)" if met == len(vals) else "")


def is_rmat26(graph, scale):
    """The 0.44 s aim's graph: R-MAT at scale 26, in any vertex order."""
    return graph.split("-")[0] == "rmat" and scale == 26


def fmt(v, f="{:.3f}"):
    return f.format(v) if v is not None else "-"


def read_rates(path):
    """{name: GB/s} of a rates file (`name value` lines, # comments), with
    "gpu_measured" false when calibrate said its GPU rates are the
    defaults."""
    r = {"gpu_measured": True}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            if line.startswith("#") and "GPU rates are the defaults" in line:
                r["gpu_measured"] = False
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                try:
                    r[parts[0]] = float(parts[1])
                except ValueError:
                    sys.exit(f"aims_table.py: {path} line {no}: '{parts[1]}' is not a rate")
    for k in ("pcie_gbps", "cpu_scan_gbps", "host_shared_gbps"):
        if k not in r:
            sys.exit(f"aims_table.py: {path} has no {k} (not a rates file of spillgraph calibrate?)")
    return r


def spread(vals, f="{:.0f}"):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    lo, hi = min(vals), max(vals)
    return f.format(lo) if f.format(lo) == f.format(hi) else f"{f.format(lo)}-{f.format(hi)}"


def host_rates(path, given):
    """The rates for one log: those given (--rates, read once), else
    aims.rates beside the log, else None."""
    if given:
        return given
    beside = os.path.join(os.path.dirname(path), "aims.rates")
    return read_rates(beside) if os.path.exists(beside) else None


def verdicts(v, rmat26, wire, rates=None):
    """The verdict lines of one graph's runs: v holds the lists forest
    ((seconds, ratio) pairs), first (GB/s), own and fillx (the first round
    over its host's PCIe + host, the fill over its host's both-at-once
    rate: fractions, None without rates), sssp, bfs (ratios to the CPU)
    and over (peaks within the budget). rates: the one host's rates of a
    single log, or None (several logs: each run against its own host)."""
    print(f"- forest within 2x of the unbudgeted GPU: "
          f"{verdict([r for _, r in v['forest']], lambda x: x <= 2.0)}")
    if rmat26:
        print(f"- forest 0.44 s or less: {verdict([t for t, _ in v['forest']], lambda x: x <= 0.44)}")
    print(f"- first round at 70 % or more of {wire:.0f} GB/s: "
          f"{verdict(v['first'], lambda x: x >= 0.7 * wire)}")
    fills = spread([f and 100 * f for f in v["fillx"]])
    if rates:
        own = rates["pcie_gbps"] + rates["cpu_scan_gbps"]
        shared = rates["host_shared_gbps"]
        note = "" if rates["gpu_measured"] else " (GPU rates not measured: the defaults)"
        print(f"- this host (calibrate): PCIe {rates['pcie_gbps']:.1f} + host "
              f"{rates['cpu_scan_gbps']:.1f} = {own:.1f} GB/s, both sides at once "
              f"{shared:.1f}{note}")
        print(f"- first round at 70 % or more of this host's {own:.1f} GB/s: "
              f"{verdict(v['own'], lambda x: x >= 0.7)}")
        print(f"- the fill's spilled bytes at {fills} % of this host's "
              f"{shared:.1f} GB/s with both sides at once")
    elif any(x is not None for x in v["own"]):
        print(f"- first round at 70 % or more of its host's PCIe + host: "
              f"{verdict(v['own'], lambda x: x >= 0.7)}")
        print(f"- the fill's spilled bytes at {fills} % of its host's rate with both sides at once")
    print(f"- SSSP at least 5x the CPU: {verdict(v['sssp'], lambda x: x >= 5.0)}")
    print(f"- BFS at least 5x the CPU: {verdict(v['bfs'], lambda x: x >= 5.0)}")
    print(f"- peak device memory within the budget: {verdict(v['over'], lambda x: x)}")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pcie", type=float, default=54.0)
    ap.add_argument("--host", type=float, default=88.0)
    ap.add_argument("--rates", help="rates file of spillgraph calibrate on the log's host")
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    wire = args.pcie + args.host
    given = read_rates(args.rates) if args.rates else None
    combined = {}  # (graph, scale) -> ([paths], the runs' lists over them)
    for path in args.logs:
        m = re.match(r"aims-(.+)-(\d+)\.jsonl$", os.path.basename(path))
        graph, scale = (m.group(1), int(m.group(2))) if m else (os.path.basename(path), 0)
        rmat26 = is_rmat26(graph, scale)
        reps = load(path)
        rates = host_rates(path, given)
        own_wire = rates["pcie_gbps"] + rates["cpu_scan_gbps"] if rates else None
        forest, first, own, fillx, sssp, bfs, over = [], [], [], [], [], [], []
        print(f"## {graph}, scale {scale} ({path})\n")
        print("| rep | forest s (first round ms) | vs gpu | first round GB/s (% of "
              f"{wire:.0f}) | SSSP s (+ index) | x cpu | BFS s | x cpu | peak / budget GB |")
        print("|---|---|---|---|---|---|---|---|---|")
        for rep in sorted(reps):
            r = reps[rep]
            cells, rep_peaks = {}, []
            for algo, kind in BASE.items():
                base = r.get(f"{algo}-{kind}")
                if algo == "mst":  # the shorter unbudgeted forest
                    both = [o for o in (base, r.get("mst-inplace")) if o]
                    base = min(both, key=secs) if both else None
                runs = [o for k, o in r.items() if k.startswith(algo + "-") and
                        not k.endswith(("-gpu", "-cpu", "-inplace"))]
                for o in runs:
                    if o is None:
                        cells[algo] = "failed"
                        continue
                    if o["backend"] == "cpu":  # no GPU: fell back, not an aim's run
                        cells[algo] = "cpu fallback"
                        continue
                    d = o.get("device", {})
                    if d.get("budget") and d.get("peak_bytes") is not None:
                        rep_peaks.append(f'{d["peak_bytes"] / 1e9:.2f} / {d["budget"] / 1e9:.2f}')
                        over.append(d["peak_bytes"] <= d["budget"])
                    if algo == "mst":
                        t = o["seconds"]["compute"]
                        ratio = t / secs(base) if base else None
                        fr = o.get("counters", {}).get("first_round_us")
                        spilled = spilled_bytes(o)
                        rate = spilled / (fr * 1e3) if fr and spilled else None
                        c = o.get("counters", {})
                        fill_us = max(c.get("gpu_first_us", 0), c.get("cpu_first_us", 0))
                        fill = spilled / (fill_us * 1e3) if fill_us and spilled else None
                        forest.append((t, ratio))
                        first.append(rate)
                        own.append(rate / own_wire if rates and rate is not None else None)
                        fillx.append(fill / rates["host_shared_gbps"]
                                     if rates and fill is not None else None)
                        cells["mst"] = f'{t:.3f} ({fr / 1e3:.0f})' if fr else f"{t:.3f}"
                        cells["mstx"] = fmt(ratio, "{:.2f}")
                        cells["rate"] = (f"{rate:.1f} ({100 * rate / wire:.0f} %)"
                                         if rate is not None else "-")
                    else:
                        sec = o["seconds"]
                        x = base["seconds"]["compute"] / secs(o) if base and secs(o) > 0 else None
                        (sssp if algo == "sssp" else bfs).append(x)
                        pre = f' (+ {sec["preprocess"]:.3f})' if sec["preprocess"] else ""
                        cells[algo] = f'{sec["compute"]:.3f}{pre}'
                        cells[algo + "x"] = fmt(x, "{:.1f}")
            print(f'| {rep} | {cells.get("mst", "-")} | {cells.get("mstx", "-")} | '
                  f'{cells.get("rate", "-")} | {cells.get("sssp", "-")} | {cells.get("ssspx", "-")} | '
                  f'{cells.get("bfs", "-")} | {cells.get("bfsx", "-")} | '
                  f'{", ".join(rep_peaks) or "-"} |')
        print()
        v = {"forest": forest, "first": first, "own": own, "fillx": fillx, "sssp": sssp,
             "bfs": bfs, "over": over}
        verdicts(v, rmat26, wire, rates)
        paths, acc = combined.setdefault((graph, scale), ([], {k: [] for k in v}))
        paths.append(path)
        for k in v:
            acc[k].extend(v[k])
    for (graph, scale), (paths, acc) in combined.items():
        if len(paths) < 2:
            continue
        print(f"## {graph}, scale {scale}: all {len(paths)} logs\n")
        verdicts(acc, is_rmat26(graph, scale), wire)


if __name__ == "__main__":
    main()
