"""Communicators come from mpi4py (the `esmio[mpi]` extra): esmio_init_f takes the Fortran
handle that mpi4py gives for any communicator, so nothing here depends on how an MPI library
represents its handles. mpi4py initialises MPI when it is imported.
"""

import ctypes

from ._lib import lib

lib.MPI_Get_library_version.restype = ctypes.c_int
lib.MPI_Get_library_version.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]

_NEED_MPI4PY = ("esmio needs mpi4py for its communicators: pip install 'esmio[mpi]' "
                "(or Debian's python3-mpi4py)")


def library_version():
    """MPI_Get_library_version of the MPI libesmio uses (may be called before MPI_Init)."""
    buf = ctypes.create_string_buffer(8192)  # MPICH's MPI_MAX_LIBRARY_VERSION_STRING
    length = ctypes.c_int(0)
    lib.MPI_Get_library_version(buf, ctypes.byref(length))
    return buf.value.decode(errors="replace")


def _mpi4py():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(_NEED_MPI4PY) from e
    return MPI


def resolve(comm):
    """comm (None: MPI_COMM_WORLD) as (mpi4py communicator, Fortran handle)."""
    MPI = _mpi4py()
    if comm is None:
        comm = MPI.COMM_WORLD
    if not isinstance(comm, MPI.Comm):
        raise TypeError(f"esmio: comm must be an mpi4py communicator or None (MPI_COMM_WORLD), "
                        f"not {type(comm).__name__}")
    _check_same_library(MPI)
    return comm, int(comm.py2f())


def communicator(fint):
    """The mpi4py communicator of Fortran handle fint (one esmio made: the compute ranks')."""
    return _mpi4py().Comm.f2py(fint)


def _check_same_library(MPI):
    # mpi4py built against another MPI than libesmio would hand over a meaningless handle.
    def first(text):  # "Open MPI v4.1.4" of "Open MPI v4.1.4, package: ..."
        return text.split("\n")[0].split(",")[0].strip()

    theirs, ours = first(MPI.Get_library_version()), first(library_version())
    if theirs != ours:
        raise RuntimeError(f"esmio: mpi4py uses another MPI library ({theirs}) than libesmio "
                           f"({ours})")
