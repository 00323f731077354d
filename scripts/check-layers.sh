#!/usr/bin/env bash
# scripts/check-layers.sh CC BUILD_DIR - proves the build keeps the layers apart (DESIGN.md:
# a layer includes only itself and the layers below it). Run by ctest as build/layers.
#
# CMakeLists.txt gives each layer (src/<dir>) the include path build/layers/<dir>/, a folder
# of links to its own folder and those of the layers below it, listed one layer per line in
# BUILD_DIR/layers/layers.txt as "<dir> <below>;<below>;...". For every pair of layers this
# compiles a one-line probe with the lower layer's flags:
#   - `#include "<upper>/<header>"` from a layer that may not see <upper> must fail;
#   - `#include "<lower>/<header>"` of a layer it may see must compile (so a failure above
#     is the rule at work, not broken flags).
# It also rejects a `#include "../...` in src/: a path relative to the including file would
# reach a folder whatever the include path says, so the library names other layers only
# from src/ ("util/error.h"), and its own folder's headers by their bare name
# (scripts/include-style.py converts the old forms).
set -euo pipefail
cc=${1:?usage: check-layers.sh CC BUILD_DIR}
build=${2:?usage: check-layers.sh CC BUILD_DIR}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
list=$build/layers/layers.txt
[ -s "$list" ] || { echo "check-layers: $list missing (configure first)" >&2; exit 1; }

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One header per layer to probe with: the first private header of its folder.
declare -A header
while read -r dir _; do
    h=$(cd "src/$dir" && ls -- *.h 2>/dev/null | head -n 1)
    [ -n "$h" ] && header[$dir]=$h
done <"$list"

probe() { # layer include -> compiler status
    printf '#include "%s"\nint cf_probe(void);\nint cf_probe(void) { return 0; }\n' "$2" \
        >"$tmp/probe.c"
    "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -DCF_BUILDING_LIBRARY -fsyntax-only \
        -Iinclude -I"$build/include" -I"$build/layers/$1" "$tmp/probe.c" >"$tmp/out" 2>&1
}

pairs=0
while read -r dir below; do
    allowed=" $dir ${below//;/ } "
    for other in "${!header[@]}"; do
        inc="$other/${header[$other]}"
        if [[ "$allowed" == *" $other "* ]]; then
            if ! probe "$dir" "$inc"; then
                echo "FAIL: src/$dir may include $inc (a layer below it) but that does not compile:"
                sed 's/^/    /' "$tmp/out"
                fail=1
            fi
        else
            if probe "$dir" "$inc"; then
                echo "FAIL: src/$dir can include $inc, a layer that is not below it"
                fail=1
            elif ! grep -qE 'No such file|file not found' "$tmp/out"; then  # gcc | clang
                echo "FAIL: src/$dir including $inc failed, but not for want of the file:"
                sed 's/^/    /' "$tmp/out"
                fail=1
            fi
        fi
        pairs=$((pairs + 1))
    done
done <"$list"

rel=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./' src || true)
if [ -n "$rel" ]; then
    echo "FAIL: relative includes in src/ bypass the layer include paths (name the layer instead):"
    printf '%s\n' "$rel" | sed 's/^/    /'
    fail=1
fi

[ "$fail" = 0 ] && echo "check-layers: $pairs layer pairs probed, every upward include refused"
exit "$fail"
