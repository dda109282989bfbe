"""The self-contained HTML report: inline CSS and SVG, no scripts, nothing fetched."""

import datetime
import os
from html import escape

from . import findings as F
from . import load, svg

CSS = """
body{font-family:sans-serif;margin:18px 28px;color:#222;max-width:1400px}
h1{font-size:22px;margin-bottom:2px} h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
.muted{color:#777} .key{margin-right:12px;white-space:nowrap;font-size:12px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right} th{background:#f4f4f4}
td.l,th.l{text-align:left}
.finding{border-left:5px solid #d62728;background:#fff5f5;padding:8px 12px;margin:8px 0}
.finding.info{border-color:#1f77b4;background:#f3f8fd}
.finding .t{font-weight:bold;font-size:15px} .finding .e{margin-top:4px;font-size:13px}
.finding .a{margin-top:4px;font-size:13px;color:#444}
.grid{display:flex;flex-wrap:wrap;gap:14px} code{background:#f4f4f4;padding:1px 3px}
.settings{font-family:monospace;font-size:12px;column-width:330px}
"""


def seconds(v):
    return "%.3g s" % v if v else "0"


def rate(nbytes, secs):
    return "%.0f MiB/s" % (nbytes / secs / F.MIB) if secs > 0 and nbytes > 0 else "–"


def table(head, rows, left=1):
    out = ["<table><tr>"]
    out += ['<th class="l">%s</th>' % escape(h) if i < left else "<th>%s</th>" % escape(h)
            for i, h in enumerate(head)]
    out.append("</tr>")
    for r in rows:
        out.append("<tr>" + "".join(('<td class="l">%s</td>' if i < left else "<td>%s</td>")
                                    % escape(str(c)) for i, c in enumerate(r)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def section_findings(found):
    if not found:
        return ("<p>No rule fired: no small requests, no idle I/O task, no dominant phase "
                "(the rules and their thresholds are in docs/report.md).</p>")
    out = []
    for f in found:
        out.append('<div class="finding %s"><div class="t">%s</div><div class="e">Evidence: %s'
                   '</div><div class="a">%s</div><div class="muted">rule: %s</div></div>'
                   % (f.level, escape(f.title), escape(f.evidence), escape(f.advice), f.rule))
    return "\n".join(out)


def section_ranks(tr):
    head = ["rank", "I/O task", "write calls s", "write_darray", "sync", "close", "convert",
            "rearrange", "backend_write", "written", "backend_read", "read", "spans",
            "peak memory (RSS)"]
    rows = []
    for r in tr.ranks:
        rows.append([r.label if r.server else r.rank, r.io_task if r.io_task >= 0 else "–",
                     seconds(r.write_seconds()),
                     seconds(r.total("write_darray")), seconds(r.total("sync")),
                     seconds(r.total("close")), seconds(r.total("convert")),
                     seconds(r.total("rearrange")), seconds(r.total("backend_write")),
                     F.size_text(r.total("backend_write", "bytes")),
                     seconds(r.total("backend_read")), F.size_text(r.total("backend_read", "bytes")),
                     len(r.spans), F.size_text(r.max_rss) if r.max_rss >= 0 else "–"])
    note = ('<p class="muted">Peak memory is the process\'s resident high-water mark '
            '(getrusage) when the report was written: the model\'s own memory included.%s</p>'
            % (" The I/O servers (asynchronous mode) follow the compute ranks; their calls are the "
               "compute ranks' calls replayed, so their write time overlaps the compute ranks'."
               if tr.servers else ""))
    return table(head, rows, left=0) + note


def section_sizes(tr):
    out = ['<div class="grid">', svg.histogram(tr.request_sizes(), "all ranks: %d requests"
                                               % sum(tr.request_sizes()))]
    for r in tr.ranks:
        if any(r.request_sizes):
            name = "I/O task %d (rank %d)" % (r.io_task, r.rank) if r.io_task >= 0 else r.label
            out.append(svg.histogram(r.request_sizes, "%s: %d requests"
                                     % (name, sum(r.request_sizes)), width=420, height=170))
    out.append("</div>")
    return "\n".join(out)


def section_files(tr):
    files = tr.files()
    if not files:
        return "<p class=\"muted\">No file was closed while tracing.</p>"
    head = ["file", "opens", "written", "write s (slowest rank)", "write rate", "read",
            "read s (slowest rank)", "read rate", "open→close wall", "rate over wall"]
    rows = []
    for path, f in sorted(files.items()):
        w, rd = f["sum"]["backend_write"], f["sum"]["backend_read"]
        ws, rs = f["max_seconds"]["backend_write"], f["max_seconds"]["backend_read"]
        wall = f["wall"][1] - f["wall"][0] if f["wall"] else 0
        rows.append([path, f["opens"], F.size_text(w.bytes), seconds(ws), rate(w.bytes, ws),
                     F.size_text(rd.bytes), seconds(rs), rate(rd.bytes, rs),
                     seconds(wall), rate(w.bytes + rd.bytes, wall)])
    out = [table(head, rows),
           '<p class="muted">Bytes are the storage library\'s (backend_write, backend_read), '
           'summed over I/O tasks; the rates divide them by the slowest rank\'s backend time '
           '(tasks write in parallel) and by the file\'s first-to-last span.</p>']
    var = tr.variables()
    if var:
        head = ["file", "variable", "write calls", "written", "write s", "write rate",
                "read calls", "read", "read s"]
        rows = []
        ranked = sorted(var.items(), key=lambda kv: -sum(t.seconds for t in kv[1].values()))
        for (path, v), c in ranked[:40]:
            t = lambda n, fld: getattr(c.get(n, load.Tally()), fld)  # noqa: E731
            w = lambda fld: t("write_darray", fld) + t("put_vara", fld)  # noqa: E731
            rd = lambda fld: t("read_darray", fld) + t("get_vara", fld)  # noqa: E731
            name = tr.variable_name(path, v)
            rows.append([os.path.basename(path), "%s (%d)" % (name, v) if name else v,
                         w("calls"), F.size_text(w("bytes")), seconds(w("seconds")),
                         rate(w("bytes"), w("seconds")), rd("calls"), F.size_text(rd("bytes")),
                         seconds(rd("seconds"))])
        out.append("<h3>Per variable</h3>")
        out.append('<p class="muted">From the spans of the API calls that name a variable '
                   '(write_darray and put_vara, read_darray and get_vara), summed over ranks: '
                   'bytes are the callers\' buffers (memory type), seconds the calls\' own; with '
                   'the write cache on, a write call that only buffers is fast and the flush is '
                   'counted in sync or close, not here. Names come with each file\'s close '
                   '(a file open when the trace was written shows variable ids).%s</p>'
                   % (" The %d slowest of %d." % (40, len(var)) if len(var) > 40 else ""))
        out.append(table(head, rows))
    return "\n".join(out)


def section_balance(tr):
    tasks = sorted(tr.io_ranks, key=lambda r: r.io_task)
    if not tasks:
        return "<p class=\"muted\">No I/O task in this trace.</p>"
    top = max(r.total("backend_write") for r in tasks)
    head = ["I/O task", "rank", "backend_write s", "bytes", "share of the busiest", "idle",
            "backend_read s", "requests"]
    rows = []
    for r in tasks:
        s = r.total("backend_write")
        rows.append([r.io_task, r.rank, seconds(s), F.size_text(r.total("backend_write", "bytes")),
                     F.pct(s / top) if top else "–", F.pct(1 - s / top) if top else "–",
                     seconds(r.total("backend_read")), sum(r.request_sizes)])
    chart = svg.bars([("I/O task %d" % r.io_task, r.total("backend_write"), load.colour("backend_write"))
                      for r in tasks], "backend_write seconds per I/O task", lambda v: "%.3g s" % v)
    return table(head, rows, left=0) + chart + (
        '<p class="muted">idle = 1 − this task\'s backend_write seconds / the busiest\'s.</p>')


def section_codecs(tr):
    codecs = tr.codecs()
    if not codecs:
        return ('<p class="muted">No zstd chunk was compressed or decompressed while tracing '
                '(HDF5\'s built-in deflate and shuffle filters are not timed: they run unseen '
                'inside backend_write).</p>')
    rows = []
    for (codec, direction), c in sorted(codecs.items()):
        raw, packed = (c.bytes_in, c.bytes_out) if direction == "compress" else (c.bytes_out, c.bytes_in)
        rows.append([codec, direction, c.calls, F.size_text(raw), F.size_text(packed),
                     "%.2f" % (raw / packed) if packed else "–", seconds(c.seconds),
                     rate(c.bytes_in, c.seconds)])
    out = [table(["codec", "direction", "chunks", "raw", "compressed", "ratio",
                  "seconds (sum over ranks)", "rate per core (input)"], rows, left=2)]
    zc = codecs.get(("zstd", "compress"))
    bw = tr.total("backend_write")
    if zc and bw > 0:
        out.append("<p>zstd compression took %s of backend_write's %s (summed over ranks).</p>"
                   % (F.pct(zc.seconds / bw), seconds(bw)))
    zd = codecs.get(("zstd", "decompress"))
    if zd and zc and tr.total("backend_read", "calls") == 0:
        out.append("<p>Chunks were decompressed during a write: HDF5 read back chunks that "
                   "an earlier request had written in part (see the rechunk finding).</p>")
    out.append('<p class="muted">Only esmio\'s zstd filter is timed; HDF5\'s built-in filters '
               '(deflate, shuffle) run unseen inside backend_write. The ratio is over the '
               'chunks the codec saw: a chunk written twice counts twice.</p>')
    return "\n".join(out)


def section_phases(tr):
    names = [n for n in ("async_post", "async_wait", "serve_wait", "serve_receive", "stage_copy",
                         "stage_write", "stage_verify") if tr.present(n)]
    compression = tr.settings.get("compression", "")
    quantize = tr.settings.get("quantize", "")
    out = ["<h3>Codecs</h3>", section_codecs(tr)]
    if compression or quantize:
        out.append("<p>Instance settings: compression=<code>%s</code>, quantize=<code>%s</code> "
                   "(quantization runs inside convert). Per-file settings given to esmio_create "
                   "are not in the trace.</p>" % (escape(compression or "(none)"),
                                                 escape(quantize or "(none)")))
    if not names:
        out.append('<p class="muted">No asynchronous or staging phases in this trace.</p>')
        return "\n".join(out)
    rows = [[n, tr.total(n, "calls"), seconds(tr.total(n)), F.size_text(tr.total(n, "bytes"))]
            for n in names]
    out.append("<h3>Asynchronous and staging phases</h3>")
    out.append(table(["phase", "calls", "seconds (sum over ranks)", "bytes"], rows))
    return "\n".join(out)


def section_settings(tr):
    items = "".join("<div>%s=<b>%s</b></div>" % (escape(k), escape(v))
                    for k, v in tr.settings.items())
    layout = ('<p>I/O tasks: %s</p>' % escape(tr.io_layout)) if tr.io_layout else ""
    return ('<div class="settings">%s</div>%s<p class="muted">The instance\'s effective settings '
            '(esmio_inq_settings) and how its I/O tasks were chosen (esmio_inq_iolayout); a '
            'file\'s own settings (esmio_create) may override some.</p>'
            % (items, layout))


def section_dropped(tr):
    if not tr.dropped:
        return ""
    rows = []
    for r in tr.ranks:
        for n, (calls, secs) in sorted(r.dropped_by_counter.items()):
            rows.append([r.rank, n, calls, seconds(secs)])
    return ('<p><b>%d spans were dropped</b> (at most %d per rank: trace_spans); the timeline ends '
            'where a rank reached the limit, the counters and tables above hold every call.</p>'
            % (tr.dropped, max(r.max_spans for r in tr.ranks)) +
            table(["rank", "counter", "calls dropped", "seconds"], rows, left=0))


def render(tr, found):
    used = [n for n in tr.counters if any(s.counter == n for r in tr.ranks for s in r.spans)]
    write = max((r.write_seconds() for r in tr.ranks), default=0)
    written = tr.total("backend_write", "bytes")
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>esmio-report: %s</title><style>%s</style></head><body>"
        % (escape(os.path.basename(tr.path)), CSS),
        "<h1>Where the I/O time went</h1>",
        '<p class="muted">%s — %d ranks, %d I/O tasks, %s written, %s read; the longest write '
        '(write_darray + put_vara + sync + close on one rank) %s; %.3g s traced. Made by '
        'esmio-report on %s.</p>'
        % (escape(tr.path), len(tr.ranks), len(tr.io_ranks), F.size_text(written),
           F.size_text(tr.total("backend_read", "bytes")), seconds(write), tr.t1 - tr.t0,
           datetime.date.today().isoformat()),
        "<h2>Findings</h2>", section_findings(found),
        "<h2>Timeline per rank</h2>",
        '<p class="muted">Per rank: the API calls (one lane: they never overlap), then the phases '
        'inside them (nested phases on further lanes). I/O tasks are shaded orange. Hover a bar '
        'for its counter.</p>',
        "<div>%s</div>" % svg.legend(used), svg.timeline(tr), section_dropped(tr),
        "<h2>Per rank</h2>", section_ranks(tr),
        "<h2>Request sizes</h2>",
        '<p class="muted">The storage library\'s requests (reads and writes), in power-of-two '
        'bins.</p>', section_sizes(tr),
        "<h2>Files and variables</h2>", section_files(tr),
        "<h2>Balance across I/O tasks</h2>", section_balance(tr),
        "<h2>Compression, asynchronous and staging phases</h2>", section_phases(tr),
        "<h2>Effective settings</h2>", section_settings(tr),
        "</body></html>",
    ]
    return "\n".join(parts)
