#!/usr/bin/env bash
# scripts/fuzz-ci.sh - build every libFuzzer target (fuzz/fuzz_*.c) with clang, ASan and
# UBSan in build-fuzz/, then run each one for a bounded time, one after the other, on a
# scratch copy of its seed corpus (fuzz/corpus/<target>/) and its crash regressions
# (fuzz/regress/<target>/).  Any crash, sanitizer report, leak, timeout or huge allocation
# fails the run; the input that did it is left in the artifacts directory printed at the end.
#
# Environment:
#   CF_FUZZ_SECONDS   seconds per target (default: 260 s shared by all targets, at least 8 and
#                     at most 30 each; 9 s for 27 targets, so the fuzzing itself stays near
#                     4.5 minutes and the whole stage, build included, under 6 on 2 cores;
#                     with a fixed seed CI replays a prefix of what longer local runs passed)
#   CF_FUZZ_TARGETS   space-separated subset of targets to run (default: all)
#   CF_FUZZ_SEED      libFuzzer seed (default 1: runs are repeatable; use others to explore)
#   CF_FUZZ_BUILD     build directory (default build-fuzz)
#   CF_FUZZ_CC        compiler (default clang)
#   CF_FUZZ_ARTIFACTS where crashing inputs go (default: a fresh temp dir)
# Called by .ci/run; also fine by hand.  Prints executions per target and the total.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '==> %s\n' "$*"; }

build=${CF_FUZZ_BUILD:-build-fuzz}
cc=${CF_FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "error: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

if [ -n "${CF_FUZZ_TARGETS:-}" ]; then
    read -r -a targets <<<"$CF_FUZZ_TARGETS"
else
    targets=()
    for f in fuzz/fuzz_*.c; do
        t=${f##*/}
        targets+=("${t%.c}")
    done
fi
[ "${#targets[@]}" -gt 0 ] || { echo "error: no fuzz targets" >&2; exit 1; }

if [ -n "${CF_FUZZ_SECONDS:-}" ]; then
    secs=$CF_FUZZ_SECONDS
else
    secs=$((260 / ${#targets[@]}))
    [ "$secs" -ge 8 ] || secs=8
    [ "$secs" -le 30 ] || secs=30
fi

# The compiler of a build dir is fixed at its first configure.
cfg=(-DCF_BUILD_FUZZERS=ON -DCF_BUILD_TESTS=OFF -DCF_SANITIZE=address,undefined
     -DCMAKE_BUILD_TYPE=RelWithDebInfo)
[ -f "$build/CMakeCache.txt" ] || cfg+=(-DCMAKE_C_COMPILER="$cc")
log=$(mktemp "${TMPDIR:-/tmp}/cfile-fuzz-build.XXXXXX")
say "building ${#targets[@]} fuzz targets in $build"
if ! { cmake -S . -B "$build" "${cfg[@]}" && \
       cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "error: fuzz build failed" >&2
    exit 1
fi
rm -f "$log"

artifacts=${CF_FUZZ_ARTIFACTS:-$(mktemp -d "${TMPDIR:-/tmp}/cfile-fuzz-artifacts.XXXXXX")}
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# A fixed seed makes a run explore the same inputs in the same order every time, so
# a CI run repeats (a prefix of) what a longer local run with the same seed already
# passed: findings come from deliberate local runs, not from CI luck.
seed=${CF_FUZZ_SEED:-1}
failed=()
total=0
say "running each target for ${secs}s"
for t in "${targets[@]}"; do
    work=$(mktemp -d "${TMPDIR:-/tmp}/cfile-fuzz-$t.XXXXXX")
    for d in "fuzz/corpus/$t" "fuzz/regress/$t"; do
        if [ -d "$d" ]; then cp -R "$d/." "$work/"; fi
    done
    out="$artifacts/$t.log"
    rc=0
    "$build/$t" "$work" -seed="$seed" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
        >"$out" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
    execs=${execs:-0}
    total=$((total + execs))
    if [ "$rc" -ne 0 ]; then
        failed+=("$t")
        printf '  %-24s FAILED (exit %d) after %s executions\n' "$t" "$rc" "$execs"
        grep -m1 -E 'ERROR|FUZZ_REQUIRE|runtime error|Timeout|out-of-memory' "$out" | sed 's/^/    /' || true
    else
        printf '  %-24s ok, %s executions\n' "$t" "$execs"
    fi
    rm -rf "$work"
done

say "total executions: $total"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "error: fuzz findings in: ${failed[*]} (logs and inputs in $artifacts)" >&2
    exit 1
fi
[ -n "${CF_FUZZ_ARTIFACTS:-}" ] || rm -rf "$artifacts"
say "fuzzing passed"
