#!/usr/bin/env bash
# Single-row CLI inserts, one `cfile table insert` process per row (issue 14:
# per-insert time must stay flat over 100,000 of them). Keys are a random
# permutation of 1..N (fixed seed), so every flush covers the whole key space.
# Prints the mean wall time per command for each window of WIN commands with
# the rowset count after it, then the time of a read-only open (`table info`),
# of a lookup, and of `table compact`, which must succeed.
#
# usage: bench/table_cli_inserts.sh [N] [DIR] [CFILE]
#   N      commands (default 100000)
#   DIR    table directory, removed first (default /dev/shm/cf_bench_cli_inserts)
#   CFILE  the cfile binary (default build/cfile)
#   WIN    environment: window size (default 10000)
set -euo pipefail
N=${1:-100000}
DIR=${2:-/dev/shm/cf_bench_cli_inserts}
CFILE=${3:-build/cfile}
WIN=${WIN:-10000}

ms_since() { # ms since $1 (ns), three decimals
    awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e6 }'
}

rm -rf "$DIR"
"$CFILE" table create "$DIR" --schema "id INT64 KEY, name STRING NULL, v INT32 NULL" >/dev/null
echo "# $N single-row 'cfile table insert' commands into $DIR ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "# window            wall ms/cmd  cpu ms/cmd  rowsets  log bytes"
# CPU time (user + sys of the commands) is the steadier number on a shared
# machine: wall time also counts waiting for a core.
keys=$(mktemp)
shuf -i 1-"$N" --random-source=<(yes) >"$keys"
TIMEFORMAT='%R %U %S'
for ((w = 0; w < N; w += WIN)); do
    n=$((N - w < WIN ? N - w : WIN))
    t=$({ time sed -n "$((w + 1)),$((w + n))p" "$keys" | while read -r k; do
        "$CFILE" table insert "$DIR" --row "id=$k,name=n$k,v=$((k % 1000))" >/dev/null
    done; } 2>&1)
    rs=$(find "$DIR" -maxdepth 1 -name 'rs-*' -type d | wc -l)
    log=$(cat "$DIR"/wal/*.log | wc -c)
    echo "$t" | awk -v a=$((w + 1)) -v b=$((w + n)) -v n="$n" -v rs="$rs" -v lb="$log" \
        '{ printf "%7d..%-7d  %11.2f  %10.2f  %7d  %9d\n", a, b, $1 * 1e3 / n, ($2 + $3) * 1e3 / n, rs, lb }'
done
rm -f "$keys"

t0=$(date +%s%N)
"$CFILE" table info "$DIR" >/dev/null
echo "table info (read-only open + replay): $(ms_since "$t0") ms"
t0=$(date +%s%N)
"$CFILE" table get "$DIR" 1 >/dev/null
echo "table get 1: $(ms_since "$t0") ms"
t0=$(date +%s%N)
"$CFILE" table compact "$DIR" >/dev/null
echo "table compact: $(ms_since "$t0") ms (ok)"
rows=$("$CFILE" table scan "$DIR" --format csv | tail -n +2 | wc -l)
echo "rows after compact: $rows (want $N)"
test "$rows" -eq "$N"
