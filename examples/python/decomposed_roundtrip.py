"""Write a decomposed field from numpy, read it back in another decomposition, open the result
with xarray.

    mpirun -np 4 python3 decomposed_roundtrip.py [OUT.nc] [FILE SETTINGS]

Each rank holds a band of latitudes of T(lev, lat, lon) in CAM's memory order [lat][lev][lon]
and writes two records; then each rank reads back every size-th longitude column (round robin),
checks it, and rank 0 opens the file with xarray. numpy's (C) dimension order is netCDF's:
T[time, lev, lat, lon] in the file is t[lev, lat, lon] per record in a numpy array.
"""
import sys

import numpy as np

from mpi4py import MPI  # esmio's communicators (pip install 'esmio[mpi]')

import esmio

comm = MPI.COMM_WORLD

NLEV, NLAT, NLON, NREC = 10, 90, 180, 2
path = sys.argv[1] if len(sys.argv) > 1 else "decomposed_roundtrip.nc"
settings = sys.argv[2] if len(sys.argv) > 2 else "backend=pnetcdf,format=cdf5"

lev = np.arange(NLEV, dtype=np.float64)
lat = np.linspace(-89.0, 89.0, NLAT)
lon = np.arange(NLON) * (360.0 / NLON)


def temperature(record, k, y, x):
    """The analytic field, at level indices k, latitude indices y, longitude indices x."""
    return 250.0 + 30.0 * np.cos(np.deg2rad(lat[y])) + k + 0.01 * lon[x] + record


io = esmio.Instance(comm, "num_iotasks=2")
if io.role == esmio.ROLE_SERVER:  # with I/O servers (ESMIO_IO_SERVERS=K): this rank served
    io.finalize()
    sys.exit(0)
with io:  # io.comm, io.rank and io.size are the compute ranks'
    rank, size = io.rank, io.size
    lat0, lat1 = NLAT * rank // size, NLAT * (rank + 1) // size

    with io.create(path, settings) as f:
        f.def_dim("time", None)
        f.def_dim("lev", NLEV)
        f.def_dim("lat", NLAT)
        f.def_dim("lon", NLON)
        coords = {}
        for name, units in (("time", "days since 2000-01-01"), ("lev", "1"),
                            ("lat", "degrees_north"), ("lon", "degrees_east")):
            coords[name] = f.def_var(name, np.float64, name)
            coords[name].attrs["units"] = units
        t = f.def_var("T", np.float32, ("time", "lev", "lat", "lon"))
        t.attrs.update(units="K", long_name="temperature")
        t.def_fill(np.float32(1e20))
        f.attrs["title"] = "esmio Python example: decomposed round trip"
        f.enddef()
        coords["lev"].put(lev)  # undecomposed: every rank passes the same values
        coords["lat"].put(lat)
        coords["lon"].put(lon)

        # latitude bands, held as [lat][lev][lon]: memory dimension i is file dimension
        # mem_order[i] of (lev, lat, lon)
        with esmio.Decomposition.from_block(io, (NLEV, NLAT, NLON), (0, lat0, 0),
                                            (NLEV, lat1 - lat0, NLON), mem_order=(1, 0, 2)) as d:
            y, k, x = np.meshgrid(np.arange(lat0, lat1), np.arange(NLEV), np.arange(NLON),
                                  indexing="ij")
            for r in range(NREC):
                coords["time"][r] = r * 0.25
                t.write_darray(d, temperature(r, k, y, x), record=r)  # float64 -> float32

    # read back as round-robin longitude columns, held as [lon][lev][lat]
    with io.open(path) as f:
        xs = np.arange(rank, NLON, size)
        k, y = np.meshgrid(np.arange(NLEV), np.arange(NLAT), indexing="ij")
        offsets = ((k[None] * NLAT + y[None]) * NLON + xs[:, None, None]).ravel()
        with esmio.Decomposition.from_offsets(io, (NLEV, NLAT, NLON), offsets) as columns:
            for r in range(NREC):
                got = f["T"].read_darray(columns, record=r).reshape(len(xs), NLEV, NLAT)
                want = temperature(r, k[None], y[None], xs[:, None, None]).astype(np.float32)
                assert np.array_equal(got, want), f"rank {rank}: record {r} differs"
        nrec = f.nrecords

if rank == 0:
    import xarray as xr

    with xr.open_dataset(path) as ds:
        print(ds)
        for r in range(nrec):
            mean = float(ds.T[r].mean())
            print(f"record {r}: {str(ds.time.values[r])[:16]}, T mean {mean:.3f} K")
        want = temperature(1, *np.meshgrid(np.arange(NLEV), np.arange(NLAT), np.arange(NLON),
                                           indexing="ij")).astype(np.float32)
        assert np.array_equal(ds.T.values[1], want)
    print(f"ok: {size} ranks wrote latitude bands and read round-robin columns; xarray agrees")
