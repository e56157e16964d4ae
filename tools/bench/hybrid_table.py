#!/usr/bin/env python3
"""Summarises tools/bench/hybrid.sh output: per run, the backend, host
memory, splits, compute time (preprocess beside it), kernel time, MTEPS, the
plan's predicted time against the measured one, the bytes that crossed PCIe
(device.pcie_bytes: the graph's device part copied at load, the list
entries the kernels read from host memory, the results copied back) and the
host reads among them (counter host_list_bytes), peak device memory, the
ratio to the unbudgeted gpu run's compute (+ preprocess) and the 16-thread
cpu run's compute over this run's, each on the same graph (the runs
labelled ...-gpu and ...-cpu, the last of each).
Usage: tools/bench/hybrid_table.py LOGDIR/hybrid-rmat-26.jsonl ..."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_table import rows as runs  # noqa: E402 (JSON lines with "# label" lines)


def gb(v):
    return f"{v / 1e9:.2f}" if v is not None else ""


def main():
    for path in sys.argv[1:]:
        rows = list(runs(path))
        gpu, cpu = {}, {}
        # the baselines per graph and algorithm (labels ending -gpu, -cpu)
        for label, o in rows:
            if not label or "seconds" not in o:
                continue
            key = (o["graph"], o["command"])
            if label.endswith("-gpu"):
                gpu[key] = o["seconds"]["compute"] + o["seconds"]["preprocess"]
            if label.endswith("-cpu"):
                cpu[key] = o["seconds"]["compute"]
        print(f"## {path}\n")
        print("| run | backend | host memory | on device (X/A/W) | compute s (+ preprocess) | kernel ms "
              "| MTEPS | predicted s | measured s | PCIe GB | of it host reads GB | peak device GB "
              "| vs gpu | x cpu |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, o in rows:
            if "failed" in o:
                print(f"| {label} | failed |" + " |" * 12)
                continue
            c, p, sec = o.get("counters", {}), o.get("plan"), o["seconds"]
            d = o.get("device", {})
            key = (o["graph"], o["command"])
            split = ("/".join(str(a["split"]) for a in p["arrays"]) if p
                     else "all" if o["backend"] == "gpu" else "-")
            pred = f'{p["predicted"]["total_s"]:.3f}' if p else ""
            meas = f'{p["measured_s"]:.3f}' if p else ""
            comp = f'{sec["compute"]:.3f}' + (f' (+ {sec["preprocess"]:.3f})' if sec["preprocess"] else "")
            b = gpu.get(key)
            vs = (f'{(sec["compute"] + sec["preprocess"]) / b:.2f}'
                  if b and o["backend"] != "cpu" else "")
            xc = (f'{cpu[key] / sec["compute"]:.1f}'
                  if key in cpu and sec["compute"] > 0 and o["backend"] != "cpu" else "")
            kern = c.get("kernel_us")
            kern = f"{kern / 1e3:.1f}" if kern else ""
            print(f'| {label} | {o["backend"]} | {o.get("host_mem", "")} | {split} | {comp} | {kern} | '
                  f'{o.get("teps", 0) / 1e6:.0f} | {pred} | {meas} | {gb(d.get("pcie_bytes"))} | '
                  f'{gb(c.get("host_list_bytes"))} | {gb(d.get("peak_bytes"))} | {vs} | {xc} |')
        print()


if __name__ == "__main__":
    main()
