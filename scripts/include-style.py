#!/usr/bin/env python3
"""scripts/include-style.py - one include style for the library's private headers (run once,
kept for branches that still carry the old forms; it changes nothing in a converted tree).

A file in src/<layer>/ names a header of its own folder by its bare name ("internal.h") and a
header of another layer from src/ ("util/error.h"). Paths relative to the including file
("../util/error.h") go: they would reach a folder whatever the layer's include path allows
(scripts/check-layers.sh). Tests name private headers from src/ as well."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
inc = re.compile(r'^(\s*#\s*include\s*")([^"]+)(")', re.M)
changed = 0
for top in ("src", "tests", "fuzz", "bench"):
    for dirpath, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root).split(os.sep)
            layer = rel[1] if rel[0] == "src" and len(rel) == 3 else None

            def fix(m):
                name = m.group(2)
                if rel[0] == "src":
                    name = re.sub(r"^(\.\./)+", "", name) if layer else name
                    if layer and name.startswith(layer + "/") and name.count("/") == 1:
                        name = name[len(layer) + 1:]
                else:
                    name = re.sub(r"^(\.\./)+src/", "", name)
                return m.group(1) + name + m.group(3)

            text = open(path).read()
            new = inc.sub(fix, text)
            if new != text:
                open(path, "w").write(new)
                changed += 1
print("include-style: %d files changed" % changed, file=sys.stderr)
