#!/usr/bin/env bash
# End-to-end tests of `spillgraph plan`: the plan for each algorithm on a
# small store at budgets from "all spilled" to "all on the device", its JSON
# keys and invariants (device bytes within the budget, splits, kinds), the
# rates file (given, cached, bad), exit codes and messages. Needs no GPU
# (--device-free makes the device the same everywhere).
# Usage: bash tests/test_cli_plan.sh PATH-TO-SPILLGRAPH
set -u

. "$(dirname "$0")/cli_lib.sh"
cli_setup cli_plan "$@"

# plan_check NAME BUDGET ALGO: ./out is a plan whose device bytes (working
# arrays included) stay within BUDGET, with consistent bytes and kinds.
plan_check() {
    if [ $HAVE_PY -eq 0 ]; then pass "$1 (python3 absent: not parsed)"; return; fi
    if python3 - "$2" "$3" <<'PY' 2>err.py; then pass "$1"; else fail "$1 ($(cat err.py))"; fi
import json, sys
budget, algo = int(sys.argv[1]), sys.argv[2]
o = json.load(open("out"))
assert o["algo"] == algo, o["algo"]
dev = o["work_bytes"] + sum(a["device_bytes"] for a in o["arrays"])
assert dev <= budget, (dev, budget)
n, m = o["n_vertices"], o["n_edges"]
# the forest's weights in 24 bits where mst loads them so (3 bytes an edge)
bits = (None,) if algo == "bfs" else (24, 32) if algo == "mst" else (32,)
assert o.get("weight_bits") in bits, o
total = {"X": 8 * (n + 1), "A": 4 * m, "W": 0 if algo == "bfs" else o["weight_bits"] // 8 * m}
for a in o["arrays"]:
    assert a["device_bytes"] + a["host_bytes"] == total[a["array"]], a
    assert (a["host_bytes"] == 0) == (a["spill"] == "none"), a
    assert 0 <= a["split"] <= n, a
p = o["predicted"]
assert abs(max(p["device_s"] + p["gpu_host_s"], p["cpu_s"], p["shared_s"]) - p["pass_s"]) < 1e-12, p
assert abs(p["passes"] * p["pass_s"] + p.get("refill_s", 0) + p["rounds_s"] + p["index_s"] + p["result_s"] + p.get("steps_s", 0) - p["total_s"]) <= 1e-6 * p["total_s"], p
# the forest's refills: in place (whole lists) only, not over the heads
assert ("refill_s" in p) == (algo == "mst"), p
inplace = algo == "mst" and not p["forest_heads"]
assert (p.get("refill_s", 0) > 0) == inplace and (p.get("refill_passes", 0) > 0) == inplace, p
assert ("steps_s" in p) == (algo != "mst"), p
assert (p["result_s"] > 0) == (algo != "mst"), p
assert (p["rounds_s"] > 0) == (algo == "mst"), p
spilled = sum(a["host_bytes"] for a in o["arrays"])
assert (p["index_s"] > 0) == (algo == "sssp" and spilled > 0), p
assert 0 <= o["cpu_share"] <= 1
if algo == "sssp":
    assert o["arrays"][1]["split"] == o["arrays"][2]["split"]
PY
}

expect 0 "gen a small store" gen rmat --scale 14 -o g.sg --quiet
# 64 split points keep each call short (a point decodes up to two X blocks);
# one call below uses the default 1024.
FREE="--device-free=8G --points 64"
for algo in mst sssp bfs; do
    for b in 2M 3M 4M 6M 8M 1G; do
        expect 0 "$algo at $b" plan g.sg --algo $algo --device-mem $b $FREE --json
        case $b in *G) unit=1073741824 ;; *) unit=1048576 ;; esac
        bytes=$(( ${b%?} * unit ))
        plan_check "$algo at $b: within the budget, consistent" $bytes $algo
    done
    expect 0 "$algo text" plan g.sg --algo $algo --device-mem 3M $FREE
    grep_in out "plan for $algo on g.sg" "$algo text: title"
    grep_in out "predicted" "$algo text: prediction"
done
expect 0 "default points" plan g.sg --algo mst --device-mem 3M --device-free=8G --json
plan_check "default points: within the budget, consistent" $((3 * 1048576)) mst
expect 0 "all fits" plan g.sg --algo sssp --device-mem 1G $FREE
grep_in out "host range none: the graph fits the budget" "all fits: said"
expect 0 "spilled" plan g.sg --algo bfs --device-mem 600K $FREE
grep_in out "the GPU reads all of it over PCIe (bfs has no CPU share)" "spilled: host range shown"
grep_in out "managed" "spilled: managed under the cap"
expect 0 "no managed room" plan g.sg --algo bfs --device-mem 600K --device-free 700K --points 64
grep_in out "pinned" "no managed room: pinned"
grep_in out "defaults (the H100 host" "rates: defaults named"
# --host-mem: the run's memory kind decides the spill kind
expect 0 "host-mem pinned" plan g.sg --algo bfs --device-mem 600K $FREE --host-mem pinned --json
grep_in out '"host_mem":"pinned"' "host-mem pinned: reported"
grep_in out '"spill":"pinned"' "host-mem pinned: spilled to pinned memory"
plan_check "host-mem pinned: within the budget, consistent" $((600 * 1024)) bfs
expect 0 "host-mem plain" plan g.sg --algo sssp --device-mem 3M $FREE --host-mem plain
grep_in out "host memory pinned (--host-mem plain)" "host-mem plain: planned as pinned in place"
grep_in out "each further search (--searches, the index kept)" "sssp spilled: the searches after the first"
expect 0 "host-mem managed" plan g.sg --algo bfs --device-mem 600K $FREE --host-mem managed --json
grep_in out '"spill":"managed"' "host-mem managed: spilled to managed memory"
expect 1 "host-mem managed, no room" plan g.sg --algo bfs --device-mem 600K --device-free 700K --points 64 --host-mem managed
grep_in err "more managed memory than GPU 0 can take" "host-mem managed, no room: refused as a run refuses it"
# lists in weight order: the forest reads their heads on R-MAT (hubs), the
# GPU alone; on id order whole lists
expect 0 "forest by id" plan g.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"forest_heads":false' "forest by id: whole lists"
grep_in out '"forest_spec":false' "forest by id: no speculative contraction on a graph with hubs"
grep_in out '"spill":"pinned"' "forest by id: the spilled lists pinned (auto, for the forest)"
if grep -qF '"spill":"managed"' out; then
    fail "forest by id: nothing managed"
else
    pass "forest by id: nothing managed"
fi
grep_in out '"weight_bits":32' "forest by id: W in 32 bits (24 only with the switch on)"
export SPILLGRAPH_GPU_ENABLE=narrow-weights
expect 0 "forest, narrow-weights on" plan g.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"weight_bits":24' "forest, narrow-weights on: W in 24 bits"
plan_check "forest, narrow-weights on: within the budget, consistent" $((3 * 1048576)) mst
expect 0 "forest, text" plan g.sg --algo mst --device-mem 3M $FREE
grep_in out "weights    in 24 bits, 3 bytes an edge, pinned" "forest, text: 24-bit weights said"
grep_in out "host memory pinned (auto: the forest streams" "forest, text: pinned memory said"
# a graph without hubs whose lists spill: the speculative contraction's model
expect 0 "gen ssca2" gen ssca2 --scale 14 -o s.sg --quiet
expect 0 "forest without hubs" plan s.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"forest_spec":true' "forest without hubs: the speculative contraction modelled"
plan_check "forest without hubs: within the budget, consistent" $((3 * 1048576)) mst
refill_s() { sed -n 's/.*"refill_s":\([^,}]*\).*/\1/p' out; }
r_defer=$(refill_s)
SPILLGRAPH_GPU_DISABLE=defer-weights expect 0 "forest without hubs, defer-weights disabled" plan s.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"forest_spec":true' "forest without hubs, defer-weights disabled: the contraction still modelled"
r_plain=$(refill_s)
if [ -n "$r_defer" ] && awk -v a="$r_defer" -v b="$r_plain" 'BEGIN { exit !(b > a) }'; then
    pass "forest without hubs, defer-weights disabled: a slower gather ($r_plain s against $r_defer)"
else
    fail "forest without hubs, defer-weights disabled: gather $r_plain s, deferred $r_defer s"
fi
expect 0 "forest without hubs, text" plan s.sg --algo mst --device-mem 3M $FREE
grep_in out "and the speculative gather" "forest without hubs, text: the gather said"
for off in spec-contract prepare prepare-pin; do
    SPILLGRAPH_GPU_DISABLE=$off expect 0 "forest without hubs, $off disabled" plan s.sg --algo mst --device-mem 3M $FREE --json
    grep_in out '"forest_spec":false' "forest without hubs, $off disabled: no speculative contraction modelled"
done
expect 0 "forest, managed" plan g.sg --algo mst --device-mem 3M $FREE --host-mem managed --json
grep_in out '"weight_bits":32' "forest, managed: W in 32 bits"
SPILLGRAPH_GPU_DISABLE=narrow-weights expect 0 "forest, narrow-weights off" plan g.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"weight_bits":32' "forest, narrow-weights off: W in 32 bits"
unset SPILLGRAPH_GPU_ENABLE
expect 0 "renumber --lists weight" renumber g.sg -o gw.sg --order none --lists weight --quiet
expect 0 "forest by weight" plan gw.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"forest_heads":true' "forest by weight: the heads"
grep_in out '"weight_bits":32' "forest by weight: W in 32 bits (the heads are read as such)"
plan_check "forest by weight: within the budget, consistent" $((3 * 1048576)) mst
expect 0 "forest by weight, text" plan gw.sg --algo mst --device-mem 3M $FREE
grep_in out "in weight order: the forest reads their heads" "forest by weight, text: said"
grep_in out "the GPU reads all of it over PCIe" "forest by weight, text: no CPU share"
# the renumbering hint: R-MAT has hubs; spilled lists in the generator's
# order get it, the same store in ascending degree order does not, nor a
# graph that fits, nor the forest over the heads of weight-ordered lists
# (budgets that spill A: BFS loads no W)
hint_budget() { case $1 in bfs) echo 600K ;; *) echo 3M ;; esac; }
hint_bytes() { case $1 in bfs) echo $((600 * 1024)) ;; *) echo $((3 * 1048576)) ;; esac; }
for algo in mst sssp bfs; do
    b=$(hint_budget $algo)
    expect 0 "hint, $algo" plan g.sg --algo $algo --device-mem $b $FREE
    grep_in out "spillgraph renumber g.sg -o COPY --order degree-asc" "hint, $algo: the command"
    expect 0 "hint, $algo, JSON" plan g.sg --algo $algo --device-mem $b $FREE --json
    grep_in out '"hint":"renumber --order degree-asc"' "hint, $algo, JSON: given"
done
expect 0 "renumber --order degree-asc" renumber g.sg -o ga.sg --order degree-asc --quiet
for algo in mst sssp bfs; do
    b=$(hint_budget $algo)
    expect 0 "no hint in degree order, $algo" plan ga.sg --algo $algo --device-mem $b $FREE --json
    grep_in out '"hint":null' "no hint in degree order, $algo: null"
    plan_check "degree order, $algo: within the budget, consistent" $(hint_bytes $algo) $algo
done
expect 0 "no hint in core" plan g.sg --algo sssp --device-mem 1G $FREE --json
grep_in out '"hint":null' "no hint in core: null"
expect 0 "no hint on the heads" plan gw.sg --algo mst --device-mem 3M $FREE --json
grep_in out '"hint":null' "no hint on the heads: null"
expect 0 "no hint in degree order, text" plan ga.sg --algo mst --device-mem 3M $FREE
if grep -qF "hint" out; then fail "no hint in degree order, text: a hint shown"; else pass "no hint in degree order, text: none"; fi
expect 2 "host-mem bad kind" plan g.sg --algo bfs --host-mem fast
grep_in err "--host-mem: unknown kind 'fast'" "host-mem bad kind: said"

# Rates: a file, the cache, bad files.
printf '# slow PCIe\nmanaged_rand_gbps 0.001\nzc_rand_gbps 0.001\npcie_gbps 0.001\n' >slow.rates
expect 0 "rates file" plan g.sg --algo mst --device-mem 3M $FREE --rates slow.rates --json
grep_in out '"rates_origin":"slow.rates"' "rates file: named"
grep_in out '"cpu_share":1' "rates file: slow PCIe leaves the host range to the CPU"
expect 0 "rates file, bfs" plan g.sg --algo bfs --device-mem 600K $FREE --rates slow.rates --json
grep_in out '"cpu_share":0' "rates file, bfs: its GPU reads the whole host range all the same"
SPILLGRAPH_RATES=$PWD/slow.rates run plan g.sg --algo bfs --device-mem 600K $FREE
if [ "$RC" -eq 0 ] && grep -qF "$PWD/slow.rates" out; then pass "cached rates used and named"; else fail "cached rates used and named"; fi
if grep -qF "spillgraph calibrate" out; then fail "cached rates: no calibrate hint"; else pass "cached rates: no calibrate hint"; fi
run plan g.sg --algo bfs --device-mem 600K $FREE
if [ "$RC" -eq 0 ] && grep -qF "rates      defaults" out && grep -qF "spillgraph calibrate" out; then
    pass "no cache: the defaults named, calibrate suggested"
else
    fail "no cache: the defaults named, calibrate suggested"
fi
printf 'pcie_gbps 54\nwarp_speed 9\n' >bad.rates
expect 1 "bad rates file" plan g.sg --algo mst --rates bad.rates $FREE
grep_in err "bad.rates:2: unknown key 'warp_speed'" "bad rates file: file and line"
expect 1 "missing rates file" plan g.sg --algo mst --rates nothere.rates $FREE
grep_in err "nothere.rates" "missing rates file: named"

# The memo: a search records its levels (BFS) or rounds (SSSP on a GPU)
# for the store, and the plans then add their latency (src/memo.c).
expect 0 "memo: none yet" plan g.sg --algo bfs --device-mem 600K $FREE
grep_in out "latency    not known: no earlier bfs on this store" "memo: none yet: said"
expect 0 "memo: a search" bfs g.sg --source 1 --backend cpu --json
levels=$(python3 -c 'import json; print(json.load(open("out"))["result"]["max_level"] + 1)' 2>/dev/null || echo "?")
grep_in out '"memo":{"path":"'"$WORK"'/cache/spillgraph/graphs/graph-' "memo: the search names its file"
expect 0 "memo: the plan uses it" plan g.sg --algo bfs --device-mem 600K $FREE --json
grep_in out '"steps":'"$levels"',' "memo: the plan's steps are the search's levels"
plan_check "memo: the plan is consistent" $((600 * 1024)) bfs
expect 0 "memo: text" plan g.sg --algo bfs --device-mem 600K $FREE
grep_in out "latency    $levels levels of an earlier search (source 1, cpu, " "memo: text names the search"
grep_in out "+ latency " "memo: text adds it"
expect 0 "memo: sssp none" plan g.sg --algo sssp --device-mem 3M $FREE
grep_in out "no earlier sssp on this store" "memo: the CPU's SSSP records no rounds"
SPILLGRAPH_MEMO=off run plan g.sg --algo bfs --device-mem 600K $FREE
if [ "$RC" -eq 0 ] && grep -qF "SPILLGRAPH_MEMO=off" out; then pass "memo: off"; else fail "memo: off"; fi
memo=$(ls cache/spillgraph/graphs/graph-* 2>/dev/null | head -1)
printf 'bfs_levels many\n' >"$memo"
expect 1 "memo: a bad file" plan g.sg --algo bfs --device-mem 600K $FREE
grep_in err "$memo:1: bfs_levels: expected a positive count" "memo: a bad file: file and line"
expect 0 "memo: a search beside a bad file" bfs g.sg --source 2 --backend cpu
grep_in err "the plan leaves out the memo" "memo: a search beside a bad file: noted"
grep_in "$memo" "bfs_levels " "memo: the search replaced the bad file"
rm -rf g2.sg && cp -r g.sg g2.sg
expect 0 "memo: a copy of the store" plan g2.sg --algo bfs --device-mem 600K $FREE
grep_in out "no earlier bfs on this store" "memo: a copy of the store has its own"

# calibrate: measures, writes a rates file plan then reads.
expect 0 "calibrate" calibrate --bytes 16M --threads 2 --output cal/r.rates
grep_in cal/r.rates "cpu_scan_gbps" "calibrate: file written"
grep_in out "CPU measured" "calibrate: says what it measured"
expect 0 "plan with calibrated rates" plan g.sg --algo sssp --device-mem 3M $FREE --rates cal/r.rates
grep_in out "cal/r.rates" "plan with calibrated rates: named"
expect 0 "calibrate --json" calibrate --bytes 16M --threads 2 --output cal/r.rates --json
json_ok "calibrate --json: valid"
expect 2 "calibrate: buffer too small" calibrate --bytes 1M
expect 2 "calibrate: stray argument" calibrate extra

# Errors.
expect 2 "no --algo" plan g.sg
grep_in err "missing --algo" "no --algo: said"
expect 2 "bad --algo" plan g.sg --algo dfs
grep_in err "expected mst, sssp or bfs" "bad --algo: said"
expect 2 "no store" plan --algo mst
expect 1 "budget below the working arrays" plan g.sg --algo mst --device-mem 100K $FREE
grep_in err "raise --device-mem" "budget below the working arrays: said"
expect 1 "not a store" plan nothere.sg --algo mst $FREE
grep_in err "nothere.sg" "not a store: named"
expect 0 "help" plan --help
grep_in out "--device-mem SIZE" "help: options"

cli_finish
