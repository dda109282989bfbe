"""The Python twin of c_writer.c: the same file through the binding, then checked by netCDF4
and xarray on rank 0. Usage: same_as_c.py OUT.nc "FILE SETTINGS"."""
import sys

import numpy as np
from mpi4py import MPI

import esmio

NREC, NLEV, NLAT, NLON = 2, 5, 37, 48


def expected_t(r):
    g = np.arange(NLEV * NLAT * NLON, dtype=np.float64).reshape(NLEV, NLAT, NLON)
    return (float(r) + g * 1.0e-3).astype(np.float32)


def expected_ps(r):
    g = np.arange(NLAT * NLON, dtype=np.float64).reshape(NLAT, NLON)
    ps = ((2000.0 + r) + g * 0.01).astype(np.float32).astype(np.float64)
    ps[0, 0] = 9.969209968386869e36  # netCDF's default double fill: the hole
    return ps


def expected_mask():
    y, x = np.mgrid[0:NLAT, 0:NLON]
    return ((y * 7 + x) % 5).astype(np.int32)


def write(path, settings, comm):
    rank, size = comm.rank, comm.size
    with esmio.Instance(comm, "num_iotasks=2") as io, io.create(path, settings) as f:
        f.def_dim("time", None)
        f.def_dim("lev", NLEV)
        f.def_dim("lat", NLAT)
        f.def_dim("lon", NLON)
        f.def_dim("nchar", 8)
        lat = f.def_var("lat", np.float64, "lat")
        lat.attrs["units"] = "degrees_north"
        t = f.def_var("T", np.float32, ("time", "lev", "lat", "lon"))
        t.def_fill(1.0e20)
        t.attrs["units"] = "K"
        t.attrs["valid_range"] = np.array([0.0, 1.0e5], dtype=np.float32)
        ps = f.def_var("PS", "f8", ("time", "lat", "lon"))
        mask = f.def_var("MASK", esmio.INT, ("lat", "lon"))
        count = f.def_var("count", np.int32, "time")
        name = f.def_var("name", "S1", "nchar")
        f.attrs["title"] = "esmio bit-for-bit t"
        f.attrs["version"] = [1, 2, 3]
        f.attrs["scale"] = 0.5
        f.enddef()

        lat.put(-90.0 + 5.0 * np.arange(NLAT))
        name.put("esmio-py")

        lat0, lat1 = NLAT * rank // size, NLAT * (rank + 1) // size
        offsets = np.array([-1 if (x == 0 and y == 0) else y * NLON + x
                            for x in range(rank, NLON, size) for y in range(NLAT)], dtype=np.int64)
        with esmio.Decomposition.from_block(io, (NLEV, NLAT, NLON), (0, lat0, 0),
                                            (NLEV, lat1 - lat0, NLON),
                                            mem_order=(1, 0, 2)) as bands, \
                esmio.Decomposition.from_offsets(io, (NLAT, NLON), offsets) as columns, \
                esmio.Decomposition.from_block(io, (NLAT, NLON), (lat0, 0),
                                               (lat1 - lat0, NLON)) as rows:
            assert bands.local_shape == (lat1 - lat0, NLEV, NLON)
            y, k, x = np.meshgrid(np.arange(lat0, lat1), np.arange(NLEV), np.arange(NLON),
                                  indexing="ij")
            g3 = ((k * NLAT + y) * NLON + x).astype(np.float64)
            for r in range(NREC):
                t.write_darray(bands, float(r) + g3 * 1.0e-3, record=r)
                values = ((2000.0 + r) + np.maximum(offsets, 0).astype(np.float64) * 0.01)
                ps.write_darray(columns, values.astype(np.float32), record=r)
                count.put(np.array([10 * r], dtype=np.int32), start=[r], count=[1])
            m = expected_mask()[lat0:lat1]
            mask.write_darray(rows, m)
            # read back through the columns as float64 (holes stay 0)
            expected = np.where(offsets < 0, 0.0,
                                expected_ps(1).reshape(-1)[np.maximum(offsets, 0)])
            assert np.array_equal(ps.read_darray(columns, 1, dtype=np.float64), expected)

def check_with_clients(path):
    import netCDF4
    import xarray as xr

    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        assert nc.title == "esmio bit-for-bit t" and list(nc.version) == [1, 2, 3]
        assert nc.scale == 0.5
        for r in range(NREC):
            assert np.array_equal(nc["T"][r], expected_t(r)), "T differs"
            assert np.array_equal(nc["PS"][r], expected_ps(r)), "PS differs"
        assert np.array_equal(nc["MASK"][:], expected_mask())
        assert list(nc["count"][:]) == [0, 10]
        assert nc["name"][:].tobytes() == b"esmio-py"
        assert nc["T"].units == "K" and nc["T"]._FillValue == np.float32(1e20)
    with xr.open_dataset(path) as ds:
        assert ds["T"].dims == ("time", "lev", "lat", "lon")
        assert np.array_equal(ds["T"].values[1], expected_t(1))
        assert np.array_equal(ds["lat"].values, -90.0 + 5.0 * np.arange(NLAT))
        # PS has no _FillValue attribute: xarray shows the hole as netCDF's default fill
        assert np.array_equal(ds["PS"].values[0], expected_ps(0))
        assert np.isnan(ds["T"].values).sum() == 0


if __name__ == "__main__":
    comm = MPI.COMM_WORLD
    write(sys.argv[1], sys.argv[2], comm)
    if comm.rank == 0:
        check_with_clients(sys.argv[1])
        print(f"ok   {sys.argv[1]}: written from Python, read by netCDF4 and xarray")
