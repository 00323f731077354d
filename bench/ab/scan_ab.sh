#!/usr/bin/env bash
# bench/ab/scan_ab.sh [BASE_REV] - every bench data set and encoding of this
# tree against BASE_REV (default 0fc1347: main before issue 19's shape work),
# in one run: both libraries are built (Release) into $CF_AB_DIR (default
# /tmp/cfile-scan-ab), the files are written once by this tree's cfile
# (`bench write`, the data sets of bench/datasets.sh at $CF_AB_ROWS rows,
# strings at half), and bench/ab/scan_ab, compiled against each side's own
# headers, runs against each library in turn, alternating, $CF_AB_ROUNDS
# times (default 5). Prints the median per configuration and old / new
# (> 1: this tree is faster), then the geometric mean and the range.
#
#   scan pread   full scans, no block cache (pread + CRC of every block), ms
#   scan cached  full scans, 256 MiB block cache, ms
#   seek cached  ordinal seeks + one-row copies, 256 MiB cache, ns
#   (instructions per scan or seek with CF_AB_CALLGRIND=1, below)
#
# Both sides must read the same values: the run stops if their digests differ.
#
# CF_AB_CALLGRIND=1 counts instructions instead of timing (valgrind's
# callgrind; independent of the machine's load, one round is enough): per scan
# and per seek, as the difference between a run of 1 and of 3 scans (2000 and
# 4000 seeks), so opening the file and warming the cache cancel out.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${1:-0fc1347}
DIR=${CF_AB_DIR:-/tmp/cfile-scan-ab}
ROUNDS=${CF_AB_ROUNDS:-5}
ROWS=${CF_AB_ROWS:-2000000}
CODECS=${CF_AB_CODECS:-"NO_COMPRESSION LZ4"}
mkdir -p "$DIR/base-src" "$DIR/files"
rm -rf "$DIR/base-src"/*
git -C "$ROOT" archive "$BASE" | tar -x -C "$DIR/base-src"
for side in base new; do
    src=$ROOT
    [ "$side" = base ] && src=$DIR/base-src
    log=$DIR/build.$side.log
    { cmake -S "$src" -B "$DIR/$side" -DCMAKE_BUILD_TYPE=Release -DCF_BUILD_TESTS=OFF &&
        cmake --build "$DIR/$side" -j"$(nproc)" --target cfile cfile_cli; } >"$log" 2>&1 ||
        { cat "$log" >&2; exit 1; }
    # The base's headers: an API renamed since then must not change what runs.
    cc -O2 -I"$src/include" -I"$DIR/$side/include" "$ROOT/bench/ab/scan_ab.c" \
        -o "$DIR/scan_ab.$side" -L"$DIR/$side" -lcfile
done

# shellcheck source=bench/datasets.sh
. "$ROOT/bench/datasets.sh"
files=()
for ds in $SETS; do
    rows=$ROWS
    case $ds in string_*) rows=$((ROWS / 2)) ;; esac
    for enc in ${ENCS[$ds]}; do
        for codec in $CODECS; do
            f=$DIR/files/$ds.$enc.$codec.$rows.cfile
            [ -f "$f" ] || "$DIR/new/cfile" bench write --dataset "$ds" --rows "$rows" \
                --encoding "$enc" --compression "$codec" --iters 1 --out "$f" >/dev/null
            files+=("$f")
        done
    done
done

out=$DIR/results.txt
: >"$out"
if [ "${CF_AB_CALLGRIND:-0}" = 1 ]; then
    ROUNDS=1
    instr() { # instr SIDE MODE FILE CACHE_MB N: instructions the whole run took
        LD_LIBRARY_PATH=$DIR/$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            "$DIR/scan_ab.$1" "$2" "$3" "$4" "$5" 2>&1 | awk '/Collected/ {print $4}'
    }
fi
for round in $(seq "$ROUNDS"); do
    for f in "${files[@]}"; do
        for cfg in "scan_pread scan 0 5" "scan_cached scan 256 9" "seek_cached seek 256 20000"; do
            read -r what mode cache_mb n <<<"$cfg"
            for side in base new; do
                if [ "${CF_AB_CALLGRIND:-0}" = 1 ]; then
                    # per scan: (3 scans - 1 scan) / 2; per seek: (4000 - 2000) / 6000,
                    # as each seek run makes three passes
                    if [ "$mode" = scan ]; then a=1 b=3 div=2; else a=2000 b=4000 div=6000; fi
                    lo=$(instr "$side" "$mode" "$f" "$cache_mb" "$a")
                    hi=$(instr "$side" "$mode" "$f" "$cache_mb" "$b")
                    res=$(((hi - lo) / div))
                    LD_LIBRARY_PATH=$DIR/$side "$DIR/scan_ab.$side" "$mode" "$f" "$cache_mb" 1 \
                        2>"$DIR/digest.$side" >/dev/null
                else
                    res=$(LD_LIBRARY_PATH=$DIR/$side "$DIR/scan_ab.$side" "$mode" "$f" \
                        "$cache_mb" "$n" 2>"$DIR/digest.$side")
                fi
                echo "$(basename "$f" .cfile) $what $side $res" >>"$out"
            done
            cmp -s "$DIR/digest.base" "$DIR/digest.new" ||
                { echo "scan_ab.sh: $f $what: the two builds read different values" >&2; exit 1; }
        done
    done
    echo "round $round of $ROUNDS done" >&2
done
python3 - "$out" <<'PY'
import collections, math, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    d[(f[0], f[1], f[2])].append(float(f[3]))
print("%-46s %-12s %10s %10s %8s" % ("file", "what", "old", "new", "old/new"))
ratios = collections.defaultdict(list)
for (name, what) in sorted({(k[0], k[1]) for k in d}):
    o = statistics.median(d[(name, what, "base")])
    n = statistics.median(d[(name, what, "new")])
    ratios[what].append(o / n)
    print("%-46s %-12s %10.3f %10.3f %8.2f" % (name, what, o, n, o / n))
for what, r in sorted(ratios.items()):
    g = math.exp(sum(math.log(x) for x in r) / len(r))
    print("%-12s geomean old/new %.3f  min %.2f  max %.2f  (%d configurations)"
          % (what, g, min(r), max(r), len(r)))
PY
