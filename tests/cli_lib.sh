# The harness shared by the command-line test scripts (test_cli*.sh):
#   . "$(dirname "$0")/cli_lib.sh"
#   cli_setup NAME "$@"     checks the spillgraph path, makes a work dir
#   expect CODE NAME ARGS...; grep_in FILE PATTERN NAME; json_ok NAME ...
#   cli_finish              summary line; the script's exit status
# Each check prints "ok   NAME" or "FAIL NAME" (with the command's output).

PASSED=0
FAILED=0
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1

# cli_setup NAME PATH-TO-SPILLGRAPH: sets SG, and works in a fresh directory
# under the current one (kept on failure).
cli_setup() {
    if [ $# -lt 2 ] || [ ! -x "$2" ]; then
        echo "usage: bash tests/test_$1.sh PATH-TO-SPILLGRAPH" >&2
        exit 2
    fi
    SG=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
    WORK=$(mktemp -d "$PWD/$1-test.XXXXXX") || { echo "cannot create a work directory" >&2; exit 1; }
    cd "$WORK" || exit 1
    # the searches' memos (src/memo.c) and any cache in the work directory,
    # never the user's
    export XDG_CACHE_HOME="$WORK/cache"
    unset SPILLGRAPH_MEMO_DIR SPILLGRAPH_MEMO SPILLGRAPH_RATES
}

pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
fail() {
    FAILED=$((FAILED + 1))
    echo "FAIL $1"
    if [ -s out ]; then echo "  --- stdout:"; sed -n '1,20s/^/  | /p' out; fi
    if [ -s err ]; then echo "  --- stderr:"; sed -n '1,20s/^/  | /p' err; fi
}

# run ARGS...: runs spillgraph with stdout in ./out, stderr in ./err; sets RC.
run() {
    "$SG" "$@" >out 2>err
    RC=$?
}

# expect CODE NAME ARGS...: the command exits with CODE.
expect() {
    local code=$1 name=$2
    shift 2
    run "$@"
    if [ "$RC" -eq "$code" ]; then pass "$name"; else fail "$name (exit $RC, wanted $code)"; fi
}

# grep_in FILE PATTERN NAME: FILE contains PATTERN (fixed string).
grep_in() {
    if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3 ('$2' not in $1)"; fi
}

# json_ok NAME: ./out parses as JSON (when python3 exists).
json_ok() {
    if [ $HAVE_PY -eq 0 ]; then pass "$1 (python3 absent: not parsed)"; return; fi
    if python3 -c 'import json,sys; json.load(sys.stdin)' <out 2>/dev/null; then
        pass "$1"
    else
        fail "$1 (not valid JSON)"
    fi
}

# cli_finish: removes the work directory when everything passed and prints
# "N passed, N failed"; returns non-zero on any failure.
cli_finish() {
    cd .. || exit 1
    if [ "$FAILED" -eq 0 ]; then rm -rf "$WORK"; else echo "work directory kept: $WORK"; fi
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}
