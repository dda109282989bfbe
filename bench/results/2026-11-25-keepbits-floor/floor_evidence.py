"""How coarse is BitRound at the keepbits the reference chooses, field by field? For each real
field of tests/data/fields/fields.nc: the reference (xbitinfo) keepbits, and for keepbits
2, 3, 4, 5, 7 and the reference's, the RMS BitRound error divided by the median absolute
difference between neighbours along the fastest dimension (usable pairs only: no fill, no NaN).
numpy only (tests/quantize/xbitinfo_reference.py), no esmio.   /usr/bin/python3 floor_evidence.py
"""
import os
import sys

import numpy as np

import netCDF4

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "quantize"))
import xbitinfo_reference as ref  # noqa: E402

NETCDF_FILL_FLOAT = np.float32(9.9692099683868690e+36)
KEEPBITS = (2, 3, 4, 5, 7)


def main():
    path = os.path.join(REPO, "tests", "data", "fields", "fields.nc")
    print("| field | reference | " + " | ".join(f"k={k}" for k in KEEPBITS) +
          " | at the reference |")
    print("|---|---|" + "---|" * len(KEEPBITS) + "---|")
    with netCDF4.Dataset(path) as ds:
        for name, var in ds.variables.items():
            var.set_auto_mask(False)
            x = np.asarray(var[...], dtype=np.float32)
            fill = (np.float32(var.getncattr("_FillValue")) if "_FillValue" in var.ncattrs()
                    else NETCDF_FILL_FLOAT)
            r = ref.analyse(x, fill, minbits=0)
            ok = ref.usable(x, fill)
            a, b = (x[..., :-1], x[..., 1:])
            pair = ref.usable(a, fill) & ref.usable(b, fill)
            d = np.abs(b[pair].astype(np.float64) - a[pair].astype(np.float64))
            d = d[d > 0]  # runs of one value (sea at 0 m) say nothing about the steps
            scale = np.median(d)

            def ratio(k):
                y = ref.bitround(x, k, fill)[ok].astype(np.float64)
                return np.sqrt(np.mean((y - x[ok].astype(np.float64)) ** 2)) / scale

            cells = " | ".join(f"{ratio(k):.2f}" for k in KEEPBITS)
            at_ref = f"{ratio(r['reference']):.2f}" if 0 < r["reference"] <= 23 else "-"
            print(f"| {name} | {r['reference']} | {cells} | {at_ref} |")


if __name__ == "__main__":
    main()
