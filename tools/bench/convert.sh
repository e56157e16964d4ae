#!/usr/bin/env bash
# Conversion and generator benchmarks for docs/benchmarks.md (issue 3):
# convert throughput from .wel text and from bin32 for an R-MAT edge list,
# peak RSS with --mem 4G on an input larger than 4 GiB, gen ssca2 time.
# Run from the repository root after building into build/.
# Usage: tools/bench/convert.sh SCALE WORKDIR [LOGDIR]
set -euo pipefail
scale=${1:-24}
work=${2:-/tmp/sgbench}
log=${3:-.}
sg=./build/tools/spillgraph
mkdir -p "$work" "$log"
store=$work/rmat$scale.sg

echo "== machine"; nproc; free -g | head -2; df -hT "$work" | tail -1
[ -d "$store" ] || $sg gen rmat --scale "$scale" -o "$store" --quiet
echo "== inputs"
/usr/bin/time -f 'export wel: %e s' $sg export "$store" --format wel -o "$work/rmat$scale.wel" --force
/usr/bin/time -f 'export bin32: %e s' $sg export "$store" --format bin32 -o "$work/rmat$scale.bin32" --force
ls -l "$work/rmat$scale.wel" "$work/rmat$scale.bin32"

echo "== convert wel (default memory bound)"
/usr/bin/time -f 'convert wel: %e s wall, %M KiB max RSS' \
  $sg convert "$work/rmat$scale.wel" -o "$work/c-wel.sg" --force --json | tee "$log/convert-wel$scale.json"
echo "== convert bin32 (default memory bound)"
/usr/bin/time -f 'convert bin32: %e s wall, %M KiB max RSS' \
  $sg convert "$work/rmat$scale.bin32" --format bin32 -o "$work/c-bin.sg" --force --json | tee "$log/convert-bin$scale.json"
echo "== convert wel --mem 4G (input larger than 4 GiB)"
/usr/bin/time -f 'convert wel --mem 4G: %e s wall, %M KiB max RSS' \
  $sg convert "$work/rmat$scale.wel" -o "$work/c-wel4.sg" --mem 4G --force --json | tee "$log/convert-wel-mem4$scale.json"
echo "== the converted stores hold the generated graph"
for c in c-wel c-bin c-wel4; do
  $sg export "$work/$c.sg" --format bin32 -o "$work/$c.bin32" --force
  cmp "$work/$c.bin32" "$work/rmat$scale.bin32" && echo "$c: same edges as the generated store"
  rm -f "$work/$c.bin32"
done
rm -rf "$work/c-wel.sg" "$work/c-bin.sg" "$work/c-wel4.sg"

echo "== gen ssca2 --scale $scale"
/usr/bin/time -f 'gen ssca2: %e s wall, %M KiB max RSS' \
  $sg gen ssca2 --scale "$scale" -o "$work/ssca2_$scale.sg" --force --json | tee "$log/ssca2-$scale.json"
$sg info "$work/ssca2_$scale.sg" | head -12
