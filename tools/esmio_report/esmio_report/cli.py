"""The command line: esmio-report trace.json [-o report.html] [--text] [--png out.png]
[--trace-events out.json]."""

import argparse
import os
import sys

from . import findings, html, load, text, trace_events


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="esmio-report",
        description="Where the I/O time went: an HTML report (timeline per rank, request sizes, "
                    "files, balance across I/O tasks, findings) from an esmio trace "
                    "(ESMIO_TRACE=trace.json).")
    p.add_argument("trace", help="the trace JSON written at esmio_finalize")
    p.add_argument("-o", "--output", help="the HTML report (default: report.html next to the trace)")
    p.add_argument("--text", action="store_true", help="print the findings and a per-rank table")
    p.add_argument("--png", metavar="OUT.png", help="also draw the timeline with matplotlib")
    p.add_argument("--trace-events", metavar="OUT.json",
                   help="also write the timeline as Chrome/Perfetto trace events")
    p.add_argument("--no-html", action="store_true", help="write no HTML report")
    a = p.parse_args(argv)
    try:
        tr = load.load(a.trace)
        # A path is bytes: one that is not UTF-8 (surrogate escapes in sys.argv) is shown with
        # replacement characters, as the trace shows the files' paths.
        tr.path = tr.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except (OSError, load.TraceError) as e:
        print("esmio-report: %s" % e, file=sys.stderr)
        return 2
    found = findings.findings(tr)
    if not a.no_html:
        out = a.output or os.path.join(os.path.dirname(os.path.abspath(a.trace)), "report.html")
        with open(out, "w", encoding="utf-8") as f:
            f.write(html.render(tr, found))
        if not a.text:
            shown = out.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            print("esmio-report: wrote %s (%d findings)" % (shown, len(found)))
    if a.trace_events:
        trace_events.write(tr, a.trace_events)
    if a.text:
        sys.stdout.write(text.render(tr, found))
    if a.png:
        try:
            from . import png
        except ImportError as e:
            print("esmio-report: --png needs matplotlib: %s" % e, file=sys.stderr)
            return 3
        png.render(tr, a.png)
    return 0
