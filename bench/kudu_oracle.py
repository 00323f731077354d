#!/usr/bin/env python3
"""bench/kudu_oracle.py RESULTS.jsonl MACHINE PARAMS

The table of bench/kudu_oracle.sh: per file and configuration, the median over the
alternated rounds of each side's figure (a scan: its best_s in ms, the fastest of its
timed scans, which a loaded machine disturbs least; a seek: p50_us)
and cfile's lead, Kudu / cfile (> 1: cfile ahead). Binary columns: Kudu hands out
slices, so its scan is compared with our --view scan (scan-view) and, for reference,
with our copying scan."""
import json
import statistics
import sys

res, machine, params = sys.argv[1:4]
rows = [json.loads(l) for l in open(res) if l.strip()]
for r in rows:
    r["cpu_s"] = sum(float(x) for x in r["cpu_s"].split("+"))
# Scans ran with N iterations and with 1: "scan@N" is the table's scan row.
iters = max((int(r["cfg"].split("@")[1]) for r in rows if "@" in r["cfg"]), default=1)
for r in rows:
    if r["cfg"].endswith(f"@{iters}"):
        r["cfg"] = r["cfg"].split("@")[0]
CFG = {  # cfg of our side -> (cfg of Kudu's side, metric, unit, scale)
    "scan": ("scan", "best_s", "ms", 1e3),
    "scan-view": ("scan", "best_s", "ms", 1e3),
    "seek-cached": ("seek-cached", "p50_us", "us", 1.0),
    "seek-uncached": ("seek-uncached", "p50_us", "us", 1.0),
    "vseek-cached": ("vseek-cached", "p50_us", "us", 1.0),
}


def med(name, side, cfg, metric):
    v = [r[metric] for r in rows if r["name"] == name and r["side"] == side and r["cfg"] == cfg]
    return statistics.median(v) if v else None


def cpu_per_scan(name, side, cfg):
    """CPU ms per scan: the N-iteration run less the 1-iteration one, over the 2 (N - 1)
    scans between (each iteration is an untimed and a timed scan on both sides); our
    runs also pair every scan with a memcpy of its bytes, taken off at its best time."""
    hi = [r for r in rows if r["name"] == name and r["side"] == side and r["cfg"] == cfg]
    lo = [r["cpu_s"] for r in rows
          if r["name"] == name and r["side"] == side and r["cfg"] == f"{cfg}@1"]
    if not hi or not lo or iters < 2:
        return None
    mc = statistics.median(r.get("memcpy_best_s", 0.0) for r in hi)
    per = (statistics.median(r["cpu_s"] for r in hi) - statistics.median(lo)) / (2 * (iters - 1))
    return max(per - mc, 1e-9) * 1e3


names = list(dict.fromkeys(r["name"] for r in rows))
print(f"\ncfile beside Kudu's CFile reader ({machine}; {params})")
has_before = any(r["side"] == "before" for r in rows)
print(f"{'file':26} {'config':14} {'cfile':>10} {'Kudu':>10}  {'Kudu/cfile':>10}"
      + (f" {'before':>10} {'Kudu/before':>11}" if has_before else ""))
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
        line = (f"{n:26} {cfg:14} {ours * scale:8.2f}{unit} {theirs * scale:8.2f}{unit}"
                f"  {ratio:9.2f}x")
        before = med(n, "before", cfg, metric)
        if has_before and before:
            line += f" {before * scale:8.2f}{unit} {theirs / before:10.2f}x"
        if cfg.startswith("scan"):
            co, ck = cpu_per_scan(n, "cfile", cfg), cpu_per_scan(n, "kudu", "scan")
            if co and ck:
                line += f"  | CPU ms/scan {co:7.2f} {ck:7.2f} {ck / co:6.2f}x"
                cb = cpu_per_scan(n, "before", cfg)
                if cb:
                    line += f" before {cb:7.2f} {ck / cb:6.2f}x"
        print(line + flag)
print("scan: full scan, data blocks uncached, ms (fastest of each run's scans, median over"
      " rounds); CPU ms/scan: process CPU of an N-scan run less a 1-scan run, medians over"
      " rounds, ours less its memcpy reference (cfile, Kudu, Kudu/cfile);"
      " seek: p50 us per ordinal (value) seek;"
      " string scans like for like: scan-view (Kudu hands out slices)")
if behind:
    print("behind Kudu: " + ", ".join(behind))
