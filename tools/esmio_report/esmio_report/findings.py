"""Findings: each a rule over the trace, with its threshold here, in plain words with the
evidence. A rule returns None (nothing to say) or a Finding. docs/report.md lists them.

The counters cannot tell everything: only esmio's zstd filter is timed (HDF5's built-in deflate
and shuffle run unseen inside backend_write), spans carry no bytes, and a rate measured before
the data reached the disk is a page-cache rate. The rules say what the trace shows and what is
inferred from it.
"""

from . import load

KIB = 1024
MIB = 1024 * 1024

# small_requests: fires when at least SMALL_SHARE of the backend requests (by count, reads and
# writes, all ranks) are smaller than SMALL_BYTES, and there are at least SMALL_MIN_REQUESTS.
SMALL_BYTES = 64 * KIB
SMALL_SHARE = 0.50
SMALL_MIN_REQUESTS = 16
# idle_io_task: an I/O task whose backend_write seconds or bytes are under IDLE_SHARE of the
# busiest's (at least two I/O tasks, the busiest writing for at least IDLE_MIN_SECONDS or at
# least IDLE_MIN_BYTES). Bytes catch a task that waits in the collective writes for as long as
# the others but has little or nothing of its own to write.
IDLE_SHARE = 0.50
IDLE_MIN_SECONDS = 0.001
IDLE_MIN_BYTES = 1 * MIB
# dominant_phase: one phase takes at least DOMINANT_SHARE of the write calls' time
# (write_darray + put_vara + sync + close), summed over the ranks that make them.
DOMINANT_SHARE = 0.50
# page_cache: bytes written (at least PAGE_CACHE_MIN_BYTES) and no esmio_sync call anywhere,
# and no staged copy-back verification (stage_verify makes the blocks durable).
PAGE_CACHE_MIN_BYTES = 1 * MIB
# async_wait: compute ranks waited for buffer space at least ASYNC_WAIT_SHARE of their write
# calls' time (or any wait when the write time is unknown).
ASYNC_WAIT_SHARE = 0.05
# stage_verify: the copy-back's verification takes at least VERIFY_SHARE of stage_copy.
VERIFY_SHARE = 0.25
# compression: zstd's compression takes at least COMPRESSION_SHARE of backend_write (sums over
# ranks).
COMPRESSION_SHARE = 0.50
# rechunk: HDF5 decompressed at least RECHUNK_MIN chunks during a trace without reads.
RECHUNK_MIN = 1
# busy_servers: the I/O servers waited for work (serve_wait) less than SERVER_IDLE_SHARE of
# their traced time, on average.
SERVER_IDLE_SHARE = 0.10


class Finding:
    def __init__(self, rule, level, title, evidence, advice=""):
        self.rule = rule          # the rule's name (small_requests, ...)
        self.level = level        # "warn" (worth acting on) or "info"
        self.title = title        # the finding, one sentence
        self.evidence = evidence  # the numbers behind it
        self.advice = advice      # what to try

    def __repr__(self):
        return "Finding(%s: %s)" % (self.rule, self.title)


def size_text(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            v = n / div
            return ("%.0f %s" if v >= 100 else "%.3g %s") % (v, unit)
    return "%d B" % n


def pct(x):
    return "%.0f %%" % (100 * x) if x >= 0.01 or x == 0 else "%.1f %%" % (100 * x)


def small_requests(tr):
    bins = tr.request_sizes()
    total = sum(bins)
    limit = SMALL_BYTES.bit_length() - 1  # bins below this hold sizes < SMALL_BYTES
    small = sum(bins[:limit])
    if total < SMALL_MIN_REQUESTS or small < SMALL_SHARE * total:
        return None
    share = small / total
    be = tr.total("backend_write", "bytes") + tr.total("backend_read", "bytes")
    calls = tr.total("backend_write", "calls") + tr.total("backend_read", "calls")
    evidence = ("%d of %d backend requests (all I/O tasks, reads and writes) are under %s; "
                "mean request %s over %d backend calls"
                % (small, total, size_text(SMALL_BYTES), size_text(be // calls if calls else 0),
                   calls))
    cache = tr.settings.get("cache", "")
    advice = ("Small requests cost a round trip each in the storage library and the file system. "
              "Enable the write cache (cache=size=8M, the default; a file created with "
              "cache=size=0 has it off) or make it larger: a flush joins adjacent pieces into "
              "large requests.")
    if cache:
        advice += " The instance's setting is cache=%s." % cache
    return Finding("small_requests", "warn",
                   "%s of backend requests are under %s: enable the cache"
                   % (pct(share), size_text(SMALL_BYTES)), evidence, advice)


def idle_io_tasks(tr):
    tasks = tr.io_ranks
    if len(tasks) < 2:
        return None

    def seconds(r):
        return r.total("backend_write")

    def nbytes(r):
        return r.total("backend_write", "bytes")

    # Bytes first: a task with nothing to write still spends the collective write's time.
    for measure, floor, what in ((nbytes, IDLE_MIN_BYTES, "bytes"),
                                 (seconds, IDLE_MIN_SECONDS, "seconds")):
        busiest = max(tasks, key=measure)
        top = measure(busiest)
        if top < floor:
            continue
        idle = [r for r in tasks if measure(r) < IDLE_SHARE * top]
        if idle:
            break
    else:
        return None
    worst = min(idle, key=measure)
    share = 1 - measure(worst) / top
    lines = ["I/O task %d (rank %d): backend_write %.3g s, %s"
             % (r.io_task, r.rank, seconds(r), size_text(nbytes(r)))
             for r in sorted(tasks, key=lambda r: r.io_task)]
    others = "" if len(idle) == 1 else " (%d tasks under %s of the busiest)" % (len(idle), pct(IDLE_SHARE))
    title = ("I/O task %d idle %s of the write%s" % (worst.io_task, pct(share), others)
             if what == "seconds" else
             "I/O task %d wrote %s of the bytes the busiest wrote%s"
             % (worst.io_task, pct(1 - share), others))
    return Finding("idle_io_task", "warn", title,
                   "; ".join(lines) + ". The busiest, I/O task %d, sets the pace."
                   % busiest.io_task,
                   "The decomposition gives the I/O tasks unequal shares of the file: try "
                   "layout=box or another num_iotasks / iotask_stride, or check that every task "
                   "holds part of every variable.")


def dominant_phase(tr):
    write = sum(r.write_seconds() for r in tr.ranks)
    if write <= 0:
        return None
    phases = {n: tr.total(n) for n in ("convert", "rearrange", "place", "backend_write",
                                      "async_wait", "stage_copy") if n in tr.counters}
    if not phases:
        return None
    name = max(phases, key=phases.get)
    share = phases[name] / write
    if share < DOMINANT_SHARE:
        return None
    evidence = ("%s: %.3g s of %.3g s in write_darray, put_vara, sync and close, summed over %d ranks"
                % (name, phases[name], write, len(tr.ranks)))
    compression = tr.settings.get("compression", "")
    if name == "backend_write" and compression:
        title = ("the storage library takes %s of the write time (backend_write, where "
                 "HDF5 runs the compression filters)" % pct(share))
        advice = ("With compression=%s the codec runs inside backend_write: the compression "
                  "finding (zstd only) says how much of it is the codec; compare with a run "
                  "without compression for deflate." % compression)
    elif name == "backend_write":
        title = "the storage library takes %s of the write time (backend_write)" % pct(share)
        bw = tr.total("backend_write", "bytes")
        evidence += "; %s handed over" % size_text(bw)
        advice = ("The time is below esmio, in the storage library and the file system. If files "
                  "are netCDF-4 with compression (set per file, not in this trace's settings), "
                  "the codec runs here too. Larger requests (the cache, max_request, align) or "
                  "more I/O tasks may help.")
    elif name == "rearrange":
        title = "the exchange between ranks takes %s of the write time (rearrange)" % pct(share)
        advice = ("Most time goes to moving data to the I/O tasks: more I/O tasks, layout=box, "
                  "or a decomposition closer to the file's order reduce it.")
    elif name == "place":
        title = ("putting what arrived in file order takes %s of the write time (place)"
                 % pct(share))
        advice = ("The I/O tasks place each element of a scattered map (one element per run, as "
                  "E3SM's) where the file has it: more I/O tasks share that work.")
    elif name == "convert":
        title = "type conversion and packing take %s of the write time (convert)" % pct(share)
        advice = ("Conversion runs on the compute ranks (quantization too): writing the memory "
                  "type the file holds avoids it.")
    elif name == "async_wait":
        title = "waiting for asynchronous buffer space takes %s of the write time" % pct(share)
        advice = "Raise async_buffer or add I/O servers (io_servers)."
    else:
        title = "%s takes %s of the write time" % (name, pct(share))
        advice = "The staged copy-back runs inside close (stage_copy=close): try stage_copy=background."
    return Finding("dominant_phase", "warn", title, evidence, advice)


def page_cache(tr):
    written = tr.total("backend_write", "bytes")
    if written < PAGE_CACHE_MIN_BYTES or tr.total("sync", "calls") > 0:
        return None
    if tr.total("stage_verify", "calls") > 0:
        return None
    tasks = tr.io_ranks or tr.ranks
    wall = max((r.total("backend_write") for r in tasks), default=0)
    close = max((r.total("close") for r in tr.ranks), default=0)
    rate = written / wall / MIB if wall > 0 else 0
    return Finding("page_cache", "info",
                   "the write ended in the page cache: the rate is not a disk rate",
                   "%s written with no esmio_sync call on any rank (sync calls: 0); the busiest I/O "
                   "task spent %.3g s in backend_write (%.0f MiB/s) and the longest close took "
                   "%.3g s. Without a sync the data may still be in memory when the program "
                   "ends (an fsync outside esmio, such as esmio-bench's durable mode, is not in "
                   "the trace)." % (size_text(written), wall, rate, close),
                   "Call esmio_sync before the last close (or measure with a sync) to time the "
                   "disk; a rate without it measures memory copies.")


def async_waits(tr):
    waits = [r for r in tr.ranks if r.total("async_wait", "calls") > 0]
    if not waits:
        return None
    seconds = sum(r.total("async_wait") for r in waits)
    write = sum(r.write_seconds() for r in waits)
    share = seconds / write if write > 0 else 1.0
    if write > 0 and share < ASYNC_WAIT_SHARE:
        return None
    worst = max(waits, key=lambda r: r.total("async_wait"))
    return Finding("async_wait", "warn",
                   "async: compute ranks waited %.3g s for buffer space (async_wait), %s of their "
                   "write time" % (seconds, pct(share)),
                   "%d ranks waited in %d calls; rank %d longest: %.3g s; the servers had not "
                   "freed the buffer yet (back-pressure)."
                   % (len(waits), sum(r.total("async_wait", "calls") for r in waits), worst.rank,
                      worst.total("async_wait")),
                   "Raise async_buffer (now %s) or add I/O servers (io_servers=%s)."
                   % (tr.settings.get("async_buffer", "?"), tr.settings.get("io_servers", "?")))


def stage_verify(tr):
    copy = tr.total("stage_copy")
    verify = tr.total("stage_verify")
    if copy <= 0 or verify <= 0:
        return None
    share = verify / copy
    if share < VERIFY_SHARE:
        return None
    return Finding("stage_verify", "info",
                   "staging: the copy-back's verification took %s of it (stage_verify)" % pct(share),
                   "stage_copy %.3g s, of which stage_write %.3g s and stage_verify %.3g s "
                   "(fdatasync and read-back of %s), summed over ranks"
                   % (copy, tr.total("stage_write"), verify, size_text(tr.total("stage_verify", "bytes"))),
                   "Verification makes the copy durable and checks it; it is the price of a "
                   "checked copy. stage_copy=background hides it behind computation.")


def dropped_spans(tr):
    dropped = tr.dropped
    if dropped == 0:
        return None
    worst = max(tr.ranks, key=lambda r: r.dropped)
    return Finding("dropped_spans", "info",
                   "the timeline is incomplete: %d spans were not kept" % dropped,
                   "at most %d spans per rank (trace_spans); rank %d dropped %d. The counters "
                   "still hold every call; the timeline stops at the limit."
                   % (worst.max_spans, worst.rank, worst.dropped),
                   "Raise trace_spans (40 bytes a span) to see the whole run.")


def compression(tr):
    zc = tr.codecs().get(("zstd", "compress"))
    bw = tr.total("backend_write")
    if zc is None or bw <= 0 or zc.seconds < COMPRESSION_SHARE * bw:
        return None
    share = zc.seconds / bw
    return Finding("compression", "warn",
                   "compression takes %s of the write time in the storage library: try zstd:1"
                   % pct(share),
                   "zstd compressed %d chunks, %s into %s (%.2fx), in %.3g s of backend_write's "
                   "%.3g s (sums over ranks): %.0f MiB/s per core"
                   % (zc.calls, size_text(zc.bytes_in), size_text(zc.bytes_out),
                      zc.bytes_in / zc.bytes_out if zc.bytes_out else 0, zc.seconds, bw,
                      zc.bytes_in / zc.seconds / MIB if zc.seconds > 0 else 0),
                   "A lower level (zstd:1, esmio's default for 'zstd') is several times faster "
                   "for a few per cent of ratio; quantization (quantize=information:0.99) makes "
                   "the data both smaller and faster to compress; more I/O tasks compress on more "
                   "cores.")


def rechunk(tr):
    zd = tr.codecs().get(("zstd", "decompress"))
    zc = tr.codecs().get(("zstd", "compress"))
    if zd is None or zc is None or zd.calls < RECHUNK_MIN or tr.total("backend_read", "calls") > 0:
        return None
    written = tr.total("backend_write", "bytes")
    read_back = tr.settings.get("read_back", "true") != "false"
    return Finding("rechunk", "info",
                   "HDF5 decompressed %d chunks during the write" % zd.calls,
                   "no esmio read call, yet zstd decompressed %d chunks (%s, %.3g s) and "
                   "compressed %s for %s handed to the storage library. Two causes: %s; and "
                   "chunks written in parts (a variable split across cache flushes or I/O tasks' "
                   "requests) are read, decompressed, merged and compressed again. Chunks "
                   "compressed more than once show as more compressed than handed over."
                   % (zd.calls, size_text(zd.bytes_out), zd.seconds, size_text(zc.bytes_in),
                      size_text(written),
                      "read_back=true (the instance's setting) reads two elements of every box "
                      "written, and each costs its chunk's decompression" if read_back else
                      "read_back is off here, so not its corner reads"),
                   "read_back=false saves the corner reads where the file system reports write "
                   "errors to the writer; a chunk shape that divides what one I/O task writes in "
                   "one request (esmio_def_var_chunking), or a write cache holding whole "
                   "variables, saves the rewrites.")


def busy_servers(tr):
    servers = [r for r in tr.servers if r.spans]
    if not servers:
        return None
    shares = []
    for r in servers:
        traced = max(s.end for s in r.spans) - min(s.start for s in r.spans)
        if traced > 0:
            shares.append(r.total("serve_wait") / traced)
    if not shares:
        return None
    idle = sum(shares) / len(shares)
    if idle >= SERVER_IDLE_SHARE:
        return None
    return Finding("busy_servers", "warn",
                   "the I/O servers were busy %s of the run" % pct(1 - idle),
                   "%d servers waited for calls (serve_wait) %s of their traced time on average; "
                   "compute ranks waited for buffer space %.3g s (async_wait)"
                   % (len(servers), pct(idle), tr.total("async_wait")),
                   "Servers that never wait are the bottleneck: add I/O servers (io_servers=%s "
                   "now) or give them cores of their own." % tr.settings.get("io_servers", "?"))


RULES = (small_requests, idle_io_tasks, dominant_phase, compression, rechunk, page_cache,
         async_waits, busy_servers, stage_verify, dropped_spans)


def findings(tr):
    out = []
    for rule in RULES:
        f = rule(tr)
        if f is not None:
            out.append(f)
    return out
