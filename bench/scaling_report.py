#!/usr/bin/env python3
"""bench/scaling_report.py DIR DOCS - the table and chart of bench/scaling.sh.

Reads DIR/run_N.jsonl, one file per size N (each from the last run at that size,
so a run of one size keeps the others' rows), joins them into DIR/results.jsonl,
and writes DIR/results.md (a Markdown table: CPU ns per row and peak RSS per size,
and the growth from the smallest to the largest size run) and, when gnuplot is
installed, DOCS/performance-scaling.png (bench/scaling.gp) from DIR/scaling.dat.
When DOCS is the repository's docs/, the table also replaces the one between the
<!-- scaling:table --> markers of bench/PERFORMANCE-scaling.md and of
docs/PERFORMANCE.md (the hand-written text around it stays). Prints the table.

Verdicts: time "ok" when the per-row CPU ratio largest/smallest is at most
1.25 x log(n_max)/log(n_min) (what O(n log n) allows, plus noise under load),
else "GROWS". Memory, for the steps that stream (their input is read a batch
at a time), "flat" when the peak RSS ratio is at most 1.5, else "GROWS with n";
for the others (the shuffled import sorts in memory) "not a streaming step".
"""
import json
import math
import os
import shutil
import subprocess
import sys

work, docs = sys.argv[-2:]
runs = sorted((f for f in os.listdir(work) if f.startswith("run_") and f.endswith(".jsonl")),
              key=lambda f: int(f[4:-6]))
rows = [json.loads(l) for f in runs for l in open(os.path.join(work, f)) if l.strip()]
with open(os.path.join(work, "results.jsonl"), "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)
NAMES = [
    ("import_sorted", "table import, sorted keys", "row", True),
    ("import_shuffled", "table import, shuffled keys", "row", False),
    ("scan_full", "table scan, all rows (csv)", "row", True),
    ("scan_where", "table scan --where val < 10000 (1%)", "row", True),
    ("scan_keyrange", "table scan, key range of 1000 rows", "out row", True),
    ("get", "table get, 1000 keys", "key", True),
    ("get_same", "table get, the 1M run's 1000 keys", "key", True),
    ("parquet_write", "parquet write (csv in, SNAPPY)", "row", True),
    ("parquet_dump", "parquet dump --threads 1 (jsonl)", "row", True),
    ("convert_to_parquet", "convert table -> parquet", "row", True),
    ("convert_to_table", "convert parquet -> table", "row", True),
]
sizes = sorted({r["rows"] for r in rows})
by = {(r["op"], r["rows"]): r for r in rows}


def human(n):
    return "%dM" % (n // 1000000) if n % 1000000 == 0 else "%dk" % (n // 1000)


hdr = ["step", "per"]
for s in sizes:
    hdr += ["%s ns/%s" % (human(s), "unit"), "%s MiB" % human(s)]
if len(sizes) > 1:
    g = "%s/%s" % (human(sizes[-1]), human(sizes[0]))
    hdr += ["time/row %s" % g, "peak RSS %s" % g, "verdict"]
lines = ["| " + " | ".join(hdr) + " |", "|" + "|".join("---" for _ in hdr) + "|"]
dat = []
for op, label, unit, streams in NAMES:
    have = [s for s in sizes if (op, s) in by]
    if not have:
        continue
    cells = [label, unit]
    for s in sizes:
        r = by.get((op, s))
        if r:
            cells += ["%.0f" % r["cpu_ns_per_unit"], "%.0f" % (r["maxrss_kib"] / 1024)]
        else:
            cells += ["-", "-"]
    if len(have) > 1:
        a, b = by[(op, have[0])], by[(op, have[-1])]
        tr = b["cpu_ns_per_unit"] / max(a["cpu_ns_per_unit"], 1e-9)
        mr = b["maxrss_kib"] / max(a["maxrss_kib"], 1)
        allow = 1.25 * math.log(have[-1]) / math.log(have[0])
        v = ["time ok" if tr <= allow else "time GROWS"]
        if streams:
            v.append("memory flat" if mr <= 1.5 else "memory GROWS with n")
        else:
            v.append("memory flat" if mr <= 1.5 else "memory grows (not a streaming step)")
        span = "" if (have[0], have[-1]) == (sizes[0], sizes[-1]) else \
            " (%s/%s)" % (human(have[-1]), human(have[0]))
        cells += ["%.2fx%s" % (tr, span), "%.2fx%s" % (mr, span), ", ".join(v)]
    elif len(sizes) > 1:
        cells += ["-", "-", "-"]
    lines.append("| " + " | ".join(cells) + " |")
    for s in have:
        r = by[(op, s)]
        dat.append((op, s, r["cpu_ns_per_unit"], r["maxrss_kib"] / 1024))
loads = [r.get("load1", 0) for r in rows]
wall = sum(r["wall_s"] for r in rows)
table = "\n".join(lines) + "\n"
if loads:
    table += ("\nLoad average (1 min) during the steps: %.1f to %.1f on %d CPUs; "
              "%.0f s of wall time for all steps.\n" % (min(loads), max(loads),
                                                        os.cpu_count(), wall))
open(os.path.join(work, "results.md"), "w").write(table)
with open(os.path.join(work, "scaling.dat"), "w") as f:
    for op, _, _, _ in NAMES:
        pts = [d for d in dat if d[0] == op]
        if not pts:
            continue
        f.write('"%s"\n' % op)
        for _, s, ns, mib in pts:
            f.write("%d %.2f %.1f\n" % (s, ns, mib))
        f.write("\n\n")
print(table)
here = os.path.dirname(os.path.abspath(__file__))
if os.path.realpath(docs) == os.path.realpath(os.path.join(here, "..", "docs")):
    for doc in (os.path.join(here, "PERFORMANCE-scaling.md"), os.path.join(docs, "PERFORMANCE.md")):
        if not os.path.exists(doc):
            continue
        text = open(doc).read()
        a, b = "<!-- scaling:table -->\n", "<!-- /scaling:table -->"
        i, j = text.find(a), text.find(b)
        if 0 <= i < j:
            tmp = doc + ".tmp"
            open(tmp, "w").write(text[:i + len(a)] + table + text[j:])
            os.replace(tmp, doc)
if shutil.which("gnuplot") and dat:
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scaling.gp")
    out = os.path.join(docs, "performance-scaling.png")
    subprocess.run(["gnuplot", "-e", "datafile='%s'; out='%s'" %
                    (os.path.join(work, "scaling.dat"), out), gp], check=True)
