#!/usr/bin/env bash
# End-to-end tests of "spillgraph convert": exit codes, messages, --json,
# the summary, the id mapping in info, run files removed.
# Usage: bash tests/test_cli_convert.sh PATH-TO-SPILLGRAPH
# Works in a fresh directory under the current one (kept on failure).
set -u

. "$(dirname "$0")/cli_lib.sh"
cli_setup cli_convert "$@"

json_field() {
    if [ $HAVE_PY -eq 1 ]; then
        python3 -c 'import json,sys; print(str(json.load(sys.stdin)[sys.argv[1]]).lower())' "$1" <out 2>/dev/null
    else
        sed -n "s/.*\"$1\":\([0-9a-z.]*\).*/\1/p" out
    fi
}
# field_is KEY VALUE NAME
field_is() {
    local got
    got=$(json_field "$1")
    [ "$got" = "$2" ] && pass "$3" || fail "$3 ($1 = '$got', wanted '$2')"
}
no_runs() { # nothing hidden left in the work directory
    if ls -A | grep -q '^\.'; then fail "$1 (left: $(ls -A | grep '^\.' | tr '\n' ' '))"; else pass "$1"; fi
}

# ------------------------------------------------------------ help, usage
expect 0 "convert --help" convert --help
for opt in -o --format --directed --undirected --weights random:MAX --seed --ids compact \
    --mem --tmp-dir --threads --force --shard-size --block-size --zstd-level --json --quiet \
    el wel gr mtx bin32 sg wsg egr .zst; do
    grep_in out "$opt" "convert --help mentions $opt"
done
expect 0 "help convert" help convert
expect 2 "convert without inputs" convert -o g.sg
grep_in err "input" "missing input is named"
printf '0 1\n1 2\n' >a.el
expect 2 "convert without -o" convert a.el
grep_in err "-o" "missing -o is named"
expect 2 "--weights bogus" convert a.el -o g.sg --weights heavy
grep_in err "--weights" "bad --weights names the option"
expect 2 "--weights random:0" convert a.el -o g.sg --weights random:0
expect 2 "--ids bogus" convert a.el -o g.sg --ids sparse
expect 2 "--format bogus" convert a.el -o g.sg --format csv
grep_in err "csv" "unknown format is named"
expect 2 "--mem 12Q" convert a.el -o g.sg --mem 12Q
expect 2 "--directed --undirected" convert a.el -o g.sg --directed --undirected
printf '0 1\n' >a.txt
expect 2 "unknown extension" convert a.txt -o g.sg
grep_in err "a.txt" "unknown extension names the file"
[ -e g.sg ] && fail "usage errors created nothing" || pass "usage errors created nothing"

# ------------------------------------------------------------ conversions
cat >g.wel <<'EOF'
# comment line
0 1 5
1 0 3
1 2 7
2 2 1
0 1 9
3 1 2
EOF
expect 0 "convert g.wel" convert g.wel -o g.sg
for f in "edges read" "self-loops dropped" "duplicates dropped" "vertices" "undirected edges" \
    "uint32" "in memory"; do
    grep_in out "$f" "summary shows $f"
done
grep_in out "self-loops dropped     1" "summary counts the self-loop"
grep_in out "duplicates dropped     2" "summary counts the duplicates"
expect 0 "check the converted store" check g.sg
expect 0 "convert --json" convert g.wel -o g2.sg --json --quiet
json_ok "convert --json is JSON"
field_is edges_read 6 "--json edges_read"
field_is self_loops 1 "--json self_loops"
field_is duplicates 2 "--json duplicates"
field_is n_vertices 4 "--json n_vertices"
field_is n_edges 6 "--json n_edges"
field_is external false "--json in memory"
field_is weight_type u32 "--json u32 weights"

expect 1 "convert to an existing store" convert g.wel -o g.sg
grep_in err "exists" "refusal says exists"
expect 0 "convert --force" convert g.wel -o g.sg --force --quiet
[ -s out ] && fail "--quiet prints nothing" || pass "--quiet prints nothing"

printf '0 1 -1.5\n1 2 2\n' >neg.wel
expect 0 "negative weights" convert neg.wel -o neg.sg --json
field_is weight_type f32 "negative weights are f32"
field_is negative_weights true "negative weights are flagged"
expect 0 "info of a negative store" info neg.sg
grep_in out "negative" "info shows the negative flag"

expect 0 "--directed" convert g.wel -o d.sg --directed --json
field_is n_edges 4 "--directed keeps one direction"
field_is undirected_edges none "--directed has no undirected count"
expect 0 "--weights random" convert g.wel -o r.sg --weights random:100 --seed 3 --json
field_is weight_type u32 "random weights are u32"
expect 0 "check random weights" check r.sg

# several inputs, zstd, bin32
printf '0 1\n' >p1.el
printf '1 2\n2 3\n' >p2.el
expect 0 "two inputs" convert p1.el p2.el -o p.sg --json
field_is files 2 "two files"
field_is n_edges 6 "two inputs concatenated"
if command -v zstd >/dev/null 2>&1; then
    zstd -q -f p2.el -o p2.el.zst
    expect 0 ".zst input" convert p1.el p2.el.zst -o pz.sg --json
    field_is n_edges 6 ".zst input read"
else
    pass ".zst input (zstd absent: covered by test_convert)"
fi
if [ $HAVE_PY -eq 1 ]; then
    python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<9I",0,1,5,1,2,6,2,0,7))' >t.bin
    expect 0 "--format bin32" convert t.bin --format bin32 -o b.sg --json
    field_is n_edges 6 "bin32 read"
fi

# compact ids
printf '1000000000000 5\n5 99999999999999\n' >sparse.el
expect 1 "sparse ids without compact" convert sparse.el -o s.sg
grep_in err "sparse.el" "range error names the file"
grep_in err "--ids compact" "range error suggests --ids compact"
expect 0 "--ids compact" convert sparse.el -o s.sg --ids compact --json
field_is n_vertices 3 "compact: 3 vertices"
expect 0 "info shows the id mapping" info s.sg
grep_in out "original ids" "info says original ids are kept"
expect 0 "info --json of compact" info s.sg --json
field_is original_ids true "info --json original_ids"
expect 0 "check compact store" check s.sg

# the external path
if [ $HAVE_PY -eq 1 ]; then
    python3 -c '
import random
random.seed(7)
for i in range(20000):
    print(random.randrange(2000), random.randrange(2000), random.randrange(1, 99))' >big.wel
    expect 0 "in memory" convert big.wel -o mem.sg --json
    field_is external false "large bound: in memory"
    expect 0 "--mem 64K: external" convert big.wel -o ext.sg --mem 64K --json
    field_is external true "tiny bound: external"
    no_runs "run files removed after success"
    expect 0 "export in-memory store" export mem.sg --format wel -o mem.out.wel
    expect 0 "export external store" export ext.sg --format wel -o ext.out.wel
    cmp -s mem.out.wel ext.out.wel && pass "external store = in-memory store" \
        || fail "external store differs"
    printf 'not an edge\n' >>big.wel
    expect 1 "bad line after runs were written" convert big.wel -o bad.sg --mem 64K
    grep_in err "big.wel" "the error names the file"
    [ -e bad.sg ] && fail "no store after an error" || pass "no store after an error"
    no_runs "run files removed after failure"
fi

# missing input
expect 1 "missing input" convert nope.el -o n.sg
grep_in err "nope.el" "missing input is named"
no_runs "nothing hidden left"

# ------------------------------------------------------------ summary
cli_finish
