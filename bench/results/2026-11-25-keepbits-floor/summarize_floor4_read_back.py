"""Tables of run_floor4.sh's and run_read_back.sh's results (parts D and E of README.md).
Every invocation's JSON is pooled per (case, mode): min/median/max of all its esmio (and raw)
repeats, the load averages at each invocation's start. Part D also compares the size ratios and
keepbits with an earlier run's JSON (floor 2). Writes summary_floor4_read_back.md next to this file.
  /usr/bin/python3 bench/results/2026-11-25-keepbits-floor/summarize_floor4_read_back.py"""
import glob
import json
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
S8 = os.path.join(HERE, "..", "2026-11-25-real-fields")
MODES = ["uncompressed", "lossless", "information"]


def load(path):
    with open(path) as f:
        return json.load(f)


def result(doc, variant="esmio"):
    for r in doc["results"]:
        if r["operation"] == "write" and r["variant"] == variant:
            return r
    return None


def mmm(xs):
    return "%.3f / %.3f / %.3f" % (min(xs), statistics.median(xs), max(xs))


def pooled(paths):
    """(esmio seconds, raw seconds, load avgs, last doc, all verified, errors) over the files."""
    es, raw, loads, doc, ok, errs = [], [], [], None, True, []
    global bw
    bw = []  # per invocation: esmio's backend_write phase (median over repeats, max over ranks)
    for p in sorted(paths, key=lambda p: int(re.search(r"-r(\d+)\.json$", p).group(1))):
        d = load(p)
        doc = d
        r = result(d)
        if r is None or r.get("error"):
            errs.append(os.path.basename(p) + ": " + str(r and r.get("error")))
            continue
        es += r["seconds"]
        bw.append(r["phases"].get("backend_write", 0))
        ok = ok and r["verified"]
        rr = result(d, "raw")
        if rr and not rr.get("error"):
            raw += rr["seconds"]
        loads.append(d["run"]["loadavg_start"].split()[0])
    return es, raw, loads, doc, ok, errs


def part_d(out):
    files = glob.glob(os.path.join(HERE, "floor4", "*-r*.json"))
    cases = sorted({re.sub(r"-np2-.*", "", os.path.basename(f)) for f in files},
                   key=lambda c: (not c.startswith("ocean"), c))
    if not cases:
        return
    out += ["## D. Floor 4: size ratios and write times (run_floor4.sh)", "",
            "Write seconds of all repeats pooled (min / median / max); time / uncompr. = this mode's "
            "median / the uncompressed netCDF-4 median of the same case; size ratio = float32 bytes / "
            "stored bytes of all variables; before = an earlier run's JSON (floor 2).", "",
            "| case | mode | n | write s min / med / max | time / uncompr. | raw s median | size ratio | before size ratio | verified | load avg (1 min) at each invocation |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    per_var = {}
    for case in cases:
        meds = {}
        for mode in MODES:
            es, raw, loads, doc, ok, errs = pooled(
                glob.glob(os.path.join(HERE, "floor4", f"{case}-np2-{mode}-r*.json")))
            if not es:
                out.append(f"| {case} | {mode} | 0 | errors: {'; '.join(errs)} | | | | | | |")
                continue
            meds[mode] = statistics.median(es)
            r = result(doc)
            s8p = os.path.join(S8, f"{case}-np2-{mode}.json")
            before = result(load(s8p)) if os.path.exists(s8p) else None
            out.append("| %s | %s | %d | %s | %s | %s | %.2f | %s | %s | %s |" % (
                case, mode, len(es), mmm(es),
                "%.2f" % (meds[mode] / meds["uncompressed"]) if "uncompressed" in meds else "-",
                "%.3f" % statistics.median(raw) if raw else "-", r["size_ratio"],
                "%.2f" % before["size_ratio"] if before else "-", "yes" if ok else "NO",
                ", ".join(loads) + (" (errors: %s)" % "; ".join(errs) if errs else "")))
            per_var[(case, mode)] = (r["variables"], before["variables"] if before else None)
    out += ["", "Per variable, information:0.99 + zstd:1:shuffle and lossless zstd:1:shuffle, now "
            "(floor 4) against an earlier run (floor 2); rows marked * changed (keepbits, or a ratio by "
            "more than 0.5 %).", "",
            "| case | variable | source | keepbits before -> now (ref, reason now) | information ratio before -> now | lossless ratio before -> now | max rel err now | |",
            "|---|---|---|---|---|---|---|---|"]
    changed_rows = {}  # the same source and numbers: one row listing the variables
    for case in cases:
        if (case, "information") not in per_var:
            continue
        now_i, s8_i = per_var[(case, "information")]
        now_l, s8_l = per_var.get((case, "lossless"), (None, None))
        for i, v in enumerate(now_i):
            o = s8_i[i] if s8_i else None
            if o and o["keepbits"] != v["keepbits"]:
                key = (case, v["source"], o["keepbits"], v["keepbits"], v["keepbits_reference"],
                       round(o["size_ratio"], 2), round(v["size_ratio"], 2),
                       round(v["max_rel_error"], 4), v["float32_bytes"])
                changed_rows.setdefault(key, []).append(v["name"])
        for i, v in enumerate(now_i):
            o = s8_i[i] if s8_i else None
            nl = now_l[i]["size_ratio"] if now_l else None
            ol = s8_l[i]["size_ratio"] if s8_l else None
            changed = o is None or o["keepbits"] != v["keepbits"] or \
                abs(o["size_ratio"] / v["size_ratio"] - 1) > 0.005 or \
                (nl and ol and abs(ol / nl - 1) > 0.005)
            out.append("| %s | %s | %s | %s -> %d (%d, %s) | %s -> %.2f | %s -> %s | %.3g | %s |" % (
                case, v["name"], v["source"], o["keepbits"] if o else "-", v["keepbits"],
                v["keepbits_reference"], v["keepbits_reason"],
                "%.2f" % o["size_ratio"] if o else "-", v["size_ratio"],
                "%.2f" % ol if ol else "-", "%.2f" % nl if nl else "-",
                v["max_rel_error"], "*" if changed else ""))
    out += ["", "The rows whose keepbits changed, variables with the same source, grid and figures "
            "in one row (lossless ratios are unchanged):", "",
            "| case | variables | source | f32 MiB each | keepbits before -> now (ref) | information ratio before -> now | max rel err now |",
            "|---|---|---|---|---|---|---|"]
    for key, names in changed_rows.items():
        case, src, ok, nk, ref, orat, nrat, rel, f32 = key
        shown = ", ".join(names[:4]) + (", ... (%d variables)" % len(names) if len(names) > 4 else "")
        out.append("| %s | %s | %s | %.2f | %d -> %d (%d) | %.2f -> %.2f | %.3g |" % (
            case, shown, src, f32 / 2**20, ok, nk, ref, orat, nrat, rel))
    out.append("")


def part_e(out):
    files = glob.glob(os.path.join(HERE, "read_back", "*-r[0-9]*.json"))
    if not files:
        return
    keys = sorted({re.sub(r"-rb(true|false)-r\d+\.json$", "", os.path.basename(f)) for f in files},
                  key=lambda k: (not k.startswith("cam-fvd-s0.25"), not k.startswith("cam"),
                                 k.split("-np2-")[0], ["nc4zstd", "nc4", "pnetcdf"].index(
                                     k.split("-np2-")[1])))
    out += ["## E. The cost of read_back (run_read_back.sh)", "",
            "esmio write seconds, all repeats pooled (min / median / max); on - off = difference "
            "of the medians; backend_write = median over the invocations of esmio-bench's backend_write phase "
            "(median over repeats, max over ranks), where read_back's reads happen.", "",
            "| case | backend | read_back | n | write s min / med / max | on - off (median) | backend_write s | load avg (1 min) at each invocation |",
            "|---|---|---|---|---|---|---|---|"]
    for k in keys:
        case, be = k.split("-np2-")
        med = {}
        rows = []
        for rb in ["true", "false"]:
            es, _, loads, doc, ok, errs = pooled(
                glob.glob(os.path.join(HERE, "read_back", f"{k}-rb{rb}-r*.json")))
            if not es:
                rows.append((rb, f"| {case} | {be} | {rb} | 0 | errors: {'; '.join(errs)} | | | |"))
                continue
            r = result(doc)
            assert ("read_back=" + rb) in r["settings"], (k, rb)
            med[rb] = statistics.median(es)
            rows.append((rb, "| %s | %s | %s | %d | %s | %%s | %.3f | %s |" % (
                case, be, rb, len(es), mmm(es), statistics.median(bw), ", ".join(loads) +
                ("" if ok else " (NOT verified)") + (" (errors: %s)" % "; ".join(errs) if errs else ""))))
        for rb, row in rows:
            if "%s" not in row:
                out.append(row)
                continue
            diff = "-"
            if rb == "true" and len(med) == 2:
                d = med["true"] - med["false"]
                diff = "%+.3f s (%+.1f %%)" % (d, 100 * d / med["false"])
            out.append(row % diff)
    traces = sorted(glob.glob(os.path.join(HERE, "read_back", "*-trace.json")))
    if traces:
        out += ["", "zstd counters of the traced write (netCDF-4 + zstd:1:shuffle, --repeat 1), per "
                "rank: compress / decompress chunk calls and seconds.", "",
                "| case | read_back | write s | rank | compress calls | compress s | decompress calls | decompress s | decompress MiB out |",
                "|---|---|---|---|---|---|---|---|---|"]
        for t in traces:
            m = re.match(r"(.*)-np2-nc4zstd-rb(true|false)-trace-trace\.json$", os.path.basename(t))
            if not m:
                continue
            d = load(t)
            bench = load(t.replace("-trace-trace.json", "-trace.json"))
            secs = result(bench)["seconds"][0]
            for i, rk in enumerate(d["ranks"]):
                z = rk.get("codecs", {}).get("zstd", {})
                c, dc = z.get("compress", {}), z.get("decompress", {})
                out.append("| %s | %s | %.3f | %d | %s | %.4f | %s | %.4f | %.2f |" % (
                    m.group(1), m.group(2), secs, i, c.get("calls", 0), c.get("seconds", 0),
                    dc.get("calls", 0), dc.get("seconds", 0), dc.get("bytes_out", 0) / 2**20))
    out.append("")


def main():
    out = ["# Parts D and E (generated by summarize_floor4_read_back.py)", ""]
    part_d(out)
    part_e(out)
    with open(os.path.join(HERE, "summary_floor4_read_back.md"), "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
