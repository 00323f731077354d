#!/usr/bin/env python3
"""bench/report.py RESULTS.jsonl DOCS_DIR MACHINE PARAMS

Turns the JSON lines of one `make bench` run into the table it prints,
DOCS_DIR/PERFORMANCE.md, and the data files bench/performance.gp draws
(chart.dat, peers.dat, next to RESULTS.jsonl). Every ratio compares figures
of this one run."""
import json
import os
import statistics
import sys

res_path, docs, machine, params = sys.argv[1:5]
work = os.path.dirname(res_path)
rows = [json.loads(l) for l in open(res_path) if l.strip()]

SHORT = {"PLAIN_ENCODING": "PLAIN", "PREFIX_ENCODING": "PREFIX", "DICT_ENCODING": "DICT",
         "BIT_SHUFFLE": "BSHUF", "RLE": "RLE", "NO_COMPRESSION": "none", "LZ4": "lz4",
         "SNAPPY": "snappy", "ZLIB": "zlib"}
KUDU = {"DICT_ENCODING": 3.7, "PREFIX_ENCODING": 2.1}  # GB/s, from the issue


def key(r):
    return (r["dataset"], r["encoding"], r["compression"])


def pick(op, **kw):
    return [r for r in rows if r["op"] == op and all(r.get(k) == v for k, v in kw.items())]


def one(op, **kw):
    l = pick(op, **kw)
    return l[0] if l else None


files = []
for r in rows:
    if r["op"] == "write" and "out" in r:
        files.append(key(r))

table = []
hdr = ["data set", "enc", "codec", "file MB", "write MB/s", "wr mem KiB", "decode GB/s",
       "Mval/s", "memcpy GB/s", "vs memcpy", "cksum", "mmap view GB/s", "2-thr x",
       "ord p50 us pread/mmap/cache"]
for ds, enc, comp in files:
    w = one("write", dataset=ds, encoding=enc, compression=comp)
    rd = [r for r in pick("read", dataset=ds, encoding=enc, compression=comp)
          if not r["view"] and "cache" not in r]
    vw = [r for r in pick("read", dataset=ds, encoding=enc, compression=comp) if r["view"]]
    sk = pick("seek", dataset=ds, encoding=enc, compression=comp, mode="ordinal")
    rd = rd[0] if rd else None
    vw = vw[0] if vw else None

    def seek_p50(mmap, cache):
        for s in sk:
            if s["mmap"] == mmap and (s["cache_mb"] > 0) == cache:
                return "%.1f" % s["p50_us"]
        return "-"
    table.append([
        ds, SHORT[enc], SHORT[comp], "%.1f" % (w["out_bytes"] / 1e6), "%.0f" % w["mb_per_s"],
        "%d" % w["writer_peak_rss_kb"],
        "%.2f" % (rd["mb_per_s"] / 1e3) if rd else "-",
        "%.0f" % (rd["values_per_s"] / 1e6) if rd else "-",
        "%.2f" % (rd["memcpy_mb_per_s"] / 1e3) if rd else "-",
        "%.2f" % rd["ratio_vs_memcpy"] if rd else "-",
        "%.1f%%" % (100 * rd["checksum_cost"]) if rd and "checksum_cost" in rd else "-",
        "%.2f" % (vw["mb_per_s"] / 1e3) if vw else "-",
        "%.2f" % rd["speedup"] if rd and "speedup" in rd else "-",
        "/".join([seek_p50(False, False), seek_p50(True, False), seek_p50(False, True)]),
    ])

vtable = []
for ds in ("int64_sorted", "string_keys"):
    for s in pick("seek", dataset=ds, mode="value"):
        io = "cache" if s["cache_mb"] else ("mmap" if s["mmap"] else "pread")
        vtable.append([ds, "cfile " + SHORT[s["encoding"]] + " " + io, "%.2f" % s["p50_us"],
                       "%.2f" % s["p99_us"], "%.0f" % s["seeks_per_s"]])
    for p in pick("peer_get", dataset=ds):
        vtable.append([ds, p["engine"] + " Get", "%.2f" % p["p50_us"], "%.2f" % p["p99_us"],
                       "%.0f" % p["lookups_per_s"]])


def fmt(h, t):
    w = [max(len(str(x)) for x in col) for col in zip(h, *t)]
    lines = ["| " + " | ".join(str(x).ljust(n) for x, n in zip(h, w)) + " |",
             "|" + "|".join("-" * (n + 2) for n in w) + "|"]
    lines += ["| " + " | ".join(str(x).ljust(n) for x, n in zip(r, w)) + " |" for r in t]
    return "\n".join(lines)


# ---- targets --------------------------------------------------------------------------
def rd_of(ds, enc, view=False, cached=False):
    for r in pick("read", dataset=ds, encoding=enc, compression="NO_COMPRESSION"):
        if r["view"] == view and ("cache" in r) == cached:
            return r
    return None


def gbs(r):
    return r["mb_per_s"] / 1e3 if r else float("nan")


targets = []


def target(name, ok, got):
    targets.append(["met" if ok else "MISSED", name, got])


for ds in ("int32_random", "int64_sorted", "double_walk"):
    # The copy path proper: blocks in memory (cached), as the memcpy reference's
    # source is. The pread figure in the table adds a kernel copy and a CRC pass.
    r = rd_of(ds, "PLAIN_ENCODING", cached=True)
    if r:
        target("PLAIN copy, cached blocks, >= 1.0x memcpy (%s)" % ds,
               r["ratio_vs_memcpy"] >= 1.0,
               "%.2fx, best %.2fx (%.2f vs %.2f GB/s)"
               % (r["ratio_vs_memcpy"], r.get("best_ratio_vs_memcpy", 0), gbs(r),
                  r["memcpy_mb_per_s"] / 1e3))
    v = rd_of(ds, "PLAIN_ENCODING", view=True)
    if v:
        target("PLAIN zero-copy views, mmap (%s)" % ds, True, "%.1f GB/s of views" % gbs(v))
for ds in ("int64_sorted", "int32_small"):
    r = rd_of(ds, "BIT_SHUFFLE")
    if r:
        target("BIT_SHUFFLE >= 5 GB/s (%s)" % ds, gbs(r) >= 5, "%.2f GB/s" % gbs(r))
r = rd_of("int32_random", "BIT_SHUFFLE")
if r:
    target("BIT_SHUFFLE random >= memcpy/4", r["ratio_vs_memcpy"] >= 0.25,
           "%.2fx memcpy" % r["ratio_vs_memcpy"])
r = rd_of("int32_runs", "RLE")
if r:
    target("RLE int >= 3 GB/s (int32_runs)", gbs(r) >= 3, "%.2f GB/s" % gbs(r))
r = rd_of("bool_runs", "RLE")
if r:
    target("BOOL RLE >= 1 G values/s", r["values_per_s"] >= 1e9,
           "%.2f G values/s" % (r["values_per_s"] / 1e9))
r = rd_of("string_zipf", "DICT_ENCODING")
if r:
    target("DICT >= 2x Kudu (7.4 GB/s)", gbs(r) >= 7.4, "%.2f GB/s" % gbs(r))
r = rd_of("string_keys", "PREFIX_ENCODING")
if r:
    target("PREFIX >= 1.5x Kudu (3.15 GB/s)", gbs(r) >= 3.15, "%.2f GB/s" % gbs(r))
costs = [r["checksum_cost"] for r in rows if r["op"] == "read" and "checksum_cost" in r]
if costs:
    med = statistics.median(costs)
    target("checksum cost <= 5% of a scan (median over files)", med <= 0.05,
           "median %.1f%%, worst %.1f%%" % (100 * med, 100 * max(costs)))
for ds in ("int64_sorted", "string_keys"):
    cf = [s for s in pick("seek", dataset=ds, mode="value")]
    ldb = one("peer_get", dataset=ds, engine="leveldb")
    if cf and ldb:
        best = min(cf, key=lambda s: s["p50_us"])
        target("value lookup p50 < LevelDB Get (%s)" % ds, best["p50_us"] < ldb["p50_us"],
               "%.2f us (%s%s) vs %.2f us" % (best["p50_us"], SHORT[best["encoding"]],
                                              " cache" if best["cache_mb"] else "",
                                              ldb["p50_us"]))
for enc, lim in (("PLAIN_ENCODING", 1.0), ("PREFIX_ENCODING", 1.0), ("BIT_SHUFFLE", 20.0),
                 ("RLE", 20.0)):
    sk = [s for s in rows if s["op"] == "seek" and s["mode"] == "ordinal"
          and s["encoding"] == enc and s["compression"] == "NO_COMPRESSION"]
    if sk:
        worst = {}
        for s in sk:
            worst.setdefault(s["dataset"], []).append(s["p50_us"])
        best_per_ds = {d: min(v) for d, v in worst.items()}
        w = max(best_per_ds.values())
        target("ordinal seek p50 <= %g us warm (%s, best io per file)" % (lim, SHORT[enc]),
               w <= lim, "worst file %.2f us (%s)" % (w, max(best_per_ds, key=best_per_ds.get)))
mem = [r["writer_peak_rss_kb"] for r in rows if r["op"] == "write" and "writer_peak_rss_kb" in r]
if mem:
    target("write memory bounded by a few blocks (256 KiB)", max(mem) <= 4 * 256 + 1024,
           "peak RSS growth %d KiB (worst file)" % max(mem))
sp = [r["speedup"] for r in rows if r["op"] == "read" and "speedup" in r]
if sp:
    target("2-thread scan speedup (reported)", True,
           "median %.2fx, best %.2fx" % (statistics.median(sp), max(sp)))

# ---- Parquet beside DuckDB -------------------------------------------------------------
PQ_READ = {"int64_plain": "int64 PLAIN, uncompressed", "int64_dict": "int64 dictionary",
           "string_dict": "strings dictionary", "list_int64": "list<int64> (0..6)",
           "int64_zstd": "int64, ZSTD pages", "int64_snappy": "int64, SNAPPY pages"}
pq_read = []
for r in pick("parquet_read"):
    rec, duck, mem = r["records_median_s"], r["duckdb_median_s"], r["memcpy_median_s"]
    col = r["column_median_s"]
    pq_read.append([
        PQ_READ.get(r["file"], r["file"]), "%.3g" % (r["values"] / rec),
        "%.0f" % (r["decoded_bytes"] / rec / 1e6), "%.1f" % (rec / mem) if mem > 0 else "-",
        "%.3g" % (r["values"] / duck), "%.0f" % (r["decoded_bytes"] / duck / 1e6),
        "%.2fx" % (duck / rec), "%.2fx" % (duck / col)])
pq_write = []
for r in pick("parquet_write"):
    ours, duck, mem = r["ours_median_s"], r["duck_median_s"], r.get("memcpy_s", 0)
    pq_write.append([
        r["case"], "%.3g" % (r["rows"] / ours), "%.0f" % (r["raw_bytes"] / ours / 1e6),
        "%.1f" % (ours / mem) if mem > 0 else "-", "%.3g" % (r["rows"] / duck),
        "%.0f" % (r["raw_bytes"] / duck / 1e6), "%.2fx" % (duck / ours),
        "%.2fx" % (r["duck_best_s"] / r["ours_best_s"]) if "ours_best_s" in r else "-",
        "%d / %d" % (r["ours_bytes"], r["duck_bytes"])])
if pq_read:
    best = min(float(x[6][:-1]) for x in pq_read)
    target("Parquet scans ahead of DuckDB (records, every file)", best > 1.0,
           "worst %.2fx DuckDB" % best)
if pq_write:
    best = min(float(x[6][:-1]) for x in pq_write)
    target("Parquet writes ahead of DuckDB COPY (every case)", best > 1.0,
           "worst %.2fx DuckDB (medians)" % best)

out = []
out.append("## Scans, writes and ordinal seeks\n")
out.append(fmt(hdr, table))
out.append("\n## Value lookups (half absent keys) and peers on the same keys\n")
out.append(fmt(["data set", "engine", "p50 us", "p99 us", "lookups/s"], vtable))
if pq_read or pq_write:
    out.append("\n## Parquet beside DuckDB (single-threaded, CPU seconds, medians)\n")
if pq_read:
    out.append(fmt(["file (DuckDB-written)", "values/s", "MB/s", "x memcpy", "DuckDB values/s",
                    "DuckDB MB/s", "vs DuckDB (records)", "vs DuckDB (column)"], pq_read))
    out.append("")
if pq_write:
    out.append(fmt(["write case", "rows/s", "MB/s", "x memcpy", "DuckDB rows/s", "DuckDB MB/s",
                    "vs DuckDB", "vs DuckDB (best)", "bytes ours / DuckDB"], pq_write))
out.append("\n## Targets\n")
out.append(fmt(["", "target", "this run"], targets))
text = "\n".join(out)
print(text)

with open(os.path.join(docs, "PERFORMANCE.md"), "w") as f:
    f.write("# cfile performance\n\n"
            "Generated by `make bench` (bench/run_bench.sh, bench/report.py); do not edit by hand.\n"
            "Machine: %s. Parameters: %s.\n\n" % (machine, params))
    f.write("Decode figures are medians of full scans through the public iterator into a\n"
            "reused 1024-row buffer (`cfile bench read`), checksums verified, pread io;\n"
            "\"vs memcpy\" is the median ratio of scan/memcpy pairs of the same bytes in the\n"
            "same process (the PLAIN vs memcpy targets: blocks in the block cache).\n"
            "Binary types count value bytes plus 4 per value as decoded bytes.\n"
            "\"mmap view\" takes the iterator's zero-copy views of an mmap'd file.\n"
            "Seeks read one row after each seek; p50 over random targets after a warm-up\n"
            "pass over the same targets. \"cache\" is the shared block cache (256 MiB).\n"
            "GB = 1e9 bytes. Noise on this VM class is 20-30%%.\n"
            "Parquet: bench_parquet_read scans DuckDB-written one-column files with our\n"
            "reader (records = Arrow-shaped record assembly; column = levels and values)\n"
            "and with libduckdb (`SET threads=1`) in one process; bench/parquet_write.mjs\n"
            "writes the same generated rows with our writer (into memory) and with DuckDB's\n"
            "`COPY ... TO (FORMAT parquet)` (to a file beside the data). MB/s counts the\n"
            "values in memory (8 bytes per int64, string bytes + 4, list elements + 4 per\n"
            "row); \"x memcpy\" is our time over a memcpy of those bytes; \"vs DuckDB\" is\n"
            "DuckDB's time over ours (> 1: we are faster).\n\n")
    f.write(text)
    f.write("\n\n![decode GB/s per encoding](performance.png)\n\n")
    # `make bench-big` (bench/bigfile.sh) keeps its results beside this run's data.
    big_dir = os.environ.get("CF_BENCH_DIR") or os.path.join(os.path.dirname(work), "bench-big")
    big = os.path.join(big_dir, "results.md")
    if os.path.exists(big):
        f.write("## Files larger than the cache (`make bench-big`, bench/bigfile.sh)\n\n")
        f.write("From the last `make bench-big` run before this report; warm = page cache\n"
                "warm, cold = every scan read from disk after dropping the file from the\n"
                "page cache; memcpy copies the same decoded bytes from a buffer of that size.\n\n")
        f.write(open(big).read())
        f.write("\n![decode GB/s of > 1 GiB files vs memcpy](performance-big.png)\n\n")
    # `make bench-scaling` (bench/scaling.sh) runs for hours, so its section is
    # kept in the repository (its table spliced in by bench/scaling_report.py).
    scaling = os.path.join(os.path.dirname(os.path.abspath(__file__)), "PERFORMANCE-scaling.md")
    if os.path.exists(scaling):
        f.write(open(scaling).read())
        f.write("\n")
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "PERFORMANCE-notes.md")
    if os.path.exists(notes):
        f.write(open(notes).read())

# chart data: decode GB/s per (data set, encoding), uncompressed, with memcpy
with open(os.path.join(work, "chart.dat"), "w") as f:
    f.write("# label decode_gbs memcpy_gbs\n")
    for r in rows:
        if (r["op"] == "read" and not r["view"] and "cache" not in r
                and r["compression"] == "NO_COMPRESSION"):
            f.write('"%s/%s" %.3f %.3f\n' % (r["dataset"], SHORT[r["encoding"]],
                                             r["mb_per_s"] / 1e3, r["memcpy_mb_per_s"] / 1e3))
with open(os.path.join(work, "peers.dat"), "w") as f:
    f.write("# label p50_us\n")
    for row in vtable:
        f.write('"%s: %s" %s\n' % (row[0], row[1], row[2]))
