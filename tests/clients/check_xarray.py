#!/usr/bin/python3
"""Client test: xarray (netCDF4 engine) on the demo's output.

  check_xarray.py OUTDIR RECORDS GRID

Opens esmio.nc, serial.nc and subset.nc with xarray, raw (no masking or scaling, no time
decoding). Checks dimensions, variable order, dtypes and coordinates; every record of every one
of the 95 fields against the documented formula float32((1000*v + t) + g*1e-6) (computed in
float64 with numpy, cast to float32, compared bit for bit as uint32); and that the esmio file's
arrays equal the serial reference's and the subset-layout file's (np.array_equal) for all 95.
"""
import sys
import time

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
import netCDF4  # noqa: E402,F401  (the engine: its absence is a failure, not a fallback)

from clients_common import NAMES, Checker, Grid, is3d, paths  # noqa: E402


def first_diff(a, b):
    bad = np.flatnonzero(a.view(np.uint32).ravel() != b.view(np.uint32).ravel())
    i = int(bad[0])
    return "%d of %d differ; first at flat index %d (%s): %r != %r" % (
        bad.size, a.size, i, np.unravel_index(i, a.shape), a.ravel()[i], b.ravel()[i])


def main():
    outdir, nrec, grid = sys.argv[1], int(sys.argv[2]), Grid(sys.argv[3])
    NLEV, NLAT, NLON = grid.nlev, grid.nlat, grid.nlon
    files = paths(outdir)
    c = Checker("xarray %s (engine netcdf4, netCDF4 %s, numpy %s) on %s, %d record(s)"
                % (xr.__version__, netCDF4.__version__, np.__version__, outdir, nrec))
    t0 = time.time()
    ds = {k: xr.open_dataset(p, engine="netcdf4", mask_and_scale=False, decode_times=False,
                             decode_coords=False, cache=False)
          for k, p in files.items()}
    e = ds["esmio"]

    want_sizes = {"time": nrec, "lev": NLEV, "lat": NLAT, "lon": NLON}
    c.check(dict(e.sizes) == want_sizes, "sizes %s" % want_sizes, "got %s" % dict(e.sizes))
    c.check(list(e.data_vars) == NAMES, "95 data variables in definition order (T .. FLD2D_60)",
            "got %s" % list(e.data_vars)[:5])
    c.check(e.encoding.get("unlimited_dims") == {"time"}, "time is the unlimited dimension",
            "got %s" % e.encoding.get("unlimited_dims"))
    c.check(e.attrs.get("Conventions") == "CF-1.8", "global Conventions = CF-1.8", "got %s" % e.attrs)
    bad = [n for v, n in enumerate(NAMES)
           if e[n].dtype != np.float32
           or e[n].dims != (("time", "lev", "lat", "lon") if is3d(v) else ("time", "lat", "lon"))
           or e[n].attrs.get("units") != "1"]
    c.check(not bad, "all 95 fields float32, dims (time[, lev], lat, lon), units '1'", "wrong: %s" % bad[:5])

    lev, lat, lon = grid.coords()
    for name, want in (("time", [0.25 * t for t in range(nrec)]), ("lev", lev), ("lat", lat), ("lon", lon)):
        got = e[name].values
        c.check(got.dtype == np.float64 and np.array_equal(got, np.array(want)),
                "%s: %d float64 values equal the demo's exactly" % (name, len(want)))
        c.check(all(np.array_equal(got, ds[k][name].values) for k in ("serial", "subset")),
                "%s: serial.nc and subset.nc have the same" % name)

    # Fields: whole arrays, every record.
    spot = {0: "first field", 33: "last 3-D field", 34: "first 2-D field", 94: "last field"}
    nvalues = 0
    for v, name in enumerate(NAMES):
        a = e[name].values
        if a.shape != (nrec,) + grid.field_shape(v):
            c.check(False, "%s shape" % name, "got %s" % (a.shape,))
            continue
        for t in range(nrec):
            want = grid.expected(v, t, np)
            ok = np.array_equal(a[t].view(np.uint32), want.view(np.uint32))
            c.check(ok, "esmio.nc %-8s (v=%2d%s) record %d: %d values == float32(%d + g*1e-6), bit for bit"
                    % (name, v, ", " + spot[v] if v in spot else "", t, want.size, 1000 * v + t),
                    "" if ok else first_diff(a[t], want))
            nvalues += want.size
        same = []
        for k in ("serial", "subset"):
            b = ds[k][name].values
            ok = np.array_equal(a, b) and np.array_equal(a.view(np.uint32), b.view(np.uint32))
            same.append("" if ok else "%s.nc differs: %s" % (k, first_diff(a, b) if a.shape == b.shape
                                                             else "shape %s" % (b.shape,)))
        c.check(not any(same), "esmio.nc %-8s == serial.nc == subset.nc (np.array_equal, all %d records)"
                % (name, nrec), "; ".join(x for x in same if x))
    for d in ds.values():
        d.close()
    print("  (%d field values checked against the formula, each also compared with 2 other files; %.1f s)"
          % (nvalues, time.time() - t0))
    c.finish()


if __name__ == "__main__":
    main()
