#!/bin/sh
# ctest install/install: install the build tree into a temporary prefix, then use
# it as an outside project would.
#
#   install_test.sh BUILD_DIR SOURCE_DIR VERSION CC [SANITIZE]
#
# Checks: the expected files are installed (shared and static library, headers,
# cfile.pc, the CMake package, the tool, cfile(1), bash completion); libcfile.so
# exports only cf_* symbols, all at version CFILE_0; a small program (hello.c)
# built each way a user would, then run:
#   - `pkg-config --cflags --libs cfile`, against libcfile.so;
#   - `pkg-config --static --libs cfile`, against libcfile.a;
#   - `cc -static` with `pkg-config --static`: every library named, libstdc++ too;
#   - CMake `find_package(cfile CONFIG)` -> cfile::cfile, shared and static;
# the README's C example, built and run by the README's own shell lines; the
# installed tool reports the version and features and needs no libcfile.so; the
# prefix can be moved (relocatable cfile.pc).
set -eu

build=$1
src=$2
version=$3
cc=$4
sanitize=${5:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/cf_install_XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
# The prefix is $HOME/.local of a HOME of our own: the README's lines use that path.
home=$work/home
prefix=$home/.local

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
    "$libdir/cmake/cfile/cfile-config.cmake" "$libdir/cmake/cfile/cfile-config-version.cmake" \
    "$prefix/bin/cfile" "$prefix/share/man/man1/cfile.1" \
    "$prefix/share/bash-completion/completions/cfile"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
ls "$libdir"/libcfile.so* >/dev/null 2>&1 || fail "no libcfile.so installed"

# <cfile/config.h> (generated) says which modules were built; a module's header is
# installed exactly when it says 1 (-DCF_WITH_X=OFF builds leave it out).
cfg=$prefix/include/cfile/config.h
[ -e "$cfg" ] || fail "not installed: include/cfile/config.h"
for mh in HFILE:hfile.h TABLES:rowset.h PARQUET:parquet.h; do
    m=${mh%%:*}
    h=$prefix/include/cfile/${mh#*:}
    if grep -q "^#define CF_HAVE_$m 1$" "$cfg"; then
        [ -e "$h" ] || fail "CF_HAVE_$m is 1 but ${mh#*:} is not installed"
    elif grep -q "^#define CF_HAVE_$m 0$" "$cfg"; then
        [ ! -e "$h" ] || fail "CF_HAVE_$m is 0 but ${mh#*:} is installed"
    else
        fail "config.h does not define CF_HAVE_$m"
    fi
done

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

# Fully static (`cc -static`): `pkg-config --static` must name every library libcfile.a
# needs (libstdc++ for snappy, libm, pthreads). Not with sanitizers: their runtimes
# are shared libraries.
if [ -z "$sanitize" ]; then
    # shellcheck disable=SC2046
    "$cc" -std=c11 -Wall -Werror -static -o "$work/hello_allstatic" "$src/tests/install/hello.c" \
        $(pkg-config --cflags cfile) $(pkg-config --static --libs cfile) \
        >"$work/static.log" 2>&1 || { cat "$work/static.log" >&2; fail "cc -static failed"; }
    if readelf -d "$work/hello_allstatic" 2>/dev/null | grep -q NEEDED; then
        fail "cc -static produced a dynamic program"
    fi
    out=$("$work/hello_allstatic" "$version" "$work/s.cfile") || fail "hello (cc -static) failed: $out"
    [ "$out" = "cfile $version ok" ] || fail "hello (cc -static) printed: $out"
fi

# CMake: find_package(cfile CONFIG REQUIRED) -> cfile::cfile, shared then static. The
# shared program runs with no LD_LIBRARY_PATH (CMake's build-tree rpath, as a user gets).
cmake_flags=
if [ -n "$sanitize" ]; then
    cmake_flags="-DCMAKE_C_FLAGS=-fsanitize=$sanitize -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=$sanitize"
fi
for kind in shared static; do
    use_static=OFF
    [ "$kind" = static ] && use_static=ON
    bdir=$work/consumer-$kind
    # shellcheck disable=SC2086
    { cmake -S "$src/tests/install/consumer" -B "$bdir" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCFILE_USE_STATIC_LIBS=$use_static $cmake_flags &&
        cmake --build "$bdir"; } >"$work/cmake-$kind.log" 2>&1 ||
        { cat "$work/cmake-$kind.log" >&2; fail "the CMake consumer ($kind) did not build"; }
    needs_so=no
    readelf -d "$bdir/hello" | grep -q 'libcfile\.so\.0' && needs_so=yes
    case $kind:$needs_so in
    shared:no) fail "cfile::cfile (shared) did not link libcfile.so" ;;
    static:yes) fail "cfile::cfile with CFILE_USE_STATIC_LIBS still needs libcfile.so" ;;
    esac
    out=$(env -u LD_LIBRARY_PATH "$bdir/hello" "$version" "$work/c-$kind.cfile") ||
        fail "hello (CMake, $kind) failed: $out"
    [ "$out" = "cfile $version ok" ] || fail "hello (CMake, $kind) printed: $out"
done

# The README's C example, built and run by the README's shell lines as written (all but
# its `make install`, done above), with no LD_LIBRARY_PATH. They assume lib/, the
# libdir GNUInstallDirs picks for a prefix other than /usr.
if [ "$libdir" = "$prefix/lib" ]; then
    mkdir -p "$home/demo"
    awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on' "$src/README.md" >"$home/demo/demo.c"
    awk '/^```sh$/ {on = 1; buf = ""; next} on && /^```$/ {on = 0; if (hit) exit; next}
         on {buf = buf $0 "\n"} on && /make install PREFIX=\$HOME\/\.local/ {hit = 1}
         END {printf "%s", buf}' "$src/README.md" | sed '/^make install/d' >"$home/demo/build.sh"
    grep -q '^cc demo.c' "$home/demo/build.sh" || fail "no build lines found in README.md"
    grep -q 'int main' "$home/demo/demo.c" || fail "no C example found in README.md"
    [ -z "$sanitize" ] || sed -i "s|^cc |$cc -fsanitize=$sanitize |" "$home/demo/build.sh"
    out=$(cd "$home/demo" && HOME=$home CC=$cc env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH \
        sh -e build.sh 2>&1) || fail "the README example failed: $out"
    case $out in
    "1000 rows of INT32"*"rows 100..: first 300"*) ;;
    *) fail "the README example printed: $out" ;;
    esac
else
    echo "install test: libdir is $libdir, not lib/: the README example is not checked"
fi

# The installed tool: version and build features, linked without libcfile.so, and it
# reads what the program wrote.
if readelf -d "$prefix/bin/cfile" | grep -q 'libcfile\.so'; then
    fail "the installed cfile needs libcfile.so"
fi
out=$("$prefix/bin/cfile" --version) || fail "cfile --version failed"
[ "$(echo "$out" | head -n 1)" = "cfile $version" ] || fail "cfile --version printed: $out"
echo "$out" | grep -q '^codecs: snappy lz4 zlib gzip zstd brotli lzo bzip2$' ||
    fail "cfile --version lists no codecs: $out"
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
