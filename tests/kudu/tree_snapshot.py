"""Every path under a directory with its size, mode, mtime and, for a regular file,
a hash of its bytes: taken before and after a run to show that nothing under a Kudu
server's directories changed. Shared by tests/kudu/cli_hostile.py and
python/tests/test_kudu.py (stdlib only)."""

import hashlib
import os
import stat


def snapshot(d, with_root=False):
    """{path relative to d: (size, mode, mtime_ns, sha256 or None)}; with_root: d's
    own mode and mtime too, as "." (an entry created and removed under d shows)."""
    s = {}
    for dp, dns, fns in os.walk(d):
        for n in dns + fns:
            p = os.path.join(dp, n)
            st = os.lstat(p)
            h = None
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
            s[os.path.relpath(p, d)] = (st.st_size, st.st_mode, st.st_mtime_ns, h)
    if with_root:
        st = os.lstat(d)
        s["."] = (st.st_mode, st.st_mtime_ns)
    return s


def snapshot_diff(a, b):
    """What differs between two snapshots, as "created|removed|changed PATH" lines."""
    out = []
    for k in sorted(set(a) | set(b)):
        if k not in a:
            out.append("created " + k)
        elif k not in b:
            out.append("removed " + k)
        elif a[k] != b[k]:
            out.append("changed " + k)
    return out
