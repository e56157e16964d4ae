#!/usr/bin/env bash
# Out-of-core benchmarks for docs/benchmarks.md (issue 6): on R-MAT (and,
# with SSCA2=1, SSCA2) graphs of the given scale, bfs and sssp on the
# 16-thread cpu backend, the gpu backend with no budget, and the hybrid
# backend at each budget of BUDGETS (default "24G 12G 6G"; auto picks
# hybrid when the graph does not fit), plus 6G with pinned host memory.
# Run from the repository root after building into build/.
# Usage: tools/bench/hybrid.sh WORKDIR LOGDIR SCALE
# Output: LOGDIR/hybrid-KIND-SCALE.jsonl, one JSON object per run, each
# prefixed by a line "# label"; summarise with tools/bench/hybrid_table.py.
set -euo pipefail
work=${1:?WORKDIR}
log=${2:?LOGDIR}
s=${3:?SCALE}
sg=./build/tools/spillgraph
threads=${THREADS:-16}
budgets=${BUDGETS:-24G 12G 6G}
mkdir -p "$work" "$log"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv || true

run() { # label, args...
  local label=$1
  shift
  echo "# $label"
  "$@" --json --quiet || echo "{\"failed\":\"$label\"}"
}

kinds=(rmat)
[ "${SSCA2:-0}" = 1 ] && kinds+=(ssca2)
for k in "${kinds[@]}"; do
  store=$work/$k$s.sg
  [ -d "$store" ] || /usr/bin/time -f "gen $k $s: %e s" $sg gen "$k" --scale "$s" -o "$store" --quiet
  out=$log/hybrid-$k-$s.jsonl
  : > "$out"
  for a in bfs sssp; do
    {
      run "$a-cpu" $sg $a "$store" --source random:1 --backend cpu --threads "$threads"
      run "$a-gpu" $sg $a "$store" --source random:1 --backend gpu
      for b in $budgets; do
        run "$a-$b" $sg $a "$store" --source random:1 --device-mem "$b"
      done
      run "$a-6G-pinned" $sg $a "$store" --source random:1 --device-mem 6G --host-mem pinned
    } | tee -a "$out"
  done
done
