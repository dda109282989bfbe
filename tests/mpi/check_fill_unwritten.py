"""Reads the files test_fill_unwritten writes with netCDF4-python and checks every value bit for
bit: the data written, and the fill value (the _FillValue attribute, or netCDF's default for the
type) wherever no call wrote: in variables never written, in records skipped over, and in the
parts of a variable or record that put_vara slices left out.
Usage: check_fill_unwritten.py OUTDIR TAG...   (TAG: the backends' tags, e.g. pnetcdf netcdf4)
"""
import sys

import netCDF4
import numpy as np

Y, X, W = 4, 250, 1600
F4, F8, I4 = np.float32, np.float64, np.int32
DEFAULT = {F4: F4(9.9692099683868690e+36), F8: F8(9.9692099683868690e+36), I4: I4(-2147483647)}
failures = 0


def fail(text):
    global failures
    failures += 1
    print("FAIL", text)


def field(base, rows, dtype):
    """base + the global index of a (rows, X) field, in dtype."""
    return (base + np.arange(rows * X, dtype=F8).reshape(rows, X)).astype(dtype)


def filled(shape, value, dtype):
    return np.full(shape, value, dtype=dtype)


def same_bits(name, got, want):
    """got and want equal bit for bit (NaN and -0 included), with the count of differences."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        fail(f"{name}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
        return
    view = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
    bad = np.count_nonzero(got.view(view) != want.view(view))
    if bad:
        where = np.argwhere(got.view(view) != want.view(view))[0]
        fail(f"{name}: {bad} of {want.size} values differ, the first at {tuple(where)}: "
             f"{got[tuple(where)]!r}, expected {want[tuple(where)]!r}")


def expected(reopened):
    """Variable name -> the array it must hold."""
    records = 4 if reopened else 3
    rec_f = [field(1000, Y, F4), filled((Y, X), DEFAULT[F4], F4), field(3000, Y, F4)]
    if reopened:
        rec_f.append(field(4000, Y, F4))
    want = {
        "written_f": field(0, Y, F4),
        "fill_f": filled((Y, X), -7, F4),
        "default_d": filled((Y, X), DEFAULT[F8], F8),
        "fill_i": filled((X,), -5, I4),
        "default_i": filled((Y, X), DEFAULT[I4], I4),
        "coord": 0.5 * np.arange(X, dtype=F8),
        "scalar": filled((), DEFAULT[F8], F8),
        "big": filled((W, X), 1.5, F8),
        "rec_f": np.stack(rec_f),
        "rec_i": filled((records, Y, X), -3, I4),
        "rec_d": filled((records, X), DEFAULT[F8], F8),
        "holes_f": np.concatenate([field(7000, Y // 2, F4), filled((Y - Y // 2, X), DEFAULT[F4], F4)]),
    }
    part_f = filled((Y, X), -2, F4)
    for row in (1, 3):
        part_f[row] = (8000 + np.arange(row * X, (row + 1) * X, dtype=F8)).astype(F4)
    want["part_f"] = part_f
    rec_part_d = filled((records, X), DEFAULT[F8], F8)
    rec_part_d[1, 10:20] = 9000 + np.arange(10, dtype=F8)
    want["rec_part_d"] = rec_part_d
    if reopened:
        want["late_f"] = filled((Y, X), -9, F4)
        want["late_w"] = field(5000, Y, F4)
    return want


def check(path, reopened):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_maskandscale(False)
        want = expected(reopened)
        for name in sorted(set(ds.variables) - set(want)):
            fail(f"{path}: an unexpected variable {name}")
        for name, values in want.items():
            if name not in ds.variables:
                fail(f"{path}: no variable {name}")
                continue
            same_bits(f"{path} {name}", ds.variables[name][...], values)


out, tags = sys.argv[1], sys.argv[2:]
for tag in tags:
    check(f"{out}/fresh_{tag}.nc", False)
    check(f"{out}/reopened_{tag}.nc", True)
print("fill_unwritten files:", "FAILED" if failures else f"passed ({len(tags)} backends, 2 files each)")
sys.exit(1 if failures else 0)
