"""esmio: parallel netCDF output for Earth-system models, from Python.

A thin layer over libesmio (ctypes): numpy arrays in and out, the array's dtype is the memory
type, errors raise esmio.Error with the C code. Set ESMIO_LIBRARY to the full path of
libesmio.so if it is not on the loader's path. See docs/python.md.
"""

from ._lib import (CODE_NAMES, CODES, GLOBAL, MAX_DIMS, MAX_NAME, NOERR, NOWRITE, ROLE_COMPUTE,
                   ROLE_SERVER, TRACE_BINS, TRACE_COUNTERS, TYPES, UNLIMITED, WRITE, BadTypeError,
                   Error, NotFoundError, strerror, version)
from ._core import (Attributes, Decomposition, File, Instance, TraceCounter, Variable,
                    esmio_type, numpy_dtype)

__version__ = version()

for _cls in (Attributes, BadTypeError, Decomposition, Error, File, Instance, NotFoundError,
             Variable):
    _cls.__module__ = __name__  # tracebacks say esmio.Error, not esmio._lib.Error

# ESMIO_EBADID -> esmio.EBADID, ESMIO_FLOAT -> esmio.FLOAT, as in the C header.
globals().update(CODES)
globals().update(TYPES)

__all__ = ["Attributes", "BadTypeError", "CODES", "CODE_NAMES", "Decomposition", "Error",
           "File", "GLOBAL", "Instance", "MAX_DIMS", "MAX_NAME", "NOERR", "NOWRITE",
           "ROLE_COMPUTE", "ROLE_SERVER",
           "NotFoundError", "TRACE_BINS", "TRACE_COUNTERS", "TYPES", "TraceCounter",
           "UNLIMITED", "Variable", "WRITE", "esmio_type", "numpy_dtype", "strerror",
           "version", *CODES, *TYPES]
