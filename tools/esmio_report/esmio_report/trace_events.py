"""--trace-events: the timeline in the Chrome/Perfetto trace-event format (ui.perfetto.dev,
chrome://tracing): {"traceEvents": [...], "displayTimeUnit": "ms"} with complete events
(ph "X": name, cat, ts and dur in microseconds, pid = rank, tid = lane) and metadata events
(ph "M") naming each process "rank N" and each lane ("calls", "phases", "phases 2", ...).
Spans on one lane nest properly (load.assign_tracks), as the format requires per thread."""

import json

from . import load


def events(tr):
    out = []
    origin = tr.t0
    for r in tr.ranks:
        pid = r.rank
        name = r.label
        out.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": name}})
        out.append({"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0,
                    "args": {"sort_index": r.rank}})
        for tid, (group, depth) in enumerate(r.tracks):
            out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                        "args": {"name": group if depth == 0 else "%s %d" % (group, depth + 1)}})
            out.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                        "args": {"sort_index": tid}})
        for s in r.spans:
            # Integer nanoseconds first, so that a child never ends past its parent by rounding.
            t0 = round((s.start - origin) * 1e9)
            t1 = max(t0, round((s.end - origin) * 1e9))
            args = {}
            if s.file >= 0:
                args["file"] = r.file_names.get(s.file, str(s.file))
            if s.variable >= 0:
                args["variable"] = s.variable
                names = r.variable_names.get(s.file)
                if names and s.variable < len(names):
                    args["variable_name"] = names[s.variable]
            if s.bytes:
                args["bytes"] = s.bytes
            out.append({"name": s.counter, "cat": "api" if load.is_api(s.counter) else "phase",
                        "ph": "X", "ts": t0 / 1000.0, "dur": (t1 - t0) / 1000.0,
                        "pid": pid, "tid": s.track, "args": args})
    return out


def write(tr, path):
    doc = {"traceEvents": events(tr), "displayTimeUnit": "ms",
           "otherData": {"source": "esmio-report", "trace": tr.path, "settings": tr.settings_text,
                         "dropped_spans": tr.dropped}}
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
