"""Binding overhead: the cam-fvd record set written from C, Fortran and
Python, interleaved, and compared against C.

    python3 bench/bindings/compare.py --build /tmp/build-bb [--np 2,4] [--rounds 5] [--reps 3]
            [--warmup 1] [--backend pnetcdf[,netcdf4]] [--scale 1.0] [--iotasks 0]
            [--dir /tmp/esmio-bindings] [--json out.json] [--check] [--fsync]

For every backend and rank count, R rounds; each round launches C, Fortran, Python in that
order (--order changes it) (mpirun --oversubscribe -np N PROGRAM --reps K ...), each writing the same file K times
(cam_fvd_c.c, cam_fvd_fortran.F90, cam_fvd_python.py: same workload, calls and clock). The
first --warmup repetitions of every launch are recorded but left out of the statistics.

Per variant: min / median / max of the repetition times (the bench's write time: create ..
close between barriers, data generation included) and of the same minus the generation time
(generate_s, timed per field around the fill of the buffer, the slowest rank's sum), the ratio
of medians against C, and the median of the per-round ratios (variant / C of the same round,
paired, which cancels load that drifts slowly between rounds). Then the binding's own cost,
which the load hardly touches: write_darray timed by the caller minus the library's
"write_darray" trace counter, summed over the 95 calls of a repetition (binding_s).

--check keeps the last file of every program and requires them to be equal (pnetcdf: byte for
byte; netcdf4: as ncdump prints them, first line dropped) and a few variables to hold the
formula's values (netCDF4 module, when importable). Meant for small --scale.
Exit status: 0 when every launch produced its JSON line (and --check passed).
"""
import argparse
import datetime
import filecmp
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VARIANTS = ("c", "fortran", "python")
FILES = {v: f"cam_fvd_{v}.nc" for v in VARIANTS}
NOTE = ("machine: {cpus} cores (shared with other work), files on a host-cached virtual disk; "
        "{over}ratios are indicative, not precise")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--build", default=os.path.join(REPO, "build"),
                   help="build directory (programs in bench/bindings/, libesmio.so)")
    p.add_argument("--c-exe", help="the C program (default: BUILD/bench/bindings/...)")
    p.add_argument("--fortran-exe", help="the Fortran program")
    p.add_argument("--python", default="/usr/bin/python3", help="interpreter for the Python one")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--np", default="2,4", help="rank counts, comma-separated")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--reps", type=int, default=3, help="repetitions per launch")
    p.add_argument("--warmup", type=int, default=0,
                   help="first repetitions of each launch left out of the statistics")
    p.add_argument("--backend", default="pnetcdf", help="pnetcdf and/or netcdf4, comma-separated")
    p.add_argument("--scale", type=float, default=1.0, help="lat and lon scale (the scripts')")
    p.add_argument("--iotasks", type=int, default=0)
    p.add_argument("--fsync", action="store_true", help="pass --fsync (durable) to the programs")
    p.add_argument("--dir", default="/tmp/esmio-bindings", help="where the files are written")
    p.add_argument("--json", help="write everything (every launch's JSON line, summary) here")
    p.add_argument("--check", action="store_true",
                   help="keep the files and check that the three are equal and correct")
    p.add_argument("--timeout", type=int, default=600, help="seconds per launch")
    p.add_argument("--order", default="c,fortran,python",
                   help="launch order within a round (to look for position effects)")
    a = p.parse_args()
    a.np = [int(n) for n in a.np.split(",")]
    a.backend = a.backend.split(",")
    a.order = a.order.split(",")
    if sorted(a.order) != sorted(VARIANTS):
        p.error("--order: c, fortran and python, each once")
    bad = [b for b in a.backend if b not in ("pnetcdf", "netcdf4")]
    if bad or a.rounds < 1 or a.reps < 1 or not 0 <= a.warmup < a.reps:
        p.error("backends: pnetcdf, netcdf4; rounds, reps >= 1; 0 <= warmup < reps")
    bindir = os.path.join(a.build, "bench", "bindings")
    a.c_exe = a.c_exe or os.path.join(bindir, "bindings_cam_fvd_c")
    a.fortran_exe = a.fortran_exe or os.path.join(bindir, "bindings_cam_fvd_fortran")
    return a


def environment(args):
    env = dict(os.environ)
    python_dir = os.path.join(REPO, "python")
    if python_dir not in env.get("PYTHONPATH", "").split(os.pathsep):
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [python_dir, env.get("PYTHONPATH")]))
    lib = os.path.join(args.build, "libesmio.so")
    if "ESMIO_LIBRARY" not in env and os.path.exists(lib):
        env["ESMIO_LIBRARY"] = lib
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def program(args, variant):
    if variant == "c":
        return [args.c_exe]
    if variant == "fortran":
        return [args.fortran_exe]
    return [args.python, os.path.join(HERE, "cam_fvd_python.py")]


def launch(args, env, variant, np_, backend, directory, keep):
    cmd = [args.mpirun, "--oversubscribe", "-np", str(np_)] + program(args, variant) + [
        "--reps", str(args.reps), "--dir", directory, "--backend", backend,
        "--iotasks", str(args.iotasks), "--scale", repr(args.scale)]
    if args.fsync:
        cmd.append("--fsync")
    if keep:
        cmd.append("--keep")
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    wall = time.monotonic() - t0
    result = None
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
            except json.JSONDecodeError:
                pass
            break
    if rc != 0 or result is None or result.get("binding") != variant:
        sys.stderr.write(f"FAILED ({rc}): {shlex.join(cmd)}\n{out[-2000:]}{err[-4000:]}\n")
        result = None
    return shlex.join(cmd), wall, result


def stats(values):
    if not values:
        return None
    return {"n": len(values), "min": min(values), "median": statistics.median(values),
            "max": max(values)}


def summarise(runs, warmup):
    """Per variant: times (data generation included and excluded) and the ratios to C."""
    total, excl, per_round, own, calls = {}, {}, {}, {}, {}
    for run in runs:
        res, v = run["result"], run["variant"]
        if res is None:
            continue
        s, g = res["seconds"][warmup:], res["generate_s"][warmup:]
        total.setdefault(v, []).extend(s)
        own.setdefault(v, []).extend(res.get("binding_s", [])[warmup:])
        calls.setdefault(v, []).extend(res.get("write_call_s", [])[warmup:])
        excl.setdefault(v, []).extend(a - b for a, b in zip(s, g))
        per_round.setdefault(v, {})[run["round"]] = (statistics.median(s),
                                                     statistics.median(a - b for a, b in zip(s, g)))
    out = {}
    for v in VARIANTS:
        if v not in total:
            continue
        row = {"total": stats(total[v]), "excl_generate": stats(excl[v]),
               "generate_median": statistics.median(a - b for a, b in zip(total[v], excl[v])),
               "write_call": stats(calls[v]), "binding": stats(own[v])}
        if "c" in total:
            ref = row if v == "c" else out["c"]
            row["ratio_median"] = row["total"]["median"] / ref["total"]["median"]
            row["ratio_median_excl"] = (row["excl_generate"]["median"]
                                        / ref["excl_generate"]["median"])
            paired = [(per_round[v][r][0] / per_round["c"][r][0],
                       per_round[v][r][1] / per_round["c"][r][1])
                      for r in per_round[v] if r in per_round["c"]]
            if paired:
                row["paired_ratio_median"] = statistics.median(p[0] for p in paired)
                row["paired_ratio_median_excl"] = statistics.median(p[1] for p in paired)
                row["rounds_paired"] = len(paired)
        out[v] = row
    return out


def table(summary):
    head = ("variant", "n", "total s min / median / max", "x C", "paired x C",
            "excl. generate s min / median / max", "x C", "paired x C", "generate s")
    rows = [head]
    for v, r in summary.items():
        t, e = r["total"], r["excl_generate"]
        rows.append((v, str(t["n"]), f"{t['min']:.3f} / {t['median']:.3f} / {t['max']:.3f}",
                     f"{r.get('ratio_median', float('nan')):.3f}",
                     f"{r.get('paired_ratio_median', float('nan')):.3f}",
                     f"{e['min']:.3f} / {e['median']:.3f} / {e['max']:.3f}",
                     f"{r.get('ratio_median_excl', float('nan')):.3f}",
                     f"{r.get('paired_ratio_median_excl', float('nan')):.3f}",
                     f"{r['generate_median']:.3f}"))
    text = markdown(rows)
    if all(r["binding"] for r in summary.values()):
        ref = summary[next(iter(summary))]["total"]["median"]
        rows = [("variant", "write_darray as called s min / median / max",
                 "binding's own s min / median / max", "median per call us",
                 f"median % of {next(iter(summary))}'s total")]
        for v, r in summary.items():
            w, b = r["write_call"], r["binding"]
            rows.append((v, f"{w['min']:.4f} / {w['median']:.4f} / {w['max']:.4f}",
                         f"{b['min']:.5f} / {b['median']:.5f} / {b['max']:.5f}",
                         f"{b['median'] / 95 * 1e6:.1f}", f"{100 * b['median'] / ref:.2f}"))
        text += ("\n\nThe binding's own cost, per repetition (95 write_darray calls; slowest rank): "
                 "write_darray timed by the caller minus the library's write_darray trace "
                 "counter\n" + markdown(rows))
    return text


def markdown(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def check_files(directory, backend):
    """The three kept files: equal, and holding the formula's values. Returns problems."""
    paths = {v: os.path.join(directory, FILES[v]) for v in VARIANTS}
    missing = [p for p in paths.values() if not os.path.exists(p)]
    if missing:
        return [f"missing {p}" for p in missing]
    problems = []
    if backend == "pnetcdf":
        for v in ("fortran", "python"):
            if not filecmp.cmp(paths["c"], paths[v], shallow=False):
                problems.append(f"{paths[v]} differs from {paths['c']} (bytes)")
    else:
        def dump(path):
            r = subprocess.run(["ncdump", path], capture_output=True, text=True, check=True)
            return r.stdout.split("\n", 1)[1]  # the first line names the file
        ref = dump(paths["c"])
        for v in ("fortran", "python"):
            if dump(paths[v]) != ref:
                problems.append(f"{paths[v]} differs from {paths['c']} (ncdump)")
    try:
        import netCDF4
        import numpy as np
    except ImportError:
        print(f"check: netCDF4/numpy not importable, values not checked ({backend})")
        return problems
    with netCDF4.Dataset(paths["c"]) as ds:
        names = list(ds.variables)
        if len(names) != 95 or names[0] != "T" or names[-1] != "FLD2D_60":
            problems.append(f"variables: {len(names)}, {names[:1]} .. {names[-1:]}")
        for v in (0, 33, 34, 94):
            var = ds.variables[names[v]]
            var.set_auto_maskandscale(False)
            got = var[0]
            want = (np.arange(got.size, dtype=np.int64).reshape(got.shape) * 1.0e-6
                    + float(1000 * v)).astype(np.float32)
            if got.dtype != np.float32 or not np.array_equal(got, want):
                problems.append(f"{names[v]}: values differ from (1000*v + t) + g*1e-6")
    return problems


def main():
    args = parse_args()
    env = environment(args)
    cpus = os.cpu_count() or 0
    for exe in (args.c_exe, args.fortran_exe):
        if not os.access(exe, os.X_OK):
            sys.exit(f"compare.py: no program {exe} (build the bindings_cam_fvd_* targets, or "
                     "pass --build / --c-exe / --fortran-exe)")
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = os.getloadavg()
    over = (f"{max(args.np)} ranks on {cpus} cores are oversubscribed; "
            if max(args.np) > cpus else "")
    note = NOTE.format(cpus=cpus, over=over)
    print(f"# {note}")
    print(f"# {started:%Y-%m-%d %H:%M} UTC, load average {load0[0]:.2f} {load0[1]:.2f} "
          f"{load0[2]:.2f}; {args.rounds} rounds x {args.reps} reps per launch "
          f"({args.warmup} warm-up left out); order per round: {', '.join(args.order)}", flush=True)
    runs, results, failures = [], [], 0
    for backend in args.backend:
        for np_ in args.np:
            directory = os.path.join(args.dir, f"{backend}-np{np_}")
            os.makedirs(directory, exist_ok=True)
            block = []
            for rnd in range(args.rounds):
                keep = args.check and rnd == args.rounds - 1
                for v in args.order:
                    cmd, wall, res = launch(args, env, v, np_, backend, directory, keep)
                    failures += res is None
                    run = {"backend": backend, "np": np_, "round": rnd, "variant": v,
                           "command": cmd, "launch_wall_s": round(wall, 3), "result": res,
                           "loadavg_1m": os.getloadavg()[0]}
                    block.append(run)
                    secs = " ".join(f"{s:.3f}" for s in res["seconds"]) if res else "FAILED"
                    print(f"  {backend} np {np_} round {rnd + 1}/{args.rounds} {v:8s} {secs}",
                          flush=True)
            runs.extend(block)
            summary = summarise(block, args.warmup)
            entry = {"backend": backend, "np": np_, "summary": summary}
            if args.check:
                problems = check_files(directory, backend)
                entry["check"] = {"ok": not problems, "problems": problems}
                failures += bool(problems)
                print(f"check {backend} np {np_}: " + ("the three files are equal and hold the "
                      "formula's values" if not problems else "FAILED: " + "; ".join(problems)))
            results.append(entry)
            print(f"\ncam-fvd, {backend}, {np_} ranks, scale {args.scale:g}: seconds per "
                  "repetition (x C: ratio of medians; paired: median of per-round ratios)")
            print(table(summary) + "\n", flush=True)
    load1 = os.getloadavg()
    print(f"# {note}; load average at the end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        doc = {"schema": "esmio-bindings-compare/1", "note": note,
               "started_utc": started.isoformat(timespec="seconds"),
               "command": shlex.join([sys.executable] + sys.argv),
               "machine": {"cpus": cpus, "node": platform.node(), "uname": " ".join(platform.uname()),
                           "loadavg_start": load0, "loadavg_end": load1},
               "config": {k: getattr(args, k) for k in ("np", "rounds", "reps", "warmup", "backend",
                                                        "scale", "iotasks", "fsync", "dir",
                                                        "order")},
               "results": results, "runs": runs}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"wrote {args.json}")
    if failures:
        print(f"compare.py: {failures} failure(s)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
