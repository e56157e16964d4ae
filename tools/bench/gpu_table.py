#!/usr/bin/env python3
"""Summarises tools/bench/gpu.sh output (LOGDIR/gpu-SCALE.jsonl) as a
Markdown table: per variant the median compute time, the kernels' own time
(counter kernel_us), preprocessing, MTEPS (directed edges stored / compute
time), peak device memory and the graph upload rate.
Usage: tools/bench/gpu_table.py LOGDIR/gpu-24.jsonl ..."""
import json
import statistics
import sys


def rows(path):
    label = None
    for line in open(path):
        line = line.strip()
        if line.startswith("# "):
            label = line[2:]
        elif line.startswith("{"):
            yield label, json.loads(line)


def main():
    for path in sys.argv[1:]:
        groups = {}
        for label, obj in rows(path):
            groups.setdefault(label, []).append(obj)
        print(f"\n{path}\n")
        print("| variant | runs | compute ms | kernel ms | preprocess ms | MTEPS | peak GiB | upload GB/s | notes |")
        print("|---|---|---|---|---|---|---|---|---|")
        for label, objs in groups.items():
            ok = [o for o in objs if "failed" not in o]
            if not ok:
                print(f"| {label} | 0 | failed | | | | | | |")
                continue
            med = lambda f: statistics.median(f(o) for o in ok)
            comp = med(lambda o: o["seconds"]["compute"]) * 1e3
            kern = med(lambda o: o.get("counters", {}).get("kernel_us", 0)) / 1e3
            pre = med(lambda o: o["seconds"]["preprocess"]) * 1e3
            m = ok[0]["n_edges"]
            mteps = m / (comp / 1e3) / 1e6 if comp > 0 else float("nan")
            dev = ok[0].get("device", {})
            peak = dev.get("peak_bytes", 0) / 2**30
            up = dev.get("upload_gbps", 0)
            c = ok[0].get("counters", {})
            keys = ["iterations", "buckets", "relaxations", "delta", "top_down_steps",
                    "bottom_up_steps", "contractions"]
            notes = ", ".join(f"{k} {c[k]}" for k in keys if k in c)
            print(f"| {label} | {len(ok)} | {comp:.2f} | {kern:.2f} | {pre:.1f} | {mteps:.0f} | "
                  f"{peak:.2f} | {up:.1f} | {notes} |")


if __name__ == "__main__":
    main()
