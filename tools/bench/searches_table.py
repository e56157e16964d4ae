#!/usr/bin/env python3
"""Summarises tools/bench/searches.sh's JSON files (spillgraph bfs|sssp
--searches K --json): per run the backend, the first search's compute and
preprocess seconds, the compute seconds' median, mean, min and max over the
searches, the most preprocessing a later search took, the mean with every
search's preprocessing added (the first one's build spread over the K
searches), and the cpu runs' mean compute over each of the two means (the
"x cpu" columns).
Usage: searches_table.py FILE..."""
import json
import os
import sys


def load(path):
    with open(path) as f:
        o = json.load(f)
    e = o["searches"]["each"] if "searches" in o else [
        {"compute": o["seconds"]["compute"], "preprocess": o["seconds"]["preprocess"]}]
    name = os.path.basename(path)[len("searches-"):-len(".json")]
    graph, algo, run = name.split("-", 2)
    return graph, algo, run, o, e


def main(paths):
    rows = [load(p) for p in sorted(paths)]
    cpu = {}
    for g, a, r, o, e in rows:
        if o["backend"] == "cpu":
            cpu.setdefault((g, a), []).append(sum(x["compute"] for x in e) / len(e))
    print("| graph | algo | run | backend | searches | first s (+ preprocess) | median s | mean s "
          "| min s | max s | later preprocess s | mean s with preprocessing | x cpu (mean) "
          "| x cpu (with preprocessing) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for g, a, r, o, e in rows:
        c = sorted(x["compute"] for x in e)
        k = len(c)
        med = c[k // 2] if k % 2 else (c[k // 2 - 1] + c[k // 2]) / 2
        mean = sum(c) / k
        later = max([x["preprocess"] for x in e[1:]] or [0.0])
        withp = mean + sum(x["preprocess"] for x in e) / k
        base = cpu.get((g, a))
        cm = sum(base) / len(base) if base and o["backend"] != "cpu" else None
        x1 = "%.1f" % (cm / mean) if cm else ""
        x2 = "%.1f" % (cm / withp) if cm else ""
        print("| %s | %s | %s | %s | %d | %.4f (+ %.3f) | %.4f | %.4f | %.4f | %.4f | %.3f | %.4f "
              "| %s | %s |" % (g, a, r, o["backend"], k, e[0]["compute"], e[0]["preprocess"], med,
                               mean, c[0], c[-1], later, withp, x1, x2))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
