#!/usr/bin/env python3
"""bench/scaling_run.py OP ROWS UNITS OUT|- -- CMD... : run CMD once, print one JSON line.

Used by bench/scaling.sh. CMD's stdout goes to OUT ('-': /dev/null), its stderr
to ours. Measured through wait4's rusage (the child's own, not ours): wall
seconds, user+sys CPU seconds and peak RSS (ru_maxrss, KiB). UNITS is what the
per-unit figures divide by (rows for scans and writes, keys for lookups). A
non-zero exit is a failure of the benchmark (exit 1), never a row.
"""
import json
import os
import subprocess
import sys
import time

op, rows, units, out = sys.argv[1:5]
assert sys.argv[5] == "--"
cmd = sys.argv[6:]
sink = open(os.devnull if out == "-" else out, "wb")
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=sink)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
rc = os.waitstatus_to_exitcode(status)
if rc != 0:
    sys.exit("scaling_run: %s exited %d: %s" % (op, rc, " ".join(cmd)))
cpu = ru.ru_utime + ru.ru_stime
u = int(units)
print(json.dumps({"op": op, "rows": int(rows), "units": u, "wall_s": round(wall, 4),
                  "cpu_s": round(cpu, 4), "cpu_ns_per_unit": round(cpu * 1e9 / u, 2),
                  "wall_ns_per_unit": round(wall * 1e9 / u, 2), "maxrss_kib": ru.ru_maxrss,
                  "load1": round(os.getloadavg()[0], 2)}))
