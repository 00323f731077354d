#!/usr/bin/env bash
# scripts/check-exports.sh LIBCFILE_SO [CC [BUILD_DIR]] - the exported set is the stable API
# and nothing else (status.h). Run by ctest as build/exports. With CC, every public header
# first compiles on its own (it includes what it uses), with and without
# CF_STATIC_LINKING_ONLY. Three lists must agree:
#   - the CF_API functions declared in include/cfile/*.h (CF_STATIC_API helpers excluded),
#   - the names cmake/cfile.map gives version CFILE_0,
#   - what the library exports (nm -D), each at CFILE_0.
# With BUILD_DIR, the modules its generated BUILD_DIR/include/cfile/config.h says are left
# out (CF_HAVE_X 0) are left out of all three (and of the headers compiled alone): their
# headers, the `#if CF_HAVE_X ... #endif /* CF_HAVE_X */` blocks of other headers, and the
# map is BUILD_DIR/cfile.map (cmake/cfile.map less the sections marked "(CF_WITH_X)"), the
# one the library was linked with.
set -euo pipefail
lib=${1:?usage: check-exports.sh LIBCFILE_SO [CC [BUILD_DIR]]}
cc=${2:-}
build=${3:-}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

map=cmake/cfile.map
off=""
if [ -n "$build" ]; then
    map=$build/cfile.map
    off=$(sed -n 's/^#define CF_HAVE_\([A-Z]*\) 0$/\1/p' "$build/include/cfile/config.h" | tr '\n' ' ')
fi
declare -A module_of=([hfile.h]=HFILE [rowset.h]=TABLES [kudu.h]=TABLES [parquet.h]=PARQUET)
headers=()
for h in include/cfile/*.h; do
    m=${module_of[$(basename "$h")]:-}
    [[ -n "$m" && " $off " == *" $m "* ]] || headers+=("$h")
done

fail=0
if [ -n "$cc" ]; then
    for h in "${headers[@]}"; do
        for def in -UCF_STATIC_LINKING_ONLY -DCF_STATIC_LINKING_ONLY; do
            printf '#include "%s"\n' "${h#include/}" >"$tmp/alone.c"
            if ! "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only "$def" -Iinclude \
                ${build:+-I"$build/include"} "$tmp/alone.c" >"$tmp/out" 2>&1; then
                echo "FAIL: $h does not compile on its own ($def):"
                sed 's/^/    /' "$tmp/out"
                fail=1
            fi
        done
    done
fi

# A declaration starts its line with CF_API; its name is the identifier before the first '('
# (clang-format may put the name on the next line when the return type is long).
awk -v off=" $off " '
    /^#if CF_HAVE_[A-Z]+$/ { m = substr($2, 9); if (index(off, " " m " ")) skip = m; next }
    skip != "" && /^#endif/ && index($0, "CF_HAVE_" skip) { skip = ""; next }
    skip != "" { next }
    /^CF_API[ \t]/ { s = $0; while (s !~ /\(/ && (getline l) > 0) s = s " " l
                     sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/); print w[n] }' \
    "${headers[@]}" | sort >"$tmp/headers"
sed -n 's/^[[:space:]]*\(cf_[a-z0-9_]*\);$/\1/p' "$map" | sort >"$tmp/map"
nm -D --defined-only "$lib" | awk '$3 != "CFILE_0" { print $3 }' | sort >"$tmp/nm"

report() { # title file
    if [ -s "$2" ]; then
        echo "FAIL: $1:"
        sed 's/^/    /' "$2"
        fail=1
    fi
}
comm -23 "$tmp/headers" "$tmp/map" >"$tmp/d1"
report "declared CF_API but not in $map (add it, or make it CF_STATIC_API)" "$tmp/d1"
comm -13 "$tmp/headers" "$tmp/map" >"$tmp/d2"
report "in $map but not declared CF_API in include/cfile/" "$tmp/d2"
grep -v '@@CFILE_0$' "$tmp/nm" >"$tmp/d3" || true
report "exported without version CFILE_0" "$tmp/d3"
sed 's/@.*//' "$tmp/nm" | sort >"$tmp/nm_names"
comm -13 "$tmp/nm_names" "$tmp/map" >"$tmp/d4"
report "in $map but not exported by $lib (declared, never defined?)" "$tmp/d4"
comm -23 "$tmp/nm_names" "$tmp/map" >"$tmp/d5"
report "exported by $lib but not in the API" "$tmp/d5"
[ "$fail" = 0 ] && echo "check-exports: $(wc -l <"$tmp/map") functions exported, all CF_API, all CFILE_0${off:+ (modules left out: ${off% })}"
exit "$fail"
