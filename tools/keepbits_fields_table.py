"""Per-field keepbits, errors and size ratio of information quantisation + zstd:1:shuffle.

Writes the ten real fields of tests/data/fields/fields.nc with esmio itself (the Python binding
over the built libesmio.so, one process: one rank, one I/O task, box layout, backend netcdf4,
each field one variable with esmio's default chunks), once per quantisation spec, reads the
values and esmio_keepbits* attributes back with netCDF4-python, and takes each variable's stored
bytes from `h5dump -p -H` (the dataset's STORAGE_LAYOUT SIZE, as H5Dget_storage_size). Prints
one Markdown table per spec: field, reference keepbits, esmio keepbits, reason, max abs error,
max rel error, size ratio = float32 bytes / stored bytes; then the ratio of the ten together.

    PYTHONPATH=<repo>/python ESMIO_LIBRARY=<build>/libesmio.so \\
        /usr/bin/python3 tools/keepbits_fields_table.py [--specs SPEC,SPEC...] [--fields FIELDS_NC] [--out DIR]

Default spec: information:0.99 (the default floor, 4). Other floors: --specs
"information:0.99:minbits=2,..." (or, giving the same keepbits on these ten fields,
information:0.99:maxrel=2^-(N+1), as the floor table in docs/netcdf4.md was made). Every spec also gets
codec zstd:1:shuffle (--codec to change it).
"""
import argparse
import os
import re
import subprocess
import sys

# netCDF4-python reads the zstd-filtered variables through esmio's HDF5 plugin.
if "HDF5_PLUGIN_PATH" not in os.environ and "ESMIO_LIBRARY" in os.environ:
    os.environ["HDF5_PLUGIN_PATH"] = os.path.join(
        os.path.dirname(os.path.abspath(os.environ["ESMIO_LIBRARY"])), "plugins")

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import netCDF4  # noqa: E402

import esmio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
NETCDF_FILL_FLOAT = np.float32(9.9692099683868690e+36)

LABELS = {
    "pop_t": "POP temperature",
    "pop_urot": "POP zonal velocity",
    "echam_rhumidity": "ECHAM5 rel. humidity 600 hPa (GRIB-packed)",
    "echam_t": "ECHAM5 temperature 200 hPa",
    "mpiom_tos": "MPIOM SST (sea ice at 271.25)",
    "eur11_tas": "EUR-11 2 m temperature",
    "hsurf_coast": "0.11° orography, half sea",
    "hsurf_sea": "0.11° orography, two thirds sea",
    "camse_t850": "CAM-SE T850",
    "icon_s": "ICON salinity",
}


def load_fields(path):
    out = []
    with netCDF4.Dataset(path) as ds:
        for name, var in ds.variables.items():
            var.set_auto_mask(False)
            var.set_auto_scale(False)
            fill = var.getncattr("_FillValue") if "_FillValue" in var.ncattrs() else None
            out.append((name, np.asarray(var[...], dtype=np.float32),
                        None if fill is None else np.float32(fill)))
    return out


def write(path, fields, quantize, codec):
    comm = MPI.COMM_WORLD
    assert comm.size == 1, "run as one process (one I/O task)"
    with esmio.Instance(comm, {"num_iotasks": 1, "layout": "box"}) as io, \
            io.create(path, "backend=netcdf4,format=netcdf4") as f:
        variables, decomps = [], []
        for name, values, fill in fields:
            dims = [f"{name}_{d}" for d in ("y", "x")[-values.ndim:]]
            for d, n in zip(dims, values.shape):
                f.def_dim(d, n)
            v = f.def_var(name, np.float32, dims)
            if fill is not None:
                v.def_fill(fill)
            v.def_quantize(quantize)
            v.def_compress(codec)
            variables.append(v)
        f.enddef()
        for (name, values, fill), v in zip(fields, variables):
            d = esmio.Decomposition.from_block(io, values.shape, (0,) * values.ndim,
                                               values.shape)
            decomps.append(d)
            v.write_darray(d, np.ascontiguousarray(values), record=0)
        f.close()
        for d in decomps:
            d.free()


def storage_sizes(path):
    """{dataset name: stored bytes} from h5dump -p -H."""
    text = subprocess.run(["h5dump", "-p", "-H", path], check=True, capture_output=True,
                          text=True).stdout
    sizes, current = {}, None
    for line in text.splitlines():
        m = re.match(r'\s*DATASET "([^"]+)"', line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"\s*SIZE (\d+)", line)
        if m and current is not None and current not in sizes:
            sizes[current] = int(m.group(1))
    return sizes


def errors(original, stored, fill):
    ok = ~np.isnan(original)
    ok &= original != (fill if fill is not None else NETCDF_FILL_FLOAT)
    x = original[ok].astype(np.float64)
    y = stored[ok].astype(np.float64)
    if x.size == 0:
        return 0.0, 0.0
    err = np.abs(y - x)
    nz = x != 0
    return float(err.max()), float(np.max(err[nz] / np.abs(x[nz]))) if nz.any() else 0.0


def table(path, fields):
    sizes = storage_sizes(path)
    rows, raw_total, stored_total = [], 0, 0
    with netCDF4.Dataset(path) as ds:
        for name, values, fill in fields:
            var = ds[name]
            var.set_auto_mask(False)
            var.set_auto_scale(False)
            stored = np.asarray(var[...], dtype=np.float32)
            attrs = {k: var.getncattr(k) for k in var.ncattrs()}
            abs_err, rel_err = errors(values, stored, fill)
            nbytes = values.size * 4
            raw_total += nbytes
            stored_total += sizes[name]
            rows.append((name, int(attrs["esmio_keepbits_reference"]),
                         int(attrs["esmio_keepbits"]), str(attrs["esmio_keepbits_reason"]),
                         abs_err, rel_err, nbytes / sizes[name]))
    return rows, raw_total / stored_total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--specs", default="information:0.99")
    p.add_argument("--codec", default="zstd:1:shuffle")
    p.add_argument("--fields", default=os.path.join(REPO, "tests", "data", "fields",
                                                    "fields.nc"))
    p.add_argument("--out", default="/tmp/esmio-keepbits-floor")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    fields = load_fields(a.fields)
    for i, spec in enumerate(a.specs.split(",")):
        path = os.path.join(a.out, f"fields_{i}.nc")
        write(path, fields, spec, a.codec)
        rows, whole = table(path, fields)
        print(f"\n`{spec}` + `{a.codec}`, netCDF-4, one I/O task\n")
        print("| field | reference | kept | reason | max abs error | max rel error | size ratio |")
        print("|---|---|---|---|---|---|---|")
        for name, reference, kept, reason, abs_err, rel_err, ratio in rows:
            print(f"| {LABELS.get(name, name)} | {reference} | {kept} | {reason} | "
                  f"{abs_err:.3g} | {rel_err:.2g} | {ratio:.1f}× |")
        print(f"\nthe ten variables together: {whole:.2f}×")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
