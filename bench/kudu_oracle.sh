#!/usr/bin/env bash
# bench/kudu_oracle.sh BUILD_DIR - cfile beside Kudu's own CFile reader (issue 29 item 5).
#
# Writes 18 files with `cfile bench write` and, on each, runs `cfile bench read|seek`
# and the peer `kudu-oracle bench-read|bench-seek` (KUDU-ORACLE.md) on the same file,
# the two sides alternating, CF_ORACLE_ROUNDS times; prints one table of the medians
# over rounds (ms per full scan, us per seek) and cfile's lead (Kudu / cfile: > 1 is
# ahead). Benchmarks only: the oracle is never used by tests or CI. Skipped, with the
# reason printed and exit 0, when the oracle or its shared libraries are missing.
#
#   CF_KUDU_ORACLE    the oracle (default ../shared/tools/kudu-oracle beside the checkout)
#   CF_ORACLE_ROWS    rows per file (default 2000000)
#   CF_ORACLE_ROUNDS  alternated rounds per configuration (default 3)
#   CF_ORACLE_ITERS   timed scans per read run, each side (default 10)
#   CF_ORACLE_SEEKS   seeks per seek run (default 5000)
#   CF_ORACLE_ONLY    a regex: only files whose name matches (default: all)
#   CF_ORACLE_WHAT    scan, seek or all (default): which configurations run
#   CF_ORACLE_BASE    another cfile binary (a build before a change): run beside the two,
#                     alternating too, as the table's "before" column
set -euo pipefail

BUILD=${1:-build-bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFILE=$BUILD/cfile
ORACLE=${CF_KUDU_ORACLE:-$ROOT/../shared/tools/kudu-oracle}
ROWS=${CF_ORACLE_ROWS:-2000000}
ROUNDS=${CF_ORACLE_ROUNDS:-3}
ITERS=${CF_ORACLE_ITERS:-10}
SEEKS=${CF_ORACLE_SEEKS:-5000}
ONLY=${CF_ORACLE_ONLY:-.}
WHAT=${CF_ORACLE_WHAT:-all}
BASE=${CF_ORACLE_BASE:-}
WORK=$BUILD/bench-oracle
RES=$WORK/results.jsonl

say() { printf '==> %s\n' "$*" >&2; }
[ -x "$CFILE" ] || { echo "kudu_oracle.sh: $CFILE not built" >&2; exit 1; }
if [ ! -x "$ORACLE" ]; then
    say "Kudu oracle skipped: $ORACLE not found (set CF_KUDU_ORACLE)"
    exit 0
fi
if missing=$(ldd "$ORACLE" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ') \
    && [ -n "$missing" ]; then
    say "Kudu oracle skipped: shared libraries missing: $missing(see KUDU-ORACLE.md)"
    exit 0
fi
command -v python3 >/dev/null || { say "Kudu oracle skipped: needs python3"; exit 0; }
rm -rf "$WORK"
mkdir -p "$WORK"
: >"$RES"

# name dataset encoding compression: the 18 files.
FILES="
int64_sorted.bshuf       int64_sorted   BIT_SHUFFLE     NO_COMPRESSION
int64_sorted.plain       int64_sorted   PLAIN_ENCODING  NO_COMPRESSION
int64_sorted.bshuf.snappy int64_sorted  BIT_SHUFFLE     SNAPPY
int32_small.bshuf        int32_small    BIT_SHUFFLE     NO_COMPRESSION
int32_random.plain       int32_random   PLAIN_ENCODING  NO_COMPRESSION
int32_random.bshuf.lz4   int32_random   BIT_SHUFFLE     LZ4
double_walk.bshuf        double_walk    BIT_SHUFFLE     NO_COMPRESSION
int32_runs.rle           int32_runs     RLE             NO_COMPRESSION
bool_runs.rle            bool_runs      RLE             NO_COMPRESSION
bool_runs.plain          bool_runs      PLAIN_ENCODING  NO_COMPRESSION
string_zipf.dict         string_zipf    DICT_ENCODING   NO_COMPRESSION
string_zipf.plain.snappy string_zipf    PLAIN_ENCODING  SNAPPY
string_keys.prefix       string_keys    PREFIX_ENCODING NO_COMPRESSION
string_keys.plain.zlib   string_keys    PLAIN_ENCODING  ZLIB
int64_nullable.bshuf     int64_nullable BIT_SHUFFLE     NO_COMPRESSION
int64_nullable.rle       int64_nullable RLE             NO_COMPRESSION
string_nullable.dict     string_nullable DICT_ENCODING  NO_COMPRESSION
string_nullable.plain    string_nullable PLAIN_ENCODING NO_COMPRESSION
"

tag() { # tag KEY=VALUE... : add fields to the JSON object on stdin
    python3 -c 'import json,sys
o=json.loads(sys.stdin.read()); o.update(dict(a.split("=",1) for a in sys.argv[1:]))
print(json.dumps(o))' "$@"
}

# measure SIDE CONFIG CMD...: one run, its JSON line tagged with the process's CPU
# seconds (user + system, bash's time) and kept.
measure() {
    local side=$1 cfg=$2 t TIMEFORMAT='%3U %3S'
    shift 2
    t=$({ time "$@" >"$WORK/out.json"; } 2>&1 | tail -n 1)
    tag side="$side" cfg="$cfg" name="$name" round="$r" cpu_s="${t% *}+${t#* }" \
        <"$WORK/out.json" >>"$RES"
}

# A base binary older than --no-memcpy runs without it (kudu_oracle.py then takes
# its memcpy reference off its CPU, an estimate).
BASE_MEMCPY_FLAG=1
if [ -n "$BASE" ] && ! "$BASE" bench --help 2>&1 | grep -q -- --no-memcpy; then
    BASE_MEMCPY_FLAG=0
fi

# run SIDE CONFIG CMD...: measure; a cfile run is repeated with the CF_ORACLE_BASE
# binary (side "before") when one is given.
run() {
    local side=$1 cfg=$2 a args=()
    shift 2
    measure "$side" "$cfg" "$@"
    if [ "$side" = cfile ] && [ -n "$BASE" ]; then
        shift
        for a in "$@"; do
            [ "$a" = --no-memcpy ] && [ $BASE_MEMCPY_FLAG = 0 ] && continue
            args+=("$a")
        done
        measure before "$cfg" "$BASE" "${args[@]}"
    fi
}

echo "$FILES" | while read -r name ds enc codec; do
    [ -n "$name" ] || continue
    [[ $name =~ $ONLY ]] || continue
    f=$WORK/$name.cfile
    say "$name: write"
    "$CFILE" bench write --dataset "$ds" --rows "$ROWS" --encoding "$enc" --compression "$codec" \
        --out "$f" --iters 1 >/dev/null
    binary=0
    case $ds in string_*) binary=1 ;; esac
    for ((r = 0; r < ROUNDS; r++)); do
        say "$name: round $((r + 1))/$ROUNDS"
        # Scans, data blocks not cached on either side; the order flips each round.
        # Kudu hands out slices for binary columns: like for like is our --view.
        # Each also with one iteration: the CPU difference of the two runs is what
        # the extra iterations cost (kudu_oracle.py), without start-up and file open.
        # --no-memcpy: our process then runs scans only, as the oracle's does, so
        # the two CPU figures are like for like with nothing estimated or subtracted.
        cf_read() {
            local it
            for it in "$ITERS" 1; do
                run cfile "scan@$it" "$CFILE" bench read "$f" --iters "$it" --no-checksum-cost \
                    --no-memcpy
                if [ $binary = 1 ]; then
                    run cfile "scan-view@$it" "$CFILE" bench read "$f" --iters "$it" --view \
                        --no-checksum-cost --no-memcpy
                fi
            done
        }
        kd_read() {
            run kudu "scan@$ITERS" "$ORACLE" bench-read "$f" --iters "$ITERS"
            run kudu scan@1 "$ORACLE" bench-read "$f" --iters 1
        }
        if [ "$WHAT" != seek ]; then
            if ((r % 2 == 0)); then cf_read; kd_read; else kd_read; cf_read; fi
        fi
        [ "$WHAT" != scan ] || continue
        # Ordinal seeks: both with data blocks cached, and both without.
        cf_seek() {
            run cfile seek-cached "$CFILE" bench seek "$f" --mode ordinal --n "$SEEKS" --cache 256
            run cfile seek-uncached "$CFILE" bench seek "$f" --mode ordinal --n "$SEEKS"
        }
        kd_seek() {
            run kudu seek-cached "$ORACLE" bench-seek "$f" --mode ordinal --n "$SEEKS"
            run kudu seek-uncached "$ORACLE" bench-seek "$f" --mode ordinal --n "$SEEKS" \
                --no-cache-data
        }
        if ((r % 2 == 0)); then cf_seek; kd_seek; else kd_seek; cf_seek; fi
        case $ds in int64_sorted | string_keys)
            cf_vseek() {
                run cfile vseek-cached "$CFILE" bench seek "$f" --mode value --n "$SEEKS" \
                    --cache 256
            }
            kd_vseek() { run kudu vseek-cached "$ORACLE" bench-seek "$f" --mode value --n "$SEEKS"; }
            if ((r % 2 == 0)); then cf_vseek; kd_vseek; else kd_vseek; cf_vseek; fi
            ;;
        esac
    done
done

python3 "$ROOT/bench/kudu_oracle.py" "$RES" "$(nproc) vCPU, load $(cut -d' ' -f1-3 /proc/loadavg)" \
    "rows=$ROWS rounds=$ROUNDS iters=$ITERS seeks=$SEEKS"
