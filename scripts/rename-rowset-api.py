#!/usr/bin/env python3
"""Rename the tables module's public names to one prefix scheme (issue 19 item 4).

Run from the repository root over the whole tree, or name files:
    scripts/rename-rowset-api.py            # every tracked text file
    scripts/rename-rowset-api.py FILE...    # only these (e.g. a branch's own)
It is idempotent, so a branch made before the rename can run it after (or
before) `git rebase main` and keep only its own changes.

The scheme (include/cfile/rowset.h says the same):
  cf_rowset_*            one DiskRowSet, its writer and its scanner
  cf_table_*             a table, its loader and its scanner
  cf_schema_*, cf_column, cf_colvec, cf_column_change, cf_pred, cf_row_batch,
  cf_scan_*              what rowsets, tables and Parquet writes share: a
                         schema and its columns, the values of an append, the
                         change of an update, predicates, scan options and
                         stats, and the batch of rows a scan or lookup returns
  cf_rs_*, CF_RS_*       stay only inside src/rowset (private helpers:
                         manifest, lock, arena, team, ...)
It also folds the `_open_opts` doubles into `_open(..., opts, err)`: a call
cf_rowset_open(a, b, err) becomes cf_rowset_open(a, b, NULL, err) and
cf_rowset_open_opts( becomes cf_rowset_open( (the same for cf_table_).
"""
import re
import subprocess
import sys

# Whole-word renames; prefix families end with '*' (cf_rs_scanner* also takes
# cf_rs_scanner_create, cf_rs_scanner_set_range, ...).
RENAMES = [
    ("cf_rs_schema*", "cf_schema"),
    ("cf_rs_column", "cf_column"),
    ("cf_rs_colvec", "cf_colvec"),
    ("cf_rs_change", "cf_column_change"),
    ("cf_rs_pred", "cf_pred"),
    ("cf_rs_op", "cf_pred_op"),
    ("cf_rs_batch", "cf_row_batch"),
    ("cf_rs_scan_options*", "cf_scan_options"),
    ("cf_rs_scan_stats", "cf_scan_stats"),
    ("cf_rs_key_encode", "cf_schema_key_encode"),
    ("cf_schema_ncols", "cf_schema_column_count"),  # counts are <things>_count
    ("cf_schema_nkeys", "cf_schema_key_count"),
    ("cf_rs_scanner*", "cf_rowset_scanner"),
    ("cf_rs_writer*", "cf_rowset_writer"),
    ("cf_rs_create_empty", "cf_rowset_create_empty"),
    ("CF_RS_MAX_COLUMNS", "CF_SCHEMA_MAX_COLUMNS"),
    ("CF_RS_EQ", "CF_PRED_EQ"),
    ("CF_RS_NE", "CF_PRED_NE"),
    ("CF_RS_LT", "CF_PRED_LT"),
    ("CF_RS_LE", "CF_PRED_LE"),
    ("CF_RS_GT", "CF_PRED_GT"),
    ("CF_RS_GE", "CF_PRED_GE"),
    ("CF_RS_IS_NULL", "CF_PRED_IS_NULL"),
    ("CF_RS_IS_NOT_NULL", "CF_PRED_IS_NOT_NULL"),
    ("CF_RS_SNAPSHOT_LATEST", "CF_SNAPSHOT_LATEST"),
    ("CF_RS_TS_MAX", "CF_TS_MAX"),
    ("CF_RS_SCAN_OPTIONS_VERSION", "CF_SCAN_OPTIONS_VERSION"),
    ("CF_RS_THREADS_AUTO", "CF_SCAN_THREADS_AUTO"),
    ("CF_RS_MAX_THREADS", "CF_SCAN_MAX_THREADS"),
    ("CF_RS_WRITER_OPTIONS_VERSION", "CF_ROWSET_WRITER_OPTIONS_VERSION"),
    ("CF_RS_OPEN_OPTIONS_VERSION", "CF_ROWSET_OPTIONS_VERSION"),
    ("CF_RS_DEFAULT_CACHE_BYTES", "CF_ROWSET_DEFAULT_CACHE_BYTES"),
]


def compile_renames():
    out = []
    for old, new in RENAMES:
        if old.endswith("*"):
            old = old[:-1]
            out.append((re.compile(r"\b" + old + r"(?=\w*\b)"), new))
        else:
            out.append((re.compile(r"\b" + old + r"\b"), new))
    return out


OPEN3 = re.compile(r"\bcf_(rowset|table)_open\(")


def split_args(text, start):
    """text[start] is just past '('. Returns (end index of ')', [arg spans])."""
    depth, i, spans, a = 0, start, [], start
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                spans.append((a, i))
                return i, spans
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((a, i))
            a = i + 1
        elif c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        i += 1
    return None, spans


def fold_open(text):
    # calls of the old 3-argument form get NULL options
    out, pos = [], 0
    for m in OPEN3.finditer(text):
        end, spans = split_args(text, m.end())
        if end is None or len(spans) != 3:
            continue
        # a prototype or definition (`const char *dir`) is not a call
        if "cf_error *" in text[spans[2][0] : spans[2][1]]:
            continue
        ins = spans[2][0]
        out.append(text[pos:ins])
        out.append(" NULL,")
        pos = ins
    out.append(text[pos:])
    text = "".join(out)
    return re.sub(r"\bcf_(rowset|table)_open_opts\b", r"cf_\1_open", text)


def main():
    files = sys.argv[1:]
    if not files:
        files = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split()
        files = [f for f in files if f != "scripts/rename-rowset-api.py"]
    renames = compile_renames()
    for f in files:
        try:
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        new = text
        for rx, rep in renames:
            new = rx.sub(rep, new)
        if f.endswith(".py"):
            new = re.sub(r"\bcf_(rowset|table)_open_opts\b", r"cf_\1_open", new)
        else:
            new = fold_open(new)
        if new != text:
            with open(f, "w", encoding="utf-8") as fh:
                fh.write(new)
            print(f)


if __name__ == "__main__":
    main()
