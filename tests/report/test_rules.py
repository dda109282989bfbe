#!/usr/bin/python3
"""esmio-report's rules (tools/esmio_report/esmio_report/findings.py) on hand-made traces:
each fires past its threshold and stays quiet below it; the trace-event export nests spans
that overlap partially onto separate lanes.

    test_rules.py <source>/tools/esmio_report
"""
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from esmio_report import findings, html, load, text, trace_events  # noqa: E402

NAMES = ["define", "open", "convert", "rearrange", "backend_write", "backend_read", "sync",
         "close", "write_darray", "read_darray", "put_vara", "get_vara", "plan", "async_post",
         "async_wait", "stage_copy", "stage_write", "stage_verify"]
FAILED = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        FAILED.append(what)


def rank(r, io_task=-1, totals=None, bins=None, spans=None, dropped=0):
    t = {n: {"calls": 0, "bytes": 0, "seconds": 0.0} for n in NAMES}
    for n, (calls, nbytes, secs) in (totals or {}).items():
        t[n] = {"calls": calls, "bytes": nbytes, "seconds": secs}
    t["request_sizes"] = bins or [0] * 48
    return {"rank": r, "io_task": io_task, "totals": t,
            "files": [{"path": "f.nc", "counters": {k: v for k, v in t.items() if k != "request_sizes"}}],
            "timeline": {"clock_offset": 0, "max_spans": 10, "dropped": dropped,
                         "dropped_by_counter": {"write_darray": {"calls": dropped, "seconds": 0.1}}
                         if dropped else {},
                         "files": {"0": "f.nc"}, "spans": spans or []}}


def trace(ranks, settings="num_iotasks=2,cache=size=8M,compression="):
    return load.Trace({"settings": settings, "nranks": len(ranks), "counters": NAMES,
                       "ranks": ranks})


def rules(tr):
    return [f.rule for f in findings.findings(tr)]


def sizes(small, large):
    bins = [0] * 48
    bins[11] = small   # 2-4 KiB
    bins[20] = large   # 1-2 MiB
    return bins


W = NAMES.index("write_darray")
B = NAMES.index("backend_write")
C = NAMES.index("convert")
R = NAMES.index("rearrange")
io = {"backend_write": (10, 100 << 20, 1.0), "write_darray": (10, 0, 2.0), "sync": (1, 0, 0.1)}

# small_requests: >= 50 % of >= 16 requests under 64 KiB.
check("small_requests" in rules(trace([rank(0, 0, io, sizes(9, 7)), rank(1, 1, io, sizes(0, 0))])),
      "small_requests fires at 9 of 16 small")
check("small_requests" not in rules(trace([rank(0, 0, io, sizes(7, 9))])),
      "small_requests quiet at 7 of 16 small")
check("small_requests" not in rules(trace([rank(0, 0, io, sizes(15, 0))])),
      "small_requests quiet under 16 requests")

# idle_io_task: a task under 50 % of the busiest's backend_write seconds.
lazy = dict(io, backend_write=(10, 50 << 20, 0.4))
even = dict(io, backend_write=(10, 50 << 20, 0.6))
f = findings.findings(trace([rank(0, 0, io), rank(1, 1, lazy)]))
check([x for x in f if x.rule == "idle_io_task" and "I/O task 1 idle 60 %" in x.title],
      "idle_io_task: 'I/O task 1 idle 60 % of the write'")
check("idle_io_task" not in rules(trace([rank(0, 0, io), rank(1, 1, even)])),
      "idle_io_task quiet at 60 % of the busiest")
# ... or under 50 % of the busiest's bytes, though it spent as long in the collective writes
# (one I/O task writing every variable of a small map: 80 MiB and 0 bytes).
nothing = dict(io, backend_write=(10, 0, 1.0))
little = dict(io, backend_write=(10, 40 << 20, 1.0))
f = findings.findings(trace([rank(0, 0, io), rank(1, 1, nothing)]))
check([x for x in f if x.rule == "idle_io_task" and "I/O task 1 wrote 0 % of the bytes" in x.title],
      "idle_io_task on bytes: 'I/O task 1 wrote 0 % of the bytes the busiest wrote'")
f = findings.findings(trace([rank(0, 0, io), rank(1, 1, little), rank(2, 2, io)]))
check([x for x in f if x.rule == "idle_io_task" and "I/O task 1 wrote 40 %" in x.title],
      "idle_io_task on bytes at 40 % of the busiest")
check("idle_io_task" not in rules(trace([rank(0, 0, io), rank(1, 1, dict(io, backend_write=(
      10, 60 << 20, 1.0)))])), "idle_io_task quiet at 60 % of the busiest's bytes")

# dominant_phase: backend_write >= 50 % of the write calls' time; compression named.
heavy = dict(io, backend_write=(10, 100 << 20, 1.9))
f = findings.findings(trace([rank(0, 0, heavy)], "compression=zstd:9"))
check([x for x in f if x.rule == "dominant_phase" and "compression" in x.title],
      "dominant_phase with compression set speaks of compression")
check("dominant_phase" not in rules(trace([rank(0, 0, dict(io, backend_write=(1, 1, 0.9)))])),
      "dominant_phase quiet under 50 %")

# page_cache: bytes written and no sync call.
nosync = {k: v for k, v in io.items() if k != "sync"}
check("page_cache" in rules(trace([rank(0, 0, nosync)])), "page_cache fires without esmio_sync")
check("page_cache" not in rules(trace([rank(0, 0, io)])), "page_cache quiet with esmio_sync")

# async_wait and stage_verify.
waited = dict(io, async_wait=(5, 1 << 20, 0.5))
check("async_wait" in rules(trace([rank(0, -1, waited)])), "async_wait fires at 0.5 s of 2.1 s")
check("async_wait" not in rules(trace([rank(0, -1, dict(io, async_wait=(1, 1, 0.01)))])),
      "async_wait quiet under 5 %")
staged = dict(io, stage_copy=(1, 1 << 20, 1.0), stage_write=(1, 1 << 20, 0.5),
              stage_verify=(1, 1 << 20, 0.4))
check("stage_verify" in rules(trace([rank(0, 0, staged)])), "stage_verify fires at 40 %")
check("stage_verify" not in rules(trace([rank(0, 0, dict(staged, stage_verify=(1, 1, 0.1)))])),
      "stage_verify quiet at 10 %")

# dropped spans are reported.
spans = [[W, 0.0, 1.0, 0, 3], [C, 0.1, 0.2, 0, -1], [R, 0.15, 0.5, 0, -1], [B, 0.4, 0.9, 0, -1]]
tr = trace([rank(0, 0, io, spans=spans, dropped=7), rank(1, 1, io, spans=spans)])
check("dropped_spans" in rules(tr), "dropped_spans fires")
page = html.render(tr, findings.findings(tr))
check("7 spans were dropped" in page and "<svg" in page, "the HTML notes the dropped spans")
check("rank" in text.render(tr, findings.findings(tr)), "the text report renders")

# Partially overlapping phases (convert 0.1-0.2, rearrange 0.15-0.5, backend 0.4-0.9) go to
# separate lanes so that every lane nests.
ev = [e for e in trace_events.events(tr) if e["ph"] == "X" and e["pid"] == 0]
lanes = {}
for e in ev:
    lanes.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
ok = True
for iv in lanes.values():
    iv.sort()
    stack = []
    for a, b in iv:
        while stack and stack[-1] <= a:
            stack.pop()
        ok = ok and (not stack or b <= stack[-1])
        stack.append(b)
check(ok and len(lanes) == 3, "partial overlaps on separate lanes (%d lanes)" % len(lanes))
with tempfile.TemporaryDirectory() as d:
    trace_events.write(tr, os.path.join(d, "t.json"))
    check(os.path.getsize(os.path.join(d, "t.json")) > 100, "trace events written")

# Not a trace: a clear error.
try:
    load.Trace({"x": 1})
    check(False, "a non-trace is refused")
except load.TraceError:
    check(True, "a non-trace is refused")

print("%d failed" % len(FAILED) if FAILED else "all checks passed")
sys.exit(1 if FAILED else 0)
