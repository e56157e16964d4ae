#!/usr/bin/env bash
# Issue 6's aims in one device call: for each graph of GRAPHS (default
# "rmat ssca2"; a name KIND-ORDER, e.g. rmat-degree-asc, runs on a copy of
# the KIND store renumbered with `spillgraph renumber --order ORDER`) at the
# given scale, REPS (default 3) interleaved repetitions of
#   mst   --backend gpu and --backend hybrid (no budget: the GPU forest with
#         its sort, and the in-place forest with every list on the device,
#         which auto runs on a graph that fits)
#                                        mst  --device-mem BUDGET
#   sssp  --backend cpu --threads 16     sssp --device-mem BUDGET
#   bfs   --backend cpu --threads 16     bfs  --device-mem BUDGET
# (BUDGET default 6G; ALGOS default "mst sssp bfs"; searches from
# random:1), so that each budgeted run has its baseline from the same
# repetition on the same host. tools/bench/aims_table.py turns the log into
# the aims' verdicts (forest within 2x of the unbudgeted GPU, the shorter of
# its two forests, and, on R-MAT,
# 0.44 s or less; SSSP and BFS at least 5x the 16-thread CPU; the forest's
# first round over the spilled lists at 70 % or more of PCIe + host memory).
# Run from the repository root after building into build/ (or SG=path/to/spillgraph).
# Usage: tools/bench/aims.sh WORKDIR LOGDIR [SCALE]
# Output: LOGDIR/aims-GRAPH-SCALE.jsonl, one JSON object per run, each
# after a line "# label rep"; a run that fails or times out (RUN_TIMEOUT
# seconds, default 300) is logged as {"failed": "label"}.
# First, `spillgraph calibrate --bytes CAL_BYTES` (default 4G) writes this
# host's rates to LOGDIR/aims.rates, which aims_table.py reads beside the
# logs (the first round against the host's own rates; CALIBRATE=0: none).
# Before the repetitions, one budgeted run of the first algorithm on each
# store, not logged (WARMUP=0: none): the first run after a store is
# written ran its forest's first round 20-40 % slower (docs/benchmarks.md,
# thirty-first session).
set -euo pipefail
work=${1:?WORKDIR}
log=${2:?LOGDIR}
s=${3:-26}
sg=${SG:-./build/tools/spillgraph}
threads=${THREADS:-16}
budget=${BUDGET:-6G}
reps=${REPS:-3}
algos=${ALGOS:-mst sssp bfs}
mkdir -p "$work" "$log"
[ -x "$sg" ] || { echo "aims.sh: $sg not built (meson setup build && ninja -C build)" >&2; exit 2; }
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader || true
if [ "${CALIBRATE:-1}" != 0 ]; then
    $sg calibrate --bytes "${CAL_BYTES:-4G}" --threads "$threads" --output "$log/aims.rates" |
        sed -n '1p;$p' >&2 ||
        echo "aims.sh: calibrate failed; the table gives no verdict against this host's rates" >&2
fi

run() { # label rep args...
  local label=$1 rep=$2
  shift 2
  echo "# $label $rep"
  timeout "${RUN_TIMEOUT:-300}" "$@" --json --quiet || echo "{\"failed\":\"$label\"}"
}

for g in ${GRAPHS:-rmat ssca2}; do
  kind=${g%%-*}
  order=${g#"$kind"}
  order=${order#-}
  case $kind in rmat | ssca2) ;; *) echo "aims.sh: unknown graph kind '$kind' in '$g'" >&2; exit 2 ;; esac
  store=$work/$kind$s.sg
  [ -d "$store" ] || /usr/bin/time -f "gen $kind $s: %e s" $sg gen "$kind" --scale "$s" -o "$store" --quiet
  if [ -n "$order" ]; then
    [ -d "$work/$kind$s-$order.sg" ] ||
      /usr/bin/time -f "renumber $kind $s $order: %e s" \
        $sg renumber "$store" -o "$work/$kind$s-$order.sg" --order "$order" --threads "$threads"
    store=$work/$kind$s-$order.sg
  fi
  out=$log/aims-$g-$s.jsonl
  : > "$out"
  if [ "${WARMUP:-1}" != 0 ]; then
    first=${algos%% *}
    wsrc=(--source random:1)
    [ "$first" = mst ] && wsrc=()
    echo "warm-up: $first at $budget on $store (not logged)" >&2
    timeout "${RUN_TIMEOUT:-300}" $sg "$first" "$store" "${wsrc[@]}" --device-mem "$budget" --json --quiet \
      >/dev/null 2>&1 || echo "warm-up: $first on $store failed (the repetitions go on)" >&2
  fi
  for rep in $(seq 1 "$reps"); do
    for a in $algos; do
      src=(--source random:1)
      bk=cpu
      base=(--threads "$threads")
      if [ "$a" = mst ]; then src=(); bk=gpu; base=(); fi
      run "$a-$bk" "$rep" $sg "$a" "$store" "${src[@]}" --backend "$bk" "${base[@]}"
      [ "$a" = mst ] && run mst-inplace "$rep" $sg mst "$store" --backend hybrid
      run "$a-$budget" "$rep" $sg "$a" "$store" "${src[@]}" --device-mem "$budget"
    done | tee -a "$out"
  done
done
