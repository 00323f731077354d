#!/usr/bin/env bash
# scripts/check-doc-paths.sh - every repo file a doc or a comment names exists. Run by ctest
# as build/doc-paths.
#
# Files move (a split, a rename), and a comment that says "see src/cfile/iter.c" or a doc
# layout that lists tools/cfile/values.c then sends the next reader nowhere. This reads the
# tracked Markdown (docs/, README.md, ...), the C sources and headers (src/ include/ tools/
# tests/ fuzz/ bench/), the scripts and the CMake files, and checks three forms of citation:
#   1. a path from the repo root:        src/cfile/frame.c, docs/ROWSET.md, cmake/cfile.map
#   2. a path from a layer (the include style, "util/error.h"): util/error.h, cfile/reader.h,
#      looked up under src/, include/ and tools/;
#   3. a bare C file name of two or more characters (frame.c): some tracked file has it.
# A token is a citation only where it starts a path: after "../", "/", "$" or a word
# character it is part of something else (../shared/golden/..., $src/README.md, a build
# path). Placeholders (tests/<layer>/test_<module>.c, crc32c*.c) never match the forms.
# Paths in other projects that look like ours are listed in `foreign` below.
# Usage: scripts/check-doc-paths.sh [FILE...]   (default: the tracked files described above)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Paths into other projects' trees, cited as theirs: Kudu's source (src/kudu/<dir>/..., where
# ours, src/kudu/<file>, has no subfolders) and design docs.
foreign='^(src/kudu/[^/]+/|docs/design-docs/)'
# C files the reader writes, not ours (README's demo.c).
theirs='^(demo\.c)$'

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    tracked=$(git ls-files --cached --others --exclude-standard)
else # an unpacked tarball: the same files, found on disk
    tracked=$(find . -path ./build -prune -o -path './build-*' -prune -o -type f -print |
        sed 's|^\./||')
fi
tracked=$(printf '%s\n' "$tracked" | grep -vE '^fuzz/(corpus|regress)/|/golden/|/node_modules/')

if [ $# -gt 0 ]; then
    files=$(printf '%s\n' "$@")
else
    files=$(printf '%s\n' "$tracked" | grep -E '(\.md|^(src|include|tools|tests|fuzz|bench)/.*\.[ch]|^scripts/.*|(^|/)CMakeLists\.txt|\.cmake|^Makefile|^\.ci/run)$' || true)
fi

roots='src|include|tools|tests|fuzz|bench|scripts|cmake|docs|python|proto|\.ci'
layers=$(cd src && ls -d -- */ | tr -d / | paste -sd '|')
exts='c|h|md|sh|py|cmake|map|proto|txt|json|in|mjs|gp|png|svg|csv|toml'
lead='(^|[^A-Za-z0-9_./$<>*{-])'

declare -A base=()
while IFS= read -r b; do base[$b]=1; done < <(printf '%s\n' "$tracked" | sed 's|.*/||')

# One grep per form over all the files at once ("file:line:token"), then one test per token.
cites() { # form regex
    printf '%s\n' "$files" | tr '\n' '\0' | xargs -0 grep -HnoE "$lead$1" -- 2>/dev/null |
        sed -E 's/^([^:]*:[0-9]+:)[^A-Za-z_.]?/\1/' || true
}
bad=0
checked=0
while IFS=: read -r f line path; do
    checked=$((checked + 1))
    [[ "$path" =~ $foreign ]] && continue
    [ -e "$path" ] && continue
    echo "$f:$line: cites $path, which does not exist"
    bad=$((bad + 1))
done < <(cites "($roots)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.($exts)\b")
while IFS=: read -r f line path; do
    checked=$((checked + 1))
    [ -e "src/$path" ] || [ -e "include/$path" ] || [ -e "tools/$path" ] && continue
    echo "$f:$line: cites $path, which is in none of src/ include/ tools/"
    bad=$((bad + 1))
done < <(cites "($layers)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(c|h)\b")
while IFS=: read -r f line name; do
    checked=$((checked + 1))
    [ -n "${base[$name]:-}" ] && continue
    [[ "$name" =~ $theirs ]] && continue
    echo "$f:$line: cites $name, and no tracked file has that name"
    bad=$((bad + 1))
done < <(cites "[A-Za-z_][A-Za-z0-9_-]+\.c\b")

if [ "$bad" -gt 0 ]; then
    echo "check-doc-paths: $bad citation(s) of files that do not exist (fix the path, or the"
    echo "text that cites it; a path in another project goes in 'foreign' in this script)"
    exit 1
fi
echo "check-doc-paths: $checked citations in $(wc -l <<<"$files") files, every one exists"
