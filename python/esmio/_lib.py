"""libesmio through ctypes: finding the library, every prototype, the error class."""

import ctypes
import ctypes.util
import os

# ---- error codes and types: the values of include/esmio.h (tests/python checks them) ----------
NOERR = 0
_CODES = (
    ("EINVAL", -1), ("ENOMEM", -2), ("EBADID", -3), ("ENOTVAR", -4), ("ENOTDIM", -5),
    ("EINDEFINE", -6), ("ENOTINDEFINE", -7), ("ERANGE", -8), ("EBADTYPE", -9),
    ("EDECOMP", -10), ("ESHAPE", -11), ("EBUFSIZE", -12), ("ERECORD", -13), ("EIO", -14),
    ("ENOTNC", -15), ("EBACKEND", -16), ("EBADNAME", -17), ("ENOTBUILT", -18),
    ("ESETTING", -19), ("EMPI", -20), ("EPERM", -21), ("EEXIST", -22), ("ENAMEINUSE", -23),
    ("EMAXDIMS", -24), ("EUNLIMPOS", -25), ("EMISMATCH", -26), ("ECORRUPT", -27),
    ("ENOSPC", -28), ("ENOTATT", -29), ("ECHECKSUM", -30),
)
CODES = dict(_CODES)
CODE_NAMES = {code: "ESMIO_" + name for name, code in _CODES}
CODE_NAMES[NOERR] = "ESMIO_NOERR"

TYPES = {"BYTE": 1, "CHAR": 2, "SHORT": 3, "INT": 4, "FLOAT": 5, "DOUBLE": 6, "UBYTE": 7,
         "USHORT": 8, "UINT": 9, "INT64": 10, "UINT64": 11}
GLOBAL = -1
UNLIMITED = 0
MAX_DIMS = 16
MAX_NAME = 256
NOWRITE = 0
WRITE = 1
ROLE_COMPUTE = 0
ROLE_SERVER = 1
TRACE_BINS = 48
# The counter names of esmio_trace_counter, in the header's order.
TRACE_COUNTERS = ("open", "define", "write_darray", "read_darray", "put_vara", "get_vara", "sync",
                  "close", "plan", "convert", "rearrange", "place", "backend_write",
                  "backend_read", "read_ahead", "async_post", "async_wait", "stage_copy",
                  "stage_write", "stage_verify", "serve_wait", "serve_receive")


class Counter(ctypes.Structure):
    _fields_ = [("calls", ctypes.c_int64), ("bytes", ctypes.c_int64), ("seconds", ctypes.c_double)]


def _find_library():
    """Path or name of libesmio, and the places tried (for the error message)."""
    explicit = os.environ.get("ESMIO_LIBRARY")
    if explicit:
        return [explicit]
    found = ctypes.util.find_library("esmio")
    return [name for name in (found, "libesmio.so.0", "libesmio.so") if name]


def _load():
    tried = []
    for name in _find_library():
        try:
            # RTLD_GLOBAL: libmpi (a dependency) must be global, as Open MPI's components that it
            # dlopens expect; mpi4py loads it the same way.
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            tried.append(f"{name}: {e}")
    raise ImportError(
        "esmio: cannot load libesmio (" + "; ".join(tried) + "). Set ESMIO_LIBRARY to the full "
        "path of libesmio.so (e.g. ESMIO_LIBRARY=<build>/libesmio.so or "
        "<prefix>/lib/libesmio.so.0), or put its directory on LD_LIBRARY_PATH.")


lib = _load()

_i, _i64, _p, _s = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p, ctypes.c_char_p
_pi, _pi64, _pp = ctypes.POINTER(_i), ctypes.POINTER(_i64), ctypes.POINTER(_p)

# name: (restype, argtypes). Handles are void pointers: opaque numbers to Python.
_PROTOTYPES = {
    "esmio_version": (_s, []),
    "esmio_strerror": (_s, [_i]),
    "esmio_last_error": (_s, []),
    "esmio_init_f": (_i, [_i, _s, _pp]),
    "esmio_finalize": (_i, [_pp]),
    "esmio_inq_settings": (_i, [_p, ctypes.c_char_p, _i64]),
    "esmio_inq_iotasks": (_i, [_p, _pi, _pi]),
    "esmio_inq_iolayout": (_i, [_p, ctypes.c_char_p, _i64]),
    "esmio_inq_role": (_i, [_p, _pi]),
    "esmio_inq_comm_f": (_i, [_p, _pi]),
    "esmio_create": (_i, [_p, _s, _s, _pp]),
    "esmio_stage_wait": (_i, [_p, _s]),
    "esmio_open": (_i, [_p, _s, _i, _s, _pp]),
    "esmio_def_var_chunking": (_i, [_p, _i, _i, _pi64]),
    "esmio_def_var_compress": (_i, [_p, _i, _s]),
    "esmio_def_var_quantize": (_i, [_p, _i, _s]),
    "esmio_inq_file_settings": (_i, [_p, ctypes.c_char_p, _i64]),
    "esmio_sync": (_i, [_p]),
    "esmio_close": (_i, [_pp]),
    "esmio_def_dim": (_i, [_p, _s, _i64, _pi]),
    "esmio_def_var": (_i, [_p, _s, _i, _i, _pi, _pi]),
    "esmio_def_var_fill": (_i, [_p, _i, _p]),
    "esmio_def_var_fill_typed": (_i, [_p, _i, _i, _p]),
    "esmio_put_att": (_i, [_p, _i, _s, _i, _i64, _p]),
    "esmio_enddef": (_i, [_p]),
    "esmio_redef": (_i, [_p]),
    "esmio_inq_dimid": (_i, [_p, _s, _pi]),
    "esmio_inq_dimlen": (_i, [_p, _i, _pi64]),
    "esmio_inq_varid": (_i, [_p, _s, _pi]),
    "esmio_inq_var": (_i, [_p, _i, _pi, _pi, _pi]),
    "esmio_inq_nvars": (_i, [_p, _pi]),
    "esmio_inq_nrecords": (_i, [_p, _pi64]),
    "esmio_inq_att": (_i, [_p, _i, _s, _pi, _pi64]),
    "esmio_inq_ndims": (_i, [_p, _pi]),
    "esmio_inq_unlimdim": (_i, [_p, _pi]),
    "esmio_inq_dimname": (_i, [_p, _i, ctypes.c_char_p, _i64]),
    "esmio_inq_varname": (_i, [_p, _i, ctypes.c_char_p, _i64]),
    "esmio_inq_natts": (_i, [_p, _i, _pi]),
    "esmio_inq_attname": (_i, [_p, _i, _i, ctypes.c_char_p, _i64]),
    "esmio_get_att": (_i, [_p, _i, _s, _i, _i64, _p]),
    "esmio_put_vara": (_i, [_p, _i, _pi64, _pi64, _i, _p]),
    "esmio_get_vara": (_i, [_p, _i, _pi64, _pi64, _i, _p]),
    "esmio_put_var": (_i, [_p, _i, _i, _p, _i64]),
    "esmio_get_var": (_i, [_p, _i, _i, _p, _i64]),
    "esmio_decomp_create": (_i, [_p, _i, _pi64, _i64, _pi64, _pp]),
    "esmio_decomp_create_block": (_i, [_p, _i, _pi64, _pi64, _pi64, _pi, _pp]),
    "esmio_decomp_load": (_i, [_p, _s, _s, _pp]),
    "esmio_decomp_save": (_i, [_p, _s, _s]),
    "esmio_decomp_inq": (_i, [_p, _pi, _pi64, _pi64]),
    "esmio_decomp_inq_offsets": (_i, [_p, _pi64, _i64]),
    "esmio_decomp_free": (_i, [_pp]),
    "esmio_write_darray": (_i, [_p, _i, _i64, _p, _i, _p, _i64]),
    "esmio_read_darray": (_i, [_p, _i, _i64, _p, _i, _p, _i64]),
    "esmio_trace_counter": (_i, [_p, _s, ctypes.POINTER(Counter)]),
    "esmio_trace_histogram": (_i, [_p, _pi64]),
    "esmio_trace_reset": (_i, [_p]),
    "esmio_trace_write": (_i, [_p, _s]),
}
for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args


def version():
    """The library's version, e.g. "0.1.0" (esmio_version)."""
    return lib.esmio_version().decode()


def strerror(code):
    """The C library's short description of an error code."""
    return lib.esmio_strerror(int(code)).decode()


class Error(Exception):
    """An esmio error: .code (negative, as in esmio.h), .name ("ESMIO_EBADID"), .message.

    Raised with the same code on every rank by a collective call. Subclasses add the matching
    built-in exception: NotFoundError is a KeyError, BadTypeError a TypeError.
    """

    def __new__(cls, code, message=None):
        if cls is Error:
            cls = _SUBCLASSES.get(code, Error)
        return super().__new__(cls, code, message)

    def __init__(self, code, message=None):
        self.code = int(code)
        self.name = CODE_NAMES.get(self.code, f"ESMIO_E({self.code})")
        self.message = message or strerror(self.code)
        super().__init__(self.code, self.message)

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"esmio.{type(self).__name__}({self.name}, {self.message!r})"

    def __reduce__(self):  # pickling (mpi4py's comm.gather of exceptions)
        return (Error, (self.code, self.message))


class NotFoundError(Error, KeyError):
    """No variable, dimension or attribute of that name (ENOTVAR, ENOTDIM, ENOTATT)."""


class BadTypeError(Error, TypeError):
    """A type with no esmio equivalent, or no conversion between two types (EBADTYPE)."""


_SUBCLASSES = {CODES["ENOTVAR"]: NotFoundError, CODES["ENOTDIM"]: NotFoundError,
               CODES["ENOTATT"]: NotFoundError, CODES["EBADTYPE"]: BadTypeError}


def check(code, note=None):
    """Raises Error for a negative code, with esmio_last_error() as the message.

    note, if given, is prefixed: what this rank knows about the cause (a bad argument the
    binding passed on to C so that the error is agreed on every rank).
    """
    if code == NOERR:
        return
    message = lib.esmio_last_error().decode(errors="replace") or strerror(code)
    if note:
        message = f"{note} ({message})"
    raise Error(code, message)
