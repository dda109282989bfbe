"""--text: the findings and a compact per-rank table, for a terminal."""

from . import findings as F


def render(tr, found):
    out = ["esmio-report: %s — %d ranks, %d I/O tasks, %s written, %s read, %.3g s traced"
           % (tr.path, len(tr.ranks), len(tr.io_ranks), F.size_text(tr.total("backend_write", "bytes")),
              F.size_text(tr.total("backend_read", "bytes")), tr.t1 - tr.t0), "", "Findings:"]
    if not found:
        out.append("  (none: no rule fired)")
    for f in found:
        out.append("  [%s] %s" % (f.rule, f.title))
        out.append("      evidence: %s" % f.evidence)
        if f.advice:
            out.append("      try: %s" % f.advice)
    out.append("")
    head = ("rank", "task", "write s", "convert", "rearrange", "be_write", "written", "be_read",
            "requests", "<64KiB", "max RSS")
    out.append("%6s %5s %9s %9s %9s %9s %10s %9s %9s %7s %9s" % head)
    for r in tr.ranks:
        n = sum(r.request_sizes)
        small = sum(r.request_sizes[:16])
        out.append("%6s %5s %9.3f %9.3f %9.3f %9.3f %10s %9.3f %9d %7s %9s"
                   % ("s%d" % r.world_rank if r.server else r.rank,
                      r.io_task if r.io_task >= 0 else "-", r.write_seconds(),
                      r.total("convert"), r.total("rearrange"), r.total("backend_write"),
                      F.size_text(r.total("backend_write", "bytes")), r.total("backend_read"), n,
                      F.pct(small / n) if n else "-",
                      F.size_text(r.max_rss) if r.max_rss >= 0 else "-"))
    if tr.servers:
        out.append("(s<N>: an I/O server, world rank N; it replays the compute ranks' calls)")
    if tr.dropped:
        out.append("(%d spans dropped: the timeline is incomplete, the counters are not)" % tr.dropped)
    return "\n".join(out) + "\n"
