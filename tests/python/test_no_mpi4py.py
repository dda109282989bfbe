"""esmio without mpi4py: the package imports (the library's version, codes and strerror need no
MPI), and an Instance, which needs a communicator, raises an ImportError that says how to get
mpi4py (the esmio[mpi] extra) before any MPI call. Run as a plain process and under mpirun.
Usage: test_no_mpi4py.py"""
import sys

sys.modules["mpi4py"] = None  # any import of mpi4py now fails

import esmio  # noqa: E402

try:
    import mpi4py  # noqa: F401
    raise AssertionError("mpi4py should be blocked")
except ImportError:
    pass

assert esmio.version() == esmio.__version__ and esmio.strerror(esmio.EBADID)
for comm in (None, 0):
    try:
        esmio.Instance(comm)
    except ImportError as e:
        assert "mpi4py" in str(e) and "esmio[mpi]" in str(e), str(e)
    else:
        raise AssertionError(f"Instance({comm!r}) without mpi4py should raise ImportError")
print("ok   without mpi4py: esmio imports; Instance() asks for esmio[mpi]", flush=True)
