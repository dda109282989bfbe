#!/usr/bin/python3
"""Summarises run.sh's JSON files: per case, the median time of the staged esmio variant (to
close with stage_copy=background, else durable with the copy-back), of esmio-unstaged and raw;
the speed-up of staging; the copy-back's rate (file bytes / stage_copy, median phase, slowest
rank) against raw's median rate, and the two passes (stage_write, stage_verify).
usage: summary.py RUN_DIR..."""
import json
import os
import sys


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main(dirs):
    print("%-6s %-30s %8s %9s %6s %9s %8s %8s %6s %8s %8s" % (
        "run", "case", "staged s", "direct s", "gain", "raw MiB/s", "copy s", "MiB/s", "x raw",
        "write s", "verify s"))
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json"):
                continue
            doc = json.load(open(os.path.join(d, name)))
            res = {r["variant"]: r for r in doc["results"] if r["operation"] == "write"}
            s, u, raw = res["esmio"], res["esmio-unstaged"], res["raw"]
            mib = s["file_bytes"] / 1048576.0
            ph = s["phases"]
            copy = ph.get("stage_copy", 0)
            rate = mib / copy if copy else 0
            raw_rate = raw["mib_per_s"]["median"]
            print("%-6s %-30s %8.3f %9.3f %5.1fx %9.0f %8.3f %8.0f %5.2fx %8.3f %8.3f" % (
                os.path.basename(d.rstrip("/")), name[:-5] + (" (to close)" if
                                                              "to close" in s["label"] else ""),
                median(s["seconds"]), median(u["seconds"]),
                median(u["seconds"]) / median(s["seconds"]), raw_rate, copy, rate,
                rate / raw_rate, ph.get("stage_write", 0), ph.get("stage_verify", 0)))


if __name__ == "__main__":
    main(sys.argv[1:])
