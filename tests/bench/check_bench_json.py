#!/usr/bin/python3
"""Runs esmio-bench on a tiny case and checks its JSON (docs/bench.md): the schema's fields,
every requested variant present, one seconds entry per repeat, esmio's file verified, run.fields
naming the values --fields asked for; for case model-loop its own fields (check_model_loop).
No timing thresholds: the test checks that the bench runs and reports well-formed, checked data.

usage: check_bench_json.py OUT.json REPEATS VARIANTS -- COMMAND...
"""
import json
import subprocess
import sys

RESULT_FIELDS = ["case", "operation", "variant", "ranks", "io_tasks", "durability", "label",
                 "settings", "bytes", "values", "file_bytes", "seconds", "mib_per_s",
                 "mvalues_per_s", "ratio_to_raw", "ratio_to_pnetcdf_direct", "phases",
                 "requests", "request_histogram", "peak_rss_mib", "baseline_rss_mib",
                 "residency_before_read", "verified", "verify_note", "error"]
MACHINE_FIELDS = ["hostname", "cpus", "os", "mpi", "date"]
VARIABLE_FIELDS = ["name", "source", "zoom", "float32_bytes", "stored_bytes", "size_ratio",
                   "keepbits", "keepbits_reference", "keepbits_reason", "max_abs_error",
                   "max_rel_error", "values_checked", "mismatches"]


def fail(msg):
    sys.stderr.write("check_bench_json: %s\n" % msg)
    sys.exit(1)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def check_model_loop(doc, repeats, cmd):
    """model-loop: the three runs' seconds per repeat, the hidden fraction as the medians give
    it, back-pressure waits, peak memory per rank of every run and role, and both files (the
    synchronous run's and the servers') verified value by value. Values, never timings."""
    for key in ("schema", "machine", "command", "fields_case", "steps", "compute_seconds",
                "compute_kind", "compute_ranks", "servers", "repeat", "durability", "label",
                "seconds", "runs", "hidden_fraction", "hidden_fraction_per_repeat",
                "async_wait_seconds", "async_convert_seconds", "async_post_seconds",
                "sync_closing_seconds", "async_closing_seconds", "async_post_first_step_seconds",
                "async_post_later_step_seconds", "async_init_seconds", "verified",
                "verify_note", "same_values", "peak_rss_mib"):
        if key not in doc:
            fail("model-loop field %r missing" % key)
    for key in MACHINE_FIELDS:
        if key not in doc["machine"]:
            fail("machine.%s missing" % key)
    if "--records" in cmd[:-1] and doc["steps"] != int(cmd[cmd.index("--records") + 1]):
        fail("model-loop: %d steps, the command asked for %s" %
             (doc["steps"], cmd[cmd.index("--records") + 1]))
    for option, key, default in (("--files", "files", 1), ("--server-close", "io_server_close",
                                                             "wait")):
        asked = cmd[cmd.index(option) + 1] if option in cmd[:-1] else default
        if str(doc.get(key)) != str(asked):
            fail("model-loop: %s %r, the command asked for %r" % (key, doc.get(key), asked))
    if doc["compute_ranks"] < 1 or doc["servers"] < 1:
        fail("model-loop: %d compute ranks, %d servers" % (doc["compute_ranks"], doc["servers"]))
    for run in ("compute", "sync", "async"):
        seconds = doc["seconds"].get(run, [])
        if len(seconds) != repeats or doc["runs"][run]["seconds"] != seconds:
            fail("model-loop: %s seconds %r, want %d" % (run, seconds, repeats))
        if any(t <= 0 for t in seconds):
            fail("model-loop: a %s time is not positive" % run)
        peaks = doc["runs"][run]["peak_rss_mib"]
        if len(peaks) != doc["compute_ranks"] or any(p <= 0 for p in peaks):
            fail("model-loop: %s peak_rss_mib %r for %d compute ranks" %
                 (run, peaks, doc["compute_ranks"]))
    peaks = doc["runs"]["server"]["peak_rss_mib"]
    if len(peaks) != doc["servers"] or any(p <= 0 for p in peaks):
        fail("model-loop: server peak_rss_mib %r for %d servers" % (peaks, doc["servers"]))
    for key in ("async_wait_seconds", "async_convert_seconds", "async_post_seconds",
                "sync_closing_seconds", "async_closing_seconds", "async_init_seconds"):
        if len(doc[key]) != repeats or any(t < 0 for t in doc[key]):
            fail("model-loop: %s %r" % (key, doc[key]))
    # Posting per step: the first step's per repeat, and the later steps' median where there
    # are later steps (values present, never compared with a time).
    later = doc["async_post_later_step_seconds"]
    if len(doc["async_post_first_step_seconds"]) != repeats or \
            len(later) != (repeats if doc["steps"] > 1 else 0):
        fail("model-loop: posting per step %r / %r for %d repeats of %d steps" %
             (doc["async_post_first_step_seconds"], later, repeats, doc["steps"]))
    # The fraction is what the medians give (null where the synchronous run took no longer).
    tc, ts, ta = (median(doc["seconds"][run]) for run in ("compute", "sync", "async"))
    want = 1 - (ta - tc) / (ts - tc) if ts > tc else None
    got = doc["hidden_fraction"]
    if (want is None) != (got is None) or (want is not None and abs(got - want) > 1e-3):
        fail("model-loop: hidden_fraction %r, the medians give %r" % (got, want))
    if len(doc["hidden_fraction_per_repeat"]) != repeats:
        fail("model-loop: hidden_fraction_per_repeat %r" % doc["hidden_fraction_per_repeat"])
    for run in ("sync", "async"):
        if doc["verified"].get(run) is not True:
            fail("model-loop: the %s run's file not verified: %s" %
                 (run, doc["verify_note"].get(run)))
    if doc["same_values"] is not True:
        fail("model-loop: the synchronous and asynchronous files differ")
    if not (doc["peak_rss_mib"]["compute"] > 0 and doc["peak_rss_mib"]["server"] > 0):
        fail("model-loop: peak memory %r" % doc["peak_rss_mib"])
    print("check_bench_json: model-loop OK (%d compute ranks, %d server(s), %d steps, %d repeats, "
          "both files verified)" % (doc["compute_ranks"], doc["servers"], doc["steps"], repeats))


def main(argv):
    sep = argv.index("--")
    out, repeats, variants = argv[1], int(argv[2]), argv[3].split(",")
    cmd = argv[sep + 1:]
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        fail("esmio-bench exited with %d" % proc.returncode)
    with open(out) as f:
        doc = json.load(f)
    if doc.get("case") == "model-loop":
        check_model_loop(doc, repeats, argv[sep + 1:])
        return
    for key in ("machine", "command", "results"):
        if key not in doc:
            fail("top-level field %r missing" % key)
    # --fields: run.fields names the values written ("formula: ..." or "real: <sources>").
    cmd = argv[sep + 1:]
    want = cmd[cmd.index("--fields") + 1] if "--fields" in cmd[:-1] else "formula"
    fields = doc.get("run", {}).get("fields", "")
    if not fields.startswith(want + ":"):
        fail("run.fields is %r, want %s: ..." % (fields, want))
    # run.file_bytes: what the file's variables hold, holes included (raw writes it): never
    # less than the data.
    file_bytes = doc.get("run", {}).get("file_bytes", -1)
    for r in doc["results"]:
        if file_bytes < r.get("bytes", 0):
            fail("run.file_bytes %r is less than the %s %s data bytes %r" %
                 (file_bytes, r.get("variant"), r.get("operation"), r.get("bytes")))
    for key in MACHINE_FIELDS:
        if key not in doc["machine"]:
            fail("machine.%s missing" % key)
    results = doc["results"]
    for r in results:
        for key in RESULT_FIELDS:
            if key not in r:
                fail("result field %r missing in %s/%s" % (key, r.get("variant"), r.get("operation")))
        if r["error"] is not None:
            fail("%s %s failed: %s" % (r["variant"], r["operation"], r["error"]))
        if len(r["seconds"]) != repeats:
            fail("%s %s: %d seconds entries, want %d" % (r["variant"], r["operation"],
                                                        len(r["seconds"]), repeats))
        for key in ("mib_per_s", "mvalues_per_s"):
            s = r[key]
            if not (s["min"] <= s["median"] <= s["max"]):
                fail("%s %s: %s not ordered" % (r["variant"], r["operation"], key))
        if len(r["peak_rss_mib"]) != r["ranks"]:
            fail("%s: peak_rss_mib has %d entries for %d ranks" % (r["variant"],
                                                                  len(r["peak_rss_mib"]), r["ranks"]))
        if r["bytes"] != 4 * r["values"] or r["values"] <= 0:
            fail("%s: bytes %d for %d float values" % (r["variant"], r["bytes"], r["values"]))
    writes = {r["variant"]: r for r in results if r["operation"] == "write"}
    for v in variants:
        if v not in writes:
            fail("variant %s missing (have %s)" % (v, sorted(writes)))
    for v in ("esmio", "pnetcdf-direct", "gather-root", "pio-layer"):
        if v in writes and writes[v]["verified"] is not True:
            fail("%s's file not verified: %s" % (v, writes[v]["verify_note"]))
    # Reads: every value read back compared with the values written (files that hold exactly
    # the values written: no --quantize).
    if not option(cmd, "--quantize"):
        for r in results:
            if r["operation"] == "read" and r["variant"] in ("esmio", "pnetcdf-direct",
                                                             "gather-root", "pio-layer") \
                    and r["verified"] is not True:
                fail("%s's read not checked: %s" % (r["variant"], r["verify_note"]))
    for v in ("esmio", "pio-layer"):
        if v in writes and not writes[v]["phases"]:
            fail("%s has no phases" % v)
    # The clock leaves out the bench's own generate and check: the netCDF variants report them
    # as phases.
    for r in results:
        if r["variant"] in ("esmio", "pnetcdf-direct") and not r.get("error"):
            bench_work = "generate" if r["operation"] == "write" else "check"
            if bench_work not in r["phases"]:
                fail("%s %s: no %s phase (%s)" % (r["variant"], r["operation"], bench_work,
                                                  sorted(r["phases"])))
    # pio-layer's phases are its own esmio instance's counters: write_darray is among them.
    if "pio-layer" in writes and "write_darray" not in writes["pio-layer"]["phases"]:
        fail("pio-layer: no write_darray phase from the layer's esmio instance")
    check_variables(doc, writes, cmd, want == "real")
    if "--stage" in cmd:
        check_stage(writes, cmd)
    if "--trace" in cmd:
        check_trace(doc, cmd)
    print("check_bench_json: %d results OK (%s)" % (len(results), ", ".join(sorted(writes))))


def option(cmd, name):
    return cmd[cmd.index(name) + 1] if name in cmd[:-1] else None


def check_variables(doc, writes, cmd, real):
    """results[].variables of every checked netCDF variant: one entry per variable of the file,
    every value checked (their count adds up to the result's values) and equal, or within the
    quantisation's bound; with --fields real one source per variable; for esmio with backend
    netcdf4 the stored bytes and the size ratio, and with --compression a ratio above 1; with
    --quantize information the keepbits attributes, and every error within BitRound's bound
    2^-(keepbits+1) relative. Values, never timings."""
    nvars = doc["run"].get("nvars")
    if not isinstance(nvars, int) or nvars <= 0:
        fail("run.nvars is %r" % nvars)
    netcdf4 = option(cmd, "--backend") == "netcdf4"
    compressed = option(cmd, "--compression") is not None
    quantize = option(cmd, "--quantize") or ""
    for name in ("esmio", "pnetcdf-direct", "gather-root", "pio-layer"):
        if name not in writes:
            continue
        r = writes[name]
        for key in ("variables", "stored_bytes", "size_ratio"):
            if key not in r:
                fail("%s: result field %r missing" % (name, key))
        variables = r["variables"]
        if len(variables) != nvars or len(set(v["name"] for v in variables)) != nvars:
            fail("%s: %d variables reported (%d distinct), the file has %d" %
                 (name, len(variables), len(set(v["name"] for v in variables)), nvars))
        for v in variables:
            for key in VARIABLE_FIELDS:
                if key not in v:
                    fail("%s %s: variable field %r missing" % (name, v.get("name"), key))
            if v["values_checked"] <= 0 or v["mismatches"] != 0:
                fail("%s %s: %d values checked, %d mismatches" %
                     (name, v["name"], v["values_checked"], v["mismatches"]))
            if real and (not v["source"] or "," in v["source"] or not v["zoom"] > 0):
                fail("%s %s: source %r, zoom %r: want one source" %
                     (name, v["name"], v["source"], v["zoom"]))
        checked = sum(v["values_checked"] for v in variables)
        if checked != r["values"]:
            fail("%s: %d values checked over the variables, %d written" %
                 (name, checked, r["values"]))
        esmio_nc4 = name == "esmio" and netcdf4
        lossy = name == "esmio" and quantize
        for v in variables:
            if not lossy and (v["max_abs_error"] != 0 or v["max_rel_error"] != 0):
                fail("%s %s: errors %g / %g in a lossless file" %
                     (name, v["name"], v["max_abs_error"], v["max_rel_error"]))
            if esmio_nc4:
                if not (v["stored_bytes"] and v["stored_bytes"] > 0):
                    fail("%s %s: stored_bytes %r" % (name, v["name"], v["stored_bytes"]))
                if abs(v["size_ratio"] - v["float32_bytes"] / v["stored_bytes"]) > \
                        1e-4 * v["size_ratio"]:
                    fail("%s %s: size_ratio %r is not float32 / stored bytes" %
                         (name, v["name"], v["size_ratio"]))
                if compressed and not v["size_ratio"] > 1:
                    fail("%s %s: size ratio %r under compression" % (name, v["name"],
                                                                     v["size_ratio"]))
            if name == "esmio" and quantize.startswith("information"):
                kb = v["keepbits"]
                if not isinstance(kb, int) or not 0 <= kb <= 23 or not v["keepbits_reason"] or \
                        not isinstance(v["keepbits_reference"], int):
                    fail("%s %s: keepbits %r, reference %r, reason %r" %
                         (name, v["name"], kb, v["keepbits_reference"], v["keepbits_reason"]))
                bound = 2.0 ** -(kb + 1)
                if v["max_rel_error"] > bound * (1 + 1e-9):
                    fail("%s %s: max relative error %g above 2^-(%d+1)" %
                         (name, v["name"], v["max_rel_error"], kb))
            elif v["keepbits"] is not None:
                fail("%s %s: keepbits %r without information quantisation" %
                     (name, v["name"], v["keepbits"]))
        if esmio_nc4:
            f32 = sum(v["float32_bytes"] for v in variables)
            stored = sum(v["stored_bytes"] for v in variables)
            if r["stored_bytes"] != stored or abs(r["size_ratio"] - f32 / stored) > \
                    1e-4 * r["size_ratio"]:
                fail("%s: stored_bytes %r, size_ratio %r; the variables give %d, %g" %
                     (name, r["stored_bytes"], r["size_ratio"], stored, f32 / stored))
            if compressed and not r["size_ratio"] > 1:
                fail("%s: size ratio %r under compression" % (name, r["size_ratio"]))
        elif r["size_ratio"] is not None:
            fail("%s: size_ratio %r without netCDF-4 storage" % (name, r["size_ratio"]))
        print("check_bench_json: %s: %d variables, every value checked%s%s" %
              (name, nvars, ", stored sizes (ratio %.2f)" % r["size_ratio"] if esmio_nc4 else "",
               ", keepbits within bounds" if lossy else ""))


def check_stage(writes, cmd):
    """--stage: esmio's row shows the copy-back and its two passes (and, with --stage-copy
    background, the wait after close and the time-to-close label); esmio-unstaged none; the
    stage directory holds nothing afterwards (every staged file verified, published, removed)."""
    import os
    background = "--stage-copy" in cmd and cmd[cmd.index("--stage-copy") + 1] == "background"
    esmio = writes["esmio"]
    # phases: median seconds per phase; a phase that ran has a positive entry.
    names = set(k for k, t in esmio["phases"].items() if t > 0)
    want = {"stage_copy", "stage_write", "stage_verify"} | ({"copy_after_close"} if background
                                                            else set())
    if not want <= names:
        fail("esmio staged: phases %s lack %s" % (sorted(names), sorted(want - names)))
    label = "to close (staged)" if background else "durable (fsync)"
    if esmio["label"] != label:
        fail("esmio staged: label %r, want %r" % (esmio["label"], label))
    if "esmio-unstaged" in writes:
        u = writes["esmio-unstaged"]
        if u["verified"] is not True:
            fail("esmio-unstaged's file not verified: %s" % u["verify_note"])
        if u["phases"].get("stage_copy", 0) > 0:
            fail("esmio-unstaged spent time in stage_copy")
    stage = cmd[cmd.index("--stage") + 1]
    left = os.listdir(stage)
    if left:
        fail("the stage directory still holds %s" % left)


def check_trace(doc, cmd):
    """--trace DIR: esmio's trace report of its last write (valid JSON, every rank, spans on
    each) and esmio-report's page of it (an HTML file with its SVG timeline) in DIR."""
    import os
    d = cmd[cmd.index("--trace") + 1]
    case = doc["run"]["case"] if "run" in doc and "case" in doc["run"] else doc.get("case")
    base = os.path.join(d, "esmio-bench-%s" % case)
    try:
        with open(base + "-trace.json") as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail("--trace: %s-trace.json: %s" % (base, e))
    if len(trace.get("ranks", [])) != trace.get("nranks"):
        fail("--trace: the report holds %d of %s ranks" % (len(trace.get("ranks", [])),
                                                            trace.get("nranks")))
    for r in trace["ranks"]:
        spans = r.get("timeline", {}).get("spans", [])
        if not spans:
            fail("--trace: rank %s has no spans" % r.get("rank"))
        if r["totals"]["write_darray"]["calls"] == 0:
            fail("--trace: rank %s's trace holds no write" % r.get("rank"))
    try:
        page = open(base + "-report.html").read()
    except OSError as e:
        fail("--trace: no report page: %s" % e)
    if "<svg" not in page:
        fail("--trace: the report page has no SVG timeline")


if __name__ == "__main__":
    main(sys.argv)
