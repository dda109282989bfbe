"""Client check of esmio's netCDF-4 output: nc4z.nc (the demo through the netcdf4 backend, every
variable zstd-compressed) read by ncdump, xarray and CDO through esmio's zstd plugin
(HDF5_PLUGIN_PATH, set by CTest), compared value for value with serial.nc (the gather-to-root
CDF-5 reference): lossless compression must give the same float32 bits. Without the plugin the
data must be unreadable, which shows the compression is really in the file.

    check_netcdf4.py OUTDIR RECORDS GRID
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

from clients_common import NAMES, Checker, Grid, need_tool, run  # noqa: E402


def main():
    outdir, nrec, grid = sys.argv[1], int(sys.argv[2]), Grid(sys.argv[3])
    nc4, ref = os.path.join(outdir, "nc4z.nc"), os.path.join(outdir, "serial.nc")
    for p in (nc4, ref):
        if not os.path.isfile(p):
            print("FAIL: %s missing (did clients.generate run?)" % p, flush=True)
            sys.exit(1)
    plugins = os.environ.get("HDF5_PLUGIN_PATH", "")
    c = Checker("netCDF-4 + zstd output %s, plugin path %r" % (nc4, plugins))
    c.check(os.path.isfile(os.path.join(plugins, "libesmio_h5zstd.so")),
            "HDF5_PLUGIN_PATH holds libesmio_h5zstd.so")
    ncdump, cdo = need_tool("ncdump"), need_tool("cdo")

    r = run([ncdump, "-k", nc4])
    c.check(r.returncode == 0 and r.stdout.strip() == "netCDF-4", "ncdump -k says netCDF-4",
            "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr))
    r = run([ncdump, "-hs", nc4])
    header = r.stdout
    for name in ("T", "TTEND", "FLD2D_00"):
        m = re.search(r"\t\t%s:_Filter = \"([^\"]*)\" ;" % name, header)
        c.check(m is not None and m.group(1) == "32015,3", "ncdump -hs: %s:_Filter = \"32015,3\"" % name,
                "got %r" % (m.group(1) if m else None))
        m = re.search(r"\t\t%s:_ChunkSizes = ([0-9, ]*) ;" % name, header)
        c.check(m is not None and m.group(1).startswith("1, "),
                "ncdump -hs: %s:_ChunkSizes one record per chunk (%s)" % (name, m.group(1) if m else None))
    size, ref_size = os.path.getsize(nc4), os.path.getsize(ref)
    c.check(size < ref_size, "nc4z.nc (%d bytes) is smaller than serial.nc (%d bytes): %.2fx"
            % (size, ref_size, ref_size / max(size, 1)))

    # xarray: every field, every record, bit for bit against the formula and the reference.
    a = xr.open_dataset(nc4, engine="netcdf4", mask_and_scale=False, decode_times=False,
                        decode_coords=False, cache=False)
    b = xr.open_dataset(ref, engine="netcdf4", mask_and_scale=False, decode_times=False,
                        decode_coords=False, cache=False)
    bad = []
    for v, name in enumerate(NAMES):
        x, y = a[name].values, b[name].values
        same = x.shape == y.shape and np.array_equal(x.view(np.uint32), y.view(np.uint32))
        same = same and all(np.array_equal(x[t].view(np.uint32),
                                           grid.expected(v, t, np).view(np.uint32))
                            for t in range(nrec))
        if not same:
            bad.append(name)
    c.check(not bad, "xarray: all 95 fields of nc4z.nc == serial.nc == the formula, bit for bit",
            "differ: %s" % bad[:5])
    a.close()
    b.close()

    # CDO: the same data (it reads netCDF-4 through the plugin too).
    r = run([cdo, "-s", "diff", nc4, ref])
    c.check(r.returncode == 0 and r.stdout.strip() == "",
            "cdo -s diff nc4z.nc serial.nc: exit 0, no differences",
            "rc=%d out=%r err=%r" % (r.returncode, r.stdout[-300:], r.stderr[-300:]))

    # Without the plugin the compressed data cannot be read.
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    r = run([ncdump, "-v", "FLD2D_00", nc4], env=env)
    c.check(r.returncode != 0 and "filter" in (r.stderr + r.stdout).lower(),
            "without HDF5_PLUGIN_PATH ncdump cannot read FLD2D_00 (a filter error)",
            "rc=%d err=%r" % (r.returncode, r.stderr[-200:]))
    c.finish()


if __name__ == "__main__":
    main()
