"""Communicators as Fortran handles (what esmio_init_f takes), with or without mpi4py.

Without mpi4py, MPI is initialised here through the MPI library libesmio is linked against
(and finalised at exit if it was initialised here), and the world communicator's Fortran handle
is found from the implementation: Open MPI's MPI_COMM_WORLD is the address of the symbol
ompi_mpi_comm_world; MPICH and its derivatives fix its value at 0x44000000.
"""

import atexit
import ctypes

from ._lib import lib

_MPICH_COMM_WORLD = 0x44000000
_MPICH_FAMILY = ("MPICH", "Intel(R) MPI", "MVAPICH", "CRAY MPICH")

for _name, _args in (("MPI_Initialized", [ctypes.POINTER(ctypes.c_int)]),
                     ("MPI_Finalized", [ctypes.POINTER(ctypes.c_int)]),
                     ("MPI_Init", [ctypes.c_void_p, ctypes.c_void_p]),
                     ("MPI_Finalize", []),
                     ("MPI_Get_library_version", [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)])):
    getattr(lib, _name).restype = ctypes.c_int
    getattr(lib, _name).argtypes = _args


def library_version():
    """MPI_Get_library_version of the MPI libesmio uses (may be called before MPI_Init)."""
    buf = ctypes.create_string_buffer(8192)  # MPICH's MPI_MAX_LIBRARY_VERSION_STRING
    length = ctypes.c_int(0)
    lib.MPI_Get_library_version(buf, ctypes.byref(length))
    return buf.value.decode(errors="replace")


def _implementation():
    text = library_version()
    if text.startswith("Open MPI"):
        return "openmpi"
    if any(text.startswith(name) for name in _MPICH_FAMILY):
        return "mpich"
    return None


def _unknown():
    return RuntimeError(f"esmio: unknown MPI implementation '{library_version().splitlines()[0]}'"
                        ": pass an mpi4py communicator (esmio.Instance(MPI.COMM_WORLD))")


_IMPL = _implementation()
# MPI_Comm is a pointer in Open MPI, an int in MPICH: the C prototypes that take one.
_comm_t = ctypes.c_int if _IMPL == "mpich" else ctypes.c_void_p
lib.MPI_Comm_c2f.restype, lib.MPI_Comm_c2f.argtypes = ctypes.c_int, [_comm_t]
lib.MPI_Comm_f2c.restype, lib.MPI_Comm_f2c.argtypes = _comm_t, [ctypes.c_int]
for _name in ("MPI_Comm_rank", "MPI_Comm_size"):
    getattr(lib, _name).restype = ctypes.c_int
    getattr(lib, _name).argtypes = [_comm_t, ctypes.POINTER(ctypes.c_int)]

def _finalize_at_exit():
    done = ctypes.c_int(0)
    lib.MPI_Finalized(ctypes.byref(done))
    if not done.value:
        lib.MPI_Finalize()


def ensure_initialized():
    """Initialises MPI unless someone (mpi4py, the application) already did."""
    flag = ctypes.c_int(0)
    lib.MPI_Initialized(ctypes.byref(flag))
    if flag.value:
        return
    if lib.MPI_Init(None, None) != 0:
        raise RuntimeError("esmio: MPI_Init failed")
    atexit.register(_finalize_at_exit)


def world():
    """The Fortran handle of MPI_COMM_WORLD, initialising MPI if needed."""
    if _IMPL is None:
        raise _unknown()
    ensure_initialized()
    if _IMPL == "mpich":
        return _MPICH_COMM_WORLD
    address = ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_comm_world"))
    return lib.MPI_Comm_c2f(address)


def fortran_handle(comm):
    """comm (None: MPI_COMM_WORLD; an mpi4py communicator; or a Fortran handle) as an int."""
    if comm is None:
        return world()
    if hasattr(comm, "py2f"):
        _check_mpi4py()
        return int(comm.py2f())
    if isinstance(comm, int):
        ensure_initialized()
        return comm
    raise TypeError(f"esmio: comm must be an mpi4py communicator, a Fortran communicator handle "
                    f"(int) or None, not {type(comm).__name__}")


def communicator(fint, like):
    """The communicator of Fortran handle fint, in the kind the caller used for like: an mpi4py
    communicator if like is one, else the handle itself."""
    if like is not None and hasattr(like, "py2f"):
        from mpi4py import MPI
        return MPI.Comm.f2py(fint)
    return fint


def _check_mpi4py():
    # mpi4py built against another MPI than libesmio would hand over a meaningless handle.
    from mpi4py import MPI  # imported already: the communicator is one of its objects

    def first(text):  # "Open MPI v4.1.4" of "Open MPI v4.1.4, package: ..."
        return text.split("\n")[0].split(",")[0].strip()

    theirs, ours = first(MPI.Get_library_version()), first(library_version())
    if theirs != ours:
        raise RuntimeError(f"esmio: mpi4py uses another MPI library ({theirs}) than libesmio "
                           f"({ours})")


def rank_and_size(fint):
    """(rank, size) of a communicator given by its Fortran handle."""
    if _IMPL is None:
        raise _unknown()
    comm = lib.MPI_Comm_f2c(fint)
    rank, size = ctypes.c_int(0), ctypes.c_int(0)
    lib.MPI_Comm_rank(comm, ctypes.byref(rank))
    lib.MPI_Comm_size(comm, ctypes.byref(size))
    return rank.value, size.value
