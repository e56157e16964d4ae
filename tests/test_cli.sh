#!/usr/bin/env bash
# End-to-end tests of the spillgraph command line: exit codes, messages,
# files. Usage: bash tests/test_cli.sh PATH-TO-SPILLGRAPH
# Works in a fresh directory under the current one (kept on failure).
# The last line is "N passed, N failed"; the exit status is non-zero on any
# failure.
set -u

. "$(dirname "$0")/cli_lib.sh"
cli_setup cli "$@"

# json_field KEY: prints the number or literal at "KEY": in ./out.
json_field() {
    if [ $HAVE_PY -eq 1 ]; then
        python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1" <out
    else
        sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p" out
    fi
}

# ------------------------------------------------------------ help, version
expect 0 "--help" --help
for c in gen info check export renumber scan devices version; do grep_in out "$c" "--help lists $c"; done
expect 0 "--version" --version
grep_in out "spillgraph " "--version prints the version"
expect 0 "version" version
expect 0 "help info" help info
grep_in out "--json" "help info shows info's options"

check_help() { # CMD... -- OPTIONS...
    local cmd=() opt
    while [ "$1" != "--" ]; do cmd+=("$1"); shift; done
    shift
    expect 0 "${cmd[*]} --help" "${cmd[@]}" --help
    for opt in "$@"; do grep_in out "$opt" "${cmd[*]} --help mentions $opt"; done
}
check_help gen -- rmat
check_help gen rmat -- --scale --edge-factor --seed --max-weight -o --force --threads \
    --shard-size --block-size --zstd-level --json --quiet
check_help info -- --json
check_help check -- --threads --json
check_help export -- --format -o --force --threads el wel mtx egr wsg
check_help renumber -- -o --order degree degree-asc bfs bfs-rev none --lists --force --threads --json --quiet
check_help scan -- --arrays --direct --mapped --uring --threads --queue-depth --repeat --json
check_help devices -- --selftest --json
check_help version --

# ------------------------------------------------------------ usage errors
expect 2 "no command"
expect 2 "unknown command" frobnicate
grep_in err "frobnicate" "unknown command is named"
expect 2 "gen without a kind" gen
grep_in err "rmat" "gen without a kind lists the kinds"
expect 2 "gen unknown kind" gen bogus
grep_in err "rmat" "gen unknown kind lists the kinds"
expect 2 "unknown option" info --bogus g.sg
grep_in err "--bogus" "unknown option is named"
grep_in err "try 'spillgraph info --help'" "usage error points to --help"
expect 2 "gen rmat missing -o" gen rmat --scale 8
grep_in err "-o" "missing -o is named"
expect 2 "gen rmat missing --scale" gen rmat -o g.sg
expect 2 "gen rmat --scale abc" gen rmat --scale abc -o g.sg
grep_in err "--scale" "bad number names the option"
expect 2 "gen rmat --scale 99" gen rmat --scale 99 -o g.sg
expect 2 "gen rmat --scale without a value" gen rmat -o g.sg --scale
expect 2 "gen rmat --shard-size 12Q" gen rmat --scale 8 -o g.sg --shard-size 12Q
expect 2 "info without STORE" info
expect 2 "info with two stores" info a.sg b.sg
expect 2 "check --threads x" check g.sg --threads x
expect 2 "export without --format" export g.sg -o g.el
expect 2 "scan --arrays q" scan g.sg --arrays q
expect 2 "devices extra argument" devices extra
[ -e g.sg ] && fail "usage errors created nothing" || pass "usage errors created nothing"

# ------------------------------------------------------------ gen, info, check
expect 0 "gen rmat --scale 8" gen rmat --scale 8 -o g.sg
grep_in out "vertices" "gen prints a summary"
[ -f g.sg/manifest.sgm ] && pass "gen made a store" || fail "gen made a store"
expect 0 "gen rmat --json" gen rmat --scale 8 --seed 7 -o g7.sg --json --quiet
json_ok "gen --json is JSON"

expect 0 "info" info g.sg
for f in vertices edges shards degree "[2^0, 2^1)" ratio creator; do
    grep_in out "$f" "info shows $f"
done
grep_in out "gen rmat --scale 8" "info shows the creator command line"
expect 0 "info --json" info g.sg --json
json_ok "info --json is JSON"
UND=$(json_field undirected_edges)
NV=$(json_field n_vertices)
[ "$NV" = "256" ] && pass "info --json: 256 vertices" || fail "info --json: n_vertices '$NV'"
case "$UND" in
    '' | *[!0-9]*) fail "info --json: undirected_edges '$UND'" ;;
    *) [ "$UND" -gt 0 ] && pass "info --json: undirected_edges $UND" || fail "no edges" ;;
esac

expect 0 "check" check g.sg
grep_in out "ok: " "check says ok"
grep_in out "symmetry checked" "check checked symmetry"
expect 0 "check --json" check g.sg --json --threads 2
json_ok "check --json is JSON"

# ------------------------------------------------------------ export
for fmt in el wel mtx egr wsg; do
    expect 0 "export $fmt" export g.sg --format $fmt -o g.$fmt
    [ -s g.$fmt ] && pass "export $fmt is not empty" || fail "export $fmt is not empty"
done
expect 2 "export --format bogus" export g.sg --format bogus -o g.bogus
grep_in err "bogus" "unknown format is named"
[ -e g.bogus ] && fail "bad format wrote nothing" || pass "bad format wrote nothing"
WEL_LINES=$(wc -l <g.wel | tr -d ' ')
[ "$WEL_LINES" = "$UND" ] && pass "wel lines ($WEL_LINES) = undirected edges" \
    || fail "wel lines ($WEL_LINES) != undirected edges ($UND)"
expect 1 "export to an existing file" export g.sg --format el -o g.el
grep_in err "exists" "export refusal says exists"
expect 0 "export --force" export g.sg --format el -o g.el --force

# ------------------------------------------------------------ overwrite
expect 1 "gen to an existing store" gen rmat --scale 8 -o g.sg
grep_in err "exists" "gen refusal says exists"
expect 0 "gen --force" gen rmat --scale 8 -o g.sg --force --quiet
expect 0 "check after --force" check g.sg

# ------------------------------------------------------------ sizes, shards
expect 0 "gen with small shards and blocks" \
    gen rmat --scale 8 -o small.sg --shard-size 16K --block-size 4KiB --zstd-level 5 --threads 2
expect 0 "info --json of small shards" info small.sg --json
SH=$(json_field n_shards)
case "$SH" in
    '' | *[!0-9]*) fail "n_shards '$SH'" ;;
    *) [ "$SH" -gt 1 ] && pass "--shard-size 16K makes $SH shards" || fail "one shard only" ;;
esac
expect 0 "check small shards" check small.sg

# ------------------------------------------------------------ corruption
cp -r g.sg bad.sg
SHARD=bad.sg/shard-000000.sgs
SIZE=$(wc -c <"$SHARD" | tr -d ' ')
MID=$((SIZE / 2))
if [ $HAVE_PY -eq 1 ]; then
    python3 - "$SHARD" "$MID" <<'EOF'
import sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)
    f.seek(off)
    f.write(bytes([b[0] ^ 0xFF]))
EOF
else
    BYTE=$(od -An -tu1 -j "$MID" -N1 "$SHARD" | tr -d ' ')
    printf "$(printf '\\%03o' $((BYTE ^ 255)))" |
        dd of="$SHARD" bs=1 seek="$MID" count=1 conv=notrunc 2>/dev/null
fi
cmp -s g.sg/shard-000000.sgs "$SHARD" && fail "byte flipped" || pass "byte flipped"
expect 1 "check of a corrupt store" check bad.sg
grep_in err "shard-000000.sgs" "corruption message names the shard file"
grep_in err "spillgraph check: " "corruption message names the command"

# ------------------------------------------------------------ missing store
expect 1 "info of a missing path" info no-such.sg
grep_in err "no-such.sg" "missing path is named"
expect 1 "check of a missing path" check no-such.sg
expect 1 "scan of a missing path" scan no-such.sg

# ------------------------------------------------------------ scan
expect 0 "scan" scan g.sg
grep_in out "GB/s" "scan prints GB/s"
expect 0 "scan --arrays xa --repeat 2" scan g.sg --arrays xa --repeat 2 --queue-depth 8
expect 0 "scan --direct --json" scan g.sg --direct --json --threads 2
json_ok "scan --json is JSON"
expect 0 "scan --mapped" scan g.sg --mapped --arrays aw
expect 2 "scan --direct --mapped" scan g.sg --direct --mapped
expect 2 "scan --mapped --uring" scan g.sg --mapped --uring
expect 0 "scan --uring" scan g.sg --uring --json
grep_in out '"used_uring":true' "scan --uring reads through io_uring"
expect 0 "scan, cached store" scan g.sg --json
grep_in out '"used_mapped":true' "scan of a cached store decodes from the mappings"

# ------------------------------------------------------------ devices
expect 0 "devices" devices
expect 0 "devices --json" devices --json
json_ok "devices --json is JSON"
# with a GPU: eager module loading by default, and a mode the user names kept
if grep -qF '"count":0' out; then
    pass "devices: module loading (no GPU: not checked)"
else
    grep_in out '"module_loading":"eager"' "devices: kernels loaded eagerly by default"
    CUDA_MODULE_LOADING=LAZY expect 0 "devices, CUDA_MODULE_LOADING=LAZY" devices --json
    grep_in out '"module_loading":"lazy"' "devices: CUDA_MODULE_LOADING=LAZY kept"
fi

# ------------------------------------------------------------ gen ssca2, uniform, grid
check_help gen -- ssca2 uniform grid
check_help gen ssca2 -- --scale --max-clique-size --inter-prob --no-permute --seed -o --json
check_help gen uniform -- --scale --edge-factor --seed --max-weight -o
check_help gen grid -- --rows --cols --hubs --hub-degree --max-weight -o
expect 2 "gen without a kind lists ssca2" gen
grep_in err "ssca2, uniform, grid" "gen without a kind lists every kind"
expect 2 "gen ssca2 --scale 0" gen ssca2 --scale 0 -o s.sg
grep_in err "--scale" "gen ssca2 --scale 0 names the option"
expect 2 "gen ssca2 missing --scale" gen ssca2 -o s.sg
expect 2 "gen ssca2 --inter-prob 2" gen ssca2 --scale 8 --inter-prob 2 -o s.sg
expect 2 "gen ssca2 --inter-prob abc" gen ssca2 --scale 8 --inter-prob abc -o s.sg
expect 2 "gen uniform missing -o" gen uniform --scale 8
expect 2 "gen grid missing --cols" gen grid --rows 4 -o gr.sg
grep_in err "missing --cols" "gen grid names the missing option"
expect 2 "gen grid over 2^32 vertices" gen grid --rows 65536 --cols 65537 -o gr.sg
grep_in err "2^32" "gen grid size error says 2^32"
expect 2 "gen grid --hubs 1.5" gen grid --rows 4 --cols 4 --hubs 1.5 --hub-degree 3 -o gr.sg
expect 2 "gen grid --hubs without --hub-degree" gen grid --rows 4 --cols 4 --hubs 0.5 -o gr.sg
[ ! -e s.sg ] && [ ! -e gr.sg ] && pass "failed gens leave no store" || fail "failed gens leave no store"

expect 0 "gen ssca2 --scale 10" gen ssca2 --scale 10 -o s.sg --json --quiet
json_ok "gen ssca2 --json is JSON"
grep_in out '"kind":"ssca2"' "gen ssca2 --json names the kind"
MD=$(json_field mean_degree)
if awk -v d="$MD" 'BEGIN { exit !(d > 24 && d < 40) }'; then pass "ssca2 mean degree $MD near 32"
else fail "ssca2 mean degree $MD near 32"; fi
expect 0 "check of the ssca2 store" check s.sg
expect 0 "gen ssca2 --threads 1" gen ssca2 --scale 10 -o s1.sg --threads 1 --quiet
expect 0 "gen ssca2 --threads 3" gen ssca2 --scale 10 -o s3.sg --threads 3 --quiet
expect 0 "export s1" export s1.sg --format wel -o s1.wel
expect 0 "export s3" export s3.sg --format wel -o s3.wel
cmp -s s1.wel s3.wel && pass "ssca2 does not depend on the thread count" ||
    fail "ssca2 does not depend on the thread count"
expect 1 "gen ssca2 to an existing store" gen ssca2 --scale 10 -o s.sg
grep_in err "exists" "gen ssca2 refusal says exists"
expect 0 "gen ssca2 --force --no-permute" gen ssca2 --scale 10 -o s.sg --force --no-permute \
    --max-clique-size 8 --inter-prob 0.25 --seed 3
grep_in out "labels not permuted" "gen ssca2 summary says the labels are kept"

expect 0 "gen uniform" gen uniform --scale 9 --edge-factor 4 -o u.sg --json
json_ok "gen uniform --json is JSON"
[ "$(json_field generated)" = 2048 ] && pass "gen uniform draws F*2^S edges" ||
    fail "gen uniform draws F*2^S edges"
expect 0 "check of the uniform store" check u.sg

expect 0 "gen grid" gen grid --rows 3 --cols 4 -o gr.sg --max-weight 9
grep_in out "grid 3 x 4" "gen grid summary names the size"
expect 0 "export the grid" export gr.sg --format el -o gr.el
[ "$(wc -l <gr.el | tr -d ' ')" = 17 ] && pass "3 x 4 grid has 17 edges" ||
    fail "3 x 4 grid has 17 edges"
grep -qx "0 1" gr.el && grep -qx "0 4" gr.el && grep -qx "10 11" gr.el && ! grep -qx "3 4" gr.el &&
    pass "grid edges are the lattice's" || fail "grid edges are the lattice's"
expect 0 "gen grid with hubs" gen grid --rows 20 --cols 20 --hubs 0.01 --hub-degree 30 \
    -o gh.sg --json --quiet --threads 2
[ "$(json_field generated)" = $((2 * 20 * 19 + 4 * 30)) ] && pass "hub edges drawn" ||
    fail "hub edges drawn"
expect 0 "check of the hub grid" check gh.sg
expect 0 "info of the hub grid" info gh.sg
grep_in out "--hubs 0.01 --hub-degree 30" "info shows the hub options"

# ------------------------------------------------------------ renumber
expect 0 "gen for renumber" gen rmat --scale 10 -o rn.sg --quiet --threads 2
expect 0 "renumber by degree" renumber rn.sg -o rn-deg.sg --json
[ "$(json_field order)" = degree ] && pass "renumber --json: order" || fail "renumber --json: order"
expect 0 "check of the renumbered store" check rn-deg.sg
expect 0 "mst of the store" mst rn.sg --backend cpu --json --quiet
w0=$(grep -o '"total_weight":[0-9.e+]*' out)
expect 0 "mst of the renumbered store" mst rn-deg.sg --backend cpu --json --quiet
[ -n "$w0" ] && [ "$(grep -o '"total_weight":[0-9.e+]*' out)" = "$w0" ] && pass "renumbering keeps the forest's weight" ||
    fail "renumbering keeps the forest's weight"
expect 0 "export the renumbered store" export rn-deg.sg --format el -o rn-deg.el
d0=$(awk '$1 == 0' rn-deg.el | wc -l)
d1=$(awk '$1 == 1' rn-deg.el | wc -l)
[ "$d0" -ge "$d1" ] && [ "$d0" -gt 0 ] && pass "vertex 0 has the longest list" ||
    fail "vertex 0 has the longest list ($d0 < $d1)"
expect 0 "renumber ascending" renumber rn.sg -o rn-asc.sg --order degree-asc --quiet
expect 0 "info of the ascending store" info rn-asc.sg
grep_in out "vertex order  ascending degree" "info says the degrees ascend"
expect 0 "info --json of the ascending store" info rn-asc.sg --json
grep_in out '"descents":0' "info --json: no descents in ascending order"
expect 0 "info of the generated store" info rn.sg
grep_in out "vertex order  degrees not ascending" "info says the generator's degrees do not ascend"
expect 0 "renumber breadth-first" renumber rn.sg -o rn-bfs.sg --order bfs --json
[ "$(json_field order)" = bfs ] && pass "renumber --json: order bfs" || fail "renumber --json: order bfs"
expect 0 "check of the breadth-first store" check rn-bfs.sg
expect 0 "mst of the breadth-first store" mst rn-bfs.sg --backend cpu --json --quiet
[ -n "$w0" ] && [ "$(grep -o '"total_weight":[0-9.e+]*' out)" = "$w0" ] &&
    pass "the breadth-first order keeps the forest's weight" ||
    fail "the breadth-first order keeps the forest's weight"
expect 0 "export the breadth-first store" export rn-bfs.sg --format el -o rn-bfs.el
# vertex 0 is the search's first root: its neighbours take ids 1..deg(0)
d0=$(awk '$1 == 0' rn-bfs.el | wc -l)
n0=$(awk '$1 == 0 && $2 >= 1 && $2 <= '"$d0" rn-bfs.el | wc -l)
[ "$d0" -gt 0 ] && [ "$n0" = "$d0" ] && pass "bfs: vertex 0's neighbours come next" ||
    fail "bfs: vertex 0's neighbours come next ($n0 of $d0)"
expect 0 "renumber breadth-first reversed" renumber rn.sg -o rn-bfsr.sg --order bfs-rev --quiet
expect 0 "check of the reversed store" check rn-bfsr.sg
# lists in weight order: flagged, checked, the same forest, the lines of a
# list by weight on export
expect 0 "renumber --lists weight" renumber rn.sg -o rn-w.sg --order none --lists weight --json
[ "$(json_field lists)" = weight ] && pass "renumber --json: lists weight" ||
    fail "renumber --json: lists weight"
expect 0 "check of the weight-ordered store" check rn-w.sg
expect 0 "info of the weight-ordered store" info rn-w.sg
grep_in out "by weight, then neighbour id" "info says the lists are by weight"
expect 0 "info --json of the weight-ordered store" info rn-w.sg --json
[ "$(json_field lists)" = weight ] && pass "info --json: lists weight" || fail "info --json: lists weight"
expect 0 "mst of the weight-ordered store" mst rn-w.sg --backend cpu --json --quiet
[ -n "$w0" ] && [ "$(grep -o '"total_weight":[0-9.e+]*' out)" = "$w0" ] &&
    pass "weight order keeps the forest's weight" || fail "weight order keeps the forest's weight"
expect 0 "export the weight-ordered store" export rn-w.sg --format wel -o rn-w.wel
awk 'NR > 1 && $1 == u && $3 + 0 < w + 0 { bad = 1 } { u = $1; w = $3 } END { exit bad }' rn-w.wel &&
    pass "exported lines of a vertex by weight" || fail "exported lines of a vertex by weight"
# mtx keeps each undirected edge once (row > col): a list in weight order
# does not end at its first col >= row
expect 0 "export the weight-ordered store as mtx" export rn-w.sg --format mtx -o rn-w.mtx
expect 0 "export the input as mtx" export rn.sg --format mtx -o rn.mtx
grep -v '^%' rn-w.mtx | sort > rn-w.mtx.s
grep -v '^%' rn.mtx | sort > rn.mtx.s
cmp -s rn-w.mtx.s rn.mtx.s && pass "mtx of the weight-ordered store: the same entries" ||
    fail "mtx of the weight-ordered store: the same entries"
expect 0 "renumber back to id order" renumber rn-w.sg -o rn-id.sg --order none --quiet
expect 0 "export the store back in id order" export rn-id.sg --format wel -o rn-id.wel
expect 0 "export the input" export rn.sg --format wel -o rn.wel
cmp -s rn-id.wel rn.wel && pass "id order again gives the input's edges" ||
    fail "id order again gives the input's edges"
expect 2 "renumber --lists bogus" renumber rn.sg -o x.sg --lists bogus
grep_in err "id or weight" "bad list order names the choices"
expect 1 "renumber onto an existing store" renumber rn.sg -o rn-deg.sg
grep_in err "exists" "renumber refusal says exists"
expect 0 "renumber --force" renumber rn.sg -o rn-deg.sg --force --quiet
expect 2 "renumber --order bogus" renumber rn.sg -o x.sg --order bogus
grep_in err "degree-asc, bfs, bfs-rev" "bad order lists the orders"
expect 2 "renumber without -o" renumber rn.sg
expect 1 "renumber a missing store" renumber nothere.sg -o x.sg
grep_in err "nothere.sg" "missing store named"

# ------------------------------------------------------------ summary
cli_finish
