"""The trace report of esmio_finalize (ESMIO_TRACE=path), read into a model.

The JSON (src/api/trace_api.cpp, src/trace/timeline.hpp):
  {"settings": "k=v,...", "io_layout": "how the I/O tasks were chosen", "nranks": N,
   "server_ranks": S, "counters": [names],
   "ranks": [{"rank", "io_task" (-1: not an I/O task),
              "role": "server", "world_rank" (asynchronous mode's I/O servers only; they
              follow the compute ranks),
              "memory": {"max_rss_bytes"},
              "codecs": {"zstd": {"compress"|"decompress": {calls, bytes_in, bytes_out,
                                                          seconds}}},
              "totals": {counter: {calls, bytes, seconds}, ..., "request_sizes": [48 bins]},
              "files": [{"path", "counters": {...same...}}],
              "timeline": {"clock_offset", "max_spans", "dropped",
                           "dropped_by_counter": {name: {calls, seconds}},
                           "files": {id: path},
                           "variables": {file id: [name by variable id]} (closed files),
                           "spans": [[counter index, start s, end s, file id, variable id,
                                      bytes]]}}]}
"""

import json

# API counters time whole calls and never overlap; phase counters nest inside them (esmio.h).
API_COUNTERS = ("open", "define", "write_darray", "read_darray", "put_vara", "get_vara",
                "sync", "close", "plan")
PHASE_COUNTERS = ("convert", "rearrange", "place", "backend_write", "backend_read", "async_post",
                  "async_wait", "stage_copy", "stage_write", "stage_verify", "serve_wait",
                  "serve_receive", "read_ahead")
# The calls whose time is "the write" (with the write cache, the flush runs in sync and close).
WRITE_API = ("write_darray", "put_vara", "sync", "close")
BINS = 48  # request_sizes: bin b counts sizes in [2^b, 2^(b+1))

# One colour per counter (the SVG, PNG and legend share it).
COLOURS = {
    "open": "#8c564b", "define": "#c49c94", "write_darray": "#1f77b4", "read_darray": "#aec7e8",
    "put_vara": "#9edae5", "get_vara": "#17becf", "sync": "#7f7f7f", "close": "#393b79",
    "plan": "#bcbd22",
    "convert": "#2ca02c", "rearrange": "#ff7f0e", "place": "#ffbb78", "backend_write": "#d62728",
    "backend_read": "#ff9896", "async_post": "#9467bd", "async_wait": "#e377c2",
    "stage_copy": "#8ca252", "stage_write": "#637939", "stage_verify": "#e7ba52",
    "serve_wait": "#dadaeb", "serve_receive": "#6b6ecf", "read_ahead": "#c7c7c7",
}


def colour(name):
    return COLOURS.get(name, "#999999")


def is_api(name):
    return name in API_COUNTERS


class TraceError(Exception):
    """The file is not an esmio trace report."""


class Span:
    __slots__ = ("counter", "start", "end", "file", "variable", "bytes", "track")

    def __init__(self, counter, start, end, file, variable, nbytes=0):
        self.counter = counter
        self.start = start
        self.end = end
        self.file = file
        self.variable = variable
        self.bytes = nbytes
        self.track = 0

    @property
    def seconds(self):
        return self.end - self.start


class Rank:
    def __init__(self, raw, names):
        try:
            self.rank = int(raw["rank"])
            self.io_task = int(raw.get("io_task", -1))
            self.role = str(raw.get("role", "compute"))
            self.world_rank = int(raw.get("world_rank", -1))
            totals = raw["totals"]
        except (KeyError, TypeError, ValueError) as e:
            raise TraceError("a rank entry lacks %s" % e)
        self.totals = {n: _tally(totals.get(n)) for n in names}
        memory = raw.get("memory") or {}
        self.max_rss = int(memory.get("max_rss_bytes", -1))
        # {codec: {direction: Codec}}
        self.codecs = {}
        for codec, dirs in (raw.get("codecs") or {}).items():
            for d, t in (dirs or {}).items():
                self.codecs.setdefault(codec, {})[d] = Codec(t)
        bins = list(totals.get("request_sizes") or [])
        self.request_sizes = [int(b) for b in bins] + [0] * (BINS - len(bins))
        self.files = [(f.get("path", "?"), {n: _tally(f.get("counters", {}).get(n)) for n in names})
                      for f in raw.get("files", [])]
        tl = raw.get("timeline") or {}
        self.has_timeline = bool(raw.get("timeline"))
        self.max_spans = int(tl.get("max_spans", 0) or 0)
        self.dropped = int(tl.get("dropped", 0) or 0)
        self.dropped_by_counter = {k: (int(v.get("calls", 0)), float(v.get("seconds", 0.0)))
                                   for k, v in (tl.get("dropped_by_counter") or {}).items()}
        self.file_names = {int(k): v for k, v in (tl.get("files") or {}).items()}
        self.variable_names = {int(k): list(v) for k, v in (tl.get("variables") or {}).items()}
        self.spans = []
        for s in tl.get("spans", []):
            c = int(s[0])
            if not 0 <= c < len(names):
                raise TraceError("rank %d: span counter index %d out of range" % (self.rank, c))
            self.spans.append(Span(names[c], float(s[1]), float(s[2]),
                                   int(s[3]) if len(s) > 3 else -1,
                                   int(s[4]) if len(s) > 4 else -1,
                                   int(s[5]) if len(s) > 5 else 0))
        self.spans.sort(key=lambda sp: (sp.start, -sp.end))
        self.tracks = assign_tracks(self.spans)

    def total(self, name, field="seconds"):
        return getattr(self.totals.get(name), field, 0)

    @property
    def server(self):
        return self.role == "server"

    @property
    def label(self):
        who = "server rank %d" % self.world_rank if self.server else "rank %d" % self.rank
        return who + (" (I/O task %d)" % self.io_task if self.io_task >= 0 else "")

    def write_seconds(self):
        return sum(self.total(n) for n in WRITE_API)


class Tally:
    __slots__ = ("calls", "bytes", "seconds")

    def __init__(self, calls=0, nbytes=0, seconds=0.0):
        self.calls = calls
        self.bytes = nbytes
        self.seconds = seconds

    def add(self, other):
        self.calls += other.calls
        self.bytes += other.bytes
        self.seconds += other.seconds


class Codec:
    __slots__ = ("calls", "bytes_in", "bytes_out", "seconds")

    def __init__(self, raw=None):
        raw = raw if isinstance(raw, dict) else {}
        self.calls = int(raw.get("calls", 0))
        self.bytes_in = int(raw.get("bytes_in", 0))
        self.bytes_out = int(raw.get("bytes_out", 0))
        self.seconds = float(raw.get("seconds", 0.0))

    def add(self, other):
        self.calls += other.calls
        self.bytes_in += other.bytes_in
        self.bytes_out += other.bytes_out
        self.seconds += other.seconds


def _tally(raw):
    if not isinstance(raw, dict):
        return Tally()
    return Tally(int(raw.get("calls", 0)), int(raw.get("bytes", 0)), float(raw.get("seconds", 0.0)))


def assign_tracks(spans):
    """Gives every span a track so that spans on one track nest properly (either disjoint or
    one inside the other): API counters on the "calls" tracks, phases on the "phases" tracks.
    Returns [(group, index)] in track order; span.track indexes it."""
    groups = {"calls": [], "phases": []}   # group -> list of stacks (one per track)
    ids = set()
    eps = 1e-9
    for sp in spans:
        g = "calls" if is_api(sp.counter) else "phases"
        stacks = groups[g]
        for i, stack in enumerate(stacks):
            while stack and stack[-1] <= sp.start + eps:
                stack.pop()
            if not stack or stack[-1] >= sp.end - eps:
                stack.append(sp.end)
                break
        else:
            stacks.append([sp.end])
            i = len(stacks) - 1
        ids.add((g, i))
        sp.track = (g, i)
    # Track ids: calls first, then phases, each by nesting depth.
    order = sorted(ids, key=lambda t: (t[0] != "calls", t[1]))
    index = {t: k for k, t in enumerate(order)}
    for sp in spans:
        sp.track = index[sp.track]
    return order


class Trace:
    def __init__(self, raw, path="trace.json"):
        if not isinstance(raw, dict) or "ranks" not in raw or "counters" not in raw:
            raise TraceError("%s: not an esmio trace report (no \"ranks\"/\"counters\")" % path)
        self.path = path
        self.settings_text = str(raw.get("settings", ""))
        self.io_layout = str(raw.get("io_layout", ""))
        self.settings = parse_settings(self.settings_text)
        self.counters = [str(n) for n in raw["counters"]]
        self.nranks = int(raw.get("nranks", len(raw["ranks"])))
        self.ranks = sorted((Rank(r, self.counters) for r in raw["ranks"]), key=lambda r: r.rank)
        spans = [s for r in self.ranks for s in r.spans]
        self.t0 = min((s.start for s in spans), default=0.0)
        self.t1 = max((s.end for s in spans), default=0.0)

    @property
    def io_ranks(self):
        return [r for r in self.ranks if r.io_task >= 0]

    @property
    def servers(self):
        return [r for r in self.ranks if r.server]

    def codecs(self):
        """{(codec, direction): Codec summed over ranks}."""
        out = {}
        for r in self.ranks:
            for codec, dirs in r.codecs.items():
                for d, t in dirs.items():
                    out.setdefault((codec, d), Codec()).add(t)
        return out

    @property
    def dropped(self):
        return sum(r.dropped for r in self.ranks)

    def total(self, name, field="seconds", ranks=None):
        return sum(r.total(name, field) for r in (self.ranks if ranks is None else ranks))

    def request_sizes(self, ranks=None):
        out = [0] * BINS
        for r in (self.ranks if ranks is None else ranks):
            for b, n in enumerate(r.request_sizes[:BINS]):
                out[b] += n
        return out

    def present(self, name):
        return any(r.total(name, "calls") > 0 for r in self.ranks)

    def files(self):
        """Per path: the counters summed over ranks, and max over ranks of each counter's
        seconds (ranks work in parallel), and the wall time from the file's first to last span."""
        out = {}
        for r in self.ranks:
            per_rank = {}
            for path, counters in r.files:
                acc = per_rank.setdefault(path, {n: Tally() for n in self.counters})
                for n, t in counters.items():
                    acc[n].add(t)
            for path, acc in per_rank.items():
                f = out.setdefault(path, {"sum": {n: Tally() for n in self.counters},
                                          "max_seconds": {n: 0.0 for n in self.counters},
                                          "opens": 0, "wall": None})
                for n, t in acc.items():
                    f["sum"][n].add(t)
                    f["max_seconds"][n] = max(f["max_seconds"][n], t.seconds)
        # Open counts and wall time from the timelines.
        for r in self.ranks:
            for fid, path in r.file_names.items():
                if path not in out:
                    continue
                times = [(s.start, s.end) for s in r.spans if s.file == fid]
                if not times:
                    continue
                lo, hi = min(t[0] for t in times), max(t[1] for t in times)
                w = out[path]["wall"]
                out[path]["wall"] = (lo, hi) if w is None else (min(w[0], lo), max(w[1], hi))
        for path in out:
            out[path]["opens"] = max((sum(1 for p, _ in r.files if p == path) for r in self.ranks),
                                     default=0)
        return out

    def variables(self):
        """Per (path, variable id): per API counter, calls, bytes (the callers' buffers) and
        seconds summed over ranks, from the spans that carry a variable (write_darray,
        read_darray, put_vara, get_vara)."""
        out = {}
        for r in self.ranks:
            for s in r.spans:
                if s.variable < 0 or s.file < 0:
                    continue
                key = (r.file_names.get(s.file, "file %d" % s.file), s.variable)
                t = out.setdefault(key, {}).setdefault(s.counter, Tally())
                t.calls += 1
                t.bytes += s.bytes
                t.seconds += s.seconds
        return out

    def variable_name(self, path, varid):
        """The variable's name where a rank recorded it (at the file's close), else None."""
        for r in self.ranks:
            for fid, p in r.file_names.items():
                names = r.variable_names.get(fid)
                if p == path and names and 0 <= varid < len(names):
                    return names[varid]
        return None


def parse_settings(text):
    """'k=v,k=v' into a dict; a value may hold ';' or '=' (cache=size=8M;flush=full)."""
    out = {}
    for item in text.split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
        elif item.strip() and out:
            # A ',' inside a value (mpiio_hints): glued back to the previous key.
            last = next(reversed(out))
            out[last] += "," + item
    return out


def load(path):
    try:
        with open(path, "rb") as f:
            raw = json.loads(f.read().decode("utf-8", "replace"))
    except ValueError as e:
        raise TraceError("%s: not valid JSON: %s" % (path, e))
    return Trace(raw, path)
