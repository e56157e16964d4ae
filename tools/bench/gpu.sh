#!/usr/bin/env bash
# GPU kernel benchmarks for docs/benchmarks.md (issue 5): on R-MAT graphs of
# the given scales, each algorithm and method on the gpu backend (three
# runs, JSON lines), the same with each optimisation switched off
# (SPILLGRAPH_GPU_DISABLE), the 16-thread cpu backend once for the ratio,
# and --verify runs on the smallest scale. Run from the repository root
# after building into build/.
# Usage: tools/bench/gpu.sh WORKDIR LOGDIR SCALE...
# Output: LOGDIR/gpu-SCALE.jsonl, one JSON object per run, each prefixed by
# a line "# label" naming the variant.
set -euo pipefail
work=${1:?WORKDIR}
log=${2:?LOGDIR}
shift 2
scales=("$@")
sg=./build/tools/spillgraph
threads=${THREADS:-16}
mkdir -p "$work" "$log"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv || true

run() { # label, args...
  local label=$1
  shift
  echo "# $label"
  "$@" --json --quiet || echo "{\"failed\":\"$label\"}"
}

for s in "${scales[@]}"; do
  store=$work/rmat$s.sg
  [ -d "$store" ] || /usr/bin/time -f "gen rmat $s: %e s" $sg gen rmat --scale "$s" -o "$store" --quiet
done

first=${scales[0]}
echo "== --verify on scale $first (gpu backend against the oracles)"
{
  run verify-mst $sg mst "$work/rmat$first.sg" --backend gpu --verify
  run verify-sssp $sg sssp "$work/rmat$first.sg" --backend gpu --source random:1 --verify --parents "$work/p.bin" --force
  run verify-sssp-bf $sg sssp "$work/rmat$first.sg" --backend gpu --method bellman-ford --source random:1 --verify
  run verify-bfs $sg bfs "$work/rmat$first.sg" --backend gpu --source random:1 --verify --parents "$work/p.bin" --force
} | tee "$log/gpu-verify.jsonl"

for s in "${scales[@]}"; do
  store=$work/rmat$s.sg
  out=$log/gpu-$s.jsonl
  : > "$out"
  echo "== scale $s"
  {
    for i in 1 2 3; do run mst $sg mst "$store" --backend gpu; done
    for i in 1 2 3; do run sssp $sg sssp "$store" --backend gpu --source "random:$i"; done
    run sssp-bf $sg sssp "$store" --backend gpu --method bellman-ford --source random:1
    for i in 1 2 3 4 5; do run bfs $sg bfs "$store" --backend gpu --source "random:$i"; done
    for d in 16384 32768 65536 131072 262144; do
      run "sssp-delta-$d" $sg sssp "$store" --backend gpu --source random:1 --delta "$d"
    done
    for off in ${MST_OFF:-first-probe contract unsorted-trees}; do
      for i in 1 2; do SPILLGRAPH_GPU_DISABLE=$off run "mst-no-$off" $sg mst "$store" --backend gpu; done
    done
    for off in ${SSSP_OFF:-bucket-balance prefilter far-window defer-heavy light-index done-bits}; do
      for i in 1 2; do SPILLGRAPH_GPU_DISABLE=$off run "sssp-no-$off" $sg sssp "$store" --backend gpu --source random:1; done
    done
    for off in bf-ldg bf-segments; do
      SPILLGRAPH_GPU_DISABLE=$off run "sssp-bf-no-$off" $sg sssp "$store" --backend gpu --method bellman-ford --source random:1
    done
    for off in ${BFS_OFF:-bottom-up block-queue hub-queue}; do
      for i in 1 2 3; do SPILLGRAPH_GPU_DISABLE=$off run "bfs-no-$off" $sg bfs "$store" --backend gpu --source "random:$i"; done
    done
    run cpu-mst $sg mst "$store" --backend cpu --threads "$threads"
    run cpu-sssp $sg sssp "$store" --backend cpu --threads "$threads" --source random:1
    run cpu-bfs $sg bfs "$store" --backend cpu --threads "$threads" --source random:1
  } | tee "$out"
done

if [ -n "${SSCA2_SCALE:-}" ]; then
  store=$work/ssca2_$SSCA2_SCALE.sg
  [ -d "$store" ] || /usr/bin/time -f "gen ssca2 $SSCA2_SCALE: %e s" $sg gen ssca2 --scale "$SSCA2_SCALE" -o "$store" --quiet
  {
    run mst $sg mst "$store" --backend gpu
    run sssp $sg sssp "$store" --backend gpu --source random:1
    run sssp-bf $sg sssp "$store" --backend gpu --method bellman-ford --source random:1
    run bfs $sg bfs "$store" --backend gpu --source random:1
  } | tee "$log/gpu-ssca2-$SSCA2_SCALE.jsonl"
fi
