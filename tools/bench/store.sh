#!/usr/bin/env bash
# Store benchmarks for docs/benchmarks.md (issue 2): generation time, sizes,
# cold and warm bulk reads. Run from the repository root after building into
# build/. Usage: tools/bench/store.sh SCALE WORKDIR [LOGDIR]
# Cold reads drop the page cache (needs root); warm reads run after a
# buffered pass has cached the store.
set -euo pipefail
scale=${1:-24}
work=${2:-/tmp/sgbench}
log=${3:-.}
sg=./build/tools/spillgraph
mkdir -p "$work" "$log"
store=$work/rmat$scale.sg

echo "== machine"; nproc; free -g | head -2; df -hT "$work" | tail -1
lscpu | grep -E 'Model name|^CPU\(s\)' || true
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }

echo "== gen rmat --scale $scale (16 threads)"
/usr/bin/time -f 'gen: %e s wall, %M KiB max RSS' \
  $sg gen rmat --scale "$scale" -o "$store" --force --json | tee "$log/gen$scale.json"
$sg info "$store" --json > "$log/info$scale.json"
$sg info "$store"

echo "== disk baseline: dd O_DIRECT 1 MiB, one request in flight"
f=$(ls -S "$store"/shard-*.sgs | head -1)
drop; dd if="$f" of=/dev/null bs=1M iflag=direct 2>&1 | tail -1

echo "== cold, O_DIRECT io_uring"
for i in 1 2; do drop; $sg scan "$store" --direct --json; done | tee "$log/cold-direct$scale.json"
echo "== cold, default mode (not cached: buffered io_uring)"
drop; $sg scan "$store" --json | tee "$log/cold-auto$scale.json"
echo "== warm, default mode (cached: decoded from the mappings)"
for k in 1 2 3; do $sg scan "$store" --repeat 5 --json; done | tee "$log/warm-auto$scale.json"
echo "== warm, forced buffered io_uring (copies out of the page cache)"
$sg scan "$store" --uring --repeat 3 --json | tee "$log/warm-uring$scale.json"
echo "== warm, thread scaling (default mode)"
for t in 1 2 4 8 16; do $sg scan "$store" --threads $t --repeat 2 --json; done | tee "$log/warm-threads$scale.json"
echo "== check"
/usr/bin/time -f 'check: %e s' $sg check "$store"
