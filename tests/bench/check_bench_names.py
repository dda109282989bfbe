#!/usr/bin/python3
"""Runs esmio-bench with paths whose names hold a double quote, a backslash, a space and a
non-ASCII character (--dir, --json and, with --trace, the trace directory; ESMIO_TRACE too), and
checks that every JSON file written stays valid JSON, parsed here by Python's json module
(strictly: UTF-8, no NaN), and holds the exact path strings: the bench JSON's "command", and in
esmio's trace reports (--trace and ESMIO_TRACE) every rank's files[].path and timeline files. The
--json file's name also holds a byte that is not UTF-8 (a path is any bytes): in the JSON that
byte is U+FFFD, the rest of the string exact. Then check_bench_json.py's checks of the run
(fields, variants, repeats, esmio's file verified, the trace report and its page).

usage: check_bench_names.py OUT_DIR REPEATS VARIANTS -- COMMAND...
COMMAND: the esmio-bench command line without --dir, --json and --trace (added here). A case
other than model-loop is also run with --trace and ESMIO_TRACE.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_bench_json  # noqa: E402  (the schema checks of every bench test)

# Quote, backslash, space and a non-ASCII character; '\udcff' is the byte 0xff, not UTF-8 (os
# and subprocess encode str paths with surrogateescape).
NAME = 'names "q" back\\slash \u00e9'
NOT_UTF8 = "\udcff"


def fail(msg):
    sys.stderr.write("check_bench_names: %s\n" % msg)
    sys.exit(1)


def as_json_text(s):
    """What a path becomes in the JSON: its bytes, each byte that is not UTF-8 as U+FFFD."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def load(path, what):
    """The file at path parsed strictly: UTF-8, standard JSON (no NaN or Infinity)."""
    def no_constant(name):
        raise ValueError("%s is not JSON" % name)
    try:
        with open(path, encoding="utf-8", errors="strict") as f:
            return json.load(f, parse_constant=no_constant)
    except (OSError, ValueError) as e:
        fail("%s %r is not valid JSON: %s" % (what, path, e))


def check_trace_report(report, path, what):
    """Every rank of esmio's trace report lists the file under its exact path."""
    doc = load(report, what)
    ranks = doc.get("ranks", [])
    if not ranks or len(ranks) != doc.get("nranks"):
        fail("%s: %d of %r ranks" % (what, len(ranks), doc.get("nranks")))
    for r in ranks:
        paths = [f.get("path") for f in r.get("files", [])]
        if path not in paths:
            fail("%s: rank %s lists %r, not %r" % (what, r.get("rank"), paths, path))
        named = list(r.get("timeline", {}).get("files", {}).values())
        if path not in named:
            fail("%s: rank %s's timeline names %r, not %r" % (what, r.get("rank"), named, path))
    print("check_bench_names: %s: %d ranks list %r" % (what, len(ranks), path))


def main(argv):
    sep = argv.index("--")
    out, repeats, variants = argv[1], argv[2], argv[3]
    cmd = argv[sep + 1:]
    model_loop = "model-loop" in cmd
    base = os.path.join(out, NAME)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    files = os.path.join(base, 'files "f" \\ \u00e9')
    json_path = os.path.join(base, 'bench "j" \\ \u00e9 ' + NOT_UTF8 + '.json')
    extra = ["--dir", files, "--json", json_path]
    report = None
    if not model_loop:
        trace = os.path.join(base, 'trace "t" \\ \u00e9')
        os.makedirs(trace)
        extra += ["--trace", trace]
        # esmio's report at esmio_finalize, under a name of the same kind.
        report = os.path.join(base, 'esmio_trace "e" \\ \u00e9.json')
        os.environ["ESMIO_TRACE"] = report
    # check_bench_json runs the command, then checks the run's JSON (and the trace's, parsed).
    check_bench_json.main(["check_bench_json.py", json_path, repeats, variants, "--"] + cmd +
                          extra)

    doc = load(json_path, "the bench JSON")
    want = as_json_text(" ".join(extra))
    if not doc["command"].endswith(" " + want):
        fail("command %r does not end with %r" % (doc["command"], want))
    for path in [files] + ([] if model_loop else [trace]):  # UTF-8 names: exact
        if (" " + path + " ") not in doc["command"] + " ":
            fail("command %r lacks %r" % (doc["command"], path))
    if "\ufffd" not in doc["command"]:
        fail("command %r: the byte that is not UTF-8 is not U+FFFD" % doc["command"])
    print("check_bench_names: the bench JSON holds the exact paths")
    if not model_loop:
        case = doc["run"]["case"]
        nc = os.path.join(files, "esmio-bench-%s-esmio.nc" % case)
        check_trace_report(os.path.join(trace, "esmio-bench-%s-trace.json" % case), nc,
                           "the --trace report")
        check_trace_report(report, nc, "the ESMIO_TRACE report")
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
