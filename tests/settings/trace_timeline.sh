#!/bin/bash
# With the trace on (ESMIO_TRACE) the report holds every rank's timeline, and the effective
# settings say trace_timeline=true: in esmio --settings and in the report itself.
# Usage: trace_timeline.sh MPIEXEC ESMIO
set -uo pipefail
mpiexec=$1
esmio=$2
work=$(mktemp -d /tmp/esmio_trace_timeline_XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/out"; exit 1; }

env ESMIO_TRACE="$work/trace.json" "$mpiexec" --oversubscribe -np 2 "$esmio" --settings \
  > "$work/out" 2>&1 || fail "esmio --settings failed"
grep -q 'trace_timeline=true' "$work/out" || fail "esmio --settings: trace_timeline is not true"
/usr/bin/python3 - "$work/trace.json" <<'PY' || fail "the report"
import json, sys
report = json.load(open(sys.argv[1]))
assert "trace_timeline=true" in report["settings"], report["settings"]
ranks = report["ranks"]
assert len(ranks) == 2 and all("timeline" in r for r in ranks), [sorted(r) for r in ranks]
PY
# Without a trace the timeline stays off, and says so.
"$mpiexec" --oversubscribe -np 2 "$esmio" --settings > "$work/out" 2>&1 || fail "esmio --settings"
grep -q 'trace_timeline=false' "$work/out" || fail "trace_timeline is not false without a trace"
echo "PASS: with ESMIO_TRACE the report holds the timeline and the settings say trace_timeline=true"
