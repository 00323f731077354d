#!/usr/bin/env bash
# `cfile table import` of a 3-column CSV (id INT64 KEY, name STRING, v INT32)
# with sorted and shuffled keys, beside DuckDB loading the same CSV into a table
# with that primary key (bench/import_duckdb.mjs; skipped with a reason when
# node or tools/duckdb is missing). The CSVs are generated once (fixed seed)
# and kept in DIR between runs.
#
# usage: bench/import_scaling.sh [ROWS [DIR [CFILE]]]
#   ROWS   rows per CSV (default 1000000)
#   DIR    work directory (default /dev/shm/cf_bench_import, else /tmp)
#   CFILE  the cfile binary (default build/cfile)
#   BUDGETS environment: memory budgets to run the shuffled import with as well
#          (`--memory-budget`, e.g. "1M 16M"; default none); peak RSS shows that
#          memory stays bounded
#   BEFORE environment: another cfile binary (e.g. one built from main) timed on
#          the same files first, for before/after rows in one run
#
# cfile parses CSV and JSON lines, from a file or a pipe, on one thread per CPU
# unless told --threads 1 (both shown; "stdin" rows pipe the file through cat).
# Per case: wall and CPU seconds (user + sys of the process: the steadier number
# on a shared machine), rows/s of wall and of CPU, and peak RSS (GNU time).
set -euo pipefail
ROWS=${1:-1000000}
DIR=${2:-$([ -d /dev/shm ] && echo /dev/shm/cf_bench_import || echo /tmp/cf_bench_import)}
CFILE=${3:-build/cfile}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
SCHEMA="id INT64 KEY, name STRING, v INT32"

gen() { # gen FILE shuffled|sorted
    [ -s "$1" ] && return 0
    {
        echo "id,name,v"
        if [ "$2" = shuffled ]; then
            seq 1 "$ROWS" | shuf --random-source=<(yes)
        else
            seq 1 "$ROWS"
        fi | awk '{ printf "%d,name-%d,%d\n", $1, $1 * 7919 % 1000003, $1 % 1000 }'
    } >"$1.tmp" && mv "$1.tmp" "$1"
}
gen "$DIR/sorted_$ROWS.csv" sorted
gen "$DIR/shuffled_$ROWS.csv" shuffled
# the same shuffled rows as JSON lines
if [ ! -s "$DIR/shuffled_$ROWS.jsonl" ]; then
    awk -F, 'NR > 1 { printf "{\"id\":%s,\"name\":\"%s\",\"v\":%s}\n", $1, $2, $3 }' \
        "$DIR/shuffled_$ROWS.csv" >"$DIR/shuffled_$ROWS.jsonl.tmp" &&
        mv "$DIR/shuffled_$ROWS.jsonl.tmp" "$DIR/shuffled_$ROWS.jsonl"
fi

echo "# table import of $ROWS rows ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf "%-28s %8s %8s %12s %12s %9s\n" case wall_s cpu_s rows/s_wall rows/s_cpu rss_MiB
row() { # row NAME WALL CPU RSS_KIB
    awk -v n="$1" -v w="$2" -v c="$3" -v r="$4" -v rows="$ROWS" 'BEGIN {
        printf "%-28s %8.2f %8.2f %12.0f %12.0f %9.1f\n", n, w, c, rows / w, rows / c, r / 1024 }'
}
import() { # import BINARY NAME CSV|JSONL|stdin:FILE [options]
    local bin=$1 name=$2 csv=$3
    shift 3
    rm -rf "$DIR/table"
    if [ "${csv#stdin:}" != "$csv" ]; then # piped: only cfile is timed
        local f=${csv#stdin:} fmt=csv
        [ "${f%.jsonl}" = "$f" ] || fmt=jsonl
        cat "$f" | /usr/bin/time -f "%e %U %S %M" -o "$DIR/time" \
            "$bin" table import "$DIR/table" - --format "$fmt" --schema "$SCHEMA" "$@" >/dev/null
    else
        /usr/bin/time -f "%e %U %S %M" -o "$DIR/time" \
            "$bin" table import "$DIR/table" "$csv" --schema "$SCHEMA" "$@" >/dev/null
    fi
    read -r w u s m <"$DIR/time"
    row "$name" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$m"
    local n
    n=$("$bin" table info "$DIR/table" --json | grep -o '"rows": *[0-9]*' | head -1 | grep -o '[0-9]*$' || true)
    [ -z "$n" ] || [ "$n" = "$ROWS" ] || { echo "table holds $n rows, want $ROWS" >&2; exit 1; }
}
J=$DIR/shuffled_$ROWS.jsonl
if [ -n "${BEFORE:-}" ]; then
    import "$BEFORE" "before: cfile sorted" "$DIR/sorted_$ROWS.csv"
    import "$BEFORE" "before: cfile shuffled" "$DIR/shuffled_$ROWS.csv"
    import "$BEFORE" "before: jsonl" "$J"
    import "$BEFORE" "before: stdin csv" "stdin:$DIR/shuffled_$ROWS.csv"
    import "$BEFORE" "before: stdin jsonl" "stdin:$J"
fi
import "$CFILE" "cfile sorted" "$DIR/sorted_$ROWS.csv"
import "$CFILE" "cfile shuffled threads=1" "$DIR/shuffled_$ROWS.csv" --threads 1
import "$CFILE" "cfile shuffled threads=auto" "$DIR/shuffled_$ROWS.csv"
import "$CFILE" "cfile jsonl threads=1" "$J" --threads 1
import "$CFILE" "cfile jsonl threads=auto" "$J"
import "$CFILE" "cfile stdin csv threads=auto" "stdin:$DIR/shuffled_$ROWS.csv"
import "$CFILE" "cfile stdin jsonl threads=auto" "stdin:$J"
for b in ${BUDGETS:-}; do
    import "$CFILE" "cfile shuffled budget $b" "$DIR/shuffled_$ROWS.csv" --memory-budget "$b"
done
rm -rf "$DIR/table"

if ! command -v node >/dev/null; then
    echo "# DuckDB skipped: no node"
    exit 0
fi
for t in 1 0; do
    out=$(node "$HERE/import_duckdb.mjs" "$DIR/shuffled_$ROWS.csv" "$t" 2>&1) || {
        echo "# DuckDB skipped: $out"
        exit 0
    }
    th=$(echo "$out" | grep -o '"threads":[0-9]*' | cut -d: -f2)
    w=$(echo "$out" | grep -o '"wall_s":[0-9.]*' | cut -d: -f2)
    c=$(echo "$out" | grep -o '"cpu_s":[0-9.]*' | cut -d: -f2)
    m=$(echo "$out" | grep -o '"peak_rss_mb":[0-9]*' | cut -d: -f2)
    row "duckdb shuffled threads=$th" "$w" "$c" "$((m * 1024))"
done
