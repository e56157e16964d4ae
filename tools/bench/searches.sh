#!/usr/bin/env bash
# Repeated searches for docs/benchmarks.md (issue 6, "SSSP and BFS at least
# 5x the 16-thread CPU"), Graph500's way: the graph loaded once, K searches
# from roots drawn from one seed (spillgraph bfs|sssp --searches K), per
# search times. On R-MAT and SSCA2 graphs of the given scale (generated
# under WORKDIR when absent): BFS with BFS_K searches (default 64) on the
# 16-thread cpu backend and at --device-mem BUDGET (default 6G), PAIRS times
# interleaved (default 2), plus in core; SSSP with SSSP_CPU_K (default 3) on
# the cpu, SSSP_K (default 4) at the budget, 3 in core.
# Run from the repository root after building into build/.
# Usage: tools/bench/searches.sh WORKDIR LOGDIR SCALE
# Output: LOGDIR/searches-GRAPH-ALGO-RUN.json, one JSON object each;
# summarise with tools/bench/searches_table.py LOGDIR/searches-*.json.
set -euo pipefail
work=${1:?WORKDIR}
log=${2:?LOGDIR}
s=${3:?SCALE}
sg=./build/tools/spillgraph
budget=${BUDGET:-6G}
bk=${BFS_K:-64}
mkdir -p "$work" "$log"
for k in rmat ssca2; do
  store=$work/$k$s.sg
  [ -d "$store" ] || $sg gen "$k" --scale "$s" -o "$store" --quiet
done
one() { # graph algo run-label args...
  local g=$1 a=$2 l=$3
  shift 3
  $sg "$a" "$work/$g$s.sg" --source random:1 "$@" --json --quiet >"$log/searches-$g-$a-$l.json"
}
for i in $(seq "${PAIRS:-2}"); do
  one rmat bfs "cpu-$i" --searches "$bk" --backend cpu --threads 16
  one rmat bfs "$budget-$i" --searches "$bk" --device-mem "$budget"
done
one rmat bfs gpu --searches "$bk" --backend gpu
one rmat sssp cpu --searches "${SSSP_CPU_K:-3}" --backend cpu --threads 16
one rmat sssp "$budget" --searches "${SSSP_K:-4}" --device-mem "$budget"
one rmat sssp gpu --searches 3 --backend gpu
one ssca2 bfs cpu --searches $((bk / 4)) --backend cpu --threads 16
one ssca2 bfs "$budget" --searches $((bk / 4)) --device-mem "$budget"
one ssca2 sssp cpu --searches $(( ${SSSP_CPU_K:-3} > 2 ? 2 : ${SSSP_CPU_K:-3} )) --backend cpu --threads 16
one ssca2 sssp "$budget" --searches 3 --device-mem "$budget"
one ssca2 sssp gpu --searches 2 --backend gpu
