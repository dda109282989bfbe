"""Checks the history file of examples/fortran/toy_model.F90 for real.

- ncdump -h shows the dimensions, the variables in netCDF order and the CF attributes;
- CDO (cdo -s sinfon) accepts the file and finds the fields, the grid and 3 time steps;
- xarray opens it with decode_times (a noleap calendar: cftime dates);
- every value equals what the model computed, bit for bit: the model's arithmetic is redone
  here in the same order with numpy float64 (IEEE add/multiply round the same everywhere), and
  the single-precision fields are compared with the float64 values rounded to float32.

Usage: check_toy_model.py FILE
"""
import re
import subprocess
import sys

import cftime
import netCDF4
import numpy as np
import xarray as xr

NLON, NLAT, NLEV = 16, 12, 4
NSTEPS, NHIST = 6, 2
DT, DX = 21600.0, 1.0e6
RELAX_T, RELAX_U, RELAX_TS, BUMP = 0.025, 0.125, 0.25, 5.0


def model():
    """The toy model's records, arrays in file order (lev, lat, lon)."""
    lon = np.array([(i - 1) * (360.0 / NLON) for i in range(1, NLON + 1)])
    lat = np.array([-90.0 + (j - 0.5) * (180.0 / NLAT) for j in range(1, NLAT + 1)])
    lev = np.array([1000.0 * (k - 0.5) / NLEV for k in range(1, NLEV + 1)])
    x = (lat / 90.0)[None, :]                     # (1, lat)
    p = lev[:, None]                              # (lev, 1)
    teq = 230.0 + 70.0 * (p / 1000.0) - 40.0 * (x * x)            # (lev, lat)
    ueq = 40.0 * (1.0 - x * x) * (1.1 - p / 1000.0)
    t = np.repeat(teq[:, :, None], NLON, axis=2)
    t[:, :, 0:4] = (teq + BUMP)[:, :, None]
    u = np.zeros_like(t)
    v = np.zeros_like(t)
    ts = np.repeat(teq[NLEV - 1][:, None], NLON, axis=1)           # (lat, lon)
    ps = np.full((NLAT, NLON), 1.0e5)
    records = []
    for step in range(1, NSTEPS + 1):
        u = u + (ueq[:, :, None] - u) * RELAX_U
        t_old = t
        c = u * DT / DX
        t = t_old - c * (t_old - np.roll(t_old, 1, axis=2)) + (teq[:, :, None] - t_old) * RELAX_T
        v = -0.1 * (np.roll(t, -1, axis=2) - np.roll(t, 1, axis=2))
        ts = ts + (t[NLEV - 1] - ts) * RELAX_TS
        ps = ps + 50.0 * (ts - t[NLEV - 1])
        if step % NHIST == 0:
            records.append(dict(time=step * (DT / 86400.0), T=t, U=u, V=v, PS=ps, TS=ts))
    return lon, lat, lev, records


def check_header(path):
    header = subprocess.run(["ncdump", "-h", path], check=True, capture_output=True,
                            text=True).stdout
    print(header)
    for line in ["time = UNLIMITED ; // (3 currently)", "lev = 4 ;", "lat = 12 ;", "lon = 16 ;",
                 "float T(time, lev, lat, lon) ;", "float U(time, lev, lat, lon) ;",
                 "float V(time, lev, lat, lon) ;", "double PS(time, lat, lon) ;",
                 "double TS(time, lat, lon) ;", "double time(time) ;",
                 'time:units = "days since 2000-01-01 00:00:00" ;', 'time:calendar = "noleap" ;',
                 'lat:standard_name = "latitude" ;', 'lon:axis = "X" ;', 'lev:positive = "down" ;',
                 'T:standard_name = "air_temperature" ;', 'T:cell_methods = "time: point" ;',
                 'PS:units = "Pa" ;', ':Conventions = "CF-1.8" ;']:
        assert line in header, f"ncdump -h lacks {line!r}"


def check_cdo(path):
    out = subprocess.run(["cdo", "-s", "sinfon", path], check=True, capture_output=True,
                         text=True).stdout
    print(out)
    for name, levels in [("T", 4), ("U", 4), ("V", 4), ("PS", 1), ("TS", 1)]:
        assert re.search(rf"instant +{levels} .*: {name} *$", out, re.M), f"CDO's {name}"
    for text in ["points=192 (16x12)", "lev : 125 to 875 by 250 hPa", "time : 3 steps",
                 "Calendar = 365_day", "2000-01-01 12:00:00  2000-01-02 00:00:00"]:
        assert text in out, f"CDO does not say {text!r}"


def check_values(path):
    lon, lat, lev, records = model()
    with xr.open_dataset(path, decode_times=True) as ds:
        print(ds)
        assert dict(ds.sizes) == {"time": 3, "lev": NLEV, "lat": NLAT, "lon": NLON}, ds.sizes
        want = [cftime.DatetimeNoLeap(2000, 1, 1, 12), cftime.DatetimeNoLeap(2000, 1, 2),
                cftime.DatetimeNoLeap(2000, 1, 2, 12)]
        assert list(ds.time.values) == want, ds.time.values
        assert ds.attrs["Conventions"] == "CF-1.8" and "toy_model.F90" in ds.attrs["source"]
        assert ds.T.attrs["units"] == "K" and ds.PS.attrs["standard_name"] == "surface_air_pressure"
        assert ds.lat.attrs["axis"] == "Y" and ds.lev.attrs["units"] == "hPa"
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        assert nc.dimensions["time"].isunlimited()
        assert np.array_equal(nc["lon"][:], lon) and np.array_equal(nc["lat"][:], lat)
        assert np.array_equal(nc["lev"][:], lev)
        assert np.array_equal(nc["time"][:], [r["time"] for r in records])
        for r, rec in enumerate(records):
            for name in ["T", "U", "V"]:
                got = nc[name][r]
                assert got.dtype == np.float32, (name, got.dtype)
                assert np.array_equal(got, rec[name].astype(np.float32)), f"{name} record {r + 1}"
            for name in ["PS", "TS"]:
                got = nc[name][r]
                assert got.dtype == np.float64, (name, got.dtype)
                assert np.array_equal(got, rec[name]), f"{name} record {r + 1}"
        # The toy dynamics did something: the bump moved east, the wind spun up.
        assert not np.array_equal(nc["T"][0], nc["T"][2]) and nc["U"][2].max() > 10


def main():
    path = sys.argv[1]
    check_header(path)
    check_cdo(path)
    check_values(path)
    print(f"PASS: {path}: header, CDO, xarray time axis and every value as the model computed")


if __name__ == "__main__":
    main()
