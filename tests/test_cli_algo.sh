#!/usr/bin/env bash
# End-to-end tests of the algorithm commands (mst, sssp, bfs, cluster):
# results checked against the oracles (--verify), result files in text and
# binary, --json keys, exit codes and messages, edge cases (a bad source, no
# edges, one vertex, no vertices, f32 weights), backends and device options
# (--backend, --device, --device-mem, sssp --method).
# Needs no GPU: on a machine with one, the default backend (auto) is gpu
# (hybrid for mst: the forest in place) and the checks that expect a refusal
# of --backend gpu are replaced by a run.
# Usage: bash tests/test_cli_algo.sh PATH-TO-SPILLGRAPH
# Works in a fresh directory under the current one (kept on failure). The
# last line is "N passed, N failed"; the exit status is non-zero on any
# failure.
set -u

. "$(dirname "$0")/cli_lib.sh"
cli_setup cli_algo "$@"

# lines_are FILE N NAME: FILE has N lines.
lines_are() {
    local got
    got=$(wc -l <"$1" 2>/dev/null)
    if [ "$got" = "$2" ]; then pass "$3"; else fail "$3 ($1 has '$got' lines, want $2)"; fi
}

# json_keys NAME KEY...: ./out is one JSON object with every KEY (a.b for
# nested keys); without python3, each "KEY": must appear.
json_keys() {
    local name=$1
    shift
    if [ $HAVE_PY -eq 1 ]; then
        if python3 -c '
import json, sys
o = json.load(open("out"))
for k in sys.argv[1:]:
    v = o
    for part in k.split("."):
        v = v[part]
' "$@" 2>/dev/null; then pass "$name"; else fail "$name (not JSON, or a key of '$*' missing)"; fi
    else
        local k
        for k in "$@"; do
            if ! grep -qF "\"${k##*.}\":" out; then fail "$name (no key $k)"; return; fi
        done
        pass "$name (python3 absent: keys grepped)"
    fi
}

# json_get KEY: the value at a dotted KEY of ./out (python3), or the first
# "LAST-PART": value (sed; a string's opening quote skipped).
json_get() {
    if [ $HAVE_PY -eq 1 ]; then
        python3 -c '
import json, sys
v = json.load(open("out"))
for part in sys.argv[1].split("."):
    v = v[part]
print(str(v).lower() if isinstance(v, bool) else v)' "$1"
    else
        sed -n "s/.*\"${1##*.}\":\"\{0,1\}\([0-9a-z.-]*\).*/\1/p" out | head -1
    fi
}

# bin_check FILE KIND COUNT NAME: a binary result file's magic, kind, count
# and length (header: docs/format.md, "Result files").
bin_check() {
    local f=$1 kind=$2 count=$3 name=$4
    if [ $HAVE_PY -eq 0 ]; then
        [ "$(head -c 6 "$f")" = "SGRES1" ] && pass "$name (magic only)" || fail "$name (magic)"
        return
    fi
    if python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
kind, vt, arrays, count, n, extra, data = struct.unpack_from("<IIIQQQQ", b, 12)
assert b[:8] == b"SGRES1\0\0", "magic"
assert kind == int(sys.argv[2]), "kind %d" % kind
assert count == int(sys.argv[3]), "count %d" % count
assert len(b) == 64 + data, "length"
size = 8 if vt in (2, 4) else 4
assert data == count * (4 * (arrays - 1) + size), "data bytes"
' "$f" "$kind" "$count" 2>err; then pass "$name"; else fail "$name"; fi
}

# GPUs this build can use (0 without CUDA or a device): decides what the
# default backend resolves to and whether --backend gpu is refused.
run devices --json
GPUS=$(json_get count)
case "$GPUS" in '' | *[!0-9]*) GPUS=0 ;; esac
if [ "$GPUS" -gt 0 ]; then AUTO_BACKEND=gpu; else AUTO_BACKEND=cpu; fi
# (the forest of a graph that fits runs in place on the hybrid backend,
# every list on the device: src/gpu_engine.c, auto_inplace)
if [ "$GPUS" -gt 0 ]; then AUTO_MST_BACKEND=hybrid; else AUTO_MST_BACKEND=cpu; fi
echo "# $GPUS GPU(s): the default backend is $AUTO_BACKEND ($AUTO_MST_BACKEND for mst)"

# ------------------------------------------------------------ help
for c in mst sssp bfs cluster; do
    expect 0 "$c --help" "$c" --help
    for o in --backend --threads --json --verify --force --quiet -o --device-mem --device; do
        grep_in out "$o" "$c --help mentions $o"
    done
done
grep_in out "--threshold" "cluster --help mentions --threshold"
expect 0 "help sssp" help sssp
grep_in out "--delta" "sssp --help mentions --delta"
grep_in out "--method" "sssp --help mentions --method"
grep_in out "bellman-ford" "sssp --help names bellman-ford"
expect 0 "help bfs" help bfs
grep_in out "--alpha" "bfs --help mentions --alpha"
expect 0 "--help lists the commands" --help
for c in mst sssp bfs cluster; do grep_in out "$c" "--help lists $c"; done

# ------------------------------------------------------------ a graph
expect 0 "gen rmat --scale 9" gen rmat --scale 9 --seed 3 --max-weight 100 -o g.sg --quiet
N=512

# ------------------------------------------------------------ mst
expect 0 "mst --verify -o text" mst g.sg -o forest.txt --verify --threads 2
grep_in out "verified against Kruskal: ok" "mst --verify says ok"
grep_in out "MTEPS" "mst prints MTEPS"
grep_in out "total weight" "mst prints the total weight"
expect 0 "mst --json -o binary" mst g.sg -o forest.bin --json --verify
json_keys "mst --json keys" graph backend threads n_vertices n_edges seconds.load \
    seconds.preprocess seconds.compute seconds.write seconds.total teps result.trees \
    result.total_weight result.forest_edges verified
EDGES=$(json_get result.forest_edges)
TREES=$(json_get result.trees)
TOTAL=$(json_get result.total_weight)
[ "$(json_get backend)" = "$AUTO_MST_BACKEND" ] && pass "mst --json: backend $AUTO_MST_BACKEND" ||
    fail "mst --json: backend '$(json_get backend)', want $AUTO_MST_BACKEND"
[ "$(json_get verified)" = "true" ] && pass "mst --json: verified" || fail "mst --json: verified"
[ $((EDGES + TREES)) -eq $N ] && pass "mst: edges + trees = n" || fail "mst: $EDGES + $TREES != $N"
lines_are forest.txt "$EDGES" "mst text: one line per forest edge"
SUM=$(awk '{ if ($1 >= $2) bad = 1; s += $3 } END { print bad ? "bad" : s }' forest.txt)
[ "$SUM" = "$TOTAL" ] && pass "mst text: weights sum to the total, u < v" ||
    fail "mst text: sum '$SUM' vs total '$TOTAL'"
bin_check forest.bin 1 "$EDGES" "mst binary: header and length"
# a vertex with an edge, for the sources below
SRC=$(awk 'NR == 1 { print $1 }' forest.txt)

expect 1 "mst refuses an existing output" mst g.sg -o forest.txt
grep_in err "already exists" "mst: the message says it exists"
grep_in err "--force" "mst: the message suggests --force"
expect 0 "mst --force replaces" mst g.sg -o forest.txt --force --quiet
[ ! -s out ] && pass "mst --quiet prints nothing" || fail "mst --quiet printed"

# ------------------------------------------------------------ sssp
expect 0 "sssp --verify text + parents" sssp g.sg --source "$SRC" -o dist.txt \
    --parents sparents.txt --verify
grep_in out "verified against Dijkstra: ok" "sssp --verify says ok"
lines_are dist.txt $N "sssp text: one line per vertex"
lines_are sparents.txt $N "sssp parents: one line per vertex"
[ "$(sed -n "$((SRC + 1))p" dist.txt)" = "0" ] && pass "sssp: the source's distance is 0" ||
    fail "sssp: source distance"
[ "$(sed -n "$((SRC + 1))p" sparents.txt)" = "$SRC" ] && pass "sssp: the source is its own parent" ||
    fail "sssp: source parent"
INF=$(grep -c '^inf$' dist.txt)
NOPAR=$(grep -c '^-1$' sparents.txt)
[ "$INF" = "$NOPAR" ] && pass "sssp: unreached = no parent ($INF)" || fail "sssp: $INF inf, $NOPAR -1"
expect 0 "sssp --json binary, --delta" sssp g.sg --source "$SRC" -o dist.bin --delta 50 --json \
    --threads 1
json_keys "sssp --json keys" result.reached result.max_distance result.source result.delta \
    seconds.compute teps counters threads
[ "$(json_get result.reached)" = $((N - INF)) ] && pass "sssp --json: reached" ||
    fail "sssp --json: reached $(json_get result.reached), want $((N - INF))"
[ "$(json_get threads)" = "1" ] && pass "sssp --json: threads 1" || fail "sssp --json: threads"
bin_check dist.bin 2 $N "sssp binary: header and length"
expect 1 "sssp --source out of range" sssp g.sg --source $N
grep_in err "out of range" "sssp: the message says out of range"
grep_in err "0..$((N - 1))" "sssp: the message gives the valid range"
expect 2 "sssp without --source" sssp g.sg
expect 2 "sssp --source abc" sssp g.sg --source abc
expect 2 "sssp --delta -1" sssp g.sg --source 0 --delta -1
expect 2 "sssp -o with an unknown extension" sssp g.sg --source 0 -o dist.csv
expect 2 "sssp -o and --parents the same" sssp g.sg --source 0 -o x.txt --parents x.txt

# methods: auto and delta everywhere; bellman-ford on the gpu backend only
expect 0 "sssp --json (default method)" sssp g.sg --source "$SRC" --json --verify
json_keys "sssp --json has backend and method" backend result.method verified
[ "$(json_get backend)" = "$AUTO_BACKEND" ] && pass "sssp --json: backend $AUTO_BACKEND" ||
    fail "sssp --json: backend '$(json_get backend)', want $AUTO_BACKEND"
case "$(json_get result.method)" in auto | delta) pass "sssp --json: method $(json_get result.method)" ;;
    *) fail "sssp --json: method '$(json_get result.method)'" ;; esac
for m in auto delta; do
    expect 0 "sssp --method $m --backend cpu" sssp g.sg --source "$SRC" --method "$m" \
        --backend cpu --verify --json -o "dist-$m.txt"
    json_keys "sssp --method $m --json keys" backend result.method result.reached verified
    [ "$(json_get backend)" = "cpu" ] && pass "sssp --method $m: backend cpu" ||
        fail "sssp --method $m: backend '$(json_get backend)'"
    [ "$(json_get verified)" = "true" ] && pass "sssp --method $m: verified" ||
        fail "sssp --method $m: verified"
    cmp -s "dist-$m.txt" dist.txt && pass "sssp --method $m: the distances of the default" ||
        fail "sssp --method $m: distances differ from the default run's"
done
expect 0 "sssp --method delta --json" sssp g.sg --source "$SRC" --method delta --json
[ "$(json_get result.method)" = "delta" ] && pass "sssp --json: method delta" ||
    fail "sssp --json: method '$(json_get result.method)', want delta"
expect 1 "sssp --method bellman-ford --backend cpu refused" sssp g.sg --source "$SRC" \
    --method bellman-ford --backend cpu
grep_in err "bellman-ford" "sssp bellman-ford on cpu: the message names the method"
expect 2 "sssp --method dijkstra" sssp g.sg --source 0 --method dijkstra
grep_in err "--method" "sssp --method dijkstra: the message names the option"
expect 2 "sssp --method without a value" sssp g.sg --source 0 --method

# ------------------------------------------------------------ bfs
expect 0 "bfs --verify binary + parents" bfs g.sg --source "$SRC" -o levels.bin \
    --parents bparents.bin --verify --json
json_keys "bfs --json keys" result.reached result.max_level result.source seconds.load \
    counters.top_down_steps counters.load_setup_us counters.load_alloc_us \
    counters.load_read_us counters.load_pin_wait_us counters.load_finish_us teps verified \
    oracle
[ "$(json_get oracle)" = "serial BFS" ] && pass "bfs --json: oracle" || fail "bfs --json: oracle"
if [ $HAVE_PY -eq 1 ]; then
    # the load's five parts sum to its seconds (each rounded to a microsecond)
    python3 -c '
import json
o = json.load(open("out")); c = o["counters"]
parts = sum(c["load_" + k + "_us"] for k in ("setup", "alloc", "read", "pin_wait", "finish"))
assert abs(parts - o["seconds"]["load"] * 1e6) <= 5, (parts, o["seconds"]["load"])' &&
        pass "bfs --json: the load counters sum to the load" ||
        fail "bfs --json: the load counters do not sum to seconds.load"
fi
[ "$(json_get weights_loaded)" = "false" ] && pass "bfs loads no weights" ||
    fail "bfs loads no weights"
bin_check levels.bin 3 $N "bfs binary levels"
bin_check bparents.bin 5 $N "bfs binary parents"
expect 0 "bfs text, --alpha --beta" bfs g.sg --source "$SRC" -o levels.txt --alpha 2 --beta 2 --verify
grep_in out "verified against serial BFS: ok" "bfs --verify says ok"
lines_are levels.txt $N "bfs text: one line per vertex"
[ "$(grep -c '^-1$' levels.txt)" = "$INF" ] && pass "bfs and sssp reach the same vertices" ||
    fail "bfs unreached $(grep -c '^-1$' levels.txt) vs sssp $INF"
expect 1 "bfs --source out of range" bfs g.sg --source 99999
grep_in err "out of range" "bfs: the message says out of range"
expect 2 "bfs --alpha 0" bfs g.sg --source 0 --alpha 0

# ------------------------------------------------------------ --searches K
expect 0 "bfs --source random:3 (one search)" bfs g.sg --source random:3 --json
FIRST=$(json_get result.source)
expect 0 "bfs --searches 5 --verify --json" bfs g.sg --source random:3 --searches 5 --verify \
    --threads 2 --json
json_keys "bfs --searches --json keys" searches.count searches.compute.min \
    searches.compute.median searches.compute.mean searches.compute.max searches.each verified
[ "$(json_get searches.count)" = 5 ] && pass "bfs --searches: 5 searches" ||
    fail "bfs --searches: count '$(json_get searches.count)'"
[ "$(json_get verified)" = "true" ] && pass "bfs --searches: every search verified" ||
    fail "bfs --searches: verified"
if [ $HAVE_PY -eq 1 ]; then
    if python3 -c '
import json, sys
o = json.load(open("out"))
e = o["searches"]["each"]
src = [x["source"] for x in e]
assert len(e) == 5 and len(set(src)) == 5, "5 distinct roots"
assert src[0] == int(sys.argv[1]), "the first root is the single search one"
assert all(x["reached"] >= 2 and x["compute"] >= 0 for x in e), "reached, times"
assert o["result"]["source"] == src[-1], "result is the last search"
c = o["searches"]["compute"]
assert c["min"] <= c["median"] <= c["max"] and c["min"] <= c["mean"] <= c["max"], "stats"
assert abs(sum(x["compute"] for x in e) - o["seconds"]["compute"]) < 1e-3, "compute sums"
' "$FIRST" 2>err; then pass "bfs --searches: distinct roots, the first as one search's, times"
    else fail "bfs --searches: roots and times"; fi
fi
expect 0 "sssp --searches 4 --verify" sssp g.sg --source random --searches 4 --verify --threads 2
grep_in out "searches   4, compute per search" "sssp --searches: the summary line"
grep_in out "search 4" "sssp --searches: a line per search"
grep_in out "verified against Dijkstra: ok" "sssp --searches: verified"
expect 0 "sssp --searches 3 --json" sssp g.sg --source random:7 --searches 3 --json
json_keys "sssp --searches --json keys" searches.each searches.preprocess.max result.max_distance
# The progress bar (drawn only on a terminal: script(1) gives the run one)
# crosses the K searches once, as one phase "searches" ending at K/K, not
# the library's "compute" phase once a search.
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "'$SG' sssp g.sg --source random:5 --searches 6 --threads 2" /dev/null >tty.txt 2>&1
    if grep -qF "searches   [" tty.txt && grep -qF "6/6" tty.txt && ! grep -qF "compute    [" tty.txt
    then pass "sssp --searches on a terminal: one bar over the searches"
    else fail "sssp --searches on a terminal: the bar ($(tr '\r' '\n' <tty.txt | grep -F '[' | head -3))"; fi
else
    pass "sssp --searches on a terminal (script(1) absent: not checked)"
fi
expect 2 "bfs --searches 2 from a named source" bfs g.sg --source 0 --searches 2
grep_in err "random" "bfs --searches with --source V: the message says random"
expect 2 "sssp --searches 2 -o" sssp g.sg --source random --searches 2 -o d.txt
grep_in err "one search" "sssp --searches with -o: the message says why"
[ ! -e d.txt ] && pass "sssp --searches -o: no file" || fail "sssp --searches -o left d.txt"
expect 2 "bfs --searches 0" bfs g.sg --source random --searches 0
expect 2 "bfs --searches 70000" bfs g.sg --source random --searches 70000
expect 1 "bfs --searches past the vertices with edges" bfs g.sg --source random --searches $N
grep_in err "distinct roots" "bfs --searches too many: the message says so"

# ------------------------------------------------------------ cluster
expect 0 "cluster --k trees+3 --verify" cluster g.sg --k $((TREES + 3)) -o labels.txt --verify
grep_in out "clusters   $((TREES + 3))" "cluster: the count is k"
grep_in out "largest" "cluster: prints the largest sizes"
lines_are labels.txt $N "cluster text: one label per vertex"
MAXL=$(sort -n labels.txt | tail -1)
[ "$MAXL" = $((TREES + 2)) ] && pass "cluster labels are 0..k-1" || fail "cluster: max label $MAXL"
expect 0 "cluster --threshold --json binary" cluster g.sg --threshold 50 -o labels.bin --json
json_keys "cluster --json keys" result.clusters result.cut_edges result.largest result.trees
bin_check labels.bin 4 $N "cluster binary labels"
expect 1 "cluster --k below the trees" cluster g.sg --k 1 -o l1.txt
grep_in err "must be in [$TREES, $N]" "cluster: the message gives the valid range of k"
[ ! -e l1.txt ] && pass "cluster: no file after a failure" || fail "cluster left l1.txt"
expect 1 "cluster --k above n" cluster g.sg --k $((N + 1)) -o l1.txt
expect 2 "cluster without -o" cluster g.sg --k 3
expect 2 "cluster with --k and --threshold" cluster g.sg --k 3 --threshold 2 -o l.txt
expect 2 "cluster with neither" cluster g.sg -o l.txt
expect 2 "cluster --k 0" cluster g.sg --k 0 -o l.txt

# ------------------------------------------------------------ backends and usage
for c in "mst g.sg" "sssp g.sg --source 0" "bfs g.sg --source 0" "cluster g.sg --k $((TREES + 3)) -o lg.txt"; do
    name=${c%% *}
    if [ "$GPUS" -eq 0 ]; then
        # shellcheck disable=SC2086
        expect 1 "$name --backend gpu refused (no GPU)" $c --backend gpu
        grep_in err "gpu backend needs" "$name --backend gpu: the message says what it needs"
        # shellcheck disable=SC2086
        expect 1 "$name --backend gpu --device 3 refused (no GPU)" $c --backend gpu --device 3
        grep_in err "gpu backend needs" "$name --backend gpu --device 3: the message"
    else
        # shellcheck disable=SC2086
        expect 0 "$name --backend gpu (a GPU is present)" $c --backend gpu --verify --quiet
        rm -f lg.txt
    fi
    if [ "$GPUS" -eq 0 ]; then
        # shellcheck disable=SC2086
        expect 1 "$name --backend hybrid refused (no GPU)" $c --backend hybrid
        grep_in err "hybrid backend needs" "$name --backend hybrid: the message says what it needs"
    else
        # shellcheck disable=SC2086
        expect 0 "$name --backend hybrid" $c --backend hybrid --verify --quiet
        rm -f lg.txt
        # shellcheck disable=SC2086
        expect 0 "$name --backend hybrid --split 0,0,0 --json" $c --backend hybrid --split 0,0,0 --json
        json_keys "$name hybrid --json keys" plan.arrays plan.predicted.total_s plan.measured_s \
            plan.rates_origin host_mem
        # R-MAT 9 has no hubs (its longest list is under 16 mean degrees)
        grep_in out '"hint":null' "$name hybrid: no renumbering hint without hubs"
        case $name in sssp | bfs)
            # the hybrid searches above left their level or round count in
            # the store's memo; this run's plan adds their latency
            # shellcheck disable=SC2086
            expect 0 "$name hybrid: the plan takes the memo" $c --backend hybrid --split 0,0,0 --json
            if python3 -c 'import json; j = json.load(open("out")); p = j["plan"]["predicted"]; k = "bfs_levels" if j["command"] == "bfs" else "sssp_rounds"; assert p["steps"] > 0 and p["steps"] == j["memo"][k] and p["steps_s"] > 0, (p, j["memo"])' 2>err.py; then
                pass "$name hybrid: the plan's steps are the memo's"
            else
                fail "$name hybrid: the plan's steps are the memo's ($(cat err.py))"
            fi
            # shellcheck disable=SC2086
            expect 0 "$name --backend hybrid --searches 3 --verify" ${c%--source 0} --source random \
                --searches 3 --backend hybrid --split 0,0,0 --verify --quiet ;;
        esac
    fi
    rm -f lg.txt
done
# The rates a hybrid run's plan priced: the defaults where this machine has
# no calibration cache (the report says how to measure them), else the
# cache file, named.
if [ "$GPUS" -gt 0 ]; then
    SPILLGRAPH_RATES=$PWD/no-such.rates run mst g.sg --backend hybrid --split 0,0,0
    if [ "$RC" -eq 0 ] && grep -qF "rates: defaults" out && grep -qF "spillgraph calibrate" out; then
        pass "hybrid without a rates cache: the defaults named, calibrate suggested"
    else
        fail "hybrid without a rates cache: the defaults named, calibrate suggested (rc $RC)"
    fi
    printf 'pcie_gbps 50\n' >my.rates
    SPILLGRAPH_RATES=$PWD/my.rates run mst g.sg --backend hybrid --split 0,0,0 --json
    if [ "$RC" -eq 0 ] && grep -qF "\"rates_origin\":\"$PWD/my.rates\"" out; then
        pass "hybrid with a rates cache: the file named in the JSON plan"
    else
        fail "hybrid with a rates cache: the file named in the JSON plan (rc $RC)"
    fi
fi
# The renumbering hint of a run's plan (src/plan.c): R-MAT 12 has hubs, its
# lists all spill with --split 0,0,0; its copy in ascending degree order
# gets none.
if [ "$GPUS" -gt 0 ]; then
    expect 0 "gen rmat --scale 12 (hubs)" gen rmat --scale 12 -o h.sg --quiet
    expect 0 "renumber h.sg ascending" renumber h.sg -o ha.sg --order degree-asc --quiet
    for c in "mst" "sssp --source 0" "bfs --source 0"; do
        name=${c%% *}
        # shellcheck disable=SC2086
        expect 0 "$name hybrid on hubs --json" $name h.sg ${c#"$name"} --backend hybrid --split 0,0,0 --json
        grep_in out '"hint":"renumber --order degree-asc"' "$name hybrid on hubs: the hint"
        # shellcheck disable=SC2086
        expect 0 "$name hybrid on hubs, text" $name h.sg ${c#"$name"} --backend hybrid --split 0,0,0
        grep_in out "spillgraph renumber h.sg -o COPY" "$name hybrid on hubs, text: the command"
        # shellcheck disable=SC2086
        expect 0 "$name hybrid in ascending order --json" $name ha.sg ${c#"$name"} --backend hybrid --split 0,0,0 --json
        grep_in out '"hint":null' "$name hybrid in ascending order: no hint"
    done
fi
# The first search's result (the forest's arrays for mst) is prepared while
# the graph loads on runs that may search on a GPU only (tools/cmd_algo.c,
# algo_open).
for c in "sssp g.sg --source 0" "bfs g.sg --source 0 --parents par.bin" "mst g.sg"; do
    name=${c%% *}
    # shellcheck disable=SC2086
    expect 0 "$name --backend cpu --json" $c --backend cpu --json --force
    if grep -qF '"result_prefault_us"' out; then
        fail "$name --backend cpu: no result prepared (counter present)"
    else
        pass "$name --backend cpu: no result prepared"
    fi
    if [ "$GPUS" -gt 0 ]; then
        # shellcheck disable=SC2086
        expect 0 "$name --backend gpu --json --verify" $c --backend gpu --json --verify --force
        grep_in out '"result_prefault_us"' "$name --backend gpu: the result was prepared"
        # levels, distances, parents and forests of a small graph are under 2 MiB:
        # none pinned (src/result_mem.c); the large ones run on the device
        grep_in out '"result_pinned":0' "$name --backend gpu: a small result is not pinned"
    fi
done
rm -f par.bin
expect 2 "--host-mem unknown kind" bfs g.sg --source 0 --host-mem fast
grep_in err "unknown kind 'fast'" "--host-mem: the message names the kind"
expect 2 "--split with two numbers" bfs g.sg --source 0 --split 1,2
grep_in err "three vertex counts" "--split: the message says what it wants"
expect 0 "--host-mem plain on the cpu" bfs g.sg --source 0 --backend cpu --host-mem plain --quiet
if [ "$GPUS" -eq 0 ]; then
    expect 1 "--host-mem managed without a GPU" bfs g.sg --source 0 --backend cpu --host-mem managed
    grep_in err "managed" "--host-mem managed without a GPU: the message names it"
fi
expect 0 "mst --backend cpu" mst g.sg --backend cpu --quiet
expect 0 "mst --backend auto" mst g.sg --backend auto --quiet
expect 0 "mst --backend cpu --json" mst g.sg --backend cpu --json
json_keys "mst --backend cpu --json keys" graph backend threads n_vertices n_edges seconds.load \
    seconds.preprocess seconds.compute seconds.write seconds.total teps result.trees \
    result.total_weight result.forest_edges
[ "$(json_get backend)" = "cpu" ] && pass "mst --backend cpu --json: backend cpu" ||
    fail "mst --backend cpu --json: backend '$(json_get backend)'"

# --device-mem SIZE (K/M/G/T) and --device N: accepted where the run needs no
# GPU (cpu, or auto without one); bad values are usage errors naming the option.
expect 0 "mst --device-mem 64M --backend cpu" mst g.sg --device-mem 64M --backend cpu --quiet
for s in 4096 512K 1G 2T; do
    expect 0 "bfs --device-mem $s --backend cpu" bfs g.sg --source 0 --device-mem "$s" \
        --backend cpu --quiet
done
expect 0 "sssp --device 0 --backend cpu" sssp g.sg --source 0 --device 0 --backend cpu --quiet
if [ "$GPUS" -eq 0 ]; then
    expect 0 "mst --device-mem 1M (auto without a GPU)" mst g.sg --device-mem 1M --verify --quiet
    expect 0 "mst --device 0 (auto without a GPU)" mst g.sg --device 0 --quiet
fi
for v in abc 12Q -5 1.5G ""; do
    expect 2 "mst --device-mem '$v'" mst g.sg --device-mem "$v"
    grep_in err "--device-mem" "mst --device-mem '$v': the message names the option"
done
expect 2 "mst --device-mem without a value" mst g.sg --device-mem
for v in abc -1 1x; do
    expect 2 "mst --device '$v'" mst g.sg --device "$v"
    grep_in err "--device" "mst --device '$v': the message names the option"
done
expect 2 "bfs --device without a value" bfs g.sg --source 0 --device
expect 2 "mst --backend tpu" mst g.sg --backend tpu
expect 2 "mst without a store" mst
expect 2 "mst with two stores" mst g.sg g.sg
expect 2 "mst --bogus" mst g.sg --bogus
expect 2 "mst --threads x" mst g.sg --threads x
expect 1 "mst of a missing store" mst nothere.sg
grep_in err "nothere.sg" "mst: the message names the store"

# ------------------------------------------------------------ edge cases
# no edges (a single vertex; then a 1 x 5 grid would have edges, so convert)
expect 0 "gen grid 1 x 1 (one vertex)" gen grid --rows 1 --cols 1 -o one.sg --quiet
expect 0 "mst of one vertex" mst one.sg -o one-f.txt --verify --json
[ "$(json_get result.trees)" = "1" ] && pass "one vertex: one tree" || fail "one vertex: trees"
lines_are one-f.txt 0 "one vertex: an empty forest file"
expect 0 "sssp of one vertex" sssp one.sg --source 0 -o one-d.txt --verify
[ "$(cat one-d.txt)" = "0" ] && pass "one vertex: distance 0" || fail "one vertex: distance"
expect 0 "bfs of one vertex" bfs one.sg --source 0 -o one-l.txt --parents one-p.txt --verify
[ "$(cat one-l.txt) $(cat one-p.txt)" = "0 0" ] && pass "one vertex: level 0, own parent" ||
    fail "one vertex: level and parent"
expect 1 "bfs of one vertex, --source 1" bfs one.sg --source 1
expect 0 "cluster of one vertex" cluster one.sg --k 1 -o one-c.txt --verify
printf '0 1 2.5\n1 2 0.1\n5 6 1\n' >f32.wel
printf '' >empty.el
printf '# isolated vertices only\n3 3\n' >loops.el
expect 0 "convert an f32 graph" convert f32.wel -o f32.sg --quiet
expect 0 "mst of the f32 graph" mst f32.sg -o f32-f.txt --verify
grep_in f32-f.txt "1 2 0.100000001" "f32 forest weights print with %.9g"
expect 0 "sssp of the f32 graph" sssp f32.sg --source 0 -o f32-d.txt --verify
[ "$(sed -n 3p f32-d.txt)" = "2.6000000014901161" ] && pass "f32 distances read back exactly" ||
    fail "f32 distance '$(sed -n 3p f32-d.txt)'"
[ "$(sed -n 4p f32-d.txt)" = "inf" ] && pass "f32 unreached is inf" || fail "f32 unreached"
expect 0 "convert a graph without edges" convert loops.el -o noedges.sg --quiet
expect 0 "mst without edges" mst noedges.sg -o ne-f.txt --json --verify
lines_are ne-f.txt 0 "no edges: an empty forest"
[ "$(json_get result.trees)" = "$(json_get n_vertices)" ] && pass "no edges: every vertex a tree" ||
    fail "no edges: trees"
expect 0 "bfs without edges" bfs noedges.sg --source 0 -o ne-l.txt --verify
[ "$(grep -c '^-1$' ne-l.txt)" = $(($(wc -l <ne-l.txt) - 1)) ] && pass "no edges: only the source is reached" ||
    fail "no edges: reached"
expect 0 "convert an empty graph" convert empty.el -o empty.sg --quiet
expect 0 "mst of an empty graph" mst empty.sg -o empty-f.bin --verify
bin_check empty-f.bin 1 0 "empty graph: a forest file with no edges"
if [ "$GPUS" -gt 0 ]; then # (without one, --backend hybrid is refused: above)
    expect 0 "mst of an empty graph, --backend hybrid" mst empty.sg --backend hybrid -o empty-h.bin
    bin_check empty-h.bin 1 0 "empty graph, hybrid: a forest file with no edges"
    expect 1 "sssp of an empty graph, --backend hybrid" sssp empty.sg --source 0 --backend hybrid
    grep_in err "no vertices" "empty graph, hybrid sssp: the message says there are no vertices"
fi
expect 1 "sssp of an empty graph" sssp empty.sg --source 0
grep_in err "no vertices" "empty graph: the message says there are no vertices"

# ------------------------------------------------------------ random sources
expect 0 "bfs from a random source" bfs f32.sg --source random:7 --json --verify
src1=$(json_get result.source)
expect 0 "the same seed again" bfs f32.sg --source random:7 --json
[ "$(json_get result.source)" = "$src1" ] && pass "random:SEED is reproducible" || fail "random source changed"
case "$src1" in 0 | 1 | 2 | 5 | 6) pass "random source has an edge ($src1)" ;; *) fail "random source $src1 has no edge" ;; esac
expect 0 "sssp from random (seed 1)" sssp f32.sg --source random --verify
expect 2 "random with a bad seed" bfs f32.sg --source random:x
grep_in err "the seed after 'random:'" "bad seed: the message says what is wrong"
expect 1 "random source without edges" bfs noedges.sg --source random
grep_in err "no source" "no edges: no random source"

# ------------------------------------------------------------ original ids
printf '1000 2000000 5\n2000000 30 1\n30 1000 2\n77777777777 30 4\n' >sparse.wel
expect 0 "convert sparse ids compactly" convert sparse.wel -o sparse.sg --ids compact --quiet
expect 0 "bfs by original ids" bfs sparse.sg --original-ids --source 2000000 -o oid-l.txt \
    --parents oid-p.txt --verify --json
[ "$(json_get result.source)" = "2000000" ] && pass "json names the source by its original id" ||
    fail "original source in json: $(json_get result.source)"
[ "$(cat oid-l.txt | tr '\n' ' ')" = "30 1 1000 1 2000000 0 77777777777 2 " ] &&
    pass "levels as 'ORIG LEVEL' lines" || fail "levels with original ids: $(cat oid-l.txt | tr '\n' ' ')"
grep_in oid-p.txt "77777777777 30" "parents as original ids"
grep_in oid-p.txt "2000000 2000000" "the source is its own parent, by original id"
expect 0 "mst by original ids" mst sparse.sg --original-ids -o oid-f.txt --verify
grep_in oid-f.txt "30 77777777777 4" "forest edges by original ids"
expect 0 "sssp by original ids" sssp sparse.sg --original-ids --source 1000 -o oid-d.txt
grep_in oid-d.txt "77777777777 6" "distances as 'ORIG DIST' lines"
expect 0 "binary outputs keep internal ids" bfs sparse.sg --original-ids --source 1000 -o oid-l.bin
expect 1 "an original id no vertex has" sssp sparse.sg --original-ids --source 5
grep_in err "no vertex of sparse.sg has the original id 5" "unknown original id: the message names it"
expect 1 "--original-ids on a store without them" bfs f32.sg --original-ids --source 0
grep_in err "keeps no original ids" "no mapping: the message says so"

# ------------------------------------------------------------ summary
cli_finish
