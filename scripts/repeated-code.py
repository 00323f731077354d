#!/usr/bin/env python3
"""scripts/repeated-code.py - count repeated code (issue 19 item 8): pairs of places
sharing six or more lines of the same shape.

A line's shape is the line with comments dropped and numbers and names replaced by
placeholders (C keywords, cf_/CF_ API names and library calls stay as they are), so
two places that differ only in variable names or constants match. Blank lines and
lines of only braces are skipped. Each pair of places is counted once, at its
longest match. A pair is "boilerplate" when most of its lines are includes, cleanup
(free/dispose/close), propagation (CF_TRY, return, goto), case labels, enumerators
or table rows.

Usage: scripts/repeated-code.py [--min N] [--list] [DIR...]   (default: src tools)
"""
import os
import re
import sys
from collections import defaultdict

KEYWORDS = set("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while bool true false NULL size_t
uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t _Static_assert""".split())

BOILER = re.compile(
    r"^(#\s*include|#\s*(if|ifdef|ifndef|endif|else|define)|free\(|cf_free\(|\w+_(dispose|free|close)\(|"
    r"CF_TRY\(|return\b|goto\b|case\b|default:|break;|\{\".*\},?$|\{I, .*\},?$|out:|fail:|"
    r"cmocka_unit_test|fclose\(|\}\s*else|\w+( = \w+)?,$)")


def shape_code(code):
    code = re.sub(r"\b(0x[0-9a-fA-F]+|\d+(\.\d*)?([eE][-+]?\d+)?)[uUlLfF]*\b", "N", code)

    def name(m):
        w = m.group(0)
        if w in KEYWORDS or w.startswith(("cf_", "CF_")) or w in ("free", "malloc", "memcpy",
                                                                   "memset", "fprintf", "snprintf"):
            return w
        return "I"

    return re.sub(r"\b[A-Za-z_]\w*\b", name, code)


def shape(line):
    # String and character literals stay as they are (usage texts differ in their
    # words, not their shape); numbers and names outside them become N and I.
    parts = re.split(r'("(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')', line)
    out = "".join(p if k % 2 else shape_code(p) for k, p in enumerate(parts))
    return re.sub(r"\s+", " ", out).strip()


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def load(dirs):
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    files.append(os.path.join(root, n))
    units = []  # per file: [(lineno, shape, raw)]
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            raw = strip_comments(fh.read()).split("\n")
        lines = []
        for i, r in enumerate(raw):
            s = r.strip()
            if not s or re.fullmatch(r"[{}();,\s]*", s):
                continue
            lines.append((i + 1, shape(s), s))
        units.append((f, lines))
    return units


def main():
    args = sys.argv[1:]
    minlen, listing = 6, False
    if "--min" in args:
        i = args.index("--min")
        minlen = int(args[i + 1])
        del args[i:i + 2]
    if "--list" in args:
        listing = True
        args.remove("--list")
    units = load(args or ["src", "tools"])
    index = defaultdict(list)
    for fi, (_, lines) in enumerate(units):
        for i in range(len(lines) - minlen + 1):
            index[tuple(s for _, s, _ in lines[i:i + minlen])].append((fi, i))
    pairs = {}
    for locs in index.values():
        if len(locs) < 2 or len(locs) > 50:
            continue
        for a in range(len(locs)):
            for b in range(a + 1, len(locs)):
                (fa, ia), (fb, ib) = locs[a], locs[b]
                la, lb = units[fa][1], units[fb][1]
                if fa == fb and abs(ia - ib) < minlen:
                    continue  # overlapping windows of one run
                # Back up to the start of the match, so each pair is counted once.
                while ia > 0 and ib > 0 and la[ia - 1][1] == lb[ib - 1][1] and \
                        not (fa == fb and ia - 1 == ib):
                    ia, ib = ia - 1, ib - 1
                key = (fa, ia, fb, ib)
                if key in pairs:
                    continue
                n = 0
                while ia + n < len(la) and ib + n < len(lb) and la[ia + n][1] == lb[ib + n][1] \
                        and not (fa == fb and ia + n == ib):
                    n += 1
                pairs[key] = n
    boiler = 0
    report = []
    for (fa, ia, fb, ib), n in pairs.items():
        raws = [units[fa][1][ia + k][2] for k in range(n)]
        b = sum(1 for r in raws if BOILER.search(r)) * 2 >= n
        boiler += b
        report.append((n, b, units[fa][0], units[fa][1][ia][0], units[fb][0], units[fb][1][ib][0]))
    print(f"repeated: {len(pairs)} pairs of places sharing >= {minlen} lines of the same shape; "
          f"{len(pairs) - boiler} not boilerplate")
    if listing:
        for n, b, f1, l1, f2, l2 in sorted(report, reverse=True):
            print(f"{n:4d} {'B' if b else ' '} {f1}:{l1}  {f2}:{l2}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
