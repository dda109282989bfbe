#!/usr/bin/python3
"""Writes tests/data/fields/fields.nc: small 2-D (and 1-D unstructured) cuts of real model
fields from Debian's libncarg-data (/usr/share/ncarg/data), for the information-quantisation
test on real fields (tests/quantize/test_real_fields.py). README.md next to this file lists the
sources, the cuts and the licence.

    /usr/bin/python3 tests/data/fields/make_fields.py [DATA_DIR] [OUT]

(Debian's python3-netcdf4 and python3-numpy.) Each field is one float32 variable with its own
dimensions (<name>_y, <name>_x; <name>_n for unstructured grids), stored with zlib so that the
file stays small; the values are the source's float32 values bit for bit. A source's
_FillValue and missing_value are kept; a source packed with scale_factor/add_offset would be
unpacked to float32 (and say so in `esmio_unpacked`), but none of the chosen ones is: the
ECHAM5 fields are float32 that went through GRIB packing before (see README.md).
"""
import os
import sys

import netCDF4
import numpy as np

DATA = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/ncarg/data"
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "fields.nc")

# name, source file (under DATA), variable, index of the cut (the slice of every dimension),
# what it shows. Cuts are at most 200 x 200 (unstructured: at most 24576 cells).
FIELDS = [
    ("pop_t", "cdf/pop.nc", "t", (slice(120, 320), slice(0, 200)),
     "POP ocean potential temperature, top level, land as _FillValue"),
    ("pop_urot", "cdf/pop.nc", "urot", (slice(120, 320), slice(0, 200)),
     "POP zonal velocity: land as _FillValue, runs of 0.0 along coasts"),
    ("echam_rhumidity", "nug/rectilinear_grid_3D.nc", "rhumidity",
     (0, 5, slice(None), slice(None)),
     "ECHAM5 relative humidity at 600 hPa, from GRIB (pre-packed)"),
    ("echam_t", "nug/rectilinear_grid_3D.nc", "t", (0, 10, slice(None), slice(None)),
     "ECHAM5 temperature at 200 hPa, from GRIB (pre-packed)"),
    ("mpiom_tos", "nug/tos_ocean_bipolar_grid.nc", "tos", (0, slice(20, 220), slice(20, 220)),
     "MPI-ESM-LR (MPIOM) sea surface temperature: land as _FillValue, sea ice at 271.25"),
    ("eur11_tas", "nug/tas_rotated_grid_EUR11.nc", "tas",
     (0, 0, slice(100, 300), slice(100, 300)),
     "EURO-CORDEX EUR-11 near-surface air temperature"),
    ("hsurf_coast", "nug/HSURF_regional_model_0.11deg.nc", "HSURF",
     (0, slice(120, 320), slice(60, 260)),
     "0.11 deg regional model surface height, half of it 0.0 over sea"),
    ("hsurf_sea", "nug/HSURF_regional_model_0.11deg.nc", "HSURF",
     (0, slice(180, 380), slice(60, 260)),
     "0.11 deg regional model surface height, two thirds 0.0 over sea"),
    ("camse_t850", "nug/camse_unstructured_grid.nc", "T850", (slice(0, 24576),),
     "CAM-SE (ne30np4) temperature at 850 hPa, unstructured"),
    ("icon_s", "nug/triangular_grid_ICON.nc", "S", (0, 0, slice(None)),
     "ICON ocean salinity at 10 m, unstructured, 0.0 on land"),
]

COPY_ATTRS = ("long_name", "standard_name", "units")


def cut_text(var, index):
    parts = []
    for dim, length, i in zip(var.dimensions, var.shape, index):
        if isinstance(i, slice):
            start, stop, _ = i.indices(length)
            parts.append(f"{dim}={start}:{stop}")
        else:
            parts.append(f"{dim}={i}")
    return ", ".join(parts)


def main():
    out = netCDF4.Dataset(OUT, "w", format="NETCDF4")
    out.title = "Real model fields cut small for esmio's information-quantisation tests"
    out.source = "Debian libncarg-data, " + DATA
    out.license = ("Copyright 2013 University Corporation for Atmospheric Research; "
                   "see tests/data/fields/README.md")
    out.history = "tests/data/fields/make_fields.py"
    for name, path, varname, index, what in FIELDS:
        src = netCDF4.Dataset(os.path.join(DATA, path))
        var = src[varname]
        var.set_auto_mask(False)
        attrs = {k: var.getncattr(k) for k in var.ncattrs()}
        packed = "scale_factor" in attrs or "add_offset" in attrs
        var.set_auto_scale(packed)  # unpack only what is packed
        values = np.asarray(var[index])
        if packed:
            values = values.astype(np.float32)
        assert values.dtype == np.float32, (name, values.dtype)
        assert values.ndim in (1, 2) and values.size > 0, (name, values.shape)
        dims = [f"{name}_n"] if values.ndim == 1 else [f"{name}_y", f"{name}_x"]
        for d, n in zip(dims, values.shape):
            out.createDimension(d, n)
        fill = attrs.get("_FillValue")
        v = out.createVariable(name, "f4", dims, zlib=True, complevel=9, shuffle=True,
                               fill_value=np.float32(fill) if fill is not None else None)
        v.set_auto_mask(False)
        for k in COPY_ATTRS:
            if k in attrs:
                v.setncattr(k, attrs[k])
        if "missing_value" in attrs:
            v.missing_value = np.float32(attrs["missing_value"])
        v.esmio_source = f"libncarg-data {path}, variable {varname}"
        cut = cut_text(var, index)
        v.esmio_cut = cut
        v.esmio_description = what
        if packed:
            v.esmio_unpacked = "scale_factor/add_offset applied, stored as float32"
        v[...] = values
        src.close()
        print(f"{name:16s} {str(values.shape):12s} {path}:{varname}[{cut}]")
    out.close()
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
