#!/usr/bin/env python3
"""The --svg pictures, checked in a real browser.

For each case: run cfile to draw the picture, parse it as XML (xml.etree) and
check the elements a reader relies on (titles, tooltips, lanes, legend), then
let headless Chromium render it to PNG and fail on a render error: a non-zero
exit, a missing or empty PNG, or a blank image (the PNG is decoded here with
zlib, so the check needs no imaging library). A colour each picture must show
(e.g. the data blocks' encoding colour) has to be among the rendered pixels.

usage: render_test.py CFILE_BIN SHARED_DIR WORK_DIR [CHROMIUM]
Exit 77 (skipped) only when no Chromium is installed.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
FAILURES = []


def fail(case, msg):
    FAILURES.append(f"{case}: {msg}")
    print(f"FAIL {case}: {msg}", flush=True)


def run(args, ok=(0,)):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode not in ok:
        raise RuntimeError(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    return p


# ---- PNG decoding (8-bit RGB/RGBA, non-interlaced: what Chromium writes) --------------------

def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"PNG depth {depth} colour type {ctype}: not decoded here")
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def colour_census(path):
    w, h, bpp, rows = png_pixels(path)
    counts = {}
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = line[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    return w, h, counts


def hexrgb(s):
    return bytes(int(s[i:i + 2], 16) for i in (1, 3, 5))


# ---- the checks ---------------------------------------------------------------------------------

def check_svg(case, path, want_texts, want_min_rects, max_bytes, tip_word):
    size = os.path.getsize(path)
    if size > max_bytes:
        fail(case, f"{size} bytes, more than the bound {max_bytes}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(case, f"not well-formed XML: {e}")
        return None
    if root.tag != SVG + "svg" or root.get("version") != "1.1":
        fail(case, f"root element {root.tag} version {root.get('version')}")
    if root.find(SVG + "title") is None:
        fail(case, "no document <title>")
    texts = " | ".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
    for want in want_texts:
        if want not in texts:
            fail(case, f"no text {want!r} in the picture")
    rects = list(root.iter(SVG + "rect"))
    if len(rects) < want_min_rects:
        fail(case, f"{len(rects)} rects, want at least {want_min_rects}")
    tips = [t.text or "" for t in root.iter(SVG + "title")]
    if not any(tip_word in t for t in tips):
        fail(case, f"no tooltip says {tip_word!r}")
    if "legend" not in texts:
        fail(case, "no legend")
    return root


def render(case, chromium, svg, png, height):
    prof = tempfile.mkdtemp(prefix="cf-chromium-")
    try:
        p = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions", f"--user-data-dir={prof}",
             f"--screenshot={png}", f"--window-size=1280,{height}", "file://" + svg],
            capture_output=True, text=True, timeout=180)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    if p.returncode != 0:
        fail(case, f"chromium exited {p.returncode}: {p.stderr.strip()[-400:]}")
        return None
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        fail(case, "chromium wrote no PNG")
        return None
    return colour_census(png)


def check_png(case, census, want_colours):
    w, h, counts = census
    total = w * h
    white = counts.get(b"\xff\xff\xff", 0)
    if total - white < total * 0.05:
        fail(case, f"blank image: {total - white} of {total} pixels are not white")
    if len(counts) < 8:
        fail(case, f"only {len(counts)} colours rendered")
    for c in want_colours:
        n = counts.get(hexrgb(c), 0)
        if n < 50:
            fail(case, f"colour {c} drawn on {n} pixels, want at least 50")


def case(name, chromium, work, cmd, svg_name, want_texts, want_colours, min_rects=20,
         max_bytes=600_000, ok=(0,), tip_word="offset"):
    svg = os.path.join(work, svg_name)
    png = svg[:-4] + ".png"
    for f in (svg, png):
        if os.path.exists(f):
            os.remove(f)
    try:
        run(cmd + ["--svg", svg], ok=ok)
    except RuntimeError as e:
        fail(name, str(e))
        return
    root = check_svg(name, svg, want_texts, min_rects, max_bytes, tip_word)
    if root is None:
        return
    if chromium is None:
        return
    height = int(float(root.get("height")))
    census = render(name, chromium, svg, png, height)
    if census is not None:
        check_png(name, census, want_colours)
        print(f"ok   {name}: {os.path.getsize(svg)} bytes of SVG, {census[0]}x{census[1]} PNG, "
              f"{len(census[2])} colours", flush=True)


def main():
    cfile, shared, work = sys.argv[1:4]
    chromium = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] and not sys.argv[4].endswith("NOTFOUND") else None
    if chromium is None:
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    work = os.path.join(work, "svg_render")
    os.makedirs(work, exist_ok=True)
    golden = os.path.join(shared, "golden")

    def gf(name):
        return os.path.join(golden, name, name + ".cfile")

    # Both B-trees, three levels each, 157 data blocks.
    case("cfile-multilevel", chromium, work,
         [cfile, "info", gf("int32-bitshuffle-nocomp-notnull-sorted-validx-multilevel")],
         "multilevel.svg",
         ["positional L0 root", "positional L2 leaves", "value L0 root", "value L2 leaves",
          "file by offset", "data block (BIT_SHUFFLE)", "data blocks: 157"],
         ["#17a2b8", "#1f2a44", "#3f1d5c"], min_rects=150)
    # Nullable, DICT, LZ4: the dictionary block, NULL bands.
    case("cfile-dict-nullable", chromium, work,
         [cfile, "info", gf("string-dict-lz4-nullable")], "dict.svg",
         ["dictionary block", "NULL share", "data block (DICT codewords)"],
         ["#f28e2b", "#edc948", "#e377c2"], min_rects=10)
    # 1182 data blocks under a six-level tree: bucketed, bounded.
    case("cfile-6level", chromium, work,
         [cfile, "info", gf("int32-plain-nocomp-notnull-posidx-6level")], "6level.svg",
         ["positional L5 leaves", "data blocks: 1182"], ["#4e79a7"], min_rects=100,
         max_bytes=400_000)

    # A BloomFile: bloom blocks by offset under its value index (drawn above them).
    case("bloomfile", chromium, work,
         [cfile, "info", gf("bloom-20000keys-512b-multiblock")], "bloom.svg",
         ["index L0 root+leaf", "bloom block", "bloom blocks: 47", "file by offset",
          "BloomFile v2"],
         ["#ff9da7", "#3f1d5c", "#9d9d9d"], min_rects=40, tip_word="points at 47 bloom blocks")
    # A BloomFile whose index has two levels (many small bloom blocks).
    keys = os.path.join(work, "bloom-keys.txt")
    with open(keys, "w") as f:
        for i in range(60000):
            f.write("key%08d\n" % i)
    big = os.path.join(work, "big.bloom")
    if os.path.exists(big):
        os.remove(big)
    try:
        run([cfile, "bloom", "write", "--bytes", "64", keys, big])
        case("bloomfile-2level", chromium, work, [cfile, "info", big], "bloom2.svg",
             ["index L0 root", "index L1 leaves", "bloom block"],
             ["#ff9da7", "#3f1d5c", "#5b2c83"], min_rects=40, tip_word="bloom blocks")
    except RuntimeError as e:
        fail("bloomfile-2level", str(e))

    parquet = os.path.join(shared, "parquet")

    def pf(name):
        return os.path.join(parquet, name, name + ".parquet")

    # 20 row groups x 18 columns, dictionary pages and a page index.
    case("parquet-page-index", chromium, work,
         [cfile, "parquet", "meta", pf("im_customer_multiblock_page_index")], "parquet.svg",
         ["row groups", "column chunks", "RG 19", "dictionary page", "column index",
          "offset index", "c_customer_sk", "footer and magic"],
         ["#edc948", "#7a45a6", "#b78ad8", "#4e79a7"], min_rects=300)
    # A bloom filter, through `cfile info`.
    case("parquet-bloom", chromium, work,
         [cfile, "info", pf("pt_data_index_bloom_encoding_with_length")], "parquet-bloom.svg",
         ["bloom filter", "column index"], ["#ff9da7"], min_rects=10)

    # A table of three rowsets, two with overlapping key ranges, delta files of both kinds.
    table = os.path.join(work, "table")
    shutil.rmtree(table, ignore_errors=True)
    try:
        run([cfile, "table", "create", table, "--schema", "id INT64 KEY, name STRING NULL, v DOUBLE"])
        for start, stop in ((0, 6000), (1, 3000)):
            csv = os.path.join(work, f"rows{start}.csv")
            with open(csv, "w") as f:
                f.write("id,name,v\n")
                for i in range(start, stop, 2):
                    f.write(f"{i},n&<{i}>,{i * 0.5}\n")
            run([cfile, "table", "import", table, csv])
        for i in range(1, 9):
            run([cfile, "table", "insert", table, "--row", f"id={6000 + 700 * i},name=x,v=1"])
        run([cfile, "table", "flush", table])
        for k in (4, 16, 5998):
            run([cfile, "table", "update", table, "--key", str(k), "--set", "name=upd"])
        run([cfile, "table", "delete", table, "--key", "8"])
        run([cfile, "table", "flush", table])
        case("table", chromium, work, [cfile, "table", "info", table], "table.svg",
             ["rowsets by key range", "rs-1", "rs-2", "rs-3", "3000 rows", "1500 rows",
              "0 .. 5998", "1 .. 2999", "6700 .. 11600", "REDO delta files", "UNDO delta files",
              "key (id)"],
             ["#4e79a7", "#ff9da7", "#dfe6f3"], min_rects=10, tip_word="REDO deltas")
        # rs-1 and rs-2 overlap: two lanes; keys and values from the file are escaped.
        root = ET.parse(os.path.join(work, "table.svg")).getroot()
        lanes = [r for r in root.iter(SVG + "rect") if r.get("class") == "lane"]
        if len(lanes) != 2:
            fail("table", f"{len(lanes)} lanes, want 2 (rs-1 and rs-2 overlap)")
    except RuntimeError as e:
        fail("table", str(e))

    if chromium is None:
        print("SKIP: chromium is not installed (Debian package `chromium`; ./test installs it),"
              " so the pictures were checked as XML only, not rendered")
        return 1 if FAILURES else 77
    if FAILURES:
        print(f"{len(FAILURES)} failure(s):\n  " + "\n  ".join(FAILURES))
        return 1
    print("all pictures rendered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
