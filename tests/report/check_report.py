#!/usr/bin/python3
"""esmio-report on traces of real runs (ctest label "report").

    check_report.py CASE --report <build>/tools/esmio-report --lib <src>/tools/esmio_report
                    --out DIR [--mpiexec mpirun --mpiexec-flag=--oversubscribe --np-flag -np]
                    [--demo <build>/esmio_demo --demo-grid LEVxLATxLON]
                    [--bench <build>/tools/esmio-bench]

CASE:
  demo           mpirun -np 4 esmio_demo (1 record, on --demo-grid) with ESMIO_TRACE; the
                 report must not find small requests (the demo writes whole fields); variable
                 names and the callers' bytes per write_darray are in the trace and the
                 per-variable table
  small-nocache  esmio-bench small --scale 0.1 --variants esmio-nocache (cache off): the
                 small-request finding must appear
  small-cache    the same with --variants esmio (cache on): it must not
  compressed     esmio-bench cam-fvd --scale 0.25, netCDF-4 with zstd:1:shuffle: the trace
                 holds the zstd filter's work (chunks, bytes, seconds; a ratio above 1), the
                 HTML its codec table; read_back's corner reads show as the rechunk finding
  async          esmio-bench model-loop with one I/O server (np 3): the server's entry follows
                 the compute ranks' (role, world rank), holds its own phases (serve_wait,
                 backend_write) on the same clock, and the page and the trace events show it

For each: the HTML is produced, self-contained (no script, nothing fetched) and holds the
timeline, the request sizes and the findings; with Debian's chromium installed it is opened
headless, a screenshot is taken and must be non-blank and show the timeline's colours; the
--text findings are the expected ones; the --trace-events JSON validates against the trace-event
format (keys, types, non-negative times, proper nesting per thread, one event per span); --png
(when matplotlib imports) writes a non-blank PNG. No timing thresholds.
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

FAILURES = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
    return cond


def run(cmd, env=None, timeout=540):
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, universal_newlines=True)
    if p.returncode != 0:
        print(p.stdout[-4000:])
    return p


def start(cmd):
    """Starts cmd in the background (its output kept for finish)."""
    print("+ " + " ".join(cmd) + " &", flush=True)
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)


def finish(proc, timeout):
    """Waits for a command start() began, as run() would have (killed after timeout s)."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        print("killed after %d s: %s" % (timeout, " ".join(proc.args)))
    if proc.returncode != 0:
        print(out[-4000:])
    return proc


# ---- PNG decoding (zlib only): 8-bit greyscale/RGB/RGBA, non-interlaced ----

def png_pixels(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace or ctype not in (0, 2, 6, 4):
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)"
                         % (depth, ctype, interlace))
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def colour_census(path, colours):
    """(share of non-white pixels, {hex colour: pixels within 6 per channel})."""
    w, h, bpp, rows = png_pixels(path)
    want = {c: tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in colours}
    found = dict.fromkeys(colours, 0)
    nonwhite = 0
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = tuple(line[x:x + 3]) if bpp >= 3 else (line[x],) * 3
            if min(px) < 240:
                nonwhite += 1
                for c, rgb in want.items():
                    if all(abs(px[k] - rgb[k]) <= 6 for k in range(3)):
                        found[c] += 1
    return nonwhite / float(w * h), found


# ---- the trace-event format ----

def validate_trace_events(path, trace):
    with open(path) as f:
        doc = json.load(f)
    if not check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
                 "trace events: an object with a traceEvents list"):
        return
    events = doc["traceEvents"]
    num = (int, float)
    bad, names, spans = [], {}, 0
    per_thread = {}
    for e in events:
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or \
                e.get("ph") not in ("X", "M") or type(e.get("pid")) is not int or \
                type(e.get("tid")) is not int:
            bad.append(e)
            continue
        if e["ph"] == "M":
            if e["name"] == "process_name":
                names[e["pid"]] = e.get("args", {}).get("name")
            if not isinstance(e.get("args"), dict):
                bad.append(e)
            continue
        spans += 1
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(e.get("cat"), str) or not isinstance(ts, num) or isinstance(ts, bool) \
                or not isinstance(dur, num) or isinstance(dur, bool) or ts < 0 or dur < 0:
            bad.append(e)
            continue
        per_thread.setdefault((e["pid"], e["tid"]), []).append((ts, ts + dur, e["name"]))
    check(not bad, "trace events: every event has name, ph, pid, tid (and X: cat, ts >= 0, "
          "dur >= 0) of the right types (%d bad%s)" % (len(bad), ": %r" % bad[:2] if bad else ""))
    nspans = sum(len(r["timeline"]["spans"]) for r in trace["ranks"])
    check(spans == nspans, "trace events: one complete event per span (%d, trace %d)"
          % (spans, nspans))
    # Compute ranks are "rank N", I/O servers "server rank W" (W: the world rank).
    want = {r["rank"]: ("server rank %d" % r["world_rank"]) if r.get("role") == "server"
            else "rank %d" % r["rank"] for r in trace["ranks"]}
    check(all(isinstance(names.get(r), str) and names[r].startswith(w) for r, w in want.items()),
          "trace events: a process_name \"rank N\" (\"server rank W\") for every rank")
    broken = []
    for key, evs in per_thread.items():
        evs.sort(key=lambda t: (t[0], -t[1]))
        stack = []
        for t0, t1, name in evs:
            while stack and stack[-1][1] <= t0 + 1e-6:
                stack.pop()
            if stack and t1 > stack[-1][1] + 1e-6:
                broken.append((key, name, t0, t1, stack[-1]))
            stack.append((t0, t1, name))
    check(not broken, "trace events: events on each (pid, tid) nest properly (%d overlaps%s)"
          % (len(broken), ": %r" % broken[:2] if broken else ""))


# ---- one report ----

def check_report(args, trace_path, name, expect, refuse):
    with open(trace_path) as f:
        trace = json.load(f)
    check(sum(len(r["timeline"]["spans"]) for r in trace["ranks"]) > 0, name + ": the trace has spans")
    html_path = os.path.join(args.out, name + ".html")
    te_path = os.path.join(args.out, name + ".trace_events.json")
    png_path = os.path.join(args.out, name + ".timeline.png")
    p = run([args.report, trace_path, "-o", html_path, "--text", "--trace-events", te_path])
    check(p.returncode == 0, name + ": esmio-report exits 0")
    print(p.stdout)
    for rule in expect:
        check("[%s]" % rule in p.stdout, "%s: the %s finding appears" % (name, rule))
    for rule in refuse:
        check("[%s]" % rule not in p.stdout, "%s: no %s finding" % (name, rule))
    # The default output: report.html next to the trace.
    p2 = run([args.report, trace_path])
    check(p2.returncode == 0 and os.path.isfile(os.path.join(os.path.dirname(trace_path),
                                                             "report.html")),
          name + ": without -o, report.html next to the trace")
    if not check(os.path.isfile(html_path), name + ": the HTML report is written"):
        return
    with open(html_path, encoding="utf-8") as f:
        html = f.read()
    check("<script" not in html.lower() and "<link" not in html.lower() and " src=" not in html,
          name + ": self-contained (no script, no link, no src)")
    check(html.count("http") == html.count("http://www.w3.org/2000/svg"),
          name + ": no web address but the SVG namespace")
    for part in ("Findings", "Timeline per rank", "Request sizes", "Files and variables",
                 "Balance across I/O tasks", "Effective settings"):
        check(part in html, "%s: the section '%s'" % (name, part))
    check(html.count("<svg") >= 3, name + ": inline SVG charts")
    for rule in expect:
        check("rule: " + rule in html, "%s: the HTML shows the %s finding" % (name, rule))
    for rule in refuse:
        check("rule: " + rule not in html, "%s: the HTML does not show %s" % (name, rule))
    # The colours the timeline must show: those of the counters with spans.
    sys.path.insert(0, args.lib)
    from esmio_report import load
    used = {trace["counters"][s[0]] for r in trace["ranks"] for s in r["timeline"]["spans"]}
    must = [load.colour(n) for n in ("write_darray", "backend_write") if n in used]

    # chromium's screenshot takes seconds, mostly its own start: it runs while the trace events
    # and the --png timeline are checked, and its picture is checked last.
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    shot = os.path.join(args.out, name + ".screenshot.png")
    browser = None
    if chromium:
        if os.path.exists(shot):
            os.remove(shot)
        browser = start([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                         "--hide-scrollbars", "--screenshot=" + shot, "--window-size=1400,1000",
                         "file://" + os.path.abspath(html_path)])
    else:
        print("note  chromium is not installed (Debian package chromium): no screenshot check")

    if check(os.path.isfile(te_path), name + ": the trace-event JSON is written"):
        validate_trace_events(te_path, trace)

    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
    if have_mpl:
        p = run([args.report, trace_path, "--no-html", "--png", png_path])
        if check(p.returncode == 0 and os.path.isfile(png_path), name + ": --png writes a PNG"):
            share, found = colour_census(png_path, must)
            check(share > 0.02, "%s: the --png timeline is not blank (%.1f %%)" % (name, 100 * share))
    else:
        print("note  matplotlib does not import: no --png check")

    if browser is not None:
        finish(browser, timeout=180)
        if check(os.path.isfile(shot), name + ": chromium took a screenshot"):
            share, found = colour_census(shot, must)
            check(share > 0.02, "%s: the screenshot is not blank (%.1f %% non-white)"
                  % (name, 100 * share))
            for c in must:
                check(found[c] >= 30, "%s: the screenshot shows the timeline colour %s (%d px)"
                      % (name, c, found[c]))


def check_codecs(args, trace_path):
    with open(trace_path) as f:
        trace = json.load(f)
    for r in trace["ranks"]:
        z = r.get("codecs", {}).get("zstd", {}).get("compress")
        if not check(z is not None, "rank %d: the trace holds zstd's compression" % r["rank"]):
            continue
        check(z["calls"] > 0 and z["bytes_in"] > z["bytes_out"] > 0 and z["seconds"] > 0,
              "rank %d: zstd compressed %d chunks, %d -> %d bytes" % (r["rank"], z["calls"],
                                                                     z["bytes_in"], z["bytes_out"]))
        # Every byte the rank handed to HDF5 went through the codec at least once.
        check(z["bytes_in"] >= r["totals"]["backend_write"]["bytes"],
              "rank %d: compressed bytes cover the bytes written" % r["rank"])
        check(r.get("memory", {}).get("max_rss_bytes", 0) > 0,
              "rank %d: a memory high-water mark" % r["rank"])
    p = run([args.report, trace_path, "-o", os.path.join(args.out, "codecs.html")])
    with open(os.path.join(args.out, "codecs.html"), encoding="utf-8") as f:
        html = f.read()
    check(p.returncode == 0 and "<h3>Codecs</h3>" in html and "<td class=\"l\">zstd</td>" in html,
          "the HTML has the codec table with zstd")
    check("peak memory (RSS)" in html, "the HTML shows peak memory per rank")


def check_variables(args, trace_path):
    """The demo's file: variable names recorded at its close, write_darray spans carrying the
    caller's bytes (the demo writes float64 fields), and the page's per-variable table naming
    them with bytes and a rate."""
    with open(trace_path) as f:
        trace = json.load(f)
    names = trace["counters"]
    for r in trace["ranks"]:
        tl = r["timeline"]
        var_names = tl.get("variables", {})
        check(any("T" in v for v in var_names.values()),
              "rank %d: the file's variable names are in the trace" % r["rank"])
        writes = [x for x in tl["spans"] if names[x[0]] == "write_darray"]
        check(writes and all(len(x) > 5 and x[5] > 0 and x[5] % 8 == 0 for x in writes),
              "rank %d: every write_darray span carries its buffer's bytes (float64)" % r["rank"])
        total = sum(x[5] for x in writes)
        check(total == r["totals"]["write_darray"]["bytes"],
              "rank %d: the spans' bytes add up to the write_darray counter (%d)" % (r["rank"], total))
    p = run([args.report, trace_path, "-o", os.path.join(args.out, "variables.html")])
    with open(os.path.join(args.out, "variables.html"), encoding="utf-8") as f:
        html = f.read()
    i = html.find("<h3>Per variable</h3>")
    named = re.findall(r'<td>(\w+) \(\d+\)</td>', html[i:]) if i >= 0 else []
    check(p.returncode == 0 and len(named) > 0 and "MiB/s" in html[i:],
          "the per-variable table names the variables (%s...) and shows bytes and a rate"
          % ", ".join(named[:3]))


def check_servers(args, trace_path):
    with open(trace_path) as f:
        trace = json.load(f)
    names = trace["counters"]
    ranks = trace["ranks"]
    servers = [r for r in ranks if r.get("role") == "server"]
    compute = [r for r in ranks if r.get("role") != "server"]
    check(len(servers) == 1 and trace.get("server_ranks") == 1 and trace["nranks"] == 3,
          "one server entry after two compute ranks (nranks %s, server_ranks %s)"
          % (trace["nranks"], trace.get("server_ranks")))
    check([r["rank"] for r in ranks] == [0, 1, 2], "entries numbered 0, 1, 2")
    if not servers:
        return
    s = servers[0]
    check(s.get("world_rank") == 2 and s["io_task"] == 0, "the server is world rank 2, I/O task 0")
    used = {names[x[0]] for x in s["timeline"]["spans"]}
    for n in ("serve_wait", "serve_receive", "write_darray", "backend_write", "close"):
        check(n in used, "the server's timeline has %s spans" % n)
    check(s["totals"]["backend_write"]["bytes"] > 0, "the server wrote the bytes")
    check(all(r["totals"]["backend_write"]["bytes"] == 0 for r in compute),
          "the compute ranks wrote nothing themselves")
    check(all(r["totals"]["async_post"]["calls"] > 0 for r in compute),
          "the compute ranks posted their calls")
    # The server replays the compute ranks' calls: as many closes (and spans of them) as each
    # compute rank made.
    def closes(r):
        return sum(1 for x in r["timeline"]["spans"] if names[x[0]] == "close")
    for r in compute:
        check(s["totals"]["close"]["calls"] == r["totals"]["close"]["calls"] == closes(s) > 0,
              "the server closed each file rank %d closed (%d, %d)"
              % (r["rank"], s["totals"]["close"]["calls"], r["totals"]["close"]["calls"]))
    check(min(x[1] for x in s["timeline"]["spans"]) >= 0, "the server's spans start after 0")
    p = run([args.report, trace_path, "--text", "--no-html"])
    check(p.returncode == 0 and "s2 " in p.stdout, "--text lists the server as s2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=("demo", "small-nocache", "small-cache", "compressed", "async"))
    ap.add_argument("--report", required=True)
    ap.add_argument("--lib", required=True, help="the directory holding the esmio_report package")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--mpiexec-flag", action="append", default=[],
                    help="an option of mpiexec (--mpiexec-flag=--oversubscribe)")
    ap.add_argument("--np-flag", default="-np")
    ap.add_argument("--demo")
    ap.add_argument("--demo-grid", default="26x361x576", help="the demo's grid, LEVxLATxLON")
    ap.add_argument("--bench")
    args = ap.parse_args()
    args.mpiexec = [args.mpiexec] + args.mpiexec_flag
    args.out = os.path.join(os.path.abspath(args.out), args.case)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    trace = os.path.join(args.out, "trace.json")
    env = dict(os.environ, ESMIO_TRACE=trace)
    if args.case == "demo":
        p = run(args.mpiexec + [args.np_flag, "4", args.demo, os.path.join(args.out, "demo.nc"), "1",
                                args.demo_grid], env=env)
        check(p.returncode == 0, "the demo runs")
        expect, refuse = [], ["small_requests"]
    elif args.case == "compressed":
        p = run(args.mpiexec + [args.np_flag, "2", args.bench, "cam-fvd", "--scale", "0.25",
                                "--variants", "esmio", "--backend", "netcdf4", "--compression",
                                "zstd:1:shuffle", "--repeat", "1", "--dir",
                                os.path.join(args.out, "files")], env=env)
        check(p.returncode == 0, "esmio-bench cam-fvd netCDF-4 zstd:1:shuffle runs")
        expect, refuse = ["rechunk"], ["small_requests"]
    elif args.case == "async":
        p = run(args.mpiexec + [args.np_flag, "3", args.bench, "model-loop", "--scale", "0.25",
                                "--records", "2", "--compute", "0.2", "--compute-kind", "sleep",
                                "--servers", "1", "--repeat", "1", "--dir",
                                os.path.join(args.out, "files")], env=env)
        check(p.returncode == 0, "esmio-bench model-loop with one server runs")
        expect, refuse = [], []
    else:
        variant = "esmio-nocache" if args.case == "small-nocache" else "esmio"
        p = run(args.mpiexec + [args.np_flag, "4", args.bench, "small", "--scale", "0.1", "--variants",
                                variant, "--repeat", "1", "--dir", os.path.join(args.out, "files")],
                env=env)
        check(p.returncode == 0, "esmio-bench small --variants %s runs" % variant)
        expect, refuse = (["small_requests"], []) if variant == "esmio-nocache" else \
            ([], ["small_requests"])
    if check(os.path.isfile(trace), "ESMIO_TRACE wrote the trace"):
        if args.case == "compressed":
            check_codecs(args, trace)
        if args.case == "async":
            check_servers(args, trace)
        if args.case == "demo":
            check_variables(args, trace)
        check_report(args, trace, args.case, expect, refuse)
    for f in ("demo.nc",):
        path = os.path.join(args.out, f)
        if os.path.exists(path):
            os.remove(path)
    shutil.rmtree(os.path.join(args.out, "files"), ignore_errors=True)
    if FAILURES:
        print("%d checks failed:\n  %s" % (len(FAILURES), "\n  ".join(FAILURES)))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
