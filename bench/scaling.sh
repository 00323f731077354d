#!/usr/bin/env bash
# bench/scaling.sh BUILD_DIR - does the cost per row stay flat as the data grows?
#
# For each size in CF_SCALE_SIZES (default 1 M, 10 M and 100 M rows) of one
# 3-column table ("id INT64 KEY, name STRING, val INT64": keys 0..N-1, names
# from ~100 k distinct strings, val in 0..1000002), runs once each, one process
# per step, measured through wait4 (bench/scaling_run.py: CPU seconds, wall
# seconds, peak RSS of that process):
#   import sorted      `cfile table import` of the CSV in key order
#   import shuffled    the same rows in shuffled key order (--memory-budget
#                      CF_SCALE_BUDGET when `table import --help` offers it)
#   scan full          `table scan --format csv --threads 1` of every row
#   scan where val     `--where "val < 10000"` (~1% of rows; no index: reads all)
#   scan key range     `--where "id >= N/2 AND id < N/2+1000"` (1000 rows)
#   get 1000 keys      `table get` of 1000 spread keys in one process (per key)
#   get same keys      the 1000 keys of the 1 M-row get (all below 1 M) at every size
#   parquet write      `cfile parquet write` from the sorted CSV (SNAPPY)
#   parquet dump       `cfile parquet dump --threads 1` of that file (JSON lines)
#   convert t->pq      `cfile convert TABLE OUT.parquet`
#   convert pq->t      `cfile convert --to table --key id IN.parquet DIR`
# Per row = CPU seconds / rows (per key for get; key range per returned row).
# The CSVs are generated ONCE into CF_SCALE_DIR and kept between runs (2.6 GB
# per 100 M rows, twice: sorted and shuffled); the table and Parquet file the
# steps make are rebuilt every run (another 3.2 GB at 100 M). Measured under
# load 10-18 on 2 CPUs: 31 s of wall time at 1 M, ~100 s at 10 M, ~730 s at
# 100 M (143 s of it the shuffled import with the external-sort loader; the
# loader before it grew quadratically: 656 s at 10 M, hours at 100 M).
# Results: $CF_SCALE_DIR/run_N.jsonl per size N (one line per step; a run
# replaces the lines of the steps it runs and keeps the others, so sizes and
# steps can be run separately),
# joined into results.jsonl and results.md (the table and the growth from the
# smallest to the largest size: 100M/1M when all ran) by
# bench/scaling_report.py, which also draws CF_BENCH_DOCS/performance-scaling.png
# (bench/scaling.gp, when gnuplot is installed) and, when CF_BENCH_DOCS is this
# repository's docs/, puts the table into bench/PERFORMANCE-scaling.md and
# docs/PERFORMANCE.md.
#
#   CF_SCALE_DIR    data directory (default /work/bench-data/scaling when /work
#                   exists, else BUILD_DIR/bench-scaling); never inside the repo
#                   by default, and nothing here is committed
#   CF_SCALE_SIZES  rows per size, e.g. "1000000 10000000" (default adds 100000000)
#   CF_SCALE_STEPS  which steps (default all; names as in results, e.g. "scan_full get")
#   CF_SCALE_BUDGET import --memory-budget value when supported (default 256M)
#   CF_BENCH_DOCS   where performance-scaling.png goes (default docs/)
#
# Not in CI, not in ./test: `make bench-scaling`. The machine's load average is
# recorded with every row (load1): treat times measured under load as upper bounds.
set -euo pipefail

BUILD=${1:-build-bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFILE=$(cd "$(dirname "$BUILD/cfile")" && pwd)/cfile
if [ -z "${CF_SCALE_DIR:-}" ]; then
    if [ -d /work ] && [ -w /work ]; then CF_SCALE_DIR=/work/bench-data/scaling; else CF_SCALE_DIR=$BUILD/bench-scaling; fi
fi
DIR=$CF_SCALE_DIR
SIZES=${CF_SCALE_SIZES:-"1000000 10000000 100000000"}
STEPS=${CF_SCALE_STEPS:-"import_sorted import_shuffled scan_full scan_where scan_keyrange get get_same parquet_write parquet_dump convert_to_parquet convert_to_table"}
BUDGET=${CF_SCALE_BUDGET:-256M}
DOCS=${CF_BENCH_DOCS:-$ROOT/docs}
RUN="python3 $ROOT/bench/scaling_run.py"
SCHEMA="id INT64 KEY, name STRING, val INT64"

[ -x "$CFILE" ] || { echo "scaling.sh: $CFILE not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "scaling.sh: needs python3" >&2; exit 1; }
mkdir -p "$DIR"
say() { printf '==> %s  (load %s)\n' "$*" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

IMPORT_OPTS=()
if "$CFILE" table import --help 2>&1 | grep -q -- '--memory-budget'; then
    IMPORT_OPTS=(--memory-budget "$BUDGET")
    say "table import takes --memory-budget: shuffled import runs with $BUDGET"
fi

gen() { # gen N OUT : the sorted CSV, generated once (written to a temp, renamed)
    [ -s "$2" ] && return 0
    say "generating $2"
    mawk -v n="$1" 'BEGIN {
        print "id,name,val"
        for (i = 0; i < n; i++)
            printf "%d,name%05d,%d\n", i, (i * 7919) % 100003, (i * 48271) % 1000003
    }' >"$2.tmp"
    mv "$2.tmp" "$2"
}
shuffled() { # shuffled SORTED OUT : the same rows in a fixed random order
    [ -s "$2" ] && return 0
    say "shuffling into $2"
    { head -n 1 "$1"; tail -n +2 "$1" | shuf --random-source=<(yes cfile-scaling); } >"$2.tmp"
    mv "$2.tmp" "$2"
}

for n in $SIZES; do
    csv=$DIR/sorted_$n.csv
    shuf_csv=$DIR/shuffled_$n.csv
    gen "$n" "$csv"
    want import_shuffled && shuffled "$csv" "$shuf_csv"
    t_sorted=$DIR/t_sorted_$n
    t_shuf=$DIR/t_shuffled_$n
    pq=$DIR/w_$n.parquet
    out=$DIR/run_$n.jsonl.new
    : >"$out"
    if want import_sorted || [ ! -d "$t_sorted" ]; then
        rm -rf "$t_sorted"
        say "$n import sorted"
        $RUN import_sorted "$n" "$n" - -- "$CFILE" table import "$t_sorted" --schema "$SCHEMA" \
            "$csv" >>"$out"
    fi
    if want import_shuffled; then
        rm -rf "$t_shuf"
        say "$n import shuffled"
        $RUN import_shuffled "$n" "$n" - -- "$CFILE" table import "$t_shuf" --schema "$SCHEMA" \
            "${IMPORT_OPTS[@]}" "$shuf_csv" >>"$out"
        rm -rf "$t_shuf"
    fi
    if want scan_full; then
        say "$n scan full"
        $RUN scan_full "$n" "$n" - -- "$CFILE" table scan "$t_sorted" --format csv --threads 1 >>"$out"
    fi
    if want scan_where; then
        say "$n scan where"
        $RUN scan_where "$n" "$n" - -- "$CFILE" table scan "$t_sorted" --format csv --threads 1 \
            --where "val < 10000" >>"$out"
    fi
    if want scan_keyrange; then
        say "$n scan key range"
        lo=$((n / 2))
        $RUN scan_keyrange "$n" 1000 - -- "$CFILE" table scan "$t_sorted" --format csv --threads 1 \
            --where "id >= $lo AND id < $((lo + 1000))" >>"$out"
    fi
    if want get; then
        say "$n get"
        mapfile -t keys < <(mawk -v n="$n" 'BEGIN { for (i = 0; i < 1000; i++)
            printf "--key\n%d\n", (i * 7777777 + 12345) % n }')
        $RUN get "$n" 1000 - -- "$CFILE" table get "$t_sorted" --format csv "${keys[@]}" >>"$out"
    fi
    if want get_same; then
        # The keys of the 1 M-row `get` at every size: as many blocks loaded
        # per key whatever n, so what is left is what the table's size costs.
        say "$n get, the same 1000 keys"
        mapfile -t keys < <(mawk 'BEGIN { for (i = 0; i < 1000; i++)
            printf "--key\n%d\n", (i * 7777777 + 12345) % 1000000 }')
        $RUN get_same "$n" 1000 - -- "$CFILE" table get "$t_sorted" --format csv "${keys[@]}" >>"$out"
    fi
    if want parquet_write || { { want parquet_dump || want convert_to_table; } && [ ! -s "$pq" ]; }; then
        rm -f "$pq"
        say "$n parquet write"
        $RUN parquet_write "$n" "$n" - -- "$CFILE" parquet write --schema "$SCHEMA" --quiet \
            --input "$csv" "$pq" >>"$out"
    fi
    if want parquet_dump; then
        say "$n parquet dump"
        $RUN parquet_dump "$n" "$n" - -- "$CFILE" parquet dump --threads 1 "$pq" >>"$out"
    fi
    if want convert_to_parquet; then
        say "$n convert table -> parquet"
        rm -f "$DIR/c_$n.parquet"
        $RUN convert_to_parquet "$n" "$n" - -- "$CFILE" convert --quiet "$t_sorted" \
            "$DIR/c_$n.parquet" >>"$out"
        rm -f "$DIR/c_$n.parquet"
    fi
    if want convert_to_table; then
        say "$n convert parquet -> table"
        rm -rf "$DIR/c_t_$n"
        $RUN convert_to_table "$n" "$n" - -- "$CFILE" convert --quiet --to table --key id "$pq" \
            "$DIR/c_t_$n" >>"$out"
        rm -rf "$DIR/c_t_$n"
    fi
    # Steps not run this time keep their earlier line (so one step can be re-run).
    if [ -s "$DIR/run_$n.jsonl" ]; then
        python3 - "$DIR/run_$n.jsonl" "$out" <<'PYEOF'
import json, sys
old, new = sys.argv[1], sys.argv[2]
fresh = [json.loads(l) for l in open(new) if l.strip()]
ran = {r["op"] for r in fresh}
kept = [json.loads(l) for l in open(old) if l.strip()]
kept = [r for r in kept if r["op"] not in ran]
with open(new, "w") as f:
    for r in kept + fresh:
        f.write(json.dumps(r) + "\n")
PYEOF
    fi
    mv "$out" "$DIR/run_$n.jsonl"
    python3 "$ROOT/bench/scaling_report.py" "$DIR" "$DOCS" >/dev/null
done
python3 "$ROOT/bench/scaling_report.py" "$DIR" "$DOCS"
