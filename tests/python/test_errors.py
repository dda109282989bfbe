"""Every error path of the binding raises the C error, with the same code on every rank; a bad
argument never crashes the interpreter and never leaves a rank waiting."""
import numpy as np

import esmio
from harness import comm, expect, ok, path, rank, size

io = esmio.Instance(comm)

# ---- settings, names, the Error object ----
expect(esmio.EBADNAME, esmio.Instance, comm, "no_such_key=1")
e = expect(esmio.ESETTING, esmio.Instance, comm, "num_iotasks=many")
assert e.code == esmio.ESETTING and e.name == "ESMIO_ESETTING" and str(e) == e.message
assert "num_iotasks" in e.message and isinstance(e, esmio.Error)
expect(esmio.EBADNAME, io.trace_counter, "no_such_counter")
expect(None, esmio.Instance, comm={"not": "a comm"}, exception=TypeError)
ok("settings and names")

# ---- files ----
f = io.create(path(f"errors_np{size}.nc"), "backend=pnetcdf")
f.def_dim("time", None)
f.def_dim("x", 4 * size)
expect(esmio.ENAMEINUSE, f.def_dim, "x", 3)
v = f.def_var("v", np.float64, ("time", "x"))
expect(esmio.EBADID, f.def_var, "w", np.float64, ("time", "nope"))  # unknown dim: id -1
# an unknown dimension on one rank only: C still agrees, every rank raises (the ranks passed
# different dimension ids: ESMIO_EMISMATCH; with one rank, the id -1: ESMIO_EBADID)
expect(esmio.EMISMATCH if size > 1 else esmio.EBADID, f.def_var, "w", np.float64,
       ("time", "x" if rank else "nope"))
expect(esmio.EUNLIMPOS, f.def_var, "w", np.float64, ("x", "time"))
e = expect(esmio.EBADTYPE, f.def_var, "w", np.complex128, ("x",))
assert isinstance(e, TypeError) and "complex128" in str(e)
expect(esmio.EBADTYPE, f.def_var, "w", "not a dtype", ("x",))
expect(esmio.EINDEFINE, v.put, np.zeros(4 * size))
v.def_fill(-1.0)
c = f.def_var("c", np.int32, "x")
expect(esmio.EINVAL, v.def_fill, [])  # no value: null pointer to C
expect(esmio.EINVAL, v.def_fill, [1.0, 2.0])
expect(esmio.EBADTYPE, v.def_fill, 1 + 2j)  # no esmio type: converted by nobody
expect(esmio.ERANGE, c.def_fill, 1e40)  # converted by C to int32: does not fit
c.def_fill(np.float64(-7.0))  # fits: stored as int32 -7
assert c.attrs["_FillValue"] == -7 and c.attrs["_FillValue"].dtype == np.int32
expect(esmio.EBADTYPE, f.attrs.__setitem__, "flag", True)  # bool has no netCDF type
expect(esmio.EBADTYPE, v.attrs.__setitem__, "z", np.array([1 + 2j]))
e = expect(esmio.ENOTATT, f.attrs.__getitem__, "missing")
assert isinstance(e, KeyError) and isinstance(e, esmio.NotFoundError)
assert "missing" not in f.attrs and f.attrs.get("missing", 5) == 5
f.attrs["present"] = "yes"
f.enddef()
expect(esmio.ENOTINDEFINE, f.def_dim, "y", 2)
expect(esmio.ENOTINDEFINE, v.attrs.__setitem__, "units", "K")
ok("definitions, attributes")

# ---- variables ----
e = expect(esmio.ENOTVAR, f.__getitem__, "missing")
assert isinstance(e, KeyError)
assert "missing" not in f and "v" in f
expect(None, f.variables.__getitem__, "missing", exception=KeyError)
ok("missing variable")

# ---- decomposed data ----
n = 4
d = esmio.Decomposition.from_offsets(io, (4 * size,), np.arange(rank * n, rank * n + n))
e = expect(esmio.EBUFSIZE, v.write_darray, d, np.zeros(n - 1))  # too short on every rank
assert "3 elements" in e.message
expect(esmio.EBADTYPE, v.write_darray, d, np.zeros(n, dtype=np.complex64), exception=TypeError)
expect(esmio.EBADTYPE, v.write_darray, d, np.zeros(n, dtype=np.float16))
expect(esmio.EBADTYPE, v.write_darray, d, np.array(["a"] * n, dtype=object))
expect(esmio.ERECORD, v.write_darray, d, np.zeros(n), record=-1)
f.sync()  # every failure above was alike on every rank: nothing spoilt
v.write_darray(d, np.arange(n, dtype=np.float32), record=0)
expect(esmio.EBUFSIZE, v.read_darray, d, 0, out=np.zeros(n - 1))
expect(esmio.EBADTYPE, v.read_darray, d, 0, dtype=np.float16)
expect(esmio.ERECORD, v.read_darray, d, 5)
expect(None, v.read_darray, d, 0, out=[0.0] * n, exception=TypeError)
expect(None, v.write_darray, "not a decomposition", np.zeros(n), exception=TypeError)
# out of another dtype and layout: filled through a temporary, converted by C
out = np.zeros(2 * n, dtype=np.int32)[::2]
assert v.read_darray(d, 0, out=out) is out and list(out) == list(range(n))
# a read-only out: the collective read completes everywhere, then every rank raises
expect(None, v.read_darray, d, 0, out=np.broadcast_to(np.zeros(1), (n,)), exception=ValueError)
if size > 1:
    # too short on one rank only (agree_writes=flush): that rank fails now; the call is taken
    # back on every rank at the next flush, and since nothing wrote that record again, the sync
    # reports the refusal on every rank
    short = np.zeros(n - 1 if rank == 1 else n)
    e = None
    try:
        v.write_darray(d, short, record=1)
    except esmio.Error as err:
        e = err.code
    assert comm.allgather(e) == [esmio.EBUFSIZE if r == 1 else None for r in range(size)]
    expect(esmio.EBUFSIZE, f.sync)
    # a wrong dtype on one rank only
    try:
        v.write_darray(d, np.zeros(n, dtype=np.float16 if rank == 0 else np.float64), record=1)
    except esmio.Error:
        pass
    expect(esmio.EMISMATCH, f.sync)
assert f.nrecords == 1
ok("write_darray / read_darray: lengths, dtypes, records")

# ---- undecomposed data ----
expect(esmio.EINVAL, v.put, np.zeros(3), start=[0, 0], count=[1, 4])  # too short: null buffer
expect(esmio.EINVAL, v.put, np.zeros(4), start=[0], count=[4])  # 1 index for 2 dimensions
expect(esmio.EINVAL, v.get, start=[0, 0, 0])
expect(esmio.EINVAL, v.get, start=[0, 4 * size - 1], count=[1, 2])  # outside x
expect(esmio.EBADTYPE, v.get, dtype=np.float16)
expect(esmio.EBUFSIZE, c.put, np.zeros(4 * size - 1))  # put_var of a fixed-size variable
if size > 1:  # put_vara: every rank must pass the same values
    expect(esmio.EMISMATCH, v.put, np.full(4 * size, float(rank)), start=[1, 0],
           count=[1, 4 * size])
expect(None, v.__getitem__, (0, slice(0, 4, 2)), exception=IndexError)
ok("put / get")

# ---- closed file, freed decomposition, finalized instance ----
expect(esmio.EINVAL, io.finalize)  # a file and a decomposition are still open
f.close()
f.close()  # closing twice does nothing
assert f.closed
expect(esmio.EBADID, f.sync)
expect(esmio.EBADID, f.def_dim, "y", 2)
expect(esmio.EBADID, lambda: f.nrecords)
expect(esmio.EBADID, lambda: f.dimensions)
expect(esmio.EBADID, f.__getitem__, "v")
expect(esmio.EBADID, f.attrs.__getitem__, "present")
expect(esmio.EBADID, v.get)
expect(esmio.EBADID, v.write_darray, d, np.zeros(n))
d.free()
d.free()
expect(esmio.EBADID, lambda: d.offsets)
expect(esmio.EBADID, d.save, path("x.map"))
g = io.open(path(f"errors_np{size}.nc"))
expect(esmio.EBADID, g["v"].read_darray, d)  # a freed decomposition in an open file
expect(esmio.EPERM, g.redef)
g.close()
expect(esmio.EIO, io.open, path("no/such/dir/file.nc"))
expect(esmio.EDECOMP, esmio.Decomposition.from_offsets, io, (4,), [4 + rank])
expect(esmio.EINVAL, esmio.Decomposition.from_offsets, io, (4,), [0.5])
expect(esmio.EINVAL, esmio.Decomposition.from_block, io, (4, 4), (0,), (4, 4))
expect(esmio.EINVAL, esmio.Decomposition.from_block, io, (4,), (0,), (4,), mem_order=(1,))
io.finalize()
io.finalize()
expect(esmio.EBADID, io.create, path("after.nc"))
expect(esmio.EBADID, lambda: io.settings)
expect(esmio.EBADID, io.trace_counter, "open")
expect(esmio.EBADID, esmio.Decomposition.from_block, io, (4,), (0,), (4,))
ok("closed file, freed decomposition, finalized instance")
