#!/usr/bin/env bash
# scripts/check-format.sh - fail when a tracked C source differs from what
# clang-format (the tree's .clang-format) would write; lists those files.
# `make format` rewrites them.  CI runs this first (.ci/run), so a formatting
# diff fails the run before anything is built.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "check-format: $cf not found" >&2; exit 2; }
bad=()
while IFS= read -r -d '' f; do
    "$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files -z -- '*.c' '*.h')
if [ ${#bad[@]} -ne 0 ]; then
    printf 'not clang-format clean (run `make format`):\n' >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check-format: $(git ls-files -- '*.c' '*.h' | wc -l) files clang-format clean"
