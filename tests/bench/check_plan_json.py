#!/usr/bin/python3
"""Runs `esmio-bench plan CASE ...` (one process, no mpirun) and checks its JSON (docs/bench.md,
"plan"): the fields, the I/O tasks, every grid planned with every element received once, and
per flush schedule: every task makes a positive number of storage requests, and the bytes the
tasks write add up to the record's bytes (each variable record written once, holes included).
Values, never timings.

usage: check_plan_json.py OUT.json -- COMMAND...
"""
import json
import subprocess
import sys

# The record's bytes, from the case's definition (not from the bench): float32 values of
# 321 (ncol) + 63 (lev=72, ncol) variables at ne120, and of the I case's 533 land variables.
RECORD_BYTES = {
    "e3sm-f-ne120": 777602 * (321 + 63 * 72) * 4,
    "e3sm-i-prod": 360 * 720 * (460 + 56 * 15 + 13 * 15 + 2 * 10 + 9 + 17) * 4,
}
GRID_POINTS = {"e3sm-f-ne120": 777602, "e3sm-i-prod": 360 * 720}


def fail(msg):
    sys.stderr.write("check_plan_json: %s\n" % msg)
    sys.exit(1)


def product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def check_schedule(doc, s):
    name = s.get("name")
    for key in ("rule", "flushes", "flushes_per_record", "writes_per_flush", "bytes",
                "bytes_per_record", "record_bytes", "active_tasks", "idle_tasks",
                "tasks_writing_per_flush", "requests_per_flush", "mean_request_bytes",
                "tasks_below_64KiB", "any_below_64KiB", "tasks"):
        if key not in s:
            fail("schedule %s: field %r missing" % (name, key))
    tasks = s["tasks"]
    ntasks = doc["iotasks"]["ntasks"]
    if len(tasks) != ntasks:
        fail("schedule %s: %d tasks listed, %d I/O tasks" % (name, len(tasks), ntasks))
    if s["flushes"] < doc["records"]:
        fail("schedule %s: %d flushes for %d records" % (name, s["flushes"], doc["records"]))
    small = 0
    for t in tasks:
        for key in ("task", "rank", "flushes", "requests", "bytes", "requests_per_flush",
                    "mean_request_bytes"):
            if key not in t:
                fail("schedule %s task %s: field %r missing" % (name, t.get("task"), key))
        if t["requests"] <= 0 or t["flushes"] <= 0 or t["bytes"] <= 0:
            fail("schedule %s: task %d writes %d bytes in %d requests over %d flushes" %
                 (name, t["task"], t["bytes"], t["requests"], t["flushes"]))
        if t["requests"] < t["flushes"]:
            fail("schedule %s: task %d has fewer requests than flushes" % (name, t["task"]))
        if abs(t["mean_request_bytes"] * t["requests"] - t["bytes"]) > 1e-6 * t["bytes"]:
            fail("schedule %s: task %d mean request bytes %r is not bytes/requests" %
                 (name, t["task"], t["mean_request_bytes"]))
        if abs(t["requests_per_flush"] * t["flushes"] - t["requests"]) > 1e-6 * t["requests"]:
            fail("schedule %s: task %d requests per flush is not requests/flushes" %
                 (name, t["task"]))
        small += t["mean_request_bytes"] < 65536
    total = sum(t["bytes"] for t in tasks)
    want = doc["records"] * RECORD_BYTES[doc["case"]]
    if total != want or s["bytes"] != want:
        fail("schedule %s: the tasks write %d bytes (reported %d), the records hold %d" %
             (name, total, s["bytes"], want))
    if s["tasks_below_64KiB"] != small or s["any_below_64KiB"] != (small > 0):
        fail("schedule %s: %d tasks below 64 KiB, reported %r" %
             (name, small, s["tasks_below_64KiB"]))
    for key in ("requests_per_flush", "mean_request_bytes", "tasks_writing_per_flush"):
        spread = s[key]
        if not spread["min"] <= spread["median"] <= spread["max"]:
            fail("schedule %s: %s %r out of order" % (name, key, spread))
    if s["tasks_writing_per_flush"]["max"] > ntasks:
        fail("schedule %s: more tasks write in a flush than there are" % name)


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        fail("usage: check_plan_json.py OUT.json -- COMMAND...")
    out, cmd = sys.argv[1], sys.argv[3:]
    run = subprocess.run(cmd)
    if run.returncode != 0:
        fail("%s exited with %d" % (" ".join(cmd), run.returncode))
    with open(out) as f:
        doc = json.load(f)
    for key in ("command", "case", "description", "grid", "decomposition", "ranks",
                "ranks_per_node", "nodes", "iotasks", "records", "record_bytes", "variables",
                "plans", "seconds", "peak_rss_mib", "schedules"):
        if key not in doc:
            fail("field %r missing" % key)
    case = doc["case"]
    if case not in RECORD_BYTES:
        fail("unknown case %r" % case)
    if doc["record_bytes"] != RECORD_BYTES[case]:
        fail("record_bytes %d, the case's record holds %d" % (doc["record_bytes"],
                                                              RECORD_BYTES[case]))
    if doc["grid"]["points"] != GRID_POINTS[case]:
        fail("grid of %d points, the case has %d" % (doc["grid"]["points"], GRID_POINTS[case]))
    if "--ranks" in cmd and doc["ranks"] != int(cmd[cmd.index("--ranks") + 1]):
        fail("%d ranks, the command asked for %s" % (doc["ranks"], cmd[cmd.index("--ranks") + 1]))
    # Times and memory are reported, never judged here (esmio-bench's tables do that): only
    # that each phase has a figure.
    for key in ("maps", "send_plans", "recv_plans", "dealing", "total"):
        if not isinstance(doc["seconds"].get(key), (int, float)):
            fail("seconds.%s missing" % key)
    if not isinstance(doc["peak_rss_mib"], (int, float)):
        fail("peak_rss_mib %r" % doc["peak_rss_mib"])
    io = doc["iotasks"]
    if not 1 <= io["ntasks"] <= doc["ranks"]:
        fail("%d I/O tasks for %d ranks" % (io["ntasks"], doc["ranks"]))
    # Every element some rank holds reaches exactly one task of a group: the groups tile the
    # tasks, and each grid's ranks send the covered points of each of its levels.
    for p in doc["plans"]:
        if io["ntasks"] % p["units"] or p["groups"] * p["units"] != io["ntasks"]:
            fail("plan %s: %d units x %d groups for %d tasks" %
                 (p["grid"], p["units"], p["groups"], io["ntasks"]))
        levels = product(p["dims"]) // doc["grid"]["points"]
        if p["global_count"] != levels * doc["grid"]["covered"]:
            fail("plan %s: %d elements sent, the map covers %d" %
                 (p["grid"], p["global_count"], levels * doc["grid"]["covered"]))
    names = [s.get("name") for s in doc["schedules"]]
    if names != ["cache", "record"]:
        fail("schedules %r, want cache and record" % names)
    for s in doc["schedules"]:
        check_schedule(doc, s)
    record = doc["schedules"][1]
    if record["flushes"] != doc["records"]:
        fail("schedule record: %d flushes for %d records" % (record["flushes"], doc["records"]))
    print("check_plan_json: %s, %d ranks, %d I/O tasks: checks passed" %
          (case, doc["ranks"], io["ntasks"]))


main()
