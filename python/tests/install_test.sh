#!/bin/sh
# ctest python/install: the Python package as users get it.
#
#   install_test.sh BUILD_DIR SOURCE_DIR PYTHON3
#
# 1. `cmake --install` into a temporary prefix places the package beside the
#    library; with only PYTHONPATH set (no CFILE_LIB, no LD_LIBRARY_PATH) it finds
#    that libcfile and reads and writes a file.
# 2. `pip install --no-build-isolation --no-index` of python/ (a copy: setuptools
#    writes build files next to the sources) into a target directory, offline,
#    against the installed library (found through LD_LIBRARY_PATH).
set -eu

build=$1
src=$2
python=$3

work=$(mktemp -d "${TMPDIR:-/tmp}/cf_pyinstall_XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

fail() {
    echo "python install test: $*" >&2
    exit 1
}

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install failed"; }
init=$(find "$prefix" -path '*/python3/dist-packages/cfile/__init__.py' | head -n 1)
[ -n "$init" ] || fail "the package was not installed"
pydir=$(dirname "$(dirname "$init")")
libdir=$(dirname "$(dirname "$pydir")")
[ -e "$libdir/libcfile.so.0" ] || fail "no libcfile.so.0 in $libdir"

check='
import os, sys, tempfile
import cfile
lib = cfile._lib.lib()
want = sys.argv[1]  # the library must come from here (searched, when empty)
if want:
    assert os.path.realpath(lib._name).startswith(os.path.realpath(want)), (lib._name, want)
d = tempfile.mkdtemp()
p = os.path.join(d, "x.cfile")
cfile.write(p, [1, None, 3], type="INT32")
with cfile.open(p) as r:
    assert r.read() == [1, None, 3]
    assert type(r.__arrow_c_stream__()).__name__ == "PyCapsule"
print("ok")
'
out=$(cd "$work" && env -u CFILE_LIB -u LD_LIBRARY_PATH PYTHONPATH="$pydir" PYTHONDONTWRITEBYTECODE=1 \
    "$python" -c "$check" "$libdir") || fail "the installed package does not work: $out"
[ "$out" = ok ] || fail "installed package printed: $out"

cp -R "$src/python" "$work/pysrc"
rm -rf "$work/pysrc/tests"
"$python" -m pip install --quiet --no-build-isolation --no-index --no-deps \
    --target "$work/site" "$work/pysrc" >"$work/pip.log" 2>&1 ||
    { cat "$work/pip.log" >&2; fail "pip install --no-build-isolation failed"; }
[ -f "$work/site/cfile/arrow.py" ] || fail "pip did not install cfile/arrow.py"
out=$(cd "$work" && env -u CFILE_LIB PYTHONPATH="$work/site" LD_LIBRARY_PATH="$libdir" \
    PYTHONDONTWRITEBYTECODE=1 "$python" -c "$check" "") ||
    fail "the pip-installed package does not work: $out"
[ "$out" = ok ] || fail "pip-installed package printed: $out"
echo "python install test: ok ($pydir)"
