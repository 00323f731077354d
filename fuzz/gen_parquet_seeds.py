#!/usr/bin/env python3
"""Seeds for fuzz_thrift, fuzz_parquet_footer and fuzz_parquet_records from the real files of
../shared/parquet (footers, page headers, page indexes, bloom filter headers,
and whole small files). Kept small: a few KiB per seed.

    python3 fuzz/gen_parquet_seeds.py ../shared/parquet fuzz/corpus
"""
import json
import os
import struct
import subprocess
import sys

src, out = sys.argv[1], sys.argv[2]
CLI = os.environ.get("CFILE", "build/cfile")


def path(case):
    return os.path.join(src, case, case + ".parquet")


def footer(case):
    b = open(path(case), "rb").read()
    n = struct.unpack("<I", b[-8:-4])[0]
    return b, b[-8 - n:-8]


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


small = []
for case in sorted(os.listdir(src)):
    p = path(case)
    if not os.path.isfile(p):
        continue
    if json.load(open(os.path.join(src, case, "expected.json")))["expect"] != "ok":
        continue
    b, f = footer(case)
    if len(f) <= 1500:
        small.append((case, b, f))

# Footers of varied writers (FileMetaData), and one generic struct skip.
for case, b, f in small[::max(1, len(small) // 6)][:6]:
    put("fuzz_thrift", "meta_" + case, b"\x00" + f)
case, b, f = small[0]
put("fuzz_thrift", "skip_" + case, b"\x05" + f)
# First page headers (they start right after "PAR1").
for case, b, f in small[:4]:
    put("fuzz_thrift", "page_" + case, b"\x01" + b[4:68])

# By hand: fields whose wire type differs from parquet.thrift's, which are skipped as
# unknown (a parquet-mr 1.12 footer had one): a page header with crc (i32) as a binary
# and statistics (struct) as a binary, then with a bool for a required i32; a footer
# whose converted_type (i32) is a list and created_by (binary) an i32, then with its
# num_rows (i64) a list.
page = b"\x15\x00\x15\xc8\x01\x15\xa0\x01\x18\x04crc!\x1c\x15\x14\x15\x00\x15\x06"
put("fuzz_thrift", "page_mistyped", b"\x01" + page + b"\x15\x06\x18\x05stats\x00\x00")
put("fuzz_thrift", "page_mistyped_required",
    b"\x01" + page + b"\x11\x18\x05stats\x00\x00")  # repetition_level_encoding a bool
schema = (b"\x15\x04\x19\x2c\x48\x06schema\x15\x02\x00"
          b"\x15\x02\x25\x02\x18\x01a\x29\x25\x02\x04\x00")  # converted_type a list
put("fuzz_thrift", "meta_mistyped", b"\x00" + schema + b"\x16\x0a\x19\x0c\x25\x18\x00")
put("fuzz_thrift", "meta_mistyped_required",
    b"\x00" + schema + b"\x19\x25\x02\x04\x19\x0c\x25\x18\x00")

# Page index and bloom filter headers, located through `cfile parquet meta --json`.
def chunks(case):
    m = json.loads(subprocess.check_output([CLI, "parquet", "meta", "--json", path(case)]))
    return [c for rg in m["row_groups"] for c in rg["columns"]]

for case in ("im_customer_multiblock_page_index", "dk_multi_bloom_a"):
    if not os.path.isfile(path(case)):
        continue
    b = open(path(case), "rb").read()
    for c in chunks(case)[:1]:
        if c["column_index_offset"] is not None:
            o, n = c["column_index_offset"], c["column_index_length"]
            put("fuzz_thrift", "colidx_" + case, b"\x02" + b[o:o + min(n, 2000)])
        if c["offset_index_offset"] is not None:
            o, n = c["offset_index_offset"], c["offset_index_length"]
            put("fuzz_thrift", "offidx_" + case, b"\x03" + b[o:o + min(n, 2000)])
        if c["bloom_filter_offset"] is not None:
            o = c["bloom_filter_offset"]
            put("fuzz_thrift", "bloom_" + case, b"\x04" + b[o:o + 32])

# Whole small files for the footer target (both io paths, CRCs checked or not):
# the smallest ones, plus one per codec, page kind and encoding family.
whole = [c for c, b, f in sorted(small, key=lambda t: len(t[1]))[:6]]
whole += ["dk_data_page_1_zstd", "dk_data_page_1_brotli", "dk_data_page_1_lz4",
          "dk_data_page_2_gzip", "dk_dbp_small_decimal", "pt_datapage_v2_snappy",
          "im_parquet_byte_stream_split_encoding-doubles_byte_stream_split",
          "pt_plain-dict-uncompressed-checksum", "pt_nested_lists_snappy",
          "pt_int96_from_spark", "pt_old_list_structure"]
for i, case in enumerate(whole):
    if os.path.isfile(path(case)):
        b = open(path(case), "rb").read()
        if len(b) <= 4096:
            put("fuzz_parquet_footer", case, bytes([i & 3]) + b)
            # Same files for the whole reader, with varied batch/projection/range bits.
            put("fuzz_parquet_records", case, bytes([(i * 7) & 31]) + b)
