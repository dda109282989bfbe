#!/usr/bin/python3
"""Client test: CDO on the demo's output.

  check_cdo.py OUTDIR RECORDS GRID

cdo sinfo/sinfon/showname see the grid, levels, steps and the 95 variables; cdo outputf prints
corner values of four fields, compared bit for bit with the formula; cdo diff finds no difference
between the esmio file, the serial reference and the subset-layout file, and does find a
one-ulp change (made with NCO's ncap2) in the last value of T, so that this check can fail.

What cdo diff says (CDO 2.1): files equal -> exit 0 and no output at all (with or without -s);
files different -> exit 1 and, with -s, "  N of M records differ" (plus "  K of M records differ
more than 0.001" when no difference is large); M counts one record per field level and step.
"""
import os
import re
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402

from clients_common import (NAMES, Checker, Grid, expected_at, is3d, need_tool, paths,  # noqa: E402
                            run)


def main():
    outdir, nrec, grid = sys.argv[1], int(sys.argv[2]), Grid(sys.argv[3])
    NLEV, NLAT, NLON = grid.nlev, grid.nlat, grid.nlon
    cdo = need_tool("cdo")
    ncap2 = need_tool("ncap2")
    files = paths(outdir)
    nrecords = grid.cdo_records_per_step * nrec
    c = Checker("CDO on %s (%d step(s), %d cdo records per file)" % (outdir, nrec, nrecords))

    # ---- sinfo: format, grid, levels, time steps, one line per variable -----------------------
    r = run([cdo, "-s", "sinfo", files["esmio"]])
    out = r.stdout
    c.check(r.returncode == 0, "cdo -s sinfo esmio.nc exits 0", r.stderr)
    c.check("File format : NetCDF5" in out, "sinfo: File format : NetCDF5")
    c.check("lonlat                   : points=%d (%dx%d)" % (NLAT * NLON, NLON, NLAT) in out,
            "sinfo: lonlat grid, points=%d (%dx%d)" % (NLAT * NLON, NLON, NLAT), out[-800:])
    lon_line = "lon : 0 to %g by %g degrees_east" % (grid.coords()[2][-1], grid.dlon)
    lat_line = "lat : -90 to 90 by %g degrees_north" % grid.dlat
    c.check(lon_line in out and lat_line in out, "sinfo: '%s', '%s'" % (lon_line, lat_line))
    c.check("levels=%d" % NLEV in out and "lev : 3.6 to 992.6" in out, "sinfo: %d pressure levels 3.6 to 992.6" % NLEV)
    c.check(re.search(r"time : %d steps?\b" % nrec, out) is not None, "sinfo: time : %d step(s)" % nrec)
    rows = re.findall(r"^\s+\d+ : \S+\s+\S+\s+v instant\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s+(\S+)\s+:", out, re.M)
    want_rows = [(str(NLEV if is3d(v) else 1), str(NLAT * NLON), "F32") for v in range(95)]
    c.check(rows == want_rows, "sinfo lists 95 F32 variables: 34 with %d levels, then 61 with 1 level" % NLEV,
            "got %d rows %s" % (len(rows), rows[:3]))

    # ---- sinfon / showname: the names -------------------------------------------------------
    r = run([cdo, "-s", "sinfon", files["esmio"]])
    names = re.findall(r"^\s+\d+ : .*F32\s+: (\S+)\s*$", r.stdout, re.M)
    c.check(r.returncode == 0 and names == NAMES, "sinfon lists the 95 names in definition order (T .. FLD2D_60)",
            "got %s" % names[:5])
    r = run([cdo, "-s", "showname", files["esmio"]])
    c.check(r.returncode == 0 and r.stdout.split() == NAMES, "showname gives the 95 names")
    r = run([cdo, "-s", "ntime", files["esmio"]])
    c.check(r.returncode == 0 and r.stdout.strip() == str(nrec), "ntime = %d" % nrec, r.stdout + r.stderr)

    # ---- values: corners of the grid, first/last level, printed exactly (%.9g) ----------------
    boxes = [(1, 4, 1, 2), (NLON - 3, NLON, NLAT - 1, NLAT)]  # lon1,lon2,lat1,lat2 (1-based)
    steps = sorted({1, nrec})
    compared = 0
    for name in ("T", "TTEND", "FLD2D_00", "FLD2D_60"):
        v = NAMES.index(name)
        for step in steps:
            for lev in ((1, NLEV) if is3d(v) else (1,)):
                for (x1, x2, y1, y2) in boxes:
                    cmd = [cdo, "-s", "outputf,%.9g,1", "-selindexbox,%d,%d,%d,%d" % (x1, x2, y1, y2),
                           "-seltimestep,%d" % step]
                    cmd += ["-sellevidx,%d" % lev] if is3d(v) else []
                    cmd += ["-selname," + name, files["esmio"]]
                    r = run(cmd)
                    got = np.array([float(s) for s in r.stdout.split()], dtype=np.float64).astype(np.float32)
                    want = np.array([expected_at(v, step - 1, ((lev - 1) * NLAT + y - 1) * NLON + x - 1, np)
                                     for y in range(y1, y2 + 1) for x in range(x1, x2 + 1)], dtype=np.float32)
                    ok = r.returncode == 0 and got.shape == want.shape and \
                        np.array_equal(got.view(np.uint32), want.view(np.uint32))
                    compared += want.size
                    c.check(ok, "cdo outputf %s (v=%d) step %d level %d lon %d..%d lat %d..%d: %d values == formula"
                            % (name, v, step, lev, x1, x2, y1, y2, want.size),
                            "got %s want %s %s" % (got.tolist(), want.tolist(), r.stderr))
    print("  (%d values printed by cdo compared bit for bit)" % compared)

    # ---- cdo diff ---------------------------------------------------------------------------
    def diff(a, b):
        r = run([cdo, "-s", "diff", files.get(a, a), files.get(b, b)])
        print("    exit %d, stdout %r, stderr %r" % (r.returncode, r.stdout, r.stderr))
        return r

    for a, b in (("esmio", "serial"), ("subset", "serial"), ("esmio", "subset")):
        r = diff(a, b)
        c.check(r.returncode == 0 and r.stdout.strip() == "" and r.stderr.strip() == "",
                "cdo -s diff %s.nc %s.nc: exit 0, prints nothing (no differences in %d records)" % (a, b, nrecords))

    # A must-fail case: T's very last value (last level, lat 90, last lon, step 1) one ulp up.
    # ncap2 moves the variable it assigns to the front of the file; T is first already, so the
    # variable order (which cdo diff relies on) is unchanged.
    v, g = 0, NLEV * NLAT * NLON - 1
    old = expected_at(v, 0, g, np)
    new = np.nextafter(old, np.float32(np.inf))
    mutated = os.path.join(outdir, "mutated.nc")
    try:
        r = run([ncap2, "-O", "-s", "T(0,%d,%d,%d)=%.9gf" % (NLEV - 1, NLAT - 1, NLON - 1, new),
                 files["esmio"], mutated])
        c.check(r.returncode == 0, "ncap2 wrote mutated.nc: T(0,%d,%d,%d) %.9g -> %.9g (one ulp)"
                % (NLEV - 1, NLAT - 1, NLON - 1, old, new), r.stderr)
        r = run([cdo, "-s", "outputf,%.9g,1", "-selindexbox,%d,%d,%d,%d" % (NLON, NLON, NLAT, NLAT),
                 "-seltimestep,1", "-sellevidx,%d" % NLEV, "-selname,T", mutated])
        got = np.float32(float(r.stdout.split()[0])) if r.stdout.split() else None
        c.check(got == new, "cdo reads the mutated value %.9g from mutated.nc" % new, "got %r" % got)
        r = diff("esmio", mutated)
        want_line = "1 of %d records differ" % nrecords
        c.check(r.returncode == 1 and want_line in r.stdout,
                "cdo -s diff esmio.nc mutated.nc: exit 1 and '%s'" % want_line)
        r = diff("serial", mutated)
        c.check(r.returncode == 1 and want_line in r.stdout,
                "cdo -s diff serial.nc mutated.nc: exit 1 and '%s'" % want_line)
    finally:
        if os.path.exists(mutated):
            os.remove(mutated)
    c.finish()


if __name__ == "__main__":
    main()
