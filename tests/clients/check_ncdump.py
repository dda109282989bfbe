#!/usr/bin/python3
"""Client test: ncdump (netCDF-C's own reader) on the demo's output.

  check_ncdump.py OUTDIR RECORDS GRID

Format (ncdump -k), the header (ncdump -h: dimensions, the 4 coordinate and 95 float variables
in definition order, their attributes, global attributes), the coordinate values, and every
value of one 2-D field printed with 9 significant digits (exact for float32) against the formula.
"""
import re
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402

from clients_common import NAMES, Checker, Grid, is3d, need_tool, paths, run  # noqa: E402


def parse_values(text, name):
    """The numbers of `name = ... ;` in ncdump's data section."""
    m = re.search(r"^ %s =\s*(.*?)\s*;\s*$" % re.escape(name), text, re.M | re.S)
    if not m:
        return None
    return [float(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip()]


def main():
    outdir, nrec, grid = sys.argv[1], int(sys.argv[2]), Grid(sys.argv[3])
    NLEV, NLAT, NLON = grid.nlev, grid.nlat, grid.nlon
    ncdump = need_tool("ncdump")
    files = paths(outdir)
    c = Checker("ncdump on %s (%d record(s))" % (outdir, nrec))

    for name, path in files.items():
        r = run([ncdump, "-k", path])
        c.check(r.returncode == 0 and r.stdout.strip() == "cdf5",
                "ncdump -k %s.nc says 'cdf5'" % name, "rc=%d out=%r err=%r" % (r.returncode, r.stdout, r.stderr))

    r = run([ncdump, "-h", files["esmio"]])
    if not c.check(r.returncode == 0, "ncdump -h esmio.nc runs", r.stderr):
        c.finish()
    hdr = r.stdout

    dims = re.search(r"^dimensions:\n(.*?)^variables:", hdr, re.M | re.S)
    dims = [ln.strip() for ln in dims.group(1).splitlines()] if dims else []
    want = ["time = UNLIMITED ; // (%d currently)" % nrec, "lev = %d ;" % NLEV, "lat = %d ;" % NLAT,
            "lon = %d ;" % NLON]
    c.check(dims == want, "dimensions are %s" % want, "got %s" % dims)

    decls = re.findall(r"^\t(\w+) (\w+)\(([^)]*)\) ;$", hdr, re.M)
    coord_decls = [d for d in decls if d[0] == "double"]
    field_decls = [d for d in decls if d[0] == "float"]
    want_coords = [("double", n, n) for n in ("time", "lev", "lat", "lon")]
    c.check(coord_decls == want_coords, "4 double coordinate variables time(time) lev(lev) lat(lat) lon(lon)",
            "got %s" % coord_decls)
    c.check(len(decls) == 99 and decls[:4] == want_coords,
            "99 variables, the coordinates first", "got %d, first %s" % (len(decls), decls[:4]))
    want_fields = [("float", n, "time, lev, lat, lon" if is3d(v) else "time, lat, lon")
                   for v, n in enumerate(NAMES)]
    bad = [(w, g) for w, g in zip(want_fields, field_decls) if w != g]
    c.check(len(field_decls) == 95 and not bad,
            "95 float fields in definition order: 34 (time, lev, lat, lon) %s..%s, 61 (time, lat, lon) %s..%s"
            % (NAMES[0], NAMES[33], NAMES[34], NAMES[94]),
            "got %d fields, first mismatch %s" % (len(field_decls), bad[:1]))

    def att(var, key):
        m = re.search(r"^\t\t%s:%s = (.*) ;$" % (re.escape(var), key), hdr, re.M)
        return m.group(1) if m else None

    missing = [n for n in NAMES if att(n, "units") != '"1"' or att(n, "cell_methods") != '"time: mean"']
    c.check(not missing, 'all 95 fields have units = "1" and cell_methods = "time: mean"',
            "wrong on %s" % missing[:5])
    want_units = {"time": '"days since 2000-01-01 00:00:00"', "lev": '"hPa"', "lat": '"degrees_north"',
                  "lon": '"degrees_east"'}
    got_units = {k: att(k, "units") for k in want_units}
    c.check(got_units == want_units, "coordinate units %s" % want_units, "got %s" % got_units)
    glob = dict(re.findall(r"^\t\t:(\w+) = (.*) ;$", hdr, re.M))
    c.check(glob.get("Conventions") == '"CF-1.8"', 'global Conventions = "CF-1.8"', "got %s" % glob)
    c.check(glob.get("title") == '"%s"' % grid.title, "global title '%s'" % grid.title,
            "got %s" % glob.get("title"))

    # The headers of the three files are the same (apart from the netcdf NAME line).
    for name in ("serial", "subset"):
        r2 = run([ncdump, "-h", files[name]])
        same = r2.returncode == 0 and r2.stdout.split("\n", 1)[1] == hdr.split("\n", 1)[1]
        c.check(same, "ncdump -h %s.nc == ncdump -h esmio.nc" % name)

    # Coordinate values, printed with 17 significant digits (exact for double).
    r = run([ncdump, "-p", "9,17", "-v", "time,lev,lat,lon", files["esmio"]])
    lev, lat, lon = grid.coords()
    data = r.stdout.split("\ndata:\n", 1)[-1]
    for name, want in (("time", [0.25 * t for t in range(nrec)]), ("lev", lev), ("lat", lat), ("lon", lon)):
        got = parse_values(data, name)
        c.check(got == want, "%s values (%d) equal the demo's coordinates exactly" % (name, len(want)),
                "got %s" % (got[:5] if got else got))

    # Every value of a 2-D field, printed with 9 significant digits (round-trips float32).
    v = NAMES.index("FLD2D_00")
    r = run([ncdump, "-p", "9,17", "-v", "FLD2D_00", files["esmio"]])
    got = parse_values(r.stdout.split("\ndata:\n", 1)[-1], "FLD2D_00")
    got = np.array(got if got else [], dtype=np.float64).astype(np.float32)
    want = np.stack([grid.expected(v, t, np) for t in range(nrec)]).ravel()
    ok = got.shape == want.shape and np.array_equal(got.view(np.uint32), want.view(np.uint32))
    detail = ""
    if got.shape == want.shape and not ok:
        i = int(np.flatnonzero(got != want)[0])
        detail = "%d differ, first at %d: %r != %r" % (int((got != want).sum()), i, got[i], want[i])
    elif not ok:
        detail = "got %d values, want %d" % (got.size, want.size)
    c.check(ok, "ncdump's %d values of FLD2D_00 (v=%d) == float32(1000*v + t + g*1e-6), bit for bit"
            % (want.size, v), detail)
    c.finish()


if __name__ == "__main__":
    main()
