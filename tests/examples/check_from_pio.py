"""Checks the file of examples/fortran/from_pio.F90: the PIO-style compdof map (chunks with
holes) put every value where it belongs, holes wrote nothing, and the file reads as CF.

Usage: check_from_pio.py FILE
"""
import subprocess
import sys

import netCDF4
import numpy as np
import xarray as xr

NLON, NLAT, NLEV, NREC = 16, 12, 4, 2


def main():
    path = sys.argv[1]
    header = subprocess.run(["ncdump", "-h", path], check=True, capture_output=True,
                            text=True).stdout
    print(header)
    for line in ["time = UNLIMITED ; // (2 currently)", "float T(time, lev, lat, lon) ;",
                 "double PS(time, lat, lon) ;", "T:_FillValue = -999.f ;",
                 'time:calendar = "noleap" ;']:
        assert line in header, f"ncdump -h lacks {line!r}"

    # The values from_pio put in each column: (lev, lat, lon) with 1-based indices.
    k, j, i = np.meshgrid(np.arange(1, NLEV + 1), np.arange(1, NLAT + 1),
                          np.arange(1, NLON + 1), indexing="ij")
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        for r in range(1, NREC + 1):
            t = 200.0 + r + 10.0 * k + 0.5 * j + 0.0625 * i
            ps = 1.0e5 - 100.0 * r + 10.0 * j[0] + i[0]
            assert np.array_equal(nc["T"][r - 1], t.astype(np.float32)), f"T record {r}"
            assert np.array_equal(nc["PS"][r - 1], ps), f"PS record {r}"
    with xr.open_dataset(path, decode_times=True) as ds:
        print(ds)
        # Every point written (no fill from a missing column), no hole's 1e36 in the file.
        assert int(ds.T.isnull().sum()) == 0 and float(ds.T.max()) < 1e3
        assert [str(t) for t in ds.time.values] == ["2000-01-01 06:00:00", "2000-01-01 12:00:00"]
    print(f"PASS: {path}: every column where compdof put it, holes unwritten, CF time axis")


if __name__ == "__main__":
    main()
