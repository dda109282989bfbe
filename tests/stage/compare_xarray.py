#!/usr/bin/python3
"""compare_xarray.py A B [A2 B2 ...]: for each pair, xarray opens both netCDF files; every
variable, coordinate and attribute must be identical, and every data variable's values equal
bit for bit (raw bytes, so that NaN and -0.0 count too). Exit 1 and a message for each pair that
is not. (One Python for every pair: its start-up is most of a small pair's time.)"""
import sys

import numpy as np
import xarray as xr


def main(a, b):
    with xr.open_dataset(a, decode_times=False, mask_and_scale=False) as x, \
            xr.open_dataset(b, decode_times=False, mask_and_scale=False) as y:
        if not x.identical(y):
            print("compare_xarray: %s and %s are not identical" % (a, b))
            return 1
        if not x.data_vars:
            print("compare_xarray: %s has no data variables" % a)
            return 1
        for name in x.variables:
            u, v = x[name].values, y[name].values
            if u.dtype != v.dtype or u.shape != v.shape or u.tobytes() != v.tobytes():
                print("compare_xarray: variable %s differs" % name)
                return 1
        print("compare_xarray: %d variables equal bit for bit" % len(x.variables))
    return 0


if __name__ == "__main__":
    pairs = sys.argv[1:]
    if not pairs or len(pairs) % 2:
        sys.exit("usage: compare_xarray.py A B [A2 B2 ...]")
    failed = 0
    for i in range(0, len(pairs), 2):
        failed |= main(pairs[i], pairs[i + 1])
    sys.exit(failed)
