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


def cpu_rounds(name, side, cfg):
    """CPU ms per scan, one figure per round: the N-iteration run less the 1-iteration
    run of the same round, over the 2 (N - 1) scans between (each iteration is an
    untimed and a timed scan on both sides). Our runs use --no-memcpy, so nothing is
    estimated; a run that still paired its scans with a memcpy reference (a base
    binary older than that flag) has the reference taken off at its best time."""
    out = {}
    for r in rows:
        if r["name"] != name or r["side"] != side or r["cfg"] != cfg:
            continue
        lo = [x for x in rows if x["name"] == name and x["side"] == side
              and x["cfg"] == f"{cfg}@1" and x.get("round") == r.get("round")]
        if not lo or iters < 2:
            continue
        per = (r["cpu_s"] - lo[0]["cpu_s"]) / (2 * (iters - 1)) - r.get("memcpy_best_s", 0.0)
        out[r.get("round")] = max(per, 1e-9) * 1e3
    return out


def cpu_cmp(name, side, cfg):
    """(our median CPU ms/scan, Kudu's, median of the per-round ratios, lowest, highest)"""
    co, ck = cpu_rounds(name, side, cfg), cpu_rounds(name, "kudu", "scan")
    both = [k for k in co if k in ck]
    if not both:
        return None
    q = sorted(ck[k] / co[k] for k in both)
    return (statistics.median(co[k] for k in both), statistics.median(ck[k] for k in both),
            statistics.median(q), q[0], q[-1])


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
            c = cpu_cmp(n, "cfile", cfg)
            if c:
                line += (f"  | CPU ms/scan {c[0]:7.2f} {c[1]:7.2f} {c[2]:6.2f}x"
                         f" [{c[3]:.2f}-{c[4]:.2f}]")
                cb = cpu_cmp(n, "before", cfg)
                if cb:
                    line += f" before {cb[0]:7.2f} {cb[2]:6.2f}x [{cb[3]:.2f}-{cb[4]:.2f}]"
        print(line + flag)
print("scan: full scan, data blocks uncached, ms (fastest of each run's scans, median over"
      " rounds); CPU ms/scan: process CPU (user + sys) of an N-scan run less a 1-scan run of"
      " the same round, both sides running scans only (cfile, Kudu: medians over rounds;"
      " Kudu/cfile: median of the rounds' ratios [lowest-highest]);"
      " seek: p50 us per ordinal (value) seek;"
      " string scans like for like: scan-view (Kudu hands out slices)")
if behind:
    print("behind Kudu: " + ", ".join(behind))
