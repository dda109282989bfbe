#!/usr/bin/python3
"""Draws an esmio-bench JSON file: median MiB/s per variant with min-max whiskers, one panel per
operation (write, read). Usage: esmio_bench_plot.py RESULTS.json OUT.png

Needs matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3); uses the Agg backend,
so no display is needed.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    results = [r for r in doc["results"] if not r.get("error") and r["seconds"]]
    ops = [op for op in ("write", "read") if any(r["operation"] == op for r in results)]
    if not ops:
        sys.stderr.write("esmio_bench_plot.py: no successful results to draw\n")
        return 1
    fig, axes = plt.subplots(1, len(ops), figsize=(5.5 * len(ops), 4.2), squeeze=False)
    run = doc.get("run", {})
    machine = doc.get("machine", {})
    for ax, op in zip(axes[0], ops):
        rs = [r for r in results if r["operation"] == op]
        names = [r["variant"] for r in rs]
        med = [r["mib_per_s"]["median"] for r in rs]
        lo = [m - r["mib_per_s"]["min"] for m, r in zip(med, rs)]
        hi = [r["mib_per_s"]["max"] - m for m, r in zip(med, rs)]
        colors = ["#1f77b4" if n == "esmio" else "#999999" for n in names]
        ax.bar(names, med, yerr=[lo, hi], capsize=6, color=colors)
        for i, (m, r) in enumerate(zip(med, rs)):
            ax.text(i, m, " %.0f" % m, ha="center", va="bottom", fontsize=8)
        ax.set_ylabel("MiB/s (median, whiskers min-max over %d repeats)" % len(rs[0]["seconds"]))
        ax.set_title("%s, %s" % (op, rs[0]["label"]))
        ax.tick_params(axis="x", labelrotation=20)
    fig.suptitle(
        "esmio-bench %s: %d rank(s), %s, %s cpus"
        % (run.get("case", "?"), run.get("ranks", 0), machine.get("hostname", "?"),
           machine.get("cpus", "?")),
        fontsize=10)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
