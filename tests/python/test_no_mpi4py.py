"""esmio without mpi4py: MPI initialised (and finalised at exit) through the MPI library that
libesmio links, MPI_COMM_WORLD found without mpi4py. Run as a plain process (MPI singleton) and
under mpirun. Usage: test_no_mpi4py.py OUTDIR"""
import os
import sys

sys.modules["mpi4py"] = None  # any import of mpi4py now fails
import numpy as np  # noqa: E402

import esmio  # noqa: E402

try:
    import mpi4py  # noqa: F401
    raise AssertionError("mpi4py should be blocked")
except ImportError:
    pass

with esmio.Instance() as io:  # comm None: MPI_COMM_WORLD
    rank, size = io.rank, io.size
    assert 0 <= rank < size and io.num_iotasks == size
    os.makedirs(sys.argv[1], exist_ok=True)
    path = os.path.join(sys.argv[1], f"no_mpi4py_np{size}.nc")
    n = 5
    with io.create(path) as f, esmio.Decomposition.from_block(
            io, (n * size,), (n * rank,), (n,)) as d:
        f.def_dim("time", None)
        f.def_dim("x", n * size)
        v = f.def_var("v", np.float64, ("time", "x"))
        f.attrs["note"] = "written without mpi4py"
        f.enddef()
        v.write_darray(d, np.arange(n) + 100.0 * rank)
        assert np.array_equal(v.read_darray(d), np.arange(n) + 100.0 * rank)
        whole = v.get()
        assert whole.shape == (1, n * size) and whole[0, -1] == 100.0 * (size - 1) + n - 1
    with io.open(path) as f:
        assert f.attrs["note"] == "written without mpi4py" and f.nrecords == 1
if rank == 0:
    print(f"ok   without mpi4py on {size} rank(s): {path}", flush=True)
