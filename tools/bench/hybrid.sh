#!/usr/bin/env bash
# Out-of-core benchmarks for docs/benchmarks.md (issue 6): on R-MAT (and,
# with SSCA2=1, SSCA2; SSCA2_ONLY=1: SSCA2 alone) graphs of the given scale, each of ALGOS (default
# "bfs sssp mst") on the
# 16-thread cpu backend, the gpu backend with no budget, and the hybrid
# backend at each budget of BUDGETS (default "24G 12G 6G"; auto picks
# hybrid when the graph does not fit), plus 6G with pinned host memory.
# ORDER=degree|degree-asc|bfs|bfs-rev runs on a copy of each store renumbered so
# (spillgraph renumber; the output files are named with the order); LISTS=weight
# on a copy with its lists in weight order (renumber --lists weight, ORDER
# default none; files named with -w).
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
budgets=${BUDGETS-24G 12G 6G}
algos=${ALGOS:-bfs sssp mst}
mkdir -p "$work" "$log"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv || true

run() { # label, args...
  local label=$1
  shift
  echo "# $label"
  timeout "${RUN_TIMEOUT:-300}" "$@" --json --quiet || echo "{\"failed\":\"$label\"}"
}

kinds=(rmat)
[ "${SSCA2:-0}" = 1 ] && kinds+=(ssca2)
[ "${SSCA2_ONLY:-0}" = 1 ] && kinds=(ssca2)
for k in "${kinds[@]}"; do
  store=$work/$k$s.sg
  [ -d "$store" ] || /usr/bin/time -f "gen $k $s: %e s" $sg gen "$k" --scale "$s" -o "$store" --quiet
  out=$log/hybrid-$k-$s.jsonl
  if [ -n "${ORDER:-}" ] || [ "${LISTS:-id}" = weight ]; then
    ord=${ORDER:-none}
    tag=$ord
    [ "${LISTS:-id}" = weight ] && tag=$ord-w
    [ -d "$work/$k$s-$tag.sg" ] ||
      $sg renumber "$store" -o "$work/$k$s-$tag.sg" --order "$ord" --lists "${LISTS:-id}" \
        --threads "$threads"
    store=$work/$k$s-$tag.sg
    out=$log/hybrid-$k-$s-$tag.jsonl
  fi
  : > "$out"
  for a in $algos; do
    src=(--source random:1)
    [ "$a" = mst ] && src=()
    {
      run "$a-cpu" $sg $a "$store" "${src[@]}" --backend cpu --threads "$threads"
      run "$a-gpu" $sg $a "$store" "${src[@]}" --backend gpu
      for b in $budgets; do
        run "$a-$b" $sg $a "$store" "${src[@]}" --device-mem "$b"
      done
      [ -n "$budgets" ] && run "$a-6G-pinned" $sg $a "$store" "${src[@]}" --device-mem 6G --host-mem pinned
    } | tee -a "$out"
  done
done
