"""esmio's information quantisation on real fields against an independent reference.

For each field of tests/data/fields/fields.nc (real model output cut small, see README.md
there), esmio's Python binding writes it on every rank of the communicator (rows, or cells of
an unstructured grid, split in contiguous blocks over the ranks, one I/O task per rank up to
2) to a netCDF-4 file with `information:0.99`, one variable per field. netCDF4-python then reads
the attributes and the values back, and each is compared with xbitinfo_reference.py, written
from BitInformation.jl and xbitinfo, not from esmio:

  (a) esmio_information_per_bit equals the reference's per bit (1e-12 relative or 1e-14);
  (b) esmio_keepbits_reference is the reference's (xbitinfo's) keepbits, exactly;
  (c) esmio_keepbits and esmio_keepbits_reason follow the guard documented in docs/netcdf4.md;
  (d) every value is the original BitRounded to esmio_keepbits (ties to even), bit for bit;
      fill values exact; and BitRound to one bit fewer would not match (the check can fail).

Then the same with `information:0.99:maxrel=1e-3`: at least 9 bits, reason maxrel where that
raised them. Prints a table: field, reference keepbits, esmio keepbits, reason, errors.

    mpirun -np 2 python3 test_real_fields.py [FIELDS_NC [OUT_DIR]]
    (PYTHONPATH=<repo>/python ESMIO_LIBRARY=<build>/libesmio.so; ctest -R quantize.real_fields)
"""
import os
import sys
import traceback

import numpy as np
from mpi4py import MPI

import netCDF4

import esmio

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xbitinfo_reference as ref  # noqa: E402

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
FIELDS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "data", "fields", "fields.nc")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("ESMIO_PY_OUT",
                                                           "/tmp/esmio-quantize-tests")
NETCDF_FILL_FLOAT = np.float32(9.9692099683868690e+36)  # netCDF's default float fill


def _abort(kind, value, tb):
    traceback.print_exception(kind, value, tb)
    sys.stderr.flush()
    comm.Abort(1)


sys.excepthook = _abort


def load_fields():
    """[(name, values float32, fill or None, attrs)] of every 1-D or 2-D variable."""
    out = []
    with netCDF4.Dataset(FIELDS) as ds:
        for name, var in ds.variables.items():
            var.set_auto_mask(False)
            var.set_auto_scale(False)
            fill = var.getncattr("_FillValue") if "_FillValue" in var.ncattrs() else None
            out.append((name, np.asarray(var[...], dtype=np.float32),
                        None if fill is None else np.float32(fill),
                        var.getncattr("esmio_source")))
    return out


def write_with_esmio(path, fields, spec):
    """Every field as one variable of a netCDF-4 file, quantised with `spec`; each rank writes
    a contiguous block of rows (of cells for 1-D fields)."""
    with esmio.Instance(comm, {"num_iotasks": min(2, size), "layout": "box"}) as io, \
            io.create(path, "backend=netcdf4,format=netcdf4") as f:
        variables, decomps = [], []
        for name, values, fill, _ in fields:
            dims = [f"{name}_{d}" for d in ("y", "x")[-values.ndim:]]
            for d, n in zip(dims, values.shape):
                f.def_dim(d, n)
            v = f.def_var(name, np.float32, dims)
            if fill is not None:
                v.def_fill(fill)
            v.def_quantize(spec)
            variables.append(v)
        f.enddef()
        for (name, values, fill, _), v in zip(fields, variables):
            n0 = values.shape[0]
            lo, hi = n0 * rank // size, n0 * (rank + 1) // size
            start = (lo,) + (0,) * (values.ndim - 1)
            count = (hi - lo,) + values.shape[1:]
            d = esmio.Decomposition.from_block(io, values.shape, start, count)
            decomps.append(d)
            v.write_darray(d, np.ascontiguousarray(values[lo:hi]), record=0)
        f.close()
        for d in decomps:
            d.free()


def read_back(path, name):
    with netCDF4.Dataset(path) as ds:
        var = ds[name]
        var.set_auto_mask(False)
        var.set_auto_scale(False)
        attrs = {k: var.getncattr(k) for k in var.ncattrs()}
        return np.asarray(var[...], dtype=np.float32), attrs


def same_bits(a, b):
    return np.array_equal(a.view(np.uint32), b.view(np.uint32))


def errors(original, stored, fill):
    """Largest absolute and relative error over the usable values (not NaN, not fill)."""
    ok = ref.usable(original, fill)
    x = original[ok].astype(np.float64)
    y = stored[ok].astype(np.float64)
    if x.size == 0:
        return 0.0, 0.0
    err = np.abs(y - x)
    nz = x != 0
    rel = float(np.max(err[nz] / np.abs(x[nz]))) if nz.any() else 0.0
    return float(err.max()), rel


def check_field(name, values, fill, attrs, stored, maxrel, problems,
                minbits=ref.KEEPBITS_FLOOR):
    """Compares one variable's attributes and values with the reference; appends problems.
    Returns the table row."""
    def problem(text):
        problems.append(f"{name} (maxrel={maxrel}): {text}")

    # The fill esmio leaves out: the variable's _FillValue, else netCDF's default.
    r = ref.analyse(values, fill if fill is not None else NETCDF_FILL_FLOAT, maxrel=maxrel,
                    minbits=minbits)

    # (a) information per bit
    info = np.asarray(attrs.get("esmio_information_per_bit", []), dtype=np.float64)
    if info.shape != r["info"].shape:
        problem(f"esmio_information_per_bit has {info.shape} entries, expected {r['info'].shape}")
    else:
        # Both sum four terms of up to ~1 bit, in a different order and with log vs log2: the
        # sums differ by a few 1e-16 (absolute), which is up to ~4e-13 relative on the smallest
        # entries kept (~2e-4, just above the significance threshold). Zeros must agree.
        scale = np.maximum(np.abs(info), np.abs(r["info"]))
        bad = np.abs(info - r["info"]) > np.maximum(1e-12 * scale, 1e-14)
        bad |= (info == 0) != (r["info"] == 0)
        if bad.any():
            problem("esmio_information_per_bit differs from the reference at bits "
                    f"{np.flatnonzero(bad).tolist()}:\n  esmio     {info.tolist()}\n"
                    f"  reference {r['info'].tolist()}")
    # (b) the reference keepbits
    got_ref = int(attrs.get("esmio_keepbits_reference", -999))
    if got_ref != r["reference"]:
        problem(f"esmio_keepbits_reference {got_ref}, reference gives {r['reference']}")
    # (c) the guard
    keepbits = int(attrs.get("esmio_keepbits", -999))
    reason = str(attrs.get("esmio_keepbits_reason", ""))
    if keepbits != r["keepbits"] or reason != r["reason"]:
        problem(f"esmio_keepbits {keepbits} ({reason}), the documented guard gives "
                f"{r['keepbits']} ({r['reason']}; unfiltered {r['unfiltered']})")
    if float(attrs.get("esmio_information_level", -1)) != 0.99:
        problem(f"esmio_information_level {attrs.get('esmio_information_level')}")
    if maxrel:
        if float(attrs.get("esmio_information_maxrel", -1)) != maxrel:
            problem(f"esmio_information_maxrel {attrs.get('esmio_information_maxrel')}")
        if keepbits < 9:
            problem(f"maxrel={maxrel} but only {keepbits} bits kept")
    # (d) the values: BitRound of the original to the bits esmio used
    if 0 <= keepbits <= 23:
        expected = ref.bitround(values, keepbits, fill)
        if not same_bits(stored, expected):
            diff = np.flatnonzero(stored.view(np.uint32).ravel() !=
                                  expected.view(np.uint32).ravel())
            i = diff[0]
            problem(f"{diff.size} values are not BitRound(original, {keepbits}); first at "
                    f"{i}: original {values.ravel()[i]!r}, stored {stored.ravel()[i]!r}, "
                    f"expected {expected.ravel()[i]!r}")
        # The comparison must be able to tell: one bit fewer gives other values.
        if keepbits > 0 and same_bits(stored, ref.bitround(values, keepbits - 1, fill)):
            problem(f"the values also equal BitRound to {keepbits - 1} bits: the check is blind")
    if fill is not None:
        at_fill = values == fill
        if not np.array_equal(stored[at_fill], values[at_fill]):
            problem("fill values changed")
    abs_err, rel_err = errors(values, stored, fill)
    if keepbits < 23 and rel_err > 2.0 ** -(keepbits + 1) * (1 + 1e-7):
        problem(f"largest relative error {rel_err:.3g} above 2^-({keepbits}+1)")
    usable = ref.usable(values, fill)
    return (name, r["reference"], keepbits, reason, r["unfiltered"], r["pairs"],
            1 - usable.mean(), abs_err, rel_err)


def print_table(title, rows):
    print(f"\n{title}")
    print(f"{'field':16s} {'ref':>4s} {'esmio':>5s} {'reason':22s} {'unfilt':>6s} "
          f"{'pairs':>7s} {'masked':>6s} {'max abs err':>11s} {'max rel err':>11s}")
    for name, reference, keepbits, reason, unfiltered, pairs, masked, abs_err, rel_err in rows:
        print(f"{name:16s} {reference:4d} {keepbits:5d} {reason:22s} {unfiltered:6d} "
              f"{pairs:7d} {masked:6.1%} {abs_err:11.3g} {rel_err:11.3g}")
    sys.stdout.flush()


def main():
    if rank == 0:
        os.makedirs(OUT, exist_ok=True)
    comm.Barrier()
    fields = load_fields()
    assert 6 <= len(fields) <= 12, len(fields)
    problems = []
    for spec, maxrel, minbits in (("information:0.99", 0.0, ref.KEEPBITS_FLOOR),
                                  ("information:0.99:maxrel=1e-3", 1e-3, ref.KEEPBITS_FLOOR),
                                  ("information:0.99:minbits=2", 0.0, 2)):
        tag = f"minbits{minbits}" if minbits != ref.KEEPBITS_FLOOR else \
            "maxrel" if maxrel else "plain"
        path = os.path.join(OUT, f"real_fields_{tag}_np{size}.nc")
        write_with_esmio(path, fields, spec)
        comm.Barrier()
        if rank == 0:
            rows = []
            for name, values, fill, _ in fields:
                stored, attrs = read_back(path, name)
                rows.append(check_field(name, values, fill, attrs, stored, maxrel, problems,
                                        minbits))
            print_table(f"{spec} ({size} rank{'s' if size > 1 else ''}, netcdf4)", rows)
        comm.Barrier()
    problems = comm.bcast(problems, root=0)
    if problems:
        if rank == 0:
            print("\nFAILED:\n" + "\n".join(problems), flush=True)
        sys.exit(1)
    if rank == 0:
        print(f"\nok   {len(fields)} real fields: information per bit, reference keepbits, "
              "guard, BitRound values (plain and maxrel=1e-3)", flush=True)


if __name__ == "__main__":
    main()
