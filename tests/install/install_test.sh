#!/bin/sh
# ctest install/install: install the build tree into a temporary prefix, then use
# it as an outside project would.
#
#   install_test.sh BUILD_DIR SOURCE_DIR VERSION CC [SANITIZE]
#
# Checks: the expected files are installed (shared and static library, headers,
# cfile.pc, the tool, cfile(1), bash completion); libcfile.so exports only cf_*
# symbols, all at version CFILE_0; a small program compiled with
# `pkg-config --cflags --libs cfile` runs against the shared library; the same
# program linked with `pkg-config --static` against libcfile.a runs without it;
# the installed tool reports the version; the prefix can be moved (relocatable
# cfile.pc).
set -eu

build=$1
src=$2
version=$3
cc=$4
sanitize=${5:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/cf_install_XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

fail() {
    echo "install test: $*" >&2
    exit 1
}

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install failed"; }

# GNUInstallDirs may pick lib or lib64 (or a multiarch dir): find the .pc file.
pc=$(find "$prefix" -name cfile.pc | head -n 1)
[ -n "$pc" ] || fail "no cfile.pc installed"
libdir=$(dirname "$(dirname "$pc")")

for f in "$libdir/libcfile.a" "$prefix/include/cfile/cfile.h" "$prefix/include/cfile/reader.h" \
    "$prefix/bin/cfile" "$prefix/share/man/man1/cfile.1" \
    "$prefix/share/bash-completion/completions/cfile"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
ls "$libdir"/libcfile.so* >/dev/null 2>&1 || fail "no libcfile.so installed"

# Exported symbols: cf_* only, each at version CFILE_0.
if command -v nm >/dev/null 2>&1; then
    nm -D --defined-only --with-symbol-versions "$libdir/libcfile.so" |
        awk '$2 ~ /^[TDBRVW]$/ {print $3}' >"$work/syms"
    [ -s "$work/syms" ] || fail "libcfile.so exports nothing"
    grep -q '^cf_version_string@@CFILE_0$' "$work/syms" || fail "cf_version_string is not at CFILE_0"
    if grep -v '^cf_[A-Za-z0-9_]*@@CFILE_0$' "$work/syms" | grep -v '^CFILE_0@@CFILE_0$' >"$work/bad"; then
        head -n 20 "$work/bad" >&2
        fail "libcfile.so exports symbols outside cf_*@@CFILE_0"
    fi
fi

export PKG_CONFIG_PATH="$libdir/pkgconfig"
modv=$(pkg-config --modversion cfile) || fail "pkg-config cannot find cfile"
[ "$modv" = "$version" ] || fail "cfile.pc says version $modv, want $version"

# A sanitized library needs its runtime linked into the program as well.
extra=
if [ -n "$sanitize" ]; then
    extra="-fsanitize=$sanitize"
fi

# Shared: the ordinary way to build against the library.
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Werror $extra -o "$work/hello_shared" "$src/tests/install/hello.c" \
    $(pkg-config --cflags --libs cfile) || fail "compiling against the shared library failed"
out=$(LD_LIBRARY_PATH="$libdir" "$work/hello_shared" "$version" "$work/a.cfile") ||
    fail "hello (shared) failed: $out"
[ "$out" = "cfile $version ok" ] || fail "hello (shared) printed: $out"

# Static: the same program, libcfile.a and its dependencies from --static.
# Both libcfile.so and libcfile.a sit in libdir, so name the archive itself.
static_libs=$(pkg-config --static --libs cfile | sed 's/-lcfile\b/-l:libcfile.a/')
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $extra -o "$work/hello_static" "$src/tests/install/hello.c" \
    $(pkg-config --cflags cfile) $static_libs || fail "compiling against libcfile.a failed"
if command -v readelf >/dev/null 2>&1 &&
    readelf -d "$work/hello_static" | grep -q 'libcfile\.so'; then
    fail "the static build still needs libcfile.so"
fi
out=$("$work/hello_static" "$version" "$work/b.cfile") || fail "hello (static) failed: $out"
[ "$out" = "cfile $version ok" ] || fail "hello (static) printed: $out"

# The installed tool: version, and it reads what the program wrote.
out=$("$prefix/bin/cfile" --version) || fail "cfile --version failed"
[ "$out" = "cfile $version" ] || fail "cfile --version printed: $out"
"$prefix/bin/cfile" verify "$work/a.cfile" >/dev/null || fail "cfile verify rejects hello's file"

# The man page is roff for cfile(1) and documents every command.
grep -q '^\.TH CFILE 1 ' "$prefix/share/man/man1/cfile.1" || fail "cfile.1 has no .TH CFILE 1"
for cmd in info dump seek verify write completion; do
    grep -q "^\.SS $cmd\$" "$prefix/share/man/man1/cfile.1" || fail "cfile.1 lacks command $cmd"
done
grep -q 'complete .*-F _cfile cfile' "$prefix/share/bash-completion/completions/cfile" ||
    fail "the bash completion does not register _cfile"

# Relocatable: move the whole prefix and build again.
mv "$prefix" "$work/moved"
PKG_CONFIG_PATH="$work/moved/${libdir#"$prefix"/}/pkgconfig"
export PKG_CONFIG_PATH
case $(pkg-config --cflags cfile) in
*"$work/moved/"*) ;;
*) fail "cfile.pc is not relocatable: $(pkg-config --cflags cfile)" ;;
esac

echo "install test: ok ($libdir)"
