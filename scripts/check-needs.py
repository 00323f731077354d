#!/usr/bin/env python3
"""scripts/check-needs.py - every test, fuzz and bench source that needs an optional module
says so, so a build without the module leaves out exactly those. Run by ctest as build/needs.

A source that cannot build or run without a module (-DCF_WITH_HFILE / _TABLES / _PARQUET=OFF)
carries one line near its top (within its first 4096 bytes, where CMakeLists.txt reads it):

    /* cf-needs: tables parquet */

naming any of hfile, tables, parquet; the build leaves it out when one of them is off. A file
that mixes core and module checks guards the module's parts with `#if CF_HAVE_TABLES` (from
<cfile/config.h>) instead, so its core checks run in every build. Sources under a module's own
test folder (tests/hfile, tests/rowset, tests/parquet) need their folder's module without
saying so: the whole folder is left out.

A source fails this check when, outside an `#if CF_HAVE_<M>` (or C `if (CF_HAVE_<M>) {`) block
and without <m> in its marker, it
  - includes a module's header: <cfile/hfile.h>, <cfile/rowset.h>, <cfile/parquet.h>, a private
    header of src/hfile, src/rowset or src/parquet, or a header (tools/cfile, tests/) that
    includes one of those the same way;
  - runs a module's command: CLI(&r, "table", ...), cli(&r, "table", ...), SPAWN(..., "hfile",
    ...), cli_prints("want", "table", ...) or a row of a command table starting {"parquet",
    ... (`convert` needs tables and parquet); a line that names CF_HAVE_ or CF_WITH_ is about the module, not a run of it.
It also fails a marker that names no module we have, or one past the first 4096 bytes.
Usage: scripts/check-needs.py [FILE...]   (default: tests/*/*.c fuzz/*.c bench/*.c)
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODULES = ("hfile", "tables", "parquet")
HAVE = {"HFILE": "hfile", "TABLES": "tables", "PARQUET": "parquet"}
FOLDER = {"hfile": "hfile", "rowset": "tables", "parquet": "parquet"}
PUBLIC = {"hfile.h": "hfile", "rowset.h": "tables", "parquet.h": "parquet"}
COMMANDS = {"hfile": {"hfile"}, "table": {"tables"}, "parquet": {"parquet"},
            "convert": {"tables", "parquet"}}
MARKER_WINDOW = 4096
MARKER = re.compile(r"^/\* cf-needs:((?: [a-z]+)+) \*/$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
# A module command as the first argument of CLI/SPAWN, the first after cli_prints'
# expected output (when that is one string on the line), or the first word of a row.
RUNS = re.compile(r'(?:\b(?:CLI|cli)\(\s*&?\w+\s*,\s*|\bSPAWN\(\s*&?\w+\s*,\s*&?\w+\s*,\s*|'
                  r'\bcli_prints\(\s*"(?:[^"\\]|\\.)*"\s*,\s*|\{\{?\s*)'
                  r'"(hfile|table|parquet|convert)"\s*,')


def guarded_lines(text):
    """(line number, line, set of modules whose CF_HAVE_ guards the line) for each line."""
    stack = []  # per open #if: the modules its active branch guards
    for no, line in enumerate(text.split("\n"), 1):
        m = COND.match(line)
        if m:
            kw, rest = m.group(1), m.group(2)
            mods = {HAVE[x] for x in re.findall(r"(?<!!)\bCF_HAVE_(HFILE|TABLES|PARQUET)\b", rest)}
            if kw in ("if", "ifdef", "ifndef"):
                stack.append(mods if kw == "if" and "!" not in rest and "||" not in rest
                             else set())
            elif kw in ("elif", "else") and stack:
                stack[-1] = set()
            elif kw == "endif" and stack:
                stack.pop()
            continue
        yield no, line, set().union(*stack) if stack else set()


def strip_comments(line, state):
    """The line without /* */ and // comments (state[0]: inside a block comment)."""
    out, i = [], 0
    while i < len(line):
        if state[0]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state[0], i = False, j + 2
        elif line.startswith("/*", i):
            state[0], i = True, i + 2
        elif line.startswith("//", i):
            break
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def resolve(spelling, angle, includer):
    """The repo file an include names, or None (a system header)."""
    if angle:
        cands = [os.path.join(ROOT, "include", spelling)]
    else:
        here = os.path.dirname(includer)
        cands = [os.path.join(here, spelling), os.path.join(ROOT, "src", spelling),
                 os.path.join(ROOT, "tools", "cfile", spelling),
                 os.path.join(ROOT, "tests", "common", spelling),
                 os.path.join(ROOT, "include", spelling)]
    for c in cands:
        if os.path.isfile(c):
            return os.path.normpath(c)
    return None


_header_needs = {}


def module_of_header(path):
    rel = os.path.relpath(path, ROOT).split(os.sep)
    if rel[:2] == ["include", "cfile"] and rel[2] in PUBLIC:
        return {PUBLIC[rel[2]]}
    if rel[0] == "src" and len(rel) > 2 and rel[1] in FOLDER:
        return {FOLDER[rel[1]]}
    return None


def header_needs(path, seen=()):
    """Modules a header needs through its unguarded includes (and the header it is)."""
    mod = module_of_header(path)
    if mod is not None:
        return mod
    if path in _header_needs:
        return _header_needs[path]
    if path in seen:
        return set()
    needs, _ = scan(path, seen + (path,))
    _header_needs[path] = needs
    return needs


def scan(path, seen=()):
    """(modules needed unguarded, [(line, what, modules)]) of one file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    needs, why, state = set(), [], [False]
    depth, cguards = 0, []  # C `if (CF_HAVE_X) {` blocks: (depth inside, modules)
    for no, line, guard in guarded_lines(text):
        m = INCLUDE.match(line)
        if m and not state[0]:
            target = resolve(m.group(2), m.group(1) == "<", path)
            if target is not None and target.endswith(".h"):
                mods = header_needs(target, seen) - guard
                if mods:
                    needs |= mods
                    why.append((no, "includes %s" % m.group(2), mods))
            continue
        code = strip_comments(line, state)
        bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', code)
        cm = re.search(r"\bif\s*\(\s*CF_HAVE_(HFILE|TABLES|PARQUET)\s*\)\s*\{", bare)
        for ch in bare:
            depth += ch == "{"
            depth -= ch == "}"
        if cm:
            cguards.append((depth, HAVE[cm.group(1)]))
        while cguards and depth < cguards[-1][0]:
            cguards.pop()
        if "CF_HAVE_" in code or "CF_WITH_" in code:
            continue  # about the module being there (test_cli_modules.c's table)
        guard = guard | {m for _, m in cguards}
        for cmd in RUNS.findall(code):
            mods = COMMANDS[cmd] - guard
            if mods:
                needs |= mods
                why.append((no, "runs `cfile %s`" % cmd, mods))
    return needs, why


def declared(path, errors):
    rel = os.path.relpath(path, ROOT)
    parts = rel.split(os.sep)
    mods = set()
    if parts[0] == "tests" and parts[1] in FOLDER:
        mods.add(FOLDER[parts[1]])
    with open(path, "rb") as f:
        raw = f.read()
    for m in re.finditer(rb"cf-needs:", raw):
        start = raw.rfind(b"\n", 0, m.start()) + 1
        end = raw.find(b"\n", m.start())
        line = raw[start:end if end >= 0 else len(raw)].decode("utf-8", "replace")
        lm = MARKER.match(line)
        if not lm:
            errors.append("%s: a cf-needs line is exactly `/* cf-needs: m1 m2 */`, got: %s"
                          % (rel, line.strip()))
            continue
        if end < 0 or end > MARKER_WINDOW:
            errors.append("%s: its cf-needs line is past the first %d bytes (CMakeLists.txt "
                          "reads no further): move it to the top" % (rel, MARKER_WINDOW))
        for name in lm.group(1).split():
            if name not in MODULES:
                errors.append("%s: cf-needs names '%s'; the modules are %s"
                              % (rel, name, ", ".join(MODULES)))
            mods.add(name)
    return mods


def main(argv):
    files = [os.path.abspath(a) for a in argv[1:]]
    if not files:
        for pat in ("tests/*/*.c", "fuzz/*.c", "bench/*.c"):
            files += sorted(glob.glob(os.path.join(ROOT, pat)))
    errors = []
    for path in files:
        have = declared(path, errors)
        needs, why = scan(path)
        rel = os.path.relpath(path, ROOT)
        first = {}  # missing modules -> (line, what, how many places)
        for no, what, mods in why:
            missing = tuple(sorted(mods - have))
            if missing:
                at = first.get(missing)
                first[missing] = (no, what, 1) if at is None else (at[0], at[1], at[2] + 1)
        for missing, (no, what, count) in sorted(first.items()):
            errors.append(
                "%s:%d: %s%s, which needs the %s module%s: add `/* cf-needs: %s */` near the "
                "top, or put it inside `#if %s` (<cfile/config.h>) so the rest runs without"
                % (rel, no, what, " (and %d more places)" % (count - 1) if count > 1 else "",
                   " and ".join(missing), "s" if len(missing) > 1 else "",
                   " ".join(sorted(have | set(missing))),
                   " && ".join("CF_HAVE_" + x.upper() for x in missing)))
    for e in errors:
        print("FAIL: " + e)
    print("check-needs: %d files, %d problems" % (len(files), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
