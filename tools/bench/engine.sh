#!/usr/bin/env bash
# CPU engine benchmarks for docs/benchmarks.md (issue 4): mst, sssp and bfs
# compute times on an R-MAT graph with 16 threads, plus --verify runs on a
# smaller graph. Run from the repository root after building into build/.
# Usage: tools/bench/engine.sh SCALE WORKDIR [LOGDIR] [VERIFY_SCALE]
set -euo pipefail
scale=${1:-24}
work=${2:-/tmp/sgbench}
log=${3:-.}
vscale=${4:-20}
sg=./build/tools/spillgraph
threads=${THREADS:-16}
mkdir -p "$work" "$log"
store=$work/rmat$scale.sg
vstore=$work/rmat$vscale.sg

echo "== machine"; nproc; free -g | head -2
lscpu | grep -E 'Model name|^CPU\(s\)' || true

for s in "$scale" "$vscale"; do
  if [ ! -d "$work/rmat$s.sg" ]; then
    /usr/bin/time -f "gen $s: %e s" $sg gen rmat --scale "$s" -o "$work/rmat$s.sg" --quiet
  fi
done
$sg info "$store" | head -12

echo "== --verify on scale $vscale (every algorithm against its oracle)"
$sg mst "$vstore" --verify --threads "$threads" --json | tee "$log/verify-mst.json"
$sg sssp "$vstore" --source random:1 --verify --parents "$work/p.bin" --force --threads "$threads" --json | tee "$log/verify-sssp.json"
$sg bfs "$vstore" --source random:1 --verify --parents "$work/p.bin" --force --threads "$threads" --json | tee "$log/verify-bfs.json"
$sg cluster "$vstore" --k 1000000 -o "$work/labels.bin" --force --threads "$threads" --json | tee "$log/cluster.json"

echo "== scale $scale, $threads threads, 3 runs each"
for i in 1 2 3; do $sg mst "$store" --threads "$threads" --json; done | tee "$log/mst$scale.json"
for i in 1 2 3; do $sg sssp "$store" --source "random:$i" --threads "$threads" --json; done | tee "$log/sssp$scale.json"
for i in 1 2 3 4 5; do $sg bfs "$store" --source "random:$i" --threads "$threads" --json; done | tee "$log/bfs$scale.json"
echo "== sssp delta sweep (source random:1)"
for d in 256 512 1024 2048 4096; do
  $sg sssp "$store" --source random:1 --delta "$d" --threads "$threads" --json
done | tee "$log/sssp-delta$scale.json"
echo "== SSCA2 scale $scale (the other graph family of the reference papers)"
sstore=$work/ssca2_$scale.sg
[ -d "$sstore" ] || /usr/bin/time -f "gen ssca2 $scale: %e s" $sg gen ssca2 --scale "$scale" -o "$sstore" --quiet
$sg mst "$sstore" --threads "$threads" --json | tee "$log/mst-ssca2-$scale.json"
$sg sssp "$sstore" --source random:1 --threads "$threads" --json | tee "$log/sssp-ssca2-$scale.json"
$sg bfs "$sstore" --source random:1 --threads "$threads" --json | tee "$log/bfs-ssca2-$scale.json"
