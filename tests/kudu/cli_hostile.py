#!/usr/bin/env python3
"""`cfile kudu ...` never writes to a Kudu server's directories, and survives hostile ones
(issue 28 items 5 and 6). Run by ctest as kudu/cli_readonly and kudu/cli_hostile.

usage: cli_hostile.py CFILE KUDU_FS_DIR WORK_DIR {readonly|hostile|all} [--strict] [-k LAYOUT]

KUDU_FS_DIR is ../shared/kudu-fs (layouts written by Kudu itself; README.md there is the
JSON contract). Each layout is copied under WORK_DIR; nothing is ever written to KUDU_FS_DIR.

readonly: every `cfile kudu` command (pbc dump of every protobuf container file, fs
  list/check/dump, tablet list/meta/schema/rowsets/data-size/scan with --no-wal and --as-of,
  wal dump) runs over the copy; the tree (every file's bytes, size, mode and mtime, every
  directory, nothing created) is the same after. A second pass runs every command again
  with the tree made read-only (chmod a-w; as root, the commands run as user nobody, since
  root ignores the mode bits; the copy and a copy of the binary then live under /tmp, so
  no directory of the caller's is opened up for nobody) and must give the same exit codes
  and output.
hostile: each kind of file (instance, block_manager_instance, container .metadata and
  .data, tablet-meta, consensus-meta, WAL segments) is cut at several offsets and has bytes
  flipped at several offsets (seeded, so every run damages the same bytes), plus a
  superblock naming a block that does not exist, container metadata pointing past its data
  file, symlink loops in a data dir, a data dir or instance of another server, a missing
  data dir and an encrypted server (server_key set). Every command must end by itself
  (timeout), without a signal or a sanitizer report; damage is exit 1 with a message naming
  the file; what Kudu tolerates (a torn last container record, a torn WAL tail) is exit 0;
  output that exits 0 is never silently different from the undamaged output; an encrypted
  server is exit 3.

A command this build does not have yet (`cfile kudu X --help` says unknown subcommand) is
skipped and listed; --strict (or CF_KUDU_STRICT=1) makes a skip a failure.
Prints one line per failure and a summary; exit 1 on any failure.
"""
import hashlib
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from tree_snapshot import snapshot, snapshot_diff  # this script's folder is on sys.path

TIMEOUT = int(os.environ.get("CF_KUDU_TIMEOUT", "60"))
SANITIZER = re.compile(rb"(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                       rb"runtime error:|MemorySanitizer|ThreadSanitizer)")

# ---- CRC-32C and protobuf containers (written here from the format description in
# Kudu's src/kudu/util/pb_util.h, so the test crafts files without cfile's own writer) ----

_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def pbc_parse(data):
    """(version, [(record offset, record end, message bytes)]) of a well-formed container."""
    assert data[:8] == b"kuducntr", "not a protobuf container"
    version = struct.unpack_from("<I", data, 8)[0]
    pos = 16 if version == 2 else 12
    recs = []
    while pos < len(data):
        if version == 2 and data[pos:pos + 8] == b"\0" * 8:
            break  # KUDU-2260: a zero tail
        n = struct.unpack_from("<I", data, pos)[0]
        body = pos + (8 if version == 2 else 4)
        end = body + n + 4
        if end > len(data):
            break
        recs.append((pos, end, data[body:body + n]))
        pos = end
    return version, recs


def pbc_build(version, messages):
    out = bytearray(b"kuducntr" + struct.pack("<I", version))
    if version == 2:
        out += struct.pack("<I", crc32c(bytes(out)))
    for m in messages:
        ln = struct.pack("<I", len(m))
        if version == 2:
            out += ln + struct.pack("<I", crc32c(ln)) + m + struct.pack("<I", crc32c(m))
        else:
            out += ln + m + struct.pack("<I", crc32c(ln + m))
    return bytes(out)


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_fields(msg):
    """[(field number, wire type, value bytes or int)] of one message level."""
    out, pos = [], 0

    def rd():
        nonlocal pos
        v = shift = 0
        while True:
            b = msg[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v
    while pos < len(msg):
        tag = rd()
        f, wt = tag >> 3, tag & 7
        if wt == 0:
            out.append((f, 0, rd()))
        elif wt == 1:
            out.append((f, 1, msg[pos:pos + 8]))
            pos += 8
        elif wt == 5:
            out.append((f, 5, msg[pos:pos + 4]))
            pos += 4
        elif wt == 2:
            n = rd()
            out.append((f, 2, msg[pos:pos + n]))
            pos += n
        else:
            raise ValueError("wire type %d" % wt)
    return out


def pb_build(fields):
    out = bytearray()
    for f, wt, v in fields:
        out += varint(f << 3 | wt)
        if wt == 0:
            out += varint(v)
        elif wt == 2:
            out += varint(len(v)) + v
        else:
            out += v
    return bytes(out)


# ---- running the CLI -----------------------------------------------------------------------

class Result:
    def __init__(self, rc, out, err, timed_out=False):
        self.rc, self.out, self.err, self.timed_out = rc, out, err, timed_out

    def text(self):
        return (self.out + b"\n" + self.err).decode(errors="replace")

    def json(self):
        try:
            return json.loads(self.out.decode())
        except Exception:  # noqa: BLE001
            return None

    def jsonl(self):
        try:
            return [json.loads(x) for x in self.out.decode().splitlines() if x.strip()]
        except Exception:  # noqa: BLE001
            return None


class Checker:
    def __init__(self, cli, strict):
        self.cli, self.strict = cli, strict
        self.failures, self.passed, self.runs = [], 0, 0
        self.skipped = set()
        self.available = {}
        self.as_user = None  # (uid, gid) for the read-only pass as root
        self.notes = []

    def has(self, group, cmd):
        key = (group, cmd)
        if key not in self.available:
            r = self.raw(["kudu", group, cmd, "--help"])
            ok = r.rc == 0 and b"unknown subcommand" not in r.err
            self.available[key] = ok
            if not ok:
                self.skipped.add("kudu %s %s" % key)
        return self.available[key]

    def has_convert(self):
        if "convert" not in self.available:
            r = self.raw(["convert", "--help"])
            self.available["convert"] = r.rc == 0 and b"--kudu-tablet" in r.out + r.err
            if not self.available["convert"]:
                self.skipped.add("convert --kudu-tablet")
        return self.available["convert"]

    def raw(self, args, as_user=None, cwd=None):
        kw = {}
        cmd = [self.cli] + args
        if as_user:
            cmd = ["setpriv", "--reuid=%d" % as_user[0], "--regid=%d" % as_user[1],
                   "--clear-groups", "--"] + cmd
        self.runs += 1
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, cwd=cwd, **kw)
        except subprocess.TimeoutExpired as e:
            return Result(None, e.stdout or b"", e.stderr or b"", timed_out=True)
        return Result(p.returncode, p.stdout, p.stderr)

    def run(self, what, args, as_user=None, cwd=None):
        """Runs a command; records a failure for a hang, a signal or a sanitizer report.
        Returns None when the command is not in this build."""
        if args[0] == "kudu" and not self.has(args[1], args[2]):
            return None
        if args[0] == "convert" and "--kudu-tablet" in args and not self.has_convert():
            return None
        r = self.raw(args, as_user=as_user, cwd=cwd)
        if r.timed_out:
            self.fail(what, "no answer within %ds (hang?): cfile %s" % (TIMEOUT, " ".join(args)))
        elif r.rc < 0:
            self.fail(what, "killed by signal %d: cfile %s" % (-r.rc, " ".join(args)))
        elif SANITIZER.search(r.err):
            self.fail(what, "sanitizer report: cfile %s: %s" % (" ".join(args),
                      r.err.decode(errors="replace")[:300]))
        return r

    def fail(self, what, why):
        self.failures.append("FAIL %s: %s" % (what, why))
        print(self.failures[-1], flush=True)

    def ok(self, cond, what, why):
        if cond:
            self.passed += 1
        else:
            self.fail(what, why)
        return cond


# ---- a layout ------------------------------------------------------------------------------

class Layout:
    def __init__(self, src, work):
        self.name = os.path.basename(src)
        self.src = src
        ex = os.path.join(src, "expected")
        self.fsj = json.load(open(os.path.join(ex, "fs.json")))
        self.containers = None
        p = os.path.join(ex, "containers.json")
        if os.path.exists(p):
            self.containers = json.load(open(p))
        self.as_of = None
        p = os.path.join(ex, "tablet_as_of.json")
        if os.path.exists(p):
            self.as_of = json.load(open(p)).get("as_of")
        self.wal = json.load(open(os.path.join(ex, "wal.json")))
        self.root = os.path.join(work, self.name)  # the copy
        self.tablet = self.fsj["tablet_id"]

    def copy(self):
        if os.path.exists(self.root):
            make_writable(self.root)
            shutil.rmtree(self.root)
        shutil.copytree(os.path.join(self.src, "fs"), os.path.join(self.root, "fs"),
                        symlinks=True)
        make_writable(self.root)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def fs_args(self, data_roots=None):
        data = data_roots if data_roots is not None else self.fsj["data_roots"]
        return ["--fs-wal-dir", self.path(self.fsj["wal_root"]),
                "--fs-data-dirs", ",".join(self.path(d) for d in data)]

    def live_ids(self):
        return sorted(b["block_id"] for b in self.fsj["live_blocks"])

    def files(self):
        """Every file of the copy, relative to the layout root, sorted."""
        out = []
        for dp, dns, fns in os.walk(self.path("fs")):
            dns.sort()
            for n in sorted(fns):
                out.append(os.path.relpath(os.path.join(dp, n), self.root))
        return out

    def pbc_files(self):
        return [f for f in self.files()
                if os.path.basename(f) in ("instance", "block_manager_instance")
                or f.endswith(".metadata") or "/tablet-meta/" in f or "/consensus-meta/" in f]

    def wal_files(self):
        return [f for f in self.files() if "/wals/" in f]


def make_writable(root):
    for dp, dns, fns in os.walk(root):
        os.chmod(dp, 0o755)
        for n in fns:
            p = os.path.join(dp, n)
            if not os.path.islink(p):
                os.chmod(p, 0o644)


def make_readonly(root):
    for dp, dns, fns in os.walk(root, topdown=False):
        for n in fns:
            p = os.path.join(dp, n)
            if not os.path.islink(p):
                os.chmod(p, 0o444)
        os.chmod(dp, 0o555)


# ---- item 5: read-only -----------------------------------------------------------------------

def all_commands(L, out_dir):
    """(name, args) of every command over a layout; outputs go to out_dir."""
    FS, T = L.fs_args(), L.tablet
    cmds = []
    for f in L.pbc_files():
        cmds.append(("pbc dump " + f, ["kudu", "pbc", "dump", "--json", L.path(f)]))
    cmds += [("fs list", ["kudu", "fs", "list", "--json"] + FS),
             ("fs check", ["kudu", "fs", "check", "--json"] + FS),
             ("fs dump uuid", ["kudu", "fs", "dump", "uuid"] + FS),
             ("fs dump tree", ["kudu", "fs", "dump", "tree"] + FS)]
    for bid in L.live_ids():
        cmds.append(("fs dump cfile %d" % bid,
                     ["kudu", "fs", "dump", "cfile", "--json"] + FS + [str(bid)]))
    for bid in L.live_ids()[:3]:
        cmds.append(("fs dump block %d" % bid, ["kudu", "fs", "dump", "block"] + FS + [str(bid)]))
        cmds.append(("fs dump tree %d" % bid, ["kudu", "fs", "dump", "tree"] + FS + [str(bid)]))
    cmds += [("tablet list", ["kudu", "tablet", "list", "--json"] + FS)]
    for sub in ("meta", "schema", "rowsets", "data-size"):
        cmds.append(("tablet " + sub, ["kudu", "tablet", sub, "--json"] + FS + [T]))
    cmds += [("tablet scan", ["kudu", "tablet", "scan", "--json"] + FS + [T]),
             ("tablet scan --no-wal", ["kudu", "tablet", "scan", "--json", "--no-wal"] + FS + [T])]
    if L.as_of is not None:
        cmds.append(("tablet scan --as-of", ["kudu", "tablet", "scan", "--json", "--as-of",
                                             str(L.as_of)] + FS + [T]))
    cmds.append(("wal dump", ["kudu", "wal", "dump", "--json"] + FS + [T]))
    # an export writes only where it is told (OUT, outside the server's directories)
    cmds.append(("convert --kudu-tablet", ["convert", "--kudu-tablet", T] + FS +
                 [os.path.join(out_dir, L.name + ".parquet")]))
    # the whole table (by its id), through the replica search (superblocks, consensus
    # metadata and WALs of every tablet read to judge them)
    cmds.append(("convert --kudu-table", ["convert", "--kudu-table", L.fsj["table_id"]] + FS +
                 [os.path.join(out_dir, L.name + ".table.parquet")]))
    return cmds


def readonly(ck, L, work):
    """Item 5 over one layout. As root, the second pass runs as user nobody, who must
    reach the copy and the binary: both then live in a fresh directory under /tmp
    (copies, so no directory of the caller's is opened up), for both passes, so
    their answers name the same paths."""
    root = os.geteuid() == 0 and shutil.which("setpriv") is not None
    if os.geteuid() == 0 and not root:
        ck.notes.append("root without setpriv: the read-only pass could not drop privileges")
    saved = (ck.cli, L.root)
    if root:
        work = tempfile.mkdtemp(prefix="cf-kudu-ro-", dir="/tmp")
        os.chmod(work, 0o755)
        ck.cli = os.path.join(work, "cfile")
        shutil.copy2(saved[0], ck.cli)
        os.chmod(ck.cli, 0o755)
        L.root = os.path.join(work, L.name)
    try:
        readonly_passes(ck, L, work, root)
    finally:
        if root:
            make_writable(work)
            shutil.rmtree(work)
        ck.cli, L.root = saved


def readonly_passes(ck, L, work, as_nobody):
    L.copy()
    fsdir = L.path("fs")
    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir, exist_ok=True)
    os.chmod(out_dir, 0o1777)  # the read-only pass writes its export here as nobody
    before = snapshot(fsdir, with_root=True)
    first = {}
    cmds = all_commands(L, out_dir)
    for name, args in cmds:
        r = ck.run("%s readonly %s" % (L.name, name), args, cwd=work)
        if r is None:
            continue
        first[name] = r
        ck.ok(r.rc == 0, "%s readonly %s" % (L.name, name),
              "exit %s on an undamaged layout: %s" % (r.rc, r.err.decode(errors="replace")[-300:]))
    diff = snapshot_diff(before, snapshot(fsdir, with_root=True))
    ck.ok(not diff, "%s readonly" % L.name, "the commands changed the tree: %s" % diff[:10])
    out_file = os.path.join(out_dir, L.name + ".parquet")
    exported = None
    if "convert --kudu-tablet" in first and first["convert --kudu-tablet"].rc == 0:
        if ck.ok(os.path.isfile(out_file) and os.path.getsize(out_file) > 0,
                 "%s readonly convert --kudu-tablet" % L.name, "no output where it was told"):
            exported = file_hash(out_file)
    clear_dir(out_dir)

    # Again with the tree read-only (as root: as user nobody, root ignores mode bits).
    if os.geteuid() == 0 and not as_nobody:
        return
    as_user = (65534, 65534) if as_nobody else None
    make_readonly(fsdir)
    before = snapshot(fsdir, with_root=True)
    for name, args in cmds:
        if name not in first:
            continue
        r = ck.run("%s read-only-tree %s" % (L.name, name), args, as_user=as_user, cwd="/")
        if r is None:
            continue
        a = first[name]
        if name.startswith("convert"):  # its report has a time in it: compare the export
            same = r.rc == a.rc and (r.rc != 0 or (os.path.isfile(out_file) and
                                                    file_hash(out_file) == exported))
        else:
            same = r.rc == a.rc and r.out == a.out
        ck.ok(same, "%s read-only-tree %s" % (L.name, name),
              "differs from the writable pass: exit %s vs %s: %s" % (
                  r.rc, a.rc, r.err.decode(errors="replace")[-300:]))
    diff = snapshot_diff(before, snapshot(fsdir, with_root=True))
    ck.ok(not diff, "%s read-only-tree" % L.name, "the tree changed: %s" % diff[:10])
    make_writable(L.root)
    clear_dir(out_dir)


def file_hash(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def clear_dir(d):
    for n in os.listdir(d):
        os.remove(os.path.join(d, n))


# ---- item 6: hostile --------------------------------------------------------------------------

def names_file(r, rel, L):
    """Does the message name the file (its path, its path under fs/ or its file name;
    for the ambiguous `instance` names, with their directory)?"""
    t = r.text()
    full = L.path(rel)
    base = os.path.basename(rel)
    if base in ("instance", "block_manager_instance"):
        short = os.path.join(os.path.basename(os.path.dirname(rel)), base)
        return full in t or short in t
    alts = [full, base]
    if base.endswith((".data", ".metadata")):
        alts.append(base.rsplit(".", 1)[0])  # the container id
    if base.isdigit():
        alts.append(str(int(base)))  # a file block manager block: its id
    return any(a in t for a in alts)


def names_dir(r, rel, L):
    """Does the message name the file, or one of the server's roots (an inconsistency
    between roots may be told from either side)?"""
    t = r.text()
    roots = [L.fsj["wal_root"]] + list(L.fsj["data_roots"])
    return names_file(r, rel, L) or any(L.path(d) in t for d in roots)


def names_block_of(r, ids):
    """Does the message name one of these blocks ("block 12", "block 0000000000000012")?"""
    t = r.text()
    return any(re.search(r"\bblock (%d|%016d)\b" % (i, i), t) for i in ids)


def has_offset(r, rel):
    """A number in the message besides the file's own name (the offset)."""
    t = r.err.decode(errors="replace").replace(rel, "").replace(os.path.basename(rel), "")
    t = re.sub(r"[0-9a-f]{32}", "", t)  # uuids and ids of the file names
    return re.search(r"\d", t) is not None


class Baseline:
    """The undamaged answers of a layout, to compare damaged runs with."""

    def __init__(self, ck, L):
        FS, T = L.fs_args(), L.tablet
        self.fs_list = ck.run(L.name + " baseline fs list", ["kudu", "fs", "list", "--json"] + FS)
        self.fs_check = ck.run(L.name + " baseline fs check", ["kudu", "fs", "check", "--json"] + FS)
        self.scan = ck.run(L.name + " baseline scan", ["kudu", "tablet", "scan", "--json"] + FS + [T])
        self.wal = ck.run(L.name + " baseline wal", ["kudu", "wal", "dump", "--json"] + FS + [T])

    @staticmethod
    def blocks(r):
        j = r.json() if r is not None else None
        if not isinstance(j, dict) or not isinstance(j.get("blocks"), list):
            return None
        return {b.get("block_id"): b for b in j["blocks"] if isinstance(b, dict)}


def offsets(rng, size, n, lo=0):
    """n distinct seeded offsets in [lo, size)."""
    if size <= lo:
        return []
    k = min(n, size - lo)
    return sorted(rng.sample(range(lo, size), k))


def mutate_file(p, how, arg):
    with open(p, "rb") as f:
        data = f.read()
    if how == "cut":
        data = data[:arg]
    elif how == "flip":
        b = bytearray(data)
        b[arg] ^= 0x5A
        data = bytes(b)
    else:
        data = arg
    with open(p, "wb") as f:
        f.write(data)


def restore(L, rels):
    for rel in rels:
        dst = L.path(rel)
        src = os.path.join(L.src, rel)
        if os.path.lexists(dst) and (os.path.islink(dst) or not os.path.isdir(dst)):
            os.remove(dst)
        if os.path.exists(src):
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o644)


def pbc_record_bounds(data):
    try:
        return pbc_parse(data)
    except Exception:  # noqa: BLE001
        return None, []


class Case:
    """One damaged tree: what was done, the file to name, and what each command must do."""

    def __init__(self, what, rel, expect):
        self.what, self.rel, self.expect = what, rel, expect


def expect_damage(ck, L, what, r, rel, need_offset=False, also_ok=(), blocks=()):
    """Exit 1 naming the file (or, where the damage shows as missing blocks, one of
    `blocks`); `also_ok` lists other exit codes allowed (3: a container version Kudu
    does not know, which is what a flipped version field reads as)."""
    if r is None:
        return
    ok = ck.ok(r.rc == 1 or r.rc in also_ok, what, "exit %s, want 1 (damage): %s" % (
        r.rc, r.text()[-300:]))
    if ok:
        ck.ok(names_file(r, rel, L) or names_block_of(r, blocks), what,
              "the message does not name %s: %s" % (rel, r.err.decode(errors="replace")[-300:]))
        if need_offset:
            ck.ok(has_offset(r, rel), what, "the message names no offset: %s" %
                  r.err.decode(errors="replace")[-300:])


def expect_clean_or_named(ck, L, what, r, rel, same_as=None, jsonl=False, blocks=()):
    """Exit 0 with the undamaged answer, or exit 1 naming the file (or one of its
    `blocks`: a scan meets damage as a block it cannot find or read)."""
    if r is None:
        return
    if r.rc == 0:
        if same_as is not None and same_as.rc == 0:
            a = r.jsonl() if jsonl else r.json()
            b = same_as.jsonl() if jsonl else same_as.json()
            ck.ok(a == b, what, "exit 0 but the answer differs from the undamaged one "
                  "(silently different)")
        return
    if ck.ok(r.rc == 1, what, "exit %s, want 0 or 1: %s" % (r.rc, r.text()[-300:])):
        ck.ok(names_file(r, rel, L) or names_block_of(r, blocks), what,
              "exit 1 without naming %s: %s" % (rel, r.err.decode(errors="replace")[-300:]))


def others_still_checked(ck, what, r, cid, conts, base):
    """fs check over a tree with one damaged container still counts the other
    containers' live blocks and the tablet."""
    if r is None or base is None or base.fs_check is None or cid not in conts:
        return
    j, b = r.json(), base.fs_check.json()
    if not isinstance(b, dict) or not isinstance(b.get("stats"), dict):
        return
    if not ck.ok(isinstance(j, dict) and isinstance(j.get("stats"), dict), what,
                 "no JSON report (exit %s): %s" % (r.rc, r.text()[-200:])):
        return
    want = b["stats"].get("live_blocks", 0) - len(conts[cid]["live"])
    ck.ok(j["stats"].get("live_blocks", -1) >= want and
          j["stats"].get("tablets") == b["stats"].get("tablets"), what,
          "the other containers or the tablet are no longer counted: %s" % j["stats"])


def others_still_listed(ck, L, what, r, damaged_containers, base):
    """fs list/check over a tree with damaged containers still reports the others."""
    if r is None or base is None:
        return
    got = Baseline.blocks(r)
    want = Baseline.blocks(base.fs_list)
    if want is None:
        return
    if not ck.ok(got is not None, what, "no {\"blocks\": [...]} printed (exit %s): %s" % (
            r.rc, r.text()[-200:])):
        return
    missing = [bid for bid, b in want.items()
               if b.get("container") not in damaged_containers and bid not in got]
    ck.ok(not missing, what, "blocks of undamaged containers missing: %s" % missing[:10])


def hostile(ck, L, others, work, seed):
    L.copy()
    rng = random.Random("%s-%d" % (L.name, seed))
    FS, T = L.fs_args(), L.tablet
    base = Baseline(ck, L)

    def cmd(name, extra=None, fs=None):
        fsa = fs if fs is not None else FS
        table = {
            "fs list": ["kudu", "fs", "list", "--json"] + fsa,
            "fs check": ["kudu", "fs", "check", "--json"] + fsa,
            "tablet list": ["kudu", "tablet", "list", "--json"] + fsa,
            "tablet meta": ["kudu", "tablet", "meta", "--json"] + fsa + [T],
            "tablet scan": ["kudu", "tablet", "scan", "--json"] + fsa + [T],
            "tablet scan --no-wal": ["kudu", "tablet", "scan", "--json", "--no-wal"] + fsa + [T],
            "wal dump": ["kudu", "wal", "dump", "--json"] + fsa + [T],
        }
        return table[name] + (extra or [])

    def go(label, name, fs=None):
        return ck.run("%s %s: %s" % (L.name, label, name), cmd(name, fs=fs), cwd=work)

    files = L.files()
    kinds = {
        "wal instance": [f for f in files if f == os.path.join(L.fsj["wal_root"], "instance")],
        "data instance": [f for f in files if f.endswith("/instance")
                          and f != os.path.join(L.fsj["wal_root"], "instance")],
        "block_manager_instance": [f for f in files if f.endswith("/block_manager_instance")],
        "metadata": [f for f in files if f.endswith(".metadata")],
        "data": [f for f in files if f.endswith(".data")],
        "tablet-meta": [f for f in files if "/tablet-meta/" in f],
        "consensus-meta": [f for f in files if "/consensus-meta/" in f],
        "wal": L.wal_files(),
        "fbm block": [f for f in files if re.search(r"/data/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{2}/\d{16}$", f)],
    }

    cont_by_name = {}
    if L.containers:
        for c in L.containers:
            cont_by_name[c["container"]] = c

    for kind, cands in kinds.items():
        if not cands:
            continue
        picks = sorted(rng.sample(cands, min(2, len(cands)))) if kind in (
            "metadata", "data", "wal", "fbm block", "data instance") else cands[:1]
        for rel in picks:
            p = L.path(rel)
            with open(p, "rb") as f:
                data = f.read()
            size = len(data)
            version, recs = (pbc_record_bounds(data) if data[:8] == b"kuducntr" else (None, []))
            cuts = sorted(set([0, 1, 7, 12, 15] + offsets(rng, size, 3, 16)))
            cuts = [c for c in cuts if c < size]
            flips = offsets(rng, size, 4)
            if version is not None and recs:
                # one flip in each of: the file header, the first record's checksum,
                # the last record's body (every byte of a container is checked)
                flips = sorted(set(flips + [9, recs[0][1] - 2, (recs[-1][0] + recs[-1][1]) // 2]))
            if kind == "wal" and size > 1 << 16:
                # a preallocated segment: mostly zeros; damage where the entries are
                nz = max(i for i in range(0, size, 4096) if data[i:i + 4096].strip(b"\0")) + 4096
                flips = offsets(rng, min(nz, size), 4)
                cuts = sorted(set([0, 12] + offsets(rng, min(nz, size), 3, 16)))
            for how, args in (("cut", cuts), ("flip", flips)):
                for arg in args:
                    mutate_file(p, how, arg)
                    label = "%s %s@%d" % (rel, how, arg)
                    try:
                        check_case(ck, L, kind, rel, how, arg, data, version, recs, label, go,
                                   base, cont_by_name)
                    finally:
                        restore(L, [rel])

    special_cases(ck, L, others, go, base, work)


def check_case(ck, L, kind, rel, how, arg, data, version, recs, label, go, base, conts):
    # A flipped version field of a protobuf container reads as a version Kudu does not
    # know: Kudu says NotSupported (pb_util.cc ParsePBFileHeader), so exit 3 is allowed.
    v3 = (3,) if version is not None and how == "flip" and 8 <= arg < 12 else ()
    cid = os.path.basename(rel).rsplit(".", 1)[0]
    cblocks = sorted({r["block_id"] for r in conts[cid]["records"]}) if cid in conts else []
    if kind in ("wal instance", "data instance", "block_manager_instance"):
        # Every command opens the server's directories: all refuse, naming the file.
        for name in ("fs list", "fs check", "tablet list", "wal dump"):
            r = go(label, name)
            expect_damage(ck, L, "%s %s: %s" % (L.name, label, name), r, rel,
                          need_offset=(how == "flip"), also_ok=v3)
    elif kind == "metadata":
        cid = os.path.basename(rel)[:-len(".metadata")]
        # Where did the cut fall? Inside a record after the supplemental header: the torn
        # last record Kudu tolerates. At a record boundary: records silently gone (no
        # container format can tell). In the file header or supplemental header: damage.
        tolerated = boundary = False
        if how == "cut" and recs:
            ends = [e for _, e, _ in recs]
            if arg in ends:
                boundary = True
            elif arg > recs[0][1]:
                tolerated = True
        rc = go(label, "fs check")
        rl = go(label, "fs list")
        what = "%s %s: " % (L.name, label)
        others_still_checked(ck, what + "fs check", rc, cid, conts, base)
        if tolerated:
            # The torn record's own block (a CREATE) is then missing for its superblock, or
            # (a DELETE) live again as an orphan; either way the container loads.
            others_still_listed(ck, L, what + "fs list", rl, {cid}, base)
            if rc is not None:
                ck.ok(rc.rc in (0, 1), what + "fs check", "exit %s" % rc.rc)
                ck.ok(re.search(r"torn|partial|incomplete", rc.text(), re.I) is not None,
                      what + "fs check", "a torn last record not reported: %s" % rc.text()[-300:])
        elif boundary:
            others_still_listed(ck, L, what + "fs list", rl, {cid}, base)
            if rc is not None:
                ck.ok(rc.rc in (0, 1), what + "fs check", "exit %s" % rc.rc)
        else:
            expect_damage(ck, L, what + "fs check", rc, rel, also_ok=v3)
            if rl is not None:
                ck.ok(rl.rc == 1 or rl.rc in v3, what + "fs list",
                      "exit %s, want 1: %s" % (rl.rc, rl.text()[-200:]))
                ck.ok(names_file(rl, rel, L), what + "fs list", "does not name %s" % rel)
                others_still_listed(ck, L, what + "fs list", rl, {cid}, base)
        r = go(label, "tablet scan")
        if not tolerated and not boundary:
            # a block of this container may be needed by the tablet: fail naming it, or
            # the same rows (the damaged records were of deleted blocks)
            expect_clean_or_named(ck, L, what + "tablet scan", r, rel, base.scan, jsonl=True,
                                  blocks=cblocks)
        elif r is not None:
            ck.ok(r.rc in (0, 1), what + "tablet scan", "exit %s" % r.rc)
            if r.rc == 0 and base.scan is not None:
                ck.ok(r.jsonl() == base.scan.jsonl(), what + "tablet scan",
                      "exit 0 with different rows after records were lost")
    elif kind == "data":
        cid = os.path.basename(rel)[:-len(".data")]
        c = conts.get(cid)
        what = "%s %s: " % (L.name, label)
        if how == "cut" and c is not None:
            # a CREATE record reaching past the cut is damage (Kudu: malformed record)
            ends = [r["offset"] + r["length"] for r in c["records"]
                    if r["op"] == "CREATE" and r["length"] > 0]
            if ends and arg < max(ends):
                rc = go(label, "fs check")
                expect_damage(ck, L, what + "fs check", rc, rel)
                others_still_checked(ck, what + "fs check", rc, cid, conts, base)
                rl = go(label, "fs list")
                if rl is not None:
                    ck.ok(rl.rc == 1, what + "fs list", "exit %s, want 1" % rl.rc)
                    others_still_listed(ck, L, what + "fs list", rl, {cid}, base)
            else:
                r = go(label, "fs check")
                if r is not None:
                    ck.ok(r.rc == 0, what + "fs check", "a cut in the unused tail: exit %s: %s"
                          % (r.rc, r.text()[-200:]))
        r = go(label, "tablet scan")
        expect_clean_or_named(ck, L, what + "tablet scan", r, rel, base.scan, jsonl=True,
                              blocks=cblocks)
    elif kind == "fbm block":
        what = "%s %s: " % (L.name, label)
        rl = go(label, "fs list")
        if rl is not None:
            ck.ok(rl.rc in (0, 1), what + "fs list", "exit %s" % rl.rc)
        r = go(label, "tablet scan")
        expect_clean_or_named(ck, L, what + "tablet scan", r, rel, base.scan, jsonl=True,
                              blocks=[int(os.path.basename(rel))])
    elif kind == "tablet-meta":
        what = "%s %s: " % (L.name, label)
        # A single-message container: any cut or flip loses the superblock.
        for name in ("tablet meta", "tablet scan"):
            expect_damage(ck, L, what + name, go(label, name), rel, need_offset=(how == "flip"),
                          also_ok=v3)
        expect_damage(ck, L, what + "fs check", go(label, "fs check"), rel, also_ok=v3)
        rl = go(label, "fs list")
        if rl is not None:
            ck.ok(rl.rc in (0, 1) and names_file(rl, rel, L), what + "fs list",
                  "exit %s without naming the superblock: %s" % (rl.rc, rl.text()[-200:]))
    elif kind == "consensus-meta":
        what = "%s %s: " % (L.name, label)
        expect_damage(ck, L, what + "tablet meta", go(label, "tablet meta"), rel, also_ok=v3)
        r = go(label, "tablet scan")
        expect_clean_or_named(ck, L, what + "tablet scan", r, rel, base.scan, jsonl=True)
    elif kind == "wal":
        what = "%s %s: " % (L.name, label)
        seg = os.path.basename(rel)
        rw = go(label, "wal dump")
        if rw is not None:
            if rw.rc == 0:
                check_wal_not_silently_smaller(ck, what + "wal dump", rw, base.wal, seg, how)
            elif ck.ok(rw.rc == 1, what + "wal dump", "exit %s: %s" % (rw.rc, rw.text()[-200:])):
                ck.ok(names_file(rw, rel, L), what + "wal dump", "does not name %s: %s" % (
                    seg, rw.err.decode(errors="replace")[-200:]))
        r = go(label, "tablet scan")
        if r is not None:
            if r.rc == 0:
                if (rw is None or rw.rc != 0 or not torn_reported(rw, seg)) and base.scan:
                    ck.ok(r.jsonl() == base.scan.jsonl() or how == "cut", what + "tablet scan",
                          "exit 0 with different rows and no torn tail reported")
            elif ck.ok(r.rc == 1, what + "tablet scan", "exit %s" % r.rc):
                ck.ok(names_file(r, rel, L), what + "tablet scan", "does not name %s: %s" % (
                    seg, r.err.decode(errors="replace")[-200:]))
        r = go(label, "tablet scan --no-wal")
        if r is not None and base.scan is not None:
            ck.ok(r.rc == 0, what + "tablet scan --no-wal",
                  "a damaged WAL fails a scan that does not read it: exit %s" % r.rc)


def torn_reported(r, seg):
    j = r.json()
    if not isinstance(j, dict):
        return False
    for s in j.get("segments") or []:
        if isinstance(s, dict) and s.get("file") == seg:
            return bool(s.get("torn_tail"))
    return False


def check_wal_not_silently_smaller(ck, what, r, base, seg, how):
    j, b = r.json(), (base.json() if base is not None else None)
    if not isinstance(j, dict) or not isinstance(b, dict):
        ck.ok(isinstance(j, dict), what, "exit 0 without JSON")
        return

    def count(x):
        for s in x.get("segments") or []:
            if isinstance(s, dict) and s.get("file") == seg:
                return len(s.get("entries") or [])
        return None
    n, n0 = count(j), count(b)
    if n is None or n0 is None or n >= n0:
        return
    # fewer entries: only as a torn tail, reported (a cut at an entry boundary of a
    # segment without a footer cannot be told from its end: Kudu cannot either)
    ck.ok(torn_reported(r, seg) or how == "cut", what,
          "%d entries instead of %d and no torn tail reported" % (n, n0))


def special_cases(ck, L, others, go, base, work):
    FS = L.fs_args()
    wal_inst = os.path.join(L.fsj["wal_root"], "instance")
    what = L.name + " "

    # 1. A superblock naming a block that does not exist.
    sb_rel = os.path.relpath(L.path(L.fsj["tablet_meta"]), L.root)
    p = L.path(sb_rel)
    data = open(p, "rb").read()
    version, recs = pbc_parse(data)
    msg = recs[1][2]
    col = next(b for b in L.fsj["live_blocks"] if " col:" in b["role"])
    needle = b"\x12\x09\x09" + struct.pack("<Q", col["block_id"])
    ghost = 0x7FFF00000000FEED
    if needle in msg:
        msgs = [r[2] for r in recs]
        msgs[1] = msg.replace(needle, b"\x12\x09\x09" + struct.pack("<Q", ghost), 1)
        open(p, "wb").write(pbc_build(version, msgs))
        lbl = "superblock names missing block %d" % ghost
        r = go(lbl, "fs check")
        if r is not None:
            ck.ok(r.rc == 1 and (str(ghost) in r.text() or "%016d" % ghost in r.text()),
                  what + lbl + ": fs check", "exit %s, want 1 naming the block: %s" % (
                      r.rc, r.text()[-300:]))
        r = go(lbl, "tablet scan")
        if r is not None:
            ck.ok(r.rc == 1 and (str(ghost) in r.text() or "%016d" % ghost in r.text()),
                  what + lbl + ": tablet scan", "exit %s, want 1 naming the block: %s" % (
                      r.rc, r.text()[-300:]))
        r = go(lbl, "fs list")
        if r is not None:
            ck.ok(r.rc in (0, 1), what + lbl + ": fs list", "exit %s" % r.rc)
            blocks = Baseline.blocks(r)
            if blocks is not None and col["block_id"] in blocks:
                ck.ok(blocks[col["block_id"]].get("kind") == "orphan", what + lbl + ": fs list",
                      "block %d, no longer named, is not an orphan" % col["block_id"])
        restore(L, [sb_rel])
    else:
        ck.notes.append("%s: no column block id found in the superblock bytes" % L.name)

    # 2. Container metadata pointing past its data file (log block manager).
    if L.containers:
        c = next(c for c in L.containers if c["live"])
        rel = os.path.join(c["data_dir"], c["container"] + ".metadata")
        rel = os.path.relpath(L.path(rel), L.root)
        p = L.path(rel)
        data = open(p, "rb").read()
        version, recs = pbc_parse(data)
        msgs = [r[2] for r in recs]
        live = c["live"][-1]["block_id"]
        for i in range(1, len(msgs)):
            fl = pb_fields(msgs[i])
            ids = [struct.unpack("<Q", pb_fields(v)[0][2])[0] for f, wt, v in fl if f == 1]
            ops = [v for f, wt, v in fl if f == 2]
            if ids == [live] and ops == [1]:
                fl = [(f, wt, (c["data_file_size"] + 8192 if f == 4 else v)) for f, wt, v in fl]
                msgs[i] = pb_build(fl)
        open(p, "wb").write(pbc_build(version, msgs))
        lbl = "CREATE of block %d past the data file's end" % live
        r = go(lbl, "fs check")
        expect_damage(ck, L, what + lbl + ": fs check", r, rel)
        r = go(lbl, "fs list")
        if r is not None:
            ck.ok(r.rc == 1, what + lbl + ": fs list", "exit %s, want 1" % r.rc)
            others_still_listed(ck, L, what + lbl + ": fs list", r, {c["container"]}, base)
        r = go(lbl, "tablet scan")
        expect_damage(ck, L, what + lbl + ": tablet scan", r, rel, blocks=[live])
        restore(L, [rel])

    # 3. Symlink loops in a data dir (a file pair, and directories that lead back up).
    ddir = os.path.join(L.fsj["data_roots"][0], "data")
    made = []
    for a, b in (("loop-a.metadata", "loop-b.metadata"), ("loop-b.metadata", "loop-a.metadata"),
                 ("loop-a.data", "loop-b.data"), ("loop-b.data", "loop-a.data"),
                 ("ff", "."), ("fe", "..")):
        q = os.path.join(L.path(ddir), a)
        os.symlink(b, q)
        made.append(q)
    lbl = "symlink loops in " + ddir
    for name in ("fs list", "fs check", "tablet scan"):
        r = go(lbl, name)
        if r is None:
            continue
        ck.ok(r.rc in (0, 1), what + lbl + ": " + name, "exit %s: %s" % (r.rc, r.text()[-200:]))
        if name == "fs list":
            others_still_listed(ck, L, what + lbl + ": fs list", r, {"loop-a", "loop-b"}, base)
        if name == "tablet scan" and r.rc == 0 and base.scan is not None:
            ck.ok(r.jsonl() == base.scan.jsonl(), what + lbl + ": tablet scan", "rows differ")
    for q in made:
        os.remove(q)

    # 4. An instance file of another server (swapped in from another layout).
    other = next((o for o in others if o.name != L.name), None)
    if other is not None:
        for rel_here, rel_there in ((wal_inst, os.path.join(other.fsj["wal_root"], "instance")),
                                    (os.path.join(L.fsj["data_roots"][-1], "instance"),
                                     os.path.join(other.fsj["data_roots"][0], "instance")),
                                    (os.path.join(L.fsj["data_roots"][-1], "data",
                                                  "block_manager_instance"),
                                     os.path.join(other.fsj["data_roots"][0], "data",
                                                  "block_manager_instance"))):
            shutil.copyfile(os.path.join(other.src, rel_there), L.path(rel_here))
            lbl = "%s from %s" % (rel_here, other.name)
            for name in ("fs list", "tablet scan"):
                r = go(lbl, name)
                if r is not None and ck.ok(r.rc == 1, what + lbl + ": " + name,
                                           "exit %s, want 1: %s" % (r.rc, r.text()[-200:])):
                    ck.ok(names_dir(r, rel_here, L), what + lbl + ": " + name,
                          "names neither the file nor its directory: %s" % r.text()[-200:])
            restore(L, [rel_here])

    # 5. A data dir missing: named in the dir set but not given, and given but gone.
    roots = L.fsj["data_roots"]
    if len(roots) > 1:
        lbl = "data dir %s not given" % roots[-1]
        r = go(lbl, "fs list", fs=L.fs_args(roots[:-1]))
        if r is not None:
            ck.ok(r.rc == 1, what + lbl + ": fs list", "exit %s, want 1: %s" % (r.rc, r.text()[-200:]))
    gone = roots[-1]
    moved = L.path(gone) + ".away"
    os.rename(L.path(gone), moved)
    lbl = "data dir %s missing" % gone
    for name in ("fs list", "tablet scan"):
        r = go(lbl, name)
        if r is not None:
            ck.ok(r.rc == 1 and (L.path(gone) in r.text() or gone in r.text()),
                  what + lbl + ": " + name, "exit %s, want 1 naming %s: %s" % (
                      r.rc, gone, r.text()[-200:]))
    os.rename(moved, L.path(gone))

    # 6. An encrypted server: server_key (with its iv and version) in every instance file.
    insts = [f for f in L.files() if os.path.basename(f) == "instance"]
    for rel in insts:
        data = open(L.path(rel), "rb").read()
        version, recs = pbc_parse(data)
        msgs = [r[2] for r in recs]
        msgs[1] = msgs[1] + pb_build([(3, 2, b"0" * 64), (4, 2, b"1" * 32), (5, 2, b"kms-1")])
        open(L.path(rel), "wb").write(pbc_build(version, msgs))
    lbl = "encrypted server (server_key set)"
    for name in ("fs list", "fs check", "tablet list", "tablet scan", "wal dump"):
        r = go(lbl, name)
        if r is not None:
            ck.ok(r.rc == 3 and b"encrypt" in r.err.lower(), what + lbl + ": " + name,
                  "exit %s, want 3 saying encrypted: %s" % (r.rc, r.text()[-200:]))
    r = ck.run(what + lbl + ": pbc dump", ["kudu", "pbc", "dump", "--json", L.path(wal_inst)])
    if r is not None:
        j = r.json()
        ck.ok(r.rc == 0 and isinstance(j, dict) and "server_key" in j, what + lbl + ": pbc dump",
              "the crafted instance does not dump with its server_key: %s" % r.text()[-200:])
    restore(L, insts)
    del FS


def main():
    argv = sys.argv[1:]
    strict = "--strict" in argv or os.environ.get("CF_KUDU_STRICT") == "1"
    argv = [a for a in argv if a != "--strict"]
    only = None
    if "-k" in argv:
        i = argv.index("-k")
        only = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 4 or argv[3] not in ("readonly", "hostile", "all"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cli, src, work, mode = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2]), argv[3]
    os.makedirs(work, exist_ok=True)
    ck = Checker(cli, strict)
    layouts = [Layout(os.path.join(src, d), work) for d in sorted(os.listdir(src))
               if os.path.isfile(os.path.join(src, d, "expected", "fs.json"))]
    for L in layouts:
        if only and only not in L.name:
            continue
        if mode in ("readonly", "all"):
            readonly(ck, L, work)
        if mode in ("hostile", "all"):
            hostile(ck, L, layouts, work, 28)
        if os.path.exists(L.root):
            make_writable(L.root)
            shutil.rmtree(L.root)
    for n in ck.notes:
        print("NOTE " + n)
    if ck.skipped:
        print("SKIP (not in this build): " + ", ".join(sorted(ck.skipped)))
        if strict:
            ck.failures.append("FAIL --strict: commands missing: %s" % ", ".join(sorted(ck.skipped)))
    print("%d passed, %d failed, %d runs of cfile" % (ck.passed, len(ck.failures), ck.runs))
    return 1 if ck.failures else 0


if __name__ == "__main__":
    sys.exit(main())
