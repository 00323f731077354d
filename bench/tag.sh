# bench/tag.sh - sourced by the bench scripts that collect JSON result lines.
# shellcheck shell=bash

# tag KEY=VALUE... : add the fields to each JSON line read from stdin (blank lines dropped)
tag() {
    python3 -c 'import json,sys
extra=dict(a.split("=",1) for a in sys.argv[1:])
for l in sys.stdin:
    l=l.strip()
    if l:
        o=json.loads(l); o.update(extra); print(json.dumps(o))' "$@"
}
