"""The binding's API on any number of ranks: instance, definitions, inquiry by name,
attributes as Python values, undecomposed and decomposed data, decomposition files, trace."""
import os
import re

import numpy as np
from mpi4py import MPI

import esmio
from harness import comm, expect, ok, path, rank, size

# ---- constants and version: those of include/esmio.h ----
header = open(os.path.join(os.path.dirname(__file__), "..", "..", "include", "esmio.h")).read()
codes = {m[0]: int(m[1]) for m in re.findall(r"#define ESMIO_(E[A-Z]+) \((-\d+)\)", header)}
assert codes == esmio.CODES, (codes, esmio.CODES)
types = {m[0]: int(m[1]) for m in re.findall(r"ESMIO_([A-Z0-9]+) = (\d+),?\s", header)}
assert types == esmio.TYPES, types
for name in ("GLOBAL", "UNLIMITED", "MAX_DIMS", "MAX_NAME", "NOWRITE", "WRITE", "TRACE_BINS",
             "ROLE_COMPUTE", "ROLE_SERVER"):
    m = re.search(rf"#define ESMIO_{name} \(?(-?\d+)\)?", header)
    assert int(m[1]) == getattr(esmio, name), name
trace = header[header.index("---- trace: where the time goes"):header.index("esmio_counter;")]
names = [n for lead in re.findall(r'^ \*   ((?:"\w+",? *)+)', trace, re.M)
         for n in re.findall(r'"(\w+)"', lead)]
assert tuple(names) == esmio.TRACE_COUNTERS, names
version = ".".join(re.search(rf"#define ESMIO_VERSION_{p} (\d+)", header)[1]
                   for p in ("MAJOR", "MINOR", "PATCH"))
assert esmio.__version__ == esmio.version() == version
assert esmio.EBADID == -3 and esmio.FLOAT == 5 and esmio.strerror(esmio.EBADID)
ok("constants and version agree with include/esmio.h")

# ---- instance ----
io = esmio.Instance(comm, {"num_iotasks": min(2, size), "layout": "box"})
assert io.rank == rank and io.size == size and io.num_iotasks == min(2, size)
assert io.role == esmio.ROLE_COMPUTE and io.comm is comm
assert comm.allreduce(int(io.is_iotask)) == min(2, size)
with esmio.Instance(comm, io.settings) as again:  # the settings text is valid settings
    assert again.settings == io.settings
ok("instance")

# ---- communicators come from mpi4py: MPI.COMM_WORLD by default, any intracommunicator ----
with esmio.Instance() as world:
    assert world.comm is MPI.COMM_WORLD and (world.rank, world.size) == (rank, size)
half = comm.Split(rank % 2, rank)  # ranks 0, 2, ... and 1, 3, ...
with esmio.Instance(half) as sub:
    assert sub.comm is half and (sub.rank, sub.size) == (half.rank, half.size)
    assert sub.size == (size + 1 - rank % 2) // 2
half.Free()
for not_a_comm in (0, MPI.COMM_WORLD.py2f(), "MPI_COMM_WORLD"):
    try:
        esmio.Instance(not_a_comm)
    except TypeError as e:
        assert "mpi4py communicator" in str(e), str(e)
    else:
        raise AssertionError(f"Instance({not_a_comm!r}) should raise TypeError")
ok("communicators from mpi4py")

# ---- definitions, inquiry by name, attributes ----
nx = 6 * size
for backend, fmt in (("pnetcdf", "cdf5"), ("netcdf4", "netcdf4")):
    name = path(f"api_{backend}_np{size}.nc")
    with io.create(name, f"backend={backend},format={fmt}") as f:
        assert f"backend={backend}" in f.settings and f"format={fmt}" in f.settings
        assert f.def_dim("time", None) == 0 and f.def_dim("y", 3) == 1
        f.def_dim("x", nx)
        f.def_dim("nchar", 5)
        t = f.def_var("T", np.float32, ("time", "y", "x"))
        n = f.def_var("n", np.int64, ("y",))
        s = f.def_var("s", "S1", ("time", "nchar"))
        k = f.def_var("k", esmio.SHORT, ())
        b = f.def_var("b", np.int8, "x")
        if backend == "netcdf4":
            t.def_chunking((1, 3, nx))
            t.def_compress("deflate:1:shuffle")
            q = f.def_var("q", np.float64, ("y", "x"))
            q.def_chunking(None)
            q.def_compress("zstd:3")
            q.def_quantize("bitround:10")
        t.attrs["units"] = "K"
        t.attrs["_FillValue"] = -999  # the variable's type, whatever the value's
        t.attrs.update(valid_range=np.array([-100, 100], dtype=np.float32), long_name="temp")
        f.attrs["title"] = "api test"
        f.attrs["ints"] = [1, 2, 3]
        f.attrs["big"] = 2**40
        f.attrs["f"] = 0.25
        f.attrs["i8"] = np.int8(-5)
        f.attrs["i16"] = np.array([1, -1], dtype=np.int16)
        f.attrs["empty"] = ""
        assert f.dimensions == {"time": 0, "y": 3, "x": nx, "nchar": 5}
        assert list(f.variables)[:5] == ["T", "n", "s", "k", "b"] and f.unlimited == "time"
        assert t.dimensions == ("time", "y", "x") and t.shape == (0, 3, nx) and t.ndim == 3
        assert (t.dtype, n.dtype, s.dtype, k.dtype, b.dtype) == (
            np.float32, np.int64, np.dtype("S1"), np.int16, np.int8)
        f.enddef()

        assert list(f.attrs) == ["title", "ints", "big", "f", "i8", "i16", "empty"]
        assert len(f.attrs) == 7 and "title" in f.attrs
        a = dict(f.attrs)
        assert a["title"] == "api test" and a["empty"] == ""
        assert a["ints"].dtype == np.int32 and list(a["ints"]) == [1, 2, 3]
        assert a["big"].dtype == np.int64 and a["big"] == 2**40
        assert a["f"] == 0.25 and type(a["f"]) == np.float64
        assert a["i8"] == -5 and type(a["i8"]) == np.int8
        assert a["i16"].dtype == np.int16 and list(a["i16"]) == [1, -1]
        assert list(t.attrs) == ["units", "_FillValue", "valid_range", "long_name"]
        assert t.attrs["_FillValue"] == np.float32(-999) and t.attrs["units"] == "K"

        # undecomposed data, whole or sliced, with conversion (every rank passes the same)
        n.put([10, 20, 2**40])
        assert list(n.get()) == [10, 20, 2**40] and n[1] == 20
        k.put(np.int16(7))
        assert k.get() == 7 and k.get().shape == ()
        b[:] = np.arange(nx) % 100
        assert list(b[2:5]) == [2, 3, 4] and b[-1] == (nx - 1) % 100
        s[0] = "hello"
        s[1, :] = np.array([b"w", b"o", b"r", b"l", b"d"])
        assert s.get().tobytes() == b"helloworld" and s[1].tobytes() == b"world"

        # decomposed data: x in blocks, y whole; memory [x][y] (mem_order (1, 0))
        x0, x1 = 6 * rank, 6 * rank + 6
        with esmio.Decomposition.from_block(io, (3, nx), (0, x0), (3, 6), (1, 0)) as d:
            assert d.dims == (3, nx) and d.nlocal == 18 and d.local_shape == (6, 3)
            yy, xx = np.meshgrid(np.arange(3), np.arange(x0, x1), indexing="xy")
            field = (xx * 10 + yy).astype(np.float64)  # [x][y]: shape (6, 3)
            assert field.shape == (6, 3)
            g = d.offsets
            assert list(g[:3]) == [x0, nx + x0, 2 * nx + x0]
            for r in range(3):
                t.write_darray(d, field + 1000 * r, record=r)
            # a non-contiguous array is copied, in C order of its indices
            big = np.zeros((6, 6))
            big[:, ::2] = field + 5000
            t.write_darray(d, big[:, ::2], record=3)
            f.sync()
            assert f.nrecords == 4 and t.shape == (4, 3, nx)
            got = t.read_darray(d, 1)
            assert got.shape == (6, 3) and got.dtype == np.float32
            assert np.array_equal(got, field + 1000)
            out = np.empty((6, 3), dtype=np.int32)
            assert t.read_darray(d, 3, out=out) is out and np.array_equal(out, field + 5000)
            # the whole field on every rank through get(), and a box
            whole = t.get()
            assert whole.shape == (4, 3, nx)
            ref = np.arange(nx)[None, :] * 10 + np.arange(3)[:, None]
            assert np.array_equal(whole[2], ref + 2000)
            assert np.array_equal(t.get(start=(1, 1, 0), count=(1, 1, nx))[0, 0], ref[1] + 1000)
            assert np.array_equal(t[0, 2, 3:5], ref[2, 3:5])
            # out-of-range values: stored as fill, ESMIO_ERANGE on every rank
            expect(esmio.ERANGE, t.write_darray, d, np.full(18, 1e40), record=4)
        expect(esmio.ERANGE, f.sync)  # and again, with the total, at the flush
        assert t.get(start=(4, 0, 0), count=(1, 3, nx)).max() == -999
    comm.Barrier()

    # reopen: add an attribute and a record, then read everything back
    with io.open(name, "w") as f:
        assert f.nrecords == 5 and f.dimensions["time"] == 5
        f.redef()
        f.attrs["history"] = "reopened"
        f.def_var("extra", np.float64, ("time",))
        f.enddef()
        f["extra"].put([1.5] * 6, start=[0], count=[6])
        assert f.nrecords == 6
    with io.open(name) as f:
        assert f.attrs["history"] == "reopened" and f.attrs["title"] == "api test"
        assert list(f.variables)[:5] == ["T", "n", "s", "k", "b"]
        assert list(f.variables)[-1] == "extra"
        assert list(f["extra"][:]) == [1.5] * 6
        assert np.array_equal(f["T"][2], ref + 2000)
        if backend == "netcdf4":
            q = f["q"]
            assert q.attrs["_QuantizeBitRoundNumberOfSignificantBits"] == 10
    ok(f"definitions, attributes, put/get, write/read_darray, reopen ({backend})")

# ---- the unsigned types (CDF-5 and netCDF-4): decomposed writes read back by netCDF-C ----
unsigned = (np.uint8, np.uint16, np.uint32, np.uint64)
for backend, fmt in (("pnetcdf", "cdf5"), ("netcdf4", "netcdf4")):
    name = path(f"unsigned_{backend}_np{size}.nc")
    offsets = np.arange(rank * 4, rank * 4 + 4, dtype=np.int64)
    want = {}
    with io.create(name, f"backend={backend},format={fmt}") as f:
        f.def_dim("time", None)
        f.def_dim("x", 4 * size)
        for dt in unsigned:
            f.def_var(np.dtype(dt).name, dt, ("time", "x"))
        f.attrs["u64"] = np.array([2**64 - 1, 2**63], dtype=np.uint64)
        f.enddef()
        with esmio.Decomposition.from_offsets(io, (4 * size,), offsets) as d:
            for dt in unsigned:
                top = np.iinfo(dt).max
                # The top values, which a signed reading would take as negative.
                values = (top - offsets * 3).astype(dt)
                want[np.dtype(dt).name] = (top - np.arange(4 * size) * 3).astype(dt)
                f[np.dtype(dt).name].write_darray(d, values, record=0)
                assert np.array_equal(f[np.dtype(dt).name].read_darray(d, 0), values)
            # negative values into an unsigned variable: its fill value, ESMIO_ERANGE
            expect(esmio.ERANGE, f["uint8"].write_darray, d, np.full(4, -1.0), record=1)
        expect(esmio.ERANGE, f.sync)
        assert f.attrs["u64"].dtype == np.uint64 and list(f.attrs["u64"]) == [2**64 - 1, 2**63]
    comm.Barrier()
    if rank == 0:
        import netCDF4
        with netCDF4.Dataset(name) as ds:
            ds.set_auto_maskandscale(False)
            for vname, values in want.items():
                got = ds[vname][0]
                assert got.dtype == values.dtype and np.array_equal(got, values), vname
            assert list(ds["uint8"][1]) == [255] * (4 * size)  # netCDF's default fill
    comm.Barrier()
    ok(f"unsigned types through {backend} ({fmt})")
with io.create(path(f"unsigned_cdf2_np{size}.nc"), "backend=pnetcdf,format=cdf2") as f:
    f.def_dim("x", 4)
    e = expect(esmio.EBADTYPE, f.def_var, "u", np.uint16, ("x",))
    assert "ushort needs format cdf5 or netcdf4" in e.message, e.message
ok("the unsigned types refused in CDF-2")

# ---- decompositions from offsets, holes, files ----
offsets = np.array([rank + size * i for i in range(5)] + [-1], dtype=np.int64)
with esmio.Decomposition.from_offsets(io, (5 * size,), offsets) as d:
    assert d.nlocal == 6 and list(d.offsets) == list(offsets) and d.local_shape == (6,)
    d.save(path(f"api_np{size}.pio"))
    d.save(path(f"api_np{size}.esmio"), "esmio")
    with esmio.Decomposition.from_file(io, path(f"api_np{size}.pio")) as e, \
            esmio.Decomposition.from_file(io, path(f"api_np{size}.esmio"), "esmio") as e2:
        assert e.dims == d.dims and e2.dims == d.dims
        assert list(e.offsets[e.offsets >= 0]) == list(offsets[:5])
        assert list(e2.offsets[e2.offsets >= 0]) == list(offsets[:5])
    with io.create(path(f"api_holes_np{size}.nc")) as f:
        f.def_dim("x", 5 * size)
        v = f.def_var("v", np.int32, "x")
        v.def_fill(-7)
        f.enddef()
        v.write_darray(d, np.arange(6, dtype=np.int16) * 2)
        assert list(v.read_darray(d)) == [0, 2, 4, 6, 8, 0]  # the hole's slot is not read
        assert v.get()[rank] == 0 and v.get()[size + rank] == 2
ok("decompositions: offsets with holes, pio and esmio files")

# ---- trace ----
c = io.trace_counter("write_darray")
assert c.calls >= 4 and c.seconds >= 0 and isinstance(c, esmio.TraceCounter)
assert set(io.trace_counters()) == set(esmio.TRACE_COUNTERS)
h = io.trace_histogram()
assert h.shape == (esmio.TRACE_BINS,) and h.dtype == np.int64
# esmio_trace_write: every rank's counters in one JSON report now (collective).
report = path("trace_write.json")
io.trace_write(report)
if rank == 0:
    import json
    with open(report) as fh:
        doc = json.load(fh)
    assert doc["nranks"] == size and len(doc["ranks"]) == size
    assert all(r["totals"]["write_darray"]["calls"] >= 4 for r in doc["ranks"])
    os.remove(report)
io.trace_reset()
assert io.trace_counter("write_darray").calls == 0 and io.trace_histogram().sum() == 0
io.finalize()
ok("trace counters")
