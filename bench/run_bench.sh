#!/usr/bin/env bash
# bench/run_bench.sh BUILD_DIR - what `make bench` runs after building BUILD_DIR.
#
# Writes the standard data sets (`cfile bench write`) with every encoding their
# type allows and every codec, then runs `cfile bench read` on each file,
# `cfile bench seek` (ordinal, and value on the sorted sets; pread, mmap and
# with the block cache), and the LevelDB/RocksDB/SQLite point lookups on the
# same keys (bench_peers), all in this one run. Prints one table and writes
# docs/PERFORMANCE.md and docs/performance.png (gnuplot).
#
#   CF_BENCH_ROWS   rows per fixed-width data set (default 2000000)
#   CF_BENCH_SROWS  rows per string data set (default 1000000)
#   CF_BENCH_ITERS  scans per read benchmark (default 5)
#   CF_BENCH_SEEKS  seeks per seek benchmark (default 50000)
#   CF_BENCH_DOCS   where PERFORMANCE.md and performance.png go (default docs/)
#   CF_BENCH_CODECS codecs to write each file with (default "NO_COMPRESSION LZ4 SNAPPY ZLIB")
#   CF_BENCH_PQROWS rows per Parquet file scanned beside DuckDB (default CF_BENCH_ROWS)
#   CF_BENCH_PQWROWS rows per Parquet write case beside DuckDB (default 1000000)
set -euo pipefail

BUILD=${1:-build-bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFILE=$BUILD/cfile
PEERS=$BUILD/bench_peers
ROWS=${CF_BENCH_ROWS:-2000000}
SROWS=${CF_BENCH_SROWS:-1000000}
ITERS=${CF_BENCH_ITERS:-5}
SEEKS=${CF_BENCH_SEEKS:-50000}
PQROWS=${CF_BENCH_PQROWS:-$ROWS}
PQWROWS=${CF_BENCH_PQWROWS:-1000000}
DOCS=${CF_BENCH_DOCS:-$ROOT/docs}
WORK=$BUILD/bench-data
RES=$WORK/results.jsonl

[ -x "$CFILE" ] || { echo "run_bench.sh: $CFILE not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "run_bench.sh: needs python3 for the table" >&2; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK" "$DOCS"
: >"$RES"

# shellcheck source=bench/datasets.sh
. "$ROOT/bench/datasets.sh"
CODECS=${CF_BENCH_CODECS:-"NO_COMPRESSION LZ4 SNAPPY ZLIB"}

say() { printf '==> %s\n' "$*" >&2; }
# shellcheck source=bench/tag.sh
. "$ROOT/bench/tag.sh"

for ds in $SETS; do
    rows=$ROWS
    case $ds in string_*) rows=$SROWS ;; esac
    for enc in ${ENCS[$ds]}; do
        for codec in $CODECS; do
            f=$WORK/$ds.$enc.$codec.cfile
            say "$ds $enc $codec"
            "$CFILE" bench write --dataset "$ds" --rows "$rows" --encoding "$enc" \
                --compression "$codec" --out "$f" --iters 3 | tag dataset="$ds" >>"$RES"
            if [ "$codec" = NO_COMPRESSION ]; then
                "$CFILE" bench read "$f" --iters "$ITERS" --threads 2 | tag dataset="$ds" >>"$RES"
                "$CFILE" bench read "$f" --iters "$ITERS" --mmap --view --no-checksum-cost \
                    | tag dataset="$ds" >>"$RES"
                if [ "$enc" = PLAIN_ENCODING ]; then
                    # The copy path on blocks already in memory (the block cache), as
                    # the memcpy reference's source is: the PLAIN vs memcpy target.
                    "$CFILE" bench read "$f" --iters "$ITERS" --cache 256 --no-checksum-cost \
                        | tag dataset="$ds" >>"$RES"
                fi
                for io in "" "--mmap" "--cache 256"; do
                    # shellcheck disable=SC2086
                    "$CFILE" bench seek "$f" --mode ordinal --n "$SEEKS" $io \
                        | tag dataset="$ds" >>"$RES"
                done
            else
                "$CFILE" bench read "$f" --iters "$ITERS" --no-checksum-cost \
                    | tag dataset="$ds" >>"$RES"
                "$CFILE" bench seek "$f" --mode ordinal --n "$SEEKS" --cache 256 \
                    | tag dataset="$ds" >>"$RES"
            fi
        done
    done
done

# Value seeks on the sorted sets, and the peers on the same keys.
for ds in int64_sorted string_keys; do
    rows=$ROWS kind=int64
    case $ds in string_*) rows=$SROWS kind=string ;; esac
    vals=$WORK/$ds.values
    "$CFILE" bench write --dataset "$ds" --rows "$rows" --iters 1 --values-out "$vals" >/dev/null
    for enc in ${ENCS[$ds]}; do
        f=$WORK/$ds.$enc.NO_COMPRESSION.cfile
        say "$ds $enc value seeks"
        for io in "" "--mmap" "--cache 256"; do
            # shellcheck disable=SC2086
            "$CFILE" bench seek "$f" --mode value --n "$SEEKS" --keys-out "$WORK/$ds.keys" $io \
                | tag dataset="$ds" >>"$RES"
        done
    done
    if [ -x "$PEERS" ]; then
        say "$ds peers"
        mkdir -p "$WORK/peers-$ds"
        "$PEERS" "$kind" "$vals" "$WORK/$ds.keys" "$WORK/peers-$ds" | tag dataset="$ds" >>"$RES"
    else
        say "bench_peers not built (libleveldb-dev, librocksdb-dev, libsqlite3-dev missing?)"
    fi
done

# Parquet beside DuckDB in this run (the "Parquet" section of PERFORMANCE.md; how
# each side is timed: bench/parquet_read.c, bench/parquet_write.mjs). Needs
# DuckDB from npm (./test installs it in tools/duckdb); skipped without it.
if [ -x "$BUILD/bench_parquet_read" ]; then
    say "parquet read vs DuckDB"
    rc=0
    CF_BENCH_JSON=1 "$BUILD/bench_parquet_read" "$PQROWS" "$ITERS" "$WORK/parquet" \
        2>"$WORK/parquet_read.err" | tag op=parquet_read >>"$RES" || rc=$?
    [ "$rc" = 0 ] || say "bench_parquet_read skipped (exit $rc: $(head -c 300 "$WORK/parquet_read.err"))"
fi
if [ -x "$BUILD/bench_parquet_write" ] && command -v node >/dev/null \
    && [ -d "$ROOT/tools/duckdb/node_modules/@duckdb/node-api" ]; then
    say "parquet write vs DuckDB"
    mkdir -p "$WORK/parquet_write"
    rc=0
    CF_BENCH_JSON=1 node "$ROOT/bench/parquet_write.mjs" "$BUILD/bench_parquet_write" \
        "$PQWROWS" "$ITERS" "$WORK/parquet_write" 2>"$WORK/parquet_write.err" \
        | tag op=parquet_write >>"$RES" || rc=$?
    [ "$rc" = 0 ] || say "parquet write bench skipped (exit $rc: $(head -c 300 "$WORK/parquet_write.err"))"
else
    say "parquet write vs DuckDB skipped (bench_parquet_write, node or tools/duckdb missing)"
fi

python3 "$ROOT/bench/report.py" "$RES" "$DOCS" "$(nproc) vCPU, $(uname -m)" \
    "rows=$ROWS strings=$SROWS iters=$ITERS seeks=$SEEKS parquet_rows=$PQROWS parquet_write_rows=$PQWROWS"
if command -v gnuplot >/dev/null; then
    gnuplot -e "datafile='$WORK/chart.dat'; peerfile='$WORK/peers.dat'; out='$DOCS/performance.png'" \
        "$ROOT/bench/performance.gp"
else
    say "gnuplot not found: docs/performance.png not redrawn"
fi
