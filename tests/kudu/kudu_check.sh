#!/usr/bin/env bash
# The `cfile kudu` contract (../shared/kudu-fs/README.md) checked by the layouts' own
# checker, ../shared/tools/kudu_check.py, on a scratch copy of the layouts as the
# checker asks (its read-only check then proves, on the copy, that no command
# changed a byte, size, mode or mtime or created a file). Any failed check fails.
# usage: kudu_check.sh CFILE_CLI SHARED_DIR SCRATCH_DIR
set -euo pipefail
cli=$1 shared=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
# -p keeps the modes (0600 files, read-only folders as shipped) and the mtimes.
cp -rp "$shared/kudu-fs/." "$scratch/"
python3 "$shared/tools/kudu_check.py" "$cli" "$scratch"
