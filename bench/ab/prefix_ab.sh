#!/usr/bin/env bash
# bench/ab/prefix_ab.sh [BASE_REV] - PREFIX value seeks and scans of this tree
# against BASE_REV (default 1bba00f: main before issue 17's PREFIX work), in
# one run: both libraries are built (RelWithDebInfo) into $CF_AB_DIR (default
# /tmp/cfile-ab), string_keys files of 1 M and 4 M rows are written PREFIX by
# this tree's cfile, and bench/ab/prefix_ab runs against each library in turn,
# alternating, $CF_AB_ROUNDS times (default 7). Prints the median of the
# rounds per configuration and old / new (> 1: this tree is faster).
#
#   warm seek   value seeks, 256 MiB block cache (mean CPU ns per seek)
#   cold seek   value seeks, no block cache: pread + CRC of each block
#   scan        full scans, pread (no cache) and cached (median CPU ms per scan,
#               minor page faults per scan)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${1:-1bba00f}
DIR=${CF_AB_DIR:-/tmp/cfile-ab}
ROUNDS=${CF_AB_ROUNDS:-7}
mkdir -p "$DIR/base-src"
rm -rf "$DIR/base-src"/*
git -C "$ROOT" archive "$BASE" | tar -x -C "$DIR/base-src"
for side in base new; do
    src=$ROOT
    [ "$side" = base ] && src=$DIR/base-src
    cmake -S "$src" -B "$DIR/$side" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCF_BUILD_TESTS=OFF >/dev/null
    cmake --build "$DIR/$side" -j"$(nproc)" --target cfile cfile_cli >/dev/null
done
# cfile/version.h includes the configured cfile/config.h from the build tree.
cc -O2 -I"$ROOT/include" -I"$DIR/new/include" "$ROOT/bench/ab/prefix_ab.c" -o "$DIR/prefix_ab" \
    -L"$DIR/new" -lcfile
for rows in 1000000 4000000; do
    f=$DIR/keys$rows.cfile
    [ -f "$f" ] || "$DIR/new/cfile" bench write --dataset string_keys --rows $rows \
        --encoding PREFIX --iters 1 --out "$f" >/dev/null
done
out=$DIR/results.txt
: >"$out"
for _ in $(seq "$ROUNDS"); do
    for rows in 1000000 4000000; do
        f=$DIR/keys$rows.cfile
        for cfg in "warm_seek seek 256 20000" "cold_seek seek 0 2000" "scan_pread scan 0 9" \
                   "scan_cached scan 256 9"; do
            read -r what mode cache_mb n <<<"$cfg"
            for side in base new; do
                res=$(LD_LIBRARY_PATH=$DIR/$side "$DIR/prefix_ab" "$mode" "$f" "$cache_mb" "$n")
                echo "$rows $what $side $res" >>"$out"
            done
        done
    done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    d[(int(f[0]), f[1], f[2])].append([float(x) for x in f[3:]])
print("%-8s %-12s %12s %12s %8s %14s" % ("rows", "what", "old", "new", "old/new", "faults old/new"))
for (rows, what) in sorted({(k[0], k[1]) for k in d}):
    o = [statistics.median(c) for c in zip(*d[(rows, what, "base")])]
    n = [statistics.median(c) for c in zip(*d[(rows, what, "new")])]
    unit = "ns" if "seek" in what else "ms"
    faults = "%.1f / %.1f" % (o[1], n[1]) if len(o) > 1 else ""
    print("%-8d %-12s %9.3f %s %9.3f %s %8.2f %14s" % (rows, what, o[0], unit, n[0], unit, o[0] / n[0], faults))
PY
