# Developer shortcuts over CMake.  Newcomers need only ./run and ./test (they also
# install the Debian packages); these targets assume the tools are already there.
#
#   make              build into build/ (RelWithDebInfo)
#   make test         build and run every test (ctest); ARGS="-R util/" narrows it
#   make asan         the tests under ASan+UBSan, in build-asan/
#   make fuzz         libFuzzer targets (clang, ASan+UBSan), in build-fuzz/
#   make bench        Release build in build-bench/, bench/run_bench.sh -> docs/PERFORMANCE.md
#   make bench-kudu   only the side-by-side with Kudu's CFile reader (bench/kudu_oracle.sh)
#   make bench-micro  the CRC, encoding and codec micro-benchmarks
#   make bench-big    scans of files > 1 GiB, warm and cold (bench/bigfile.sh; kept in
#                     CF_BENCH_DIR, default build-bench/bench-big, ~4.5 GB)
#   make bench-scaling  time per row and peak memory at 1 M, 10 M, 100 M rows
#                     (bench/scaling.sh; data kept in CF_SCALE_DIR, ~9 GB at 100 M)
#   make memcheck     the tests under valgrind (errors and leaks fail), in build/
#   make tsan         the tests that run threads (/* cf-label: threads */) under TSan
#                     (clang), in build-tsan/, as CI's TSan stage
#   make min          the smallest build (HFile, tables, Parquet left out) and its tests,
#                     in build-min/, as CI builds it
#   make format       clang-format -i over our C sources
#   make install      cmake --install build --prefix $(PREFIX)
#   make clean        remove every build dir

PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
ARGS ?=
CLANG ?= clang
CLANG_FORMAT ?= clang-format

SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Every bench target configures the one Release build dir the same way; those that
# time only the CLI build only it.
BENCH_CONFIGURE = cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCF_BUILD_BENCH=ON \
                  -DCF_BUILD_TESTS=OFF $(CMAKE_ARGS)
BENCH_BUILD_CLI = cmake --build build-bench -j$(JOBS) --target cfile_cli

.PHONY: all build test asan tsan min fuzz bench bench-kudu bench-micro bench-big bench-scaling memcheck format install clean

all: build

build:
	cmake -S . -B build $(CMAKE_ARGS)
	cmake --build build -j$(JOBS)

test: build
	ctest --test-dir build --output-on-failure --no-tests=error -j$(JOBS) $(ARGS)

# The compiler of a build dir is fixed at its first configure, hence the test -f.
asan:
	cmake -S . -B build-asan -DCF_SANITIZE=address,undefined -DCF_BUILD_TESTS=ON \
	    $$(test -f build-asan/CMakeCache.txt || echo -DCMAKE_C_COMPILER=$(CLANG)) $(CMAKE_ARGS)
	cmake --build build-asan -j$(JOBS)
	$(SAN_ENV) ctest --test-dir build-asan --output-on-failure --no-tests=error -j$(JOBS) $(ARGS)

# Every object gets libFuzzer's coverage hooks (fuzzer-no-link); only the fuzz_*
# executables link the libFuzzer main.  Run one with e.g.
#   build-fuzz/fuzz_reader -max_total_time=60 fuzz/corpus/reader
fuzz:
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=$(CLANG) -DCF_BUILD_FUZZERS=ON \
	    -DCF_BUILD_TESTS=OFF -DCF_SANITIZE=address,undefined \
	    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link $(CMAKE_ARGS)
	cmake --build build-fuzz -j$(JOBS)
	@ls build-fuzz/fuzz_* 2>/dev/null || echo "no fuzz targets yet (fuzz/fuzz_*.c)"

# Installs the peers, gnuplot (scripts/deps.sh CF_DEPS_BENCH) and DuckDB (the Parquet
# section's peer, from npm) when missing, builds Release, then bench/run_bench.sh
# writes docs/PERFORMANCE.md and docs/performance.png.
# The micro-benchmarks (bench_crc32c, bench_encodings, bench_compression) run with
# `make bench-micro` (ARGS go to the last two: values per data set).
bench:
	bash -c '. scripts/deps.sh && cf_ensure_packages "$${CF_DEPS_BENCH[@]}" "$${CF_DEPS_OPTIONAL[@]}" && cf_ensure_duckdb'
	$(BENCH_CONFIGURE)
	cmake --build build-bench -j$(JOBS)
	bench/run_bench.sh build-bench
	bench/kudu_oracle.sh build-bench

# Only the section beside Kudu's own CFile reader (bench/kudu_oracle.sh; skipped with
# the reason printed when ../shared/tools/kudu-oracle or its libraries are missing).
bench-kudu:
	$(BENCH_CONFIGURE)
	$(BENCH_BUILD_CLI)
	bench/kudu_oracle.sh build-bench

bench-micro:
	$(BENCH_CONFIGURE)
	cmake --build build-bench -j$(JOBS)
	@echo "== build-bench/bench_crc32c"; build-bench/bench_crc32c
	@set -e; for b in build-bench/bench_encodings build-bench/bench_compression; do \
	    [ -x "$$b" ] || continue; echo "== $$b"; "$$b" $(ARGS); done

bench-big:
	$(BENCH_CONFIGURE)
	$(BENCH_BUILD_CLI)
	bench/bigfile.sh build-bench

# Not in CI, not in ./test: ~25 min of wall time at 1 M + 10 M + 100 M on a loaded
# 2-CPU VM, more with the shuffled import at 100 M (CF_SCALE_SIZES picks the sizes).
bench-scaling:
	$(BENCH_CONFIGURE)
	$(BENCH_BUILD_CLI)
	bench/scaling.sh build-bench

# Every test under valgrind memcheck: a memory error or any leak (definite,
# indirect or possible) makes that test exit 99 and fail.  Excluded by default
# (a ctest label regex): the Python suite (python3 under valgrind is slow and
# noisy) and the install test (valgrind would check /bin/sh, which leaks, not
# our code).  MEMCHECK_EXCLUDE='' runs everything, MEMCHECK_DIR=/tmp/x builds
# elsewhere.  The whole suite takes about 20 minutes on two cores.
MEMCHECK_DIR ?= build
MEMCHECK_EXCLUDE ?= python|install
VALGRIND_OPTS ?= --error-exitcode=99 --leak-check=full \
    --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --num-callers=30
memcheck:
	cmake -S . -B $(MEMCHECK_DIR) $(CMAKE_ARGS)
	cmake --build $(MEMCHECK_DIR) -j$(JOBS)
	ctest --test-dir $(MEMCHECK_DIR) --output-on-failure --no-tests=error -j$(JOBS) \
	    --overwrite MemoryCheckCommand=$$(command -v valgrind) \
	    --overwrite "MemoryCheckCommandOptions=$(VALGRIND_OPTS)" \
	    -T memcheck $(if $(MEMCHECK_EXCLUDE),-LE '$(MEMCHECK_EXCLUDE)') $(ARGS) \
	    || { grep -l 'ERROR SUMMARY: [1-9]\|definitely lost: [1-9]\|indirectly lost: [1-9]\|possibly lost: [1-9]' \
	             $(MEMCHECK_DIR)/Testing/Temporary/MemoryChecker.*.log \
	             | xargs -r cat; exit 1; }

# ThreadSanitizer (clang) over the tests that run threads: those marked
# `/* cf-label: threads */` (ctest label `threads`, target cf_thread_tests), the
# set CI's TSan stage runs. ARGS narrows it (e.g. ARGS='-R pq_').
TSAN_DIR ?= build-tsan
tsan:
	cmake -S . -B $(TSAN_DIR) -DCF_SANITIZE=thread -DCF_BUILD_TESTS=ON \
	    $$(test -f $(TSAN_DIR)/CMakeCache.txt || echo -DCMAKE_C_COMPILER=$(CLANG)) $(CMAKE_ARGS)
	cmake --build $(TSAN_DIR) -j$(JOBS) --target cf_thread_tests
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	    ctest --test-dir $(TSAN_DIR) --output-on-failure --no-tests=error -L threads $(ARGS)

min:
	cmake -S . -B build-min -DCF_BUILD_TESTS=ON -DCF_WITH_HFILE=OFF -DCF_WITH_TABLES=OFF \
	    -DCF_WITH_PARQUET=OFF $(CMAKE_ARGS)
	cmake --build build-min -j$(JOBS)
	ctest --test-dir build-min --output-on-failure --no-tests=error -j$(JOBS) $(ARGS)

format:
	git ls-files -z -- '*.c' '*.h' | xargs -0 -r $(CLANG_FORMAT) -i

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-asan build-tsan build-fuzz build-bench build-min
