#!/usr/bin/env python3
"""Summarises tools/bench/hybrid.sh output: per run, the backend, host
memory, splits, kernel and compute time, MTEPS, the plan's predicted time
against the measured one, and the ratio to the unbudgeted gpu run."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_table import rows as runs  # noqa: E402 (JSON lines with "# label" lines)


def main():
    for path in sys.argv[1:]:
        rows = list(runs(path))
        base = {}
        for label, o in rows:
            if label and label.endswith("-gpu") and "seconds" in o:
                base[label.split("-")[0]] = o["seconds"]["compute"]
        print(f"## {path}\n")
        print("| run | backend | host memory | on device (X/A/W) | compute s | kernel ms | MTEPS | predicted s | measured s | vs gpu |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for label, o in rows:
            if "failed" in o:
                print(f"| {label} | failed | | | | | | | | |")
                continue
            c, p, sec = o.get("counters", {}), o.get("plan"), o["seconds"]
            split = ("/".join(str(a["split"]) for a in p["arrays"]) if p
                     else "all" if o["backend"] == "gpu" else "-")
            pred = f'{p["predicted"]["total_s"]:.3f}' if p else ""
            meas = f'{p["measured_s"]:.3f}' if p else ""
            b = base.get(label.split("-")[0])
            ratio = f'{sec["compute"] / b:.2f}' if b else ""
            kern = c.get("kernel_us")
            print(f'| {label} | {o["backend"]} | {o.get("host_mem", "")} | {split} | '
                  f'{sec["compute"]:.3f} | {kern / 1e3 if kern else "":} | {o.get("teps", 0) / 1e6:.0f} | '
                  f'{pred} | {meas} | {ratio} |')
        print()


if __name__ == "__main__":
    main()
