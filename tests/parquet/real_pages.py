#!/usr/bin/env python3
"""Index every page of the valid files in ../shared/parquet for test_pq_pages.

Writes tests/parquet/real_pages.txt: one line per page with where its body is
and what the footer and the page header say about it, so that the C test can
decompress and decode every real page with src/parquet alone (the Thrift
reader is a separate module). Run from the repository root after the corpus
changes:  python3 tests/parquet/real_pages.py ../shared/parquet > tests/parquet/real_pages.txt

A minimal reader of the Thrift compact protocol (parquet.thrift field ids),
written for this index only.
"""
import json
import os
import sys


class R:
    def __init__(self, b, p=0):
        self.b, self.p = b, p

    def byte(self):
        v = self.b[self.p]
        self.p += 1
        return v

    def varint(self):
        s = v = 0
        while True:
            c = self.byte()
            v |= (c & 0x7F) << s
            s += 7
            if not c & 0x80:
                return v

    def zz(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (1, 2):
            return t == 1
        if t == 3:
            return self.byte()
        if t in (4, 5, 6):
            return self.zz()
        if t == 7:
            self.p += 8
            return None
        if t == 8:
            n = self.varint()
            s = self.b[self.p:self.p + n]
            self.p += n
            return s
        if t in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 15
            if n == 15:
                n = self.varint()
            return [self.byte() == 1 if et in (1, 2) else self.value(et) for _ in range(n)]
        if t == 11:
            n = self.varint()
            if n == 0:
                return {}
            kv = self.byte()
            return [(self.value(kv >> 4), self.value(kv & 15)) for _ in range(n)]
        if t == 12:
            return self.struct()
        raise ValueError("thrift type %d" % t)

    def struct(self):
        d, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return d
            delta, t = h >> 4, h & 15
            fid = last + delta if delta else self.zz()
            d[fid] = self.value(t)
            last = fid


def levels(schema, path):
    """max definition and repetition level of the leaf at path."""
    d = r = 0
    i, kids = 1, schema[0].get(5, 0)
    for name in path:
        # find the child called name among the next `kids` subtrees
        j, found = i, None
        for _ in range(kids):
            if schema[j][4].decode() == name:
                found = j
                break
            j = skip(schema, j)
        el = schema[found]
        rep = el.get(3, 0)
        if rep == 1:
            d += 1
        elif rep == 2:
            d += 1
            r += 1
        i, kids = found + 1, el.get(5, 0)
    return d, r, el


def skip(schema, j):
    n = schema[j].get(5, 0)
    j += 1
    for _ in range(n):
        j = skip(schema, j)
    return j


def main(root):
    man = json.load(open(os.path.join(root, "MANIFEST.json")))
    for c in man["cases"]:
        if c["expect"] != "ok":
            continue
        case = c["case"]
        rel = "%s/%s.parquet" % (case, case)
        b = open(os.path.join(root, rel), "rb").read()
        try:
            pages(rel, b)
        except (ValueError, IndexError, KeyError, TypeError) as e:
            print("skipped %s: %r" % (rel, e), file=sys.stderr)


# Enough pages to meet every writer's layouts, few enough to keep the index small.
PAGES_PER_CHUNK = 3
PAGES_PER_FILE = 40


def pages(rel, b):
    total = 0
    if True:
        flen = int.from_bytes(b[-8:-4], "little")
        meta = R(b, len(b) - 8 - flen).struct()
        schema = meta[2]
        for rg in meta.get(4, []):
            for cc in rg[1]:
                md = cc.get(3)
                if md is None:
                    continue
                path = [p.decode() for p in md[3]]
                mdef, mrep, leaf = levels(schema, path)
                ptype, tl = md[1], leaf.get(2, 0)
                codec = md[4]
                start = md[9]
                if md.get(11) and 0 < md[11] < start:
                    start = md[11]
                end = start + md[7]
                pos, dict_n, k = start, 0, 0
                while pos < end and k < PAGES_PER_CHUNK and total < PAGES_PER_FILE:
                    k += 1
                    total += 1
                    r = R(b, pos)
                    h = r.struct()
                    body = r.p
                    kind, usize, csize = h[1], h[2], h[3]
                    nv = enc = denc = renc = dlen = rlen = 0
                    comp = 1
                    if kind == 2:
                        nv, enc = h[7][1], h[7][2]
                        dict_n = nv
                    elif kind == 0:
                        dp = h[5]
                        nv, enc, denc, renc = dp[1], dp[2], dp[3], dp[4]
                    elif kind == 3:
                        dp = h[8]
                        nv, enc, dlen, rlen = dp[1], dp[4], dp[5], dp[6]
                        comp = 0 if dp.get(7) is False else 1
                    print(rel, body, csize, usize, codec, kind, nv, enc, denc, renc, mdef, mrep,
                          ptype, tl, dlen, rlen, comp, dict_n)
                    pos = body + csize


main(sys.argv[1])
