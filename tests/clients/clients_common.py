"""What the client tests expect of the demo's output (see demo/cam_fvd_demo.c and docs/demo.md).

The value of field v (0-based among the 95 fields, in definition order), record t, at global
C-order index g within the field's record is float32((double)(1000*v + t) + (double)g * 1e-6).
The grid is the demo's third argument, LEVxLATxLON (26x361x576 by default): the tests give it a
coarser one, which exercises the same code and the same clients on less data.
"""
import os
import shutil
import subprocess
import sys

NAMES3D = ["T", "U", "V", "Q", "OMEGA", "Z3", "RELHUM", "CLOUD", "CLDICE", "CLDLIQ", "CONCLD",
           "DTCOND", "DTV", "QRL", "QRS", "VD01", "DCQ", "CMFDT", "CMFDQ", "ZMDT", "ZMDQ", "UU",
           "VV", "VU", "VT", "VQ", "OMEGAT", "ICIMR", "ICWMR", "FICE", "EVAPPREC", "QT", "SL",
           "TTEND"]
N3D, N2D = 34, 61
NAMES = NAMES3D + ["FLD2D_%02d" % i for i in range(N2D)]
assert len(NAMES3D) == N3D and len(NAMES) == 95

FILES = ("esmio", "serial", "subset")


def is3d(v):
    return v < N3D


class Grid:
    """The demo's grid as its third argument names it ("26x91x144"): levels, latitudes from -90
    to 90 and longitudes from 0 in equal steps, computed as the demo computes them."""

    def __init__(self, text):
        self.nlev, self.nlat, self.nlon = (int(x) for x in text.split("x"))
        self.dlat = 180.0 / (self.nlat - 1)
        self.dlon = 360.0 / self.nlon
        # cdo counts one "record" per field level and time step
        self.cdo_records_per_step = N3D * self.nlev + N2D
        # the global title, with the latitude step as the demo prints it (C's %g)
        self.title = "esmio demo: CAM FV %g degree history record" % self.dlat

    def field_shape(self, v):
        return (self.nlev, self.nlat, self.nlon) if is3d(v) else (self.nlat, self.nlon)

    def expected(self, v, t, np):
        """The whole record t of field v, computed in float64 and cast to float32."""
        shape = self.field_shape(v)
        n = 1
        for s in shape:
            n *= s
        g = np.arange(n, dtype=np.float64)
        return (float(1000 * v + t) + g * 1.0e-6).astype(np.float32).reshape(shape)

    def coords(self):
        """Coordinate values exactly as the demo computes them (same operation order, in double)."""
        lev = [3.6 + i * (992.6 - 3.6) / (self.nlev - 1) for i in range(self.nlev)]
        lat = [-90.0 + self.dlat * i for i in range(self.nlat)]
        lon = [self.dlon * i for i in range(self.nlon)]
        return lev, lat, lon


def expected_at(v, t, g, np):
    return np.float32(float(1000 * v + t) + float(g) * 1.0e-6)


class Checker:
    """Counts failed checks; every check prints what it compared."""

    def __init__(self, title):
        self.failures = 0
        self.checks = 0
        print("== " + title, flush=True)

    def check(self, ok, what, detail=""):
        self.checks += 1
        if ok:
            print("  ok   " + what, flush=True)
        else:
            self.failures += 1
            print("  FAIL " + what + (": " + detail if detail else ""), flush=True)
        return ok

    def finish(self):
        print("%d checks, %d failed" % (self.checks, self.failures), flush=True)
        sys.exit(1 if self.failures else 0)


def need_tool(name):
    """A missing client is a failure, never a skip."""
    path = shutil.which(name)
    if path is None:
        print("FAIL: required tool '%s' not found on PATH (run `make deps`)" % name, flush=True)
        sys.exit(1)
    return path


def run(cmd, **kw):
    print("  $ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def paths(outdir):
    p = {name: os.path.join(outdir, name + ".nc") for name in FILES}
    for name, path in p.items():
        if not os.path.isfile(path):
            print("FAIL: %s missing (did clients.generate run?)" % path, flush=True)
            sys.exit(1)
    return p
