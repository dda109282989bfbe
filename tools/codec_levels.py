#!/usr/bin/python3
"""Codec speed and ratio per core on real model fields: each field as float32,
as HDF5 stores it (with and without the shuffle filter, which transposes the 4 bytes of each
value), lossless and BitRounded to 7 mantissa bits (a typical information:0.99 result);
compressed with zstd's own benchmark (zstd -b, one thread, the library esmio's HDF5 filter
calls) and with zlib (deflate, as netCDF-C's filter). Prints a table; writes results.json in the current directory.
usage: codec_levels.py [DATA_DIR]   (default /usr/share/ncarg/data)"""
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np
from netCDF4 import Dataset

SOURCES = [("cdf/pop.nc", "t"), ("cdf/pop.nc", "urot"), ("nug/tas_rotated_grid_EUR11.nc", "tas"),
           ("nug/HSURF_regional_model_0.11deg.nc", "HSURF")]


def field(root, path, name):
    with Dataset(os.path.join(root, path)) as d:
        v = d[name]
        v.set_auto_mask(False)
        a = v[:]
        while a.ndim > 2:
            a = a[0]
        return np.ascontiguousarray(a, dtype=np.float32)


def bitround(a, keep):
    u = a.view(np.uint32).copy()
    drop = 23 - keep
    half = np.uint32(1 << (drop - 1))
    lsb = (u >> np.uint32(drop)) & np.uint32(1)
    u = (u + half - np.uint32(1) + lsb) & ~np.uint32((1 << drop) - 1)
    finite = np.isfinite(a)
    return np.where(finite, u, a.view(np.uint32)).view(np.float32)


def shuffle(b):
    return np.frombuffer(b, dtype=np.uint8).reshape(-1, 4).T.copy().tobytes()


def zstd_bench(data, levels):
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(["zstd", "-b%d" % levels[0], "-e%d" % levels[-1], "-T1", "-i3",
                              f.name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    # Bytes, not text: text mode would turn the carriage returns into newlines.
    stdout = out.stdout.decode()
    # stdout holds one line per level, ending in "N#" (the level); inside it, updates separated
    # by carriage returns, "=-name : 491520 -> 303399 (x1.620), 179.7 MB/s, 1895.7 MB/s", the
    # last one with both speeds being the level's result.
    rows = {}
    for block in stdout.split("\n"):
        tail = block.rstrip().split("\r")
        marker = tail[-1].strip()
        if not (marker.endswith("#") and marker[:-1].isdigit()):
            continue
        done = [t for t in tail if "->" in t and t.count("MB/s") == 2]
        if not done:
            continue
        ratio = float(done[-1].split("(x")[1].split(")")[0])
        parts = done[-1].replace(",", " ").split()
        speeds = [float(p) for p, q in zip(parts, parts[1:]) if q == "MB/s"]
        rows[int(marker[:-1])] = {"ratio": ratio, "compress_mb_s": speeds[0],
                                  "decompress_mb_s": speeds[1]}
    if len(rows) != levels[-1] - levels[0] + 1:
        sys.exit("codec_levels.py: could not read zstd -b's output:\n" + stdout)
    return rows


def zlib_bench(data, level, repeat=3):
    best = 1e9
    for _ in range(repeat):
        t = time.perf_counter()
        c = zlib.compress(data, level)
        best = min(best, time.perf_counter() - t)
    return {"ratio": len(data) / len(c), "compress_mb_s": len(data) / best / 1e6}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/ncarg/data"
    results = []
    print("%-10s %-9s %-8s %-8s %7s %9s" % ("field", "values", "shuffle", "codec", "ratio",
                                             "MB/s/core"))
    for path, name in SOURCES:
        a = field(root, path, name)
        for values, arr in (("lossless", a), ("7 bits", bitround(a, 7))):
            for shuf in (False, True):
                data = shuffle(arr.tobytes()) if shuf else arr.tobytes()
                z = zstd_bench(data, [1, 3])
                z = {k: v for k, v in z.items() if k in (1, 3)}
                rows = {"zstd:%d" % k: v for k, v in z.items()}
                for lvl in (1, 4):
                    rows["deflate:%d" % lvl] = zlib_bench(data, lvl)
                for codec, r in rows.items():
                    results.append(dict(field=name, shape=list(a.shape), values=values,
                                        shuffle=shuf, codec=codec, **r))
                    print("%-10s %-9s %-8s %-8s %7.2f %9.0f" % (name, values, shuf, codec,
                                                               r["ratio"], r["compress_mb_s"]))
    with open("results.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
