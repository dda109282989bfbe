"""Inline SVG charts: the per-rank timeline (Gantt), histograms and horizontal bars. Plain
strings, no scripts; every element is drawn at its final position."""

import math
from html import escape

from . import load

FONT = 'font-family="sans-serif" font-size="11"'
MAX_TRACKS = 3  # per group (calls, phases) in the SVG; deeper nesting is drawn on the last


def _ticks(t0, t1, n=8):
    raw = max(t1 - t0, 1e-9) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    out, k = [], math.ceil(t0 / step)
    while k * step <= t1 + 1e-12:
        out.append(k * step)
        k += 1
    return out, step


def _time_label(t, step):
    if step >= 1:
        return "%g s" % round(t, 3)
    if step >= 1e-3:
        return "%g ms" % round(t * 1e3, 3)
    return "%g µs" % round(t * 1e6, 3)


def _raster(spans, t0, scale, width):
    """A lane's spans as at most one bar per pixel column: the counter with the most time in
    the column, its height the share of the column's time covered (in quarters, at least one),
    runs of equal columns joined. Exact where spans are wider than a pixel, a fair summary where
    thousands of short calls share one."""
    cols = int(math.ceil(width)) + 1
    share = [None] * cols  # per column: {counter: seconds-in-pixels}
    for s in spans:
        a, b = (s.start - t0) * scale, (s.end - t0) * scale
        if b - a < 0.02:  # a very short span still shows where it is
            b = a + 0.02
        c0, c1 = int(a), min(int(b), cols - 1)
        for c in range(max(c0, 0), c1 + 1):
            cover = min(b, c + 1) - max(a, c)
            if cover > 0:
                if share[c] is None:
                    share[c] = {}
                share[c][s.counter] = share[c].get(s.counter, 0.0) + cover
    runs = []
    for c, d in enumerate(share):
        if not d:
            continue
        counter = max(d, key=d.get)
        level = max(1, min(4, int(round(4 * min(1.0, sum(d.values()))))))
        if runs and runs[-1][0] + runs[-1][1] == c and runs[-1][2:] == [counter, level]:
            runs[-1][1] += 1
        else:
            runs.append([c, 1, counter, level])
    return [tuple(r) for r in runs]


def timeline(tr, width=1300):
    """Per rank: the API calls' lane(s), then the phases' lane(s). Spans narrower than a pixel
    are merged with their neighbours of the same counter, so the size is bounded by the width,
    not by the number of spans."""
    left, right, row, gap, top = 170, 20, 14, 8, 24
    plot_w = width - left - right
    t0, t1 = tr.t0, tr.t1
    if t1 <= t0:
        t1 = t0 + 1e-6
    scale = plot_w / (t1 - t0)
    rows = []  # (rank, label, [track ids])
    for r in tr.ranks:
        calls = [i for i, (g, d) in enumerate(r.tracks) if g == "calls"]
        phases = [i for i, (g, d) in enumerate(r.tracks) if g == "phases"]
        rows.append((r, calls[:MAX_TRACKS] or [None], phases[:MAX_TRACKS] or [None]))
    height = top + sum((len(c) + len(p)) * row + gap for _, c, p in rows) + 30
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'role="img" aria-label="timeline per rank">' % (width, height, width, height),
           '<rect width="100%%" height="100%%" fill="#ffffff"/>']
    ticks, step = _ticks(t0, t1)
    for t in ticks:
        x = left + (t - t0) * scale
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e0e0e0"/>'
                   % (x, top - 4, x, height - 26))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" %s>%s</text>'
                   % (x, top - 8, FONT, escape(_time_label(t, step))))
    y = top
    for r, calls, phases in rows:
        n = len(calls) + len(phases)
        out.append('<rect x="0" y="%d" width="%d" height="%d" fill="%s"/>'
                   % (y - 2, left - 6, n * row + 4, "#fdf3e7" if r.io_task >= 0 else "#f3f6fa"))
        out.append('<text x="6" y="%d" %s font-weight="bold">%s</text>'
                   % (y + row - 3, FONT, escape(r.label)))
        lanes = [("calls", t) for t in calls] + [("phases", t) for t in phases]
        lane_of = {}
        for k, (g, t) in enumerate(lanes):
            if t is not None:
                lane_of[t] = k
            out.append('<text x="%d" y="%d" text-anchor="end" %s fill="#666">%s</text>'
                       % (left - 10, y + k * row + row - 3, FONT, g if k in (0, len(calls)) else ""))
        # Tracks past MAX_TRACKS go on their group's last lane.
        last = {"calls": calls[-1], "phases": phases[-1]}
        per = {}
        for s in r.spans:
            t = s.track if s.track in lane_of else last[r.tracks[s.track][0]]
            per.setdefault(lane_of.get(t, 0), []).append(s)
        for k, spans in sorted(per.items()):
            for x, w, counter, level in _raster(spans, t0, scale, plot_w):
                h = (row - 2) * level / 4.0
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s'
                           '</title></rect>' % (left + x, y + k * row + 1 + (row - 2) - h, w, h,
                                                load.colour(counter), escape(counter)))
        if r.dropped:
            out.append('<text x="%d" y="%d" %s fill="#b00">%d spans dropped</text>'
                       % (left + 4, y + n * row + 6, FONT, r.dropped))
        y += n * row + gap
    out.append('<text x="%d" y="%d" %s fill="#666">seconds since esmio_init on rank 0\'s clock'
               '</text>' % (left, height - 10, FONT))
    out.append("</svg>")
    return "\n".join(out)


def legend(names):
    items = []
    for n in names:
        items.append('<span class="key"><svg width="12" height="12"><rect width="12" height="12" '
                     'fill="%s"/></svg> %s</span>' % (load.colour(n), escape(n)))
    return " ".join(items)


def bin_label(b):
    n = 1 << b
    for unit, div in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= div:
            return "%d%s" % (n // div, unit)
    return "%d" % n


def histogram(bins, title, width=620, height=200, colour="#d62728"):
    """Request sizes: one bar per power of two between the first and last bin in use."""
    used = [b for b, n in enumerate(bins) if n]
    if not used:
        return '<p class="muted">%s: no backend requests.</p>' % escape(title)
    lo, hi = max(0, used[0] - 1), min(len(bins) - 1, used[-1] + 1)
    nb = hi - lo + 1
    left, bottom, top = 50, 40, 22
    plot_w, plot_h = width - left - 10, height - bottom - top
    bw = plot_w / nb
    peak = max(bins)
    label_every = max(1, math.ceil(24 / bw))
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
           'aria-label="%s">' % (width, height, escape(title)),
           '<rect width="100%%" height="100%%" fill="#ffffff"/>',
           '<text x="%d" y="14" %s font-weight="bold">%s</text>' % (left, FONT, escape(title))]
    for k in range(nb):
        b = lo + k
        n = bins[b]
        h = plot_h * n / peak if peak else 0
        x = left + k * bw
        fill = "#f28e8e" if b < 16 else colour
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>[%s, %s):'
                   ' %d</title></rect>' % (x + 1, top + plot_h - h, max(bw - 2, 1), h, fill,
                                           bin_label(b), bin_label(b + 1), n))
        if n:
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-family="sans-serif" '
                       'font-size="9">%d</text>' % (x + bw / 2, top + plot_h - h - 2, n))
        if k % label_every == 0:
            out.append('<text x="%.1f" y="%d" text-anchor="middle" font-family="sans-serif" '
                       'font-size="9">%s</text>' % (x + bw / 2, top + plot_h + 12, bin_label(b)))
    if lo < 16 <= hi:
        x = left + (16 - lo) * bw
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="3,2"/>'
                   % (x, top, x, top + plot_h))
        out.append('<text x="%.1f" y="%d" %s>64 KiB</text>' % (x + 3, top + 10, FONT))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>'
               % (left, top + plot_h, left + plot_w, top + plot_h))
    out.append('<text x="%d" y="%d" %s fill="#666">request size (bytes, power-of-two bins; '
               'light: under 64 KiB)</text>' % (left, height - 6, FONT))
    out.append("</svg>")
    return "\n".join(out)


def bars(rows, title, unit, width=620):
    """Horizontal bars: rows = [(label, value, colour)]."""
    if not rows:
        return ""
    row, left, top = 18, 170, 22
    height = top + row * len(rows) + 8
    peak = max(v for _, v, _ in rows) or 1
    plot_w = width - left - 90
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
           'aria-label="%s">' % (width, height, escape(title)),
           '<rect width="100%%" height="100%%" fill="#ffffff"/>',
           '<text x="6" y="14" %s font-weight="bold">%s</text>' % (FONT, escape(title))]
    for k, (label, v, c) in enumerate(rows):
        y = top + k * row
        w = plot_w * v / peak
        out.append('<text x="%d" y="%d" text-anchor="end" %s>%s</text>'
                   % (left - 6, y + 12, FONT, escape(label)))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                   % (left, y + 2, max(w, 0.5), row - 4, c))
        out.append('<text x="%.1f" y="%d" %s>%s</text>' % (left + w + 4, y + 12, FONT,
                                                           escape(unit(v))))
    out.append("</svg>")
    return "\n".join(out)
