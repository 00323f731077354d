#!/usr/bin/env bash
# bench/bigfile.sh BUILD_DIR - scans of files far bigger than the CPU caches.
#
# Every other benchmark's files decode to 8-17 MB, inside a 32 MiB L3, so their
# memcpy references are cache speeds. These data sets hold CF_BIG_MB (default
# 1100, over 1 GiB) of decoded values each, one file per encoding the type
# allows (plus PLAIN int64 with LZ4 and ZLIB), and are written ONCE into
# CF_BENCH_DIR and kept between runs (a file is rewritten only when its size
# setting changes). Each file is scanned with `cfile bench read`:
#   warm  page cache warm (pread, checksums on), each scan paired with a memcpy
#         of the same decoded bytes from one buffer of that size (DRAM speed)
#   cold  the same with the file dropped from the page cache before every scan
#         (--cold: fdatasync + posix_fadvise DONTNEED), so it is read from disk
#   2 thr the file as two ordinal ranges on two threads (warm)
#   CPU   warm again, the decoded bytes over the process CPU (user + sys) per scan:
#         a run of CF_BIG_ITERS scans less a run of one, both --no-memcpy (each
#         scan is an untimed and a timed pass), which a loaded machine disturbs far
#         less than wall time (on a 2-vCPU VM at load 9 the warm wall median of
#         int64 BIT_SHUFFLE was 3.1 GB/s where its CPU rate was 7 GB/s)
# and one table of GB/s against the memcpy is printed (and kept as
# $CF_BENCH_DIR/results.jsonl / results.md).
#
# "2 thr" measures one column file as two iterator ranges (`--threads 2`); a
# multi-column table's threaded scan is measured by `cfile bench scan` and
# bench_rowset (docs/ROWSET.md).
#
# Also draws DOCS/performance-big.png (bench/performance-big.gp, when gnuplot is
# installed); `make bench` run afterwards puts the table and the chart into
# docs/PERFORMANCE.md.
#
#   CF_BENCH_DIR  where the data sets live (default BUILD_DIR/bench-big)
#   CF_BIG_MB     decoded MB per data set (default 1100)
#   CF_BIG_ITERS  timed scans per configuration (default 3)
#   CF_BIG_SETS   which files (default: all; names as in the table, e.g. "int64.PLAIN.LZ4")
#   CF_BENCH_DOCS where performance-big.png goes (default docs/)
#
# Disk: about 1.5x CF_BIG_MB for the 8 files (PLAIN and RLE int64 and PLAIN
# strings ~1x each, the rest less): ~4.5 GB at the default size, 1.65 GB
# measured at CF_BIG_MB=400.
# Memory: `cfile bench write` holds the values and the encoded file in memory
# while writing (about 3x CF_BIG_MB for the string sets).
set -euo pipefail

BUILD=${1:-build-bench}
CFILE=$BUILD/cfile
DIR=${CF_BENCH_DIR:-$BUILD/bench-big}
MB=${CF_BIG_MB:-1100}
ITERS=${CF_BIG_ITERS:-3}
[ -x "$CFILE" ] || { echo "bigfile.sh: $CFILE not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bigfile.sh: needs python3 for the table" >&2; exit 1; }
mkdir -p "$DIR"
RES=$DIR/results.jsonl
: >"$RES"
say() { printf '==> %s\n' "$*" >&2; }
TIMEFORMAT='%3U %3S' # bash's time: user and system CPU seconds

# name  data set  encoding  codec  decoded bytes per value
SPECS="
int64.PLAIN.NONE       int64_sorted PLAIN_ENCODING  NO_COMPRESSION 8
int64.BIT_SHUFFLE.NONE int64_sorted BIT_SHUFFLE     NO_COMPRESSION 8
int64.RLE.NONE         int64_sorted RLE             NO_COMPRESSION 8
int64.PLAIN.LZ4        int64_sorted PLAIN_ENCODING  LZ4            8
int64.PLAIN.ZLIB       int64_sorted PLAIN_ENCODING  ZLIB           8
keys.PLAIN.NONE        string_keys  PLAIN_ENCODING  NO_COMPRESSION 18
keys.PREFIX.NONE       string_keys  PREFIX_ENCODING NO_COMPRESSION 18
zipf.DICT.NONE         string_zipf  DICT_ENCODING   NO_COMPRESSION 12
"

# shellcheck source=bench/tag.sh
. "$(dirname "$0")/tag.sh"

while read -r name ds enc codec per; do
    [ -n "$name" ] || continue
    case " ${CF_BIG_SETS:-$name} " in *" $name "*) ;; *) continue ;; esac
    rows=$((MB * 1000000 / per))
    f=$DIR/$name.cfile
    stamp=$DIR/$name.rows
    if [ ! -f "$f" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$rows" ]; then
        say "writing $name ($rows rows, once)"
        rm -f "$f" "$stamp"
        "$CFILE" bench write --dataset "$ds" --rows "$rows" --encoding "$enc" \
            --compression "$codec" --iters 1 --out "$f.tmp" >/dev/null
        mv "$f.tmp" "$f"
        echo "$rows" >"$stamp"
    fi
    say "scanning $name ($(du -h "$f" | cut -f1) on disk)"
    "$CFILE" bench read "$f" --iters "$ITERS" --no-checksum-cost --threads 2 \
        | tag name="$name" mode=warm >>"$RES"
    "$CFILE" bench read "$f" --iters "$ITERS" --no-checksum-cost --cold \
        | tag name="$name" mode=cold >>"$RES"
    for it in "$ITERS" 1; do
        t=$({ time "$CFILE" bench read "$f" --iters "$it" --no-checksum-cost --no-memcpy \
            >"$DIR/cpu.json"; } 2>&1 | tail -n 1)
        tag name="$name" mode="cpu@$it" cpu_s="${t% *}+${t#* }" <"$DIR/cpu.json" >>"$RES"
    done
done <<<"$SPECS"

python3 - "$RES" "$DIR/results.md" "$MB" "$DIR/big.dat" "$ITERS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows:
    by.setdefault(r["name"], {})[r["mode"]] = r
out = ["Files of %s MB decoded values each; GB/s of decoded bytes (median of the timed scans), "
       "memcpy of the same bytes (same size, same run) and scan/memcpy (median of pair ratios); "
       "warm GB/s of CPU: decoded bytes over the process CPU time of one warm scan (the "
       "figure to compare on a loaded machine)."
       % sys.argv[3], "",
       "| file | disk MB | warm GB/s | memcpy GB/s | warm/memcpy | cold GB/s | cold/memcpy "
       "| 2 threads GB/s | 2-thread speedup | warm GB/s of CPU |",
       "|---|---|---|---|---|---|---|---|---|---|"]
iters = int(sys.argv[5])


def cpu_gbs(m):
    """Decoded bytes over the CPU seconds of one scan: (CPU of the ITERS-scan run less
    the 1-scan run) / (2 (ITERS - 1)) scans; 0 when ITERS is 1."""
    hi, lo = m.get("cpu@%d" % iters), m.get("cpu@1")
    if not hi or not lo or iters < 2:
        return 0
    cpu = lambda r: sum(float(x) for x in r["cpu_s"].split("+"))
    per = (cpu(hi) - cpu(lo)) / (2 * (iters - 1))
    return hi["decoded_bytes"] / per / 1e9 if per > 0 else 0


for name, m in by.items():
    w, c = m.get("warm"), m.get("cold")
    if not w or not c:
        continue
    gb = lambda r: r["mb_per_s"] / 1e3
    th = w["decoded_bytes"] / w["threads_median_s"] / 1e9 if w.get("threads_median_s") else 0
    import os
    out.append("| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
        name, os.path.getsize(w["file"]) / 1e6 if os.path.exists(w["file"]) else 0,
        gb(w), w["memcpy_mb_per_s"] / 1e3, w["ratio_vs_memcpy"], gb(c), c["ratio_vs_memcpy"],
        th, w.get("speedup", 0), cpu_gbs(m)))
text = "\n".join(out) + "\n"
open(sys.argv[2], "w").write(text)
print(text)
with open(sys.argv[4], "w") as f:
    f.write("# file warm_gbs cold_gbs memcpy_gbs\n")
    for name, m in by.items():
        w, c = m.get("warm"), m.get("cold")
        if w and c:
            f.write('"%s" %.3f %.3f %.3f\n' % (name, w["mb_per_s"] / 1e3, c["mb_per_s"] / 1e3,
                                              w["memcpy_mb_per_s"] / 1e3))
PY
DOCS=${CF_BENCH_DOCS:-$(cd "$(dirname "$0")/.." && pwd)/docs}
if command -v gnuplot >/dev/null; then
    mkdir -p "$DOCS"
    gnuplot -e "datafile='$DIR/big.dat'; out='$DOCS/performance-big.png'" \
        "$(dirname "$0")/performance-big.gp"
else
    say "gnuplot not found: performance-big.png not drawn"
fi
