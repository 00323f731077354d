# shellcheck shell=bash
# scripts/deps.sh - the one list of Debian 12 packages cfile needs, and the helpers that
# ./run, ./test and .ci/run share.  Sourced, never run.
#
# A machine that already has every package does no apt work at all: dpkg-query decides
# what is missing, and only then is `apt-get update` run (once) and the rest installed.

# Build: compiler + make, CMake, pkg-config, and the libraries the formats need
# (protobuf-c for the header/footer messages, LZ4/snappy/zlib for block compression,
# zstd and brotli for Parquet's ZSTD and BROTLI pages and HFile's ZSTD, LZO and bzip2
# for HFile's LZO and BZIP2 blocks), plus cmocka for the tests.
CF_DEPS_BUILD=(
    gcc libc6-dev make
    cmake pkg-config
    libprotobuf-c-dev protobuf-c-compiler
    liblz4-dev libsnappy-dev zlib1g-dev libzstd-dev libbrotli-dev liblzo2-dev libbz2-dev
    libcmocka-dev
)
# Tests and CI add clang for the sanitizer build and the libFuzzer targets, and
# clang-format for CI's formatting check (scripts/check-format.sh).  We install
# without Recommends, and clang-14 only *recommends* the compiler-rt runtimes (ASan,
# UBSan, libFuzzer), so they are named explicitly.  python3 runs the Python package's
# tests (python/tests; the package needs only the standard library, and
# python3-numpy and python3-pandas let the tests exercise its optional numpy and pandas
# paths for real; python3-pip and python3-setuptools run the offline
# `pip install --no-build-isolation` of python/tests/install_test.sh).  chromium renders
# the `--svg` pictures to PNG in tests/svg/render_test.py (headless, a real browser).
CF_DEPS_TEST=(clang clang-format libclang-rt-14-dev python3 python3-numpy python3-pandas
              python3-pip python3-setuptools chromium)
# Optional: found at configure time and used when present, never required.
# libisal-dev (Intel ISA-L): ZLIB blocks inflate through it (src/codec/inflate.c,
# 1.4-1.7x zlib; zlib still writes them, so our bytes stay Kudu's), and it adds its
# CRC-32C to the CRC test and bench_crc32c as a comparison backend.  ./test and CI
# install it so that path is tested; CI's sanitizer stage configures with
# -DCF_WITH_ISAL=OFF so the build without it (zlib's inflate) is tested too, and
# ./run (users) does not install it.  libdeflate-dev was measured for inflate and
# left out: no faster than zlib on int64 blocks, and it accepts damaged streams
# that zlib (and so Kudu) rejects.
CF_DEPS_OPTIONAL=(libisal-dev)
# `make bench` only (never ./test or CI): the peers of bench/peers.c, the chart,
# and python3 for bench/report.py.
CF_DEPS_BENCH=(libleveldb-dev librocksdb-dev libsqlite3-dev gnuplot-nox python3)

cf_say() { printf '==> %s\n' "$*"; }
cf_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# cf_missing PKG...: print the packages that dpkg does not report as installed.
cf_missing() {
    local p
    for p in "$@"; do
        if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
            printf '%s\n' "$p"
        fi
    done
}

# cf_ensure_packages PKG...: install whatever is missing, as root or through sudo.
cf_ensure_packages() {
    command -v dpkg-query >/dev/null 2>&1 || cf_die "dpkg-query not found: these scripts expect Debian 12"
    local missing
    mapfile -t missing < <(cf_missing "$@")
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    local -a su=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 \
            || cf_die "missing packages (${missing[*]}) and not root, no sudo: install them as root"
        su=(sudo)
    fi
    cf_say "installing ${missing[*]}"
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/cfile-apt.XXXXXX")
    # Quiet on success; the whole apt log on failure.
    if ! { "${su[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
           && "${su[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                  --no-install-recommends "${missing[@]}"; } </dev/null >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        cf_die "apt-get failed"
    fi
    rm -f "$log"
}

# cf_ensure_duckdb: DuckDB from the npm registry, the independent reader of the Parquet and
# Arrow tests (tools/duckdb/README.md).  Debian's nodejs and npm are installed only when
# npm is missing (a machine with another Node.js keeps it); `npm ci` runs only when the
# install is missing or older than the lock file.
cf_ensure_duckdb() {
    local dir
    dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/duckdb"
    command -v npm >/dev/null 2>&1 || cf_ensure_packages nodejs npm
    if [ ! -d "$dir/node_modules/@duckdb/node-api" ] \
       || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        cf_say "npm ci in tools/duckdb (DuckDB for the cross-checks)"
        local log
        log=$(mktemp "${TMPDIR:-/tmp}/cfile-npm.XXXXXX")
        cf_logged "$log" npm ci --prefix "$dir" --no-audit --no-fund || cf_die "npm ci failed"
        rm -f "$log"
    fi
}

cf_jobs() { nproc 2>/dev/null || echo 2; }

# cf_build DIR [CMAKE_ARG...]: configure (plus the words of CF_CMAKE_ARGS) and build.
# Output goes to a log that is shown when a step fails (warnings are shown anyway);
# CF_VERBOSE=1 shows everything as it happens.
cf_build() {
    local dir=$1
    shift
    local -a extra=()
    if [ -n "${CF_CMAKE_ARGS:-}" ]; then
        read -r -a extra <<<"$CF_CMAKE_ARGS"
    fi
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/cfile-build.XXXXXX")
    cf_say "configuring $dir"
    cf_logged "$log" cmake -S . -B "$dir" "$@" "${extra[@]}" || cf_die "cmake configure failed"
    cf_say "building $dir (-j$(cf_jobs))"
    cf_logged "$log" cmake --build "$dir" -j"$(cf_jobs)" || cf_die "build failed"
    grep -E 'warning:' "$log" >&2 || true
    rm -f "$log"
}

# cf_logged LOG CMD...: run CMD with its output in LOG (or on the terminal when
# CF_VERBOSE=1); on failure print the end of LOG.
cf_logged() {
    local log=$1
    shift
    if [ "${CF_VERBOSE:-0}" = 1 ]; then
        "$@"
        return
    fi
    if ! "$@" >"$log" 2>&1; then
        tail -n 80 "$log" >&2
        return 1
    fi
}
