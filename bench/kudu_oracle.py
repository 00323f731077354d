#!/usr/bin/env python3
"""bench/kudu_oracle.py RESULTS.jsonl MACHINE PARAMS

The table of bench/kudu_oracle.sh: per file and configuration, the median over the
alternated rounds of each side's figure (a scan: its median_s in ms; a seek: mean_us)
and cfile's lead, Kudu / cfile (> 1: cfile ahead). Binary columns: Kudu hands out
slices, so its scan is compared with our --view scan (scan-view) and, for reference,
with our copying scan."""
import json
import statistics
import sys

res, machine, params = sys.argv[1:4]
rows = [json.loads(l) for l in open(res) if l.strip()]
CFG = {  # cfg of our side -> (cfg of Kudu's side, metric, unit, scale)
    "scan": ("scan", "median_s", "ms", 1e3),
    "scan-view": ("scan", "median_s", "ms", 1e3),
    "seek-cached": ("seek-cached", "mean_us", "us", 1.0),
    "seek-uncached": ("seek-uncached", "mean_us", "us", 1.0),
    "vseek-cached": ("vseek-cached", "mean_us", "us", 1.0),
}


def med(name, side, cfg, metric):
    v = [r[metric] for r in rows if r["name"] == name and r["side"] == side and r["cfg"] == cfg]
    return statistics.median(v) if v else None


names = list(dict.fromkeys(r["name"] for r in rows))
print(f"\ncfile beside Kudu's CFile reader ({machine}; {params})")
print(f"{'file':26} {'config':14} {'cfile':>10} {'Kudu':>10}  {'Kudu/cfile':>10}")
behind = []
for n in names:
    for cfg, (kcfg, metric, unit, scale) in CFG.items():
        ours, theirs = med(n, "cfile", cfg, metric), med(n, "kudu", kcfg, metric)
        if ours is None or theirs is None:
            continue
        ratio = theirs / ours if ours > 0 else float("inf")
        flag = "" if ratio >= 1 else "  BEHIND"
        if ratio < 1 and not (cfg == "scan" and n.startswith("string_")):
            behind.append(f"{n} {cfg}")
        print(f"{n:26} {cfg:14} {ours * scale:8.2f}{unit} {theirs * scale:8.2f}{unit}"
              f"  {ratio:9.2f}x{flag}")
print("scan: full scan, data blocks uncached, median ms; seek: mean us per ordinal (value) seek;"
      " string scans like for like: scan-view (Kudu hands out slices)")
if behind:
    print("behind Kudu: " + ", ".join(behind))
