"""The esmio-bench cam-fvd record set written from Python through esmio.Variable.write_darray,
for the binding-overhead comparison with the C and Fortran paths.

    mpirun -np 4 python3 bench/bindings/cam_fvd_python.py [--reps 5] [--dir /tmp]
           [--backend pnetcdf] [--iotasks 0] [--scale 1.0] [--fsync] [--keep]

Mirrors tools/esmio_bench/cases.cpp cam_fvd and variant_esmio.cpp exactly:
  file      dims time (unlimited), lev 26, lat 361, lon 576; 34 3-D float fields (time, lev, lat,
            lon) named as CAM's (T, U, ...), then 61 2-D float fields FLD2D_00..60 (time, lat, lon);
            settings "backend=B,format=cdf5" (netcdf4: format=netcdf4); one record
  ranks     latitude bands: rank r of N holds lat [361*r//N, 361*(r+1)//N)
  3-D       esmio_decomp_create_block((26,361,576), start (0,lat0,0), count (26,lat1-lat0,576),
            mem_order (1,0,2)): memory [lat][lev][lon], CAM's A(lon,lev,lat)
  2-D       esmio_decomp_create_block((361,576), start (lat0,0), count (lat1-lat0,576), file order)
  values    float64 in memory, float32 in the file: field v (0-based, definition order), record t,
            memory slot i with global C-order offset g_i: (1000*v + t) + g_i*1e-6, computed per
            field into one reused buffer as the bench does (np.add(base, c, out=buf))
  calls     one write_darray per field and record (the whole local part)
  timed     per repetition: barrier, clock, create .. enddef, 95 x (generate + write_darray),
            close (and fsync of the file on rank 0 with --fsync), barrier, clock: the bench's
            write measurement. Decompositions are made once, outside the clock; the file is
            removed after each repetition, outside the clock (--keep: the last one stays).
Prints one JSON line (rank 0): per-repetition seconds, their median, and per repetition the
slowest rank's sums of: generate time (filling the buffer), write_call (write_darray as the
caller times it) and binding (write_call minus the library's own "write_darray" trace counter:
the cost of the binding itself, a copy included if it made one).
cam_fvd_c.c and cam_fvd_fortran.F90 are the same program in C and Fortran; compare.py runs
the three.
"""
import argparse
import json
import math
import os
import statistics
import time

import numpy as np

import esmio

NAMES_3D = ("T", "U", "V", "Q", "OMEGA", "Z3", "RELHUM", "CLOUD", "CLDICE", "CLDLIQ", "CONCLD",
            "DTCOND", "DTV", "QRL", "QRS", "VD01", "DCQ", "CMFDT", "CMFDQ", "ZMDT", "ZMDQ", "UU",
            "VV", "VU", "VT", "VQ", "OMEGAT", "ICIMR", "ICWMR", "FICE", "EVAPPREC", "QT", "SL",
            "TTEND")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--dir", default=".")
    p.add_argument("--backend", default="pnetcdf", choices=("pnetcdf", "netcdf4"))
    p.add_argument("--iotasks", type=int, default=0, help="num_iotasks (0: every rank)")
    p.add_argument("--scale", type=float, default=1.0, help="lat and lon scale, as the bench's")
    p.add_argument("--fsync", action="store_true", help="durable: fsync the file before the clock")
    p.add_argument("--keep", action="store_true", help="keep the last repetition's file")
    args = p.parse_args()

    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, nranks = comm.rank, comm.size

    def scaled(n):  # half away from zero, as the bench's llround (Python's round() is to even)
        return max(1, math.floor(n * args.scale + 0.5))

    nlev, nlat, nlon = 26, scaled(361), scaled(576)
    lat0, lat1 = nlat * rank // nranks, nlat * (rank + 1) // nranks
    path = os.path.join(args.dir, "cam_fvd_python.nc")
    fmt = "netcdf4" if args.backend == "netcdf4" else "cdf5"
    settings = f"backend={args.backend},format={fmt}"
    names = list(NAMES_3D) + [f"FLD2D_{v:02d}" for v in range(61)]

    with esmio.Instance(comm, f"num_iotasks={args.iotasks}") as io:
        d3 = esmio.Decomposition.from_block(io, (nlev, nlat, nlon), (0, lat0, 0),
                                            (nlev, lat1 - lat0, nlon), mem_order=(1, 0, 2))
        d2 = esmio.Decomposition.from_block(io, (nlat, nlon), (lat0, 0), (lat1 - lat0, nlon))
        grids = [(d3, d3.offsets * 1.0e-6), (d2, d2.offsets * 1.0e-6)]
        buf = np.empty(d3.nlocal, dtype=np.float64)
        seconds, generate, write_call, binding = [], [], [], []
        for _ in range(args.reps):
            lib0 = io.trace_counter("write_darray").seconds
            comm.Barrier()
            t0 = time.perf_counter()
            gen = wcall = 0.0
            with io.create(path, settings) as f:
                f.def_dim("time", None)
                f.def_dim("lev", nlev)
                f.def_dim("lat", nlat)
                f.def_dim("lon", nlon)
                variables = [f.def_var(n, np.float32, ("time", "lev", "lat", "lon") if v < 34
                                       else ("time", "lat", "lon")) for v, n in enumerate(names)]
                f.enddef()
                for v, var in enumerate(variables):
                    d, base = grids[0 if v < 34 else 1]
                    g0 = time.perf_counter()
                    out = buf[:d.nlocal]
                    np.add(base, float(1000 * v + 0), out=out)  # record t = 0
                    gen += time.perf_counter() - g0
                    w0 = time.perf_counter()
                    var.write_darray(d, out, record=0)
                    wcall += time.perf_counter() - w0
            if args.fsync and rank == 0:
                fd = os.open(path, os.O_RDONLY)
                os.fsync(fd)
                os.close(fd)
            comm.Barrier()
            seconds.append(time.perf_counter() - t0)
            generate.append(comm.allreduce(gen, op=MPI.MAX))
            # the binding's own cost: write_darray timed by the caller minus the library's counter
            own = wcall - (io.trace_counter("write_darray").seconds - lib0)
            write_call.append(comm.allreduce(wcall, op=MPI.MAX))
            binding.append(comm.allreduce(own, op=MPI.MAX))
            if rank == 0 and not (args.keep and len(seconds) == args.reps):
                os.remove(path)  # as the bench: each repetition creates a new file
            comm.Barrier()
        d3.free()
        d2.free()
        iotasks, io_settings = io.num_iotasks, io.settings
    if rank == 0:
        data_bytes = 4 * (34 * nlev + 61) * nlat * nlon
        print(json.dumps({
            "case": "cam-fvd", "binding": "python", "ranks": nranks, "iotasks": iotasks,
            "backend": args.backend, "file_settings": settings, "durable": args.fsync,
            "shape": [nlev, nlat, nlon], "fields": [34, 61], "records": 1, "bytes": data_bytes,
            "reps": args.reps, "seconds": [round(s, 6) for s in seconds],
            "median_s": round(statistics.median(seconds), 6),
            "median_MiB_s": round(data_bytes / 2**20 / statistics.median(seconds), 1),
            "generate_s": [round(g, 6) for g in generate],
            "write_call_s": [round(w, 6) for w in write_call],
            "binding_s": [round(b, 6) for b in binding], "settings": io_settings}))


if __name__ == "__main__":
    main()
