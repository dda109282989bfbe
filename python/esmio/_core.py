"""Instance, File, Variable, Attributes and Decomposition over the C API.

Argument problems that C checks as well (lengths, types, names, handles) are handed to C as an
argument C rejects (a null pointer, type 0, dimension id -1), so that C agrees the error on every
rank of a collective call and every rank raises: one rank's bad argument never leaves the others
waiting. Only Python-level type errors that C cannot see (an object where an array is needed)
raise before the call.
"""

import collections
import collections.abc
import ctypes
import math
import os

import numpy as np

from . import _mpi
from ._lib import (CODES, GLOBAL, MAX_NAME, NOWRITE, ROLE_SERVER, TRACE_BINS, TRACE_COUNTERS,
                   TYPES, UNLIMITED, WRITE, Counter, Error, NotFoundError, check, lib)

# ---- numpy dtypes and esmio types ----------------------------------------------------------
_BY_KIND = {("i", 1): TYPES["BYTE"], ("S", 1): TYPES["CHAR"], ("i", 2): TYPES["SHORT"],
            ("i", 4): TYPES["INT"], ("f", 4): TYPES["FLOAT"], ("f", 8): TYPES["DOUBLE"],
            ("i", 8): TYPES["INT64"], ("u", 1): TYPES["UBYTE"], ("u", 2): TYPES["USHORT"],
            ("u", 4): TYPES["UINT"], ("u", 8): TYPES["UINT64"]}
_DTYPES = {TYPES["BYTE"]: np.dtype(np.int8), TYPES["CHAR"]: np.dtype("S1"),
           TYPES["SHORT"]: np.dtype(np.int16), TYPES["INT"]: np.dtype(np.int32),
           TYPES["FLOAT"]: np.dtype(np.float32), TYPES["DOUBLE"]: np.dtype(np.float64),
           TYPES["INT64"]: np.dtype(np.int64), TYPES["UBYTE"]: np.dtype(np.uint8),
           TYPES["USHORT"]: np.dtype(np.uint16), TYPES["UINT"]: np.dtype(np.uint32),
           TYPES["UINT64"]: np.dtype(np.uint64)}
_SUPPORTED = ("int8, S1 (text), int16, int32, float32, float64, int64, uint8, uint16, uint32, "
              "uint64")


def esmio_type(dtype):
    """The esmio type code of a numpy dtype (or of an esmio type code), 0 if there is none."""
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        return int(dtype) if int(dtype) in _DTYPES else 0
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return 0
    if not dt.isnative:
        return 0
    return _BY_KIND.get((dt.kind, dt.itemsize), 0)


def numpy_dtype(type_code):
    """The numpy dtype of an esmio type code."""
    return _DTYPES[type_code]


def _type_note(dtype):
    return f"numpy dtype {np.dtype(dtype) if _is_dtype(dtype) else dtype!r} has no esmio type " \
           f"(supported: {_SUPPORTED})"


def _is_dtype(dtype):
    try:
        np.dtype(dtype)
        return True
    except TypeError:
        return False


def _as_input(values):
    """values as a C-contiguous, native-order array (no copy when it is one already)."""
    if isinstance(values, str):
        values = values.encode()
    if isinstance(values, (bytes, bytearray)):
        return np.frombuffer(bytes(values), dtype="S1")
    a = np.asarray(values)
    if a.dtype.kind == "S" and a.dtype.itemsize != 1:
        a = np.ascontiguousarray(a).reshape(-1).view("S1")  # fixed-length strings as chars
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a if a.flags.c_contiguous else a.copy(order="C")  # keeps 0-d arrays 0-d


def _is_value(value):
    try:
        np.asarray(value)
        return True
    except (TypeError, ValueError):
        return False


def _encode(text):
    """text as bytes for a char * argument; None (C: null, EINVAL) if it cannot be one."""
    if isinstance(text, os.PathLike):
        text = os.fspath(text)
    if isinstance(text, str):
        text = os.fsencode(text)
    if isinstance(text, bytes) and b"\0" not in text:
        return text
    return None


def _settings_text(settings):
    """Settings as "key=value,...": a string as it is, a mapping joined (booleans true/false)."""
    if settings is None:
        return b""
    if isinstance(settings, collections.abc.Mapping):
        def word(v):
            return ("true" if v else "false") if isinstance(v, bool) else str(v)
        settings = ",".join(f"{k}={word(v)}" for k, v in settings.items())
    return _encode(settings)


def _int64s(values, n=None):
    """values as a contiguous int64 array, or None where they are not integers (or not n)."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError):
        return None
    if a.size == 0:
        a = np.zeros(0, dtype=np.int64)
    if a.ndim > 1 or a.dtype.kind not in "iu" or (n is not None and a.size != n):
        return None
    return np.ascontiguousarray(a, dtype=np.int64)


def _ptr(array):
    """An int64 array as an int64_t * (None: a null pointer)."""
    return None if array is None else array.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))


def _text_buffer(call, *args):
    """Calls call(*args, buf, buflen), growing buf until the text fits (C says EINVAL if not)."""
    size = 4096
    while True:
        buf = ctypes.create_string_buffer(size)
        code = call(*args, buf, size)
        if code != CODES["EINVAL"] or size >= 1 << 24:
            check(code)
            return buf.value.decode()
        size *= 16


def _name_of(call, handle, index):
    buf = ctypes.create_string_buffer(MAX_NAME)
    check(call(handle, index, buf, MAX_NAME))
    return buf.value.decode(errors="replace")


class _Handle:
    """An esmio handle. After close/free/finalize the stale value is kept, so that later calls
    reach C and fail there with ESMIO_EBADID (handles are slots with a generation in C)."""

    def __init__(self):
        self._handle = ctypes.c_void_p()
        self._released = False

    def _release(self, call):
        """Runs the C close/free/finalize on a copy of the handle (C nulls it when it let go)."""
        if self._released:
            return
        tmp = ctypes.c_void_p(self._handle.value)
        code = call(ctypes.byref(tmp))
        if tmp.value is None:  # C releases the handle even on most errors (esmio_close)
            self._released = True
        check(code)

    @property
    def closed(self):
        return self._released

    def _exit(self, close, exc):
        # On an exception the original error propagates; a failed collective close is noted.
        if exc is None:
            close()
            return
        try:
            close()
        except Error as e:
            if hasattr(exc, "add_note"):
                exc.add_note(f"esmio: closing after the error failed too: {e.name}: {e}")


# ---- instance ------------------------------------------------------------------------------
class Instance(_Handle):
    """An esmio instance over a communicator (esmio_init). Collective; a context manager that
    finalizes.

    comm: an mpi4py communicator, or None for mpi4py's MPI.COMM_WORLD (mpi4py is needed:
    pip install 'esmio[mpi]'). settings: a string "key=value,..." or a dict (docs/settings.md).
    """

    def __init__(self, comm=None, settings=""):
        super().__init__()
        #: The instance's communicator (mpi4py): the compute ranks' with I/O servers.
        self.comm, self._fcomm = _mpi.resolve(comm)
        check(lib.esmio_init_f(self._fcomm, _settings_text(settings),
                               ctypes.byref(self._handle)))
        role = ctypes.c_int()
        check(lib.esmio_inq_role(self._handle, ctypes.byref(role)))
        #: ROLE_COMPUTE, or ROLE_SERVER on a rank that served as an I/O server (io_servers):
        #: finalize such an instance and skip the model.
        self.role = role.value
        if self.role == ROLE_SERVER:
            self._fcomm, self.comm = None, None
        elif "io_servers=0" not in self.settings.split(","):
            # The compute ranks': what the model runs on (rank and size are theirs).
            handle = ctypes.c_int()
            check(lib.esmio_inq_comm_f(self._handle, ctypes.byref(handle)))
            self._fcomm = handle.value
            self.comm = _mpi.communicator(handle.value)

    def finalize(self):
        """Collective. Every file and decomposition must be closed/freed first."""
        self._release(lib.esmio_finalize)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self._exit(self.finalize, exc)

    def __repr__(self):
        return f"<esmio.Instance{' (finalized)' if self.closed else ''}>"

    @property
    def settings(self):
        """The effective settings, valid for Instance(settings=...) (esmio_inq_settings)."""
        return _text_buffer(lib.esmio_inq_settings, self._handle)

    @property
    def iolayout(self):
        """How the I/O tasks were chosen, one line (esmio_inq_iolayout)."""
        return _text_buffer(lib.esmio_inq_iolayout, self._handle)

    def _iotasks(self):
        n, mine = ctypes.c_int(), ctypes.c_int()
        check(lib.esmio_inq_iotasks(self._handle, ctypes.byref(n), ctypes.byref(mine)))
        return n.value, bool(mine.value)

    @property
    def num_iotasks(self):
        return self._iotasks()[0]

    @property
    def is_iotask(self):
        return self._iotasks()[1]

    @property
    def rank(self):
        """This process's rank in the instance's communicator."""
        return self.comm.Get_rank()

    @property
    def size(self):
        """The number of ranks of the instance's communicator."""
        return self.comm.Get_size()

    def create(self, path, settings=""):
        """Creates a netCDF file (esmio_create, collective); returns a File in define mode."""
        f = File(self, os.fspath(path) if isinstance(path, os.PathLike) else path, "w")
        check(lib.esmio_create(self._handle, _encode(path), _settings_text(settings),
                               ctypes.byref(f._handle)))
        return f

    def open(self, path, mode="r", settings=""):
        """Opens a file (esmio_open, collective): mode "r" read-only, "w" (or "a", "r+") to
        write more records or definitions."""
        modes = {"r": NOWRITE, "w": WRITE, "a": WRITE, "r+": WRITE}
        if mode not in modes:
            raise ValueError(f"esmio: mode must be one of {', '.join(modes)}, not {mode!r}")
        f = File(self, os.fspath(path) if isinstance(path, os.PathLike) else path, mode)
        check(lib.esmio_open(self._handle, _encode(path), modes[mode], _settings_text(settings),
                             ctypes.byref(f._handle)))
        return f

    def stage_wait(self, path):
        """Waits until the staged file closed under path (stage_copy=background or finalize)
        is copied back, verified and renamed into place, and, with I/O servers and
        io_server_close=background, until the servers have closed it; raises their failure
        (esmio_stage_wait, collective)."""
        check(lib.esmio_stage_wait(self._handle, _encode(os.fspath(path))))

    # ---- trace ----
    def trace_counter(self, name):
        """This rank's counter (calls, bytes, seconds) since init or the last reset. Local."""
        c = Counter()
        check(lib.esmio_trace_counter(self._handle, _encode(name), ctypes.byref(c)))
        return TraceCounter(c.calls, c.bytes, c.seconds)

    def trace_counters(self):
        """Every counter of this rank, as {name: TraceCounter}. Local."""
        return {name: self.trace_counter(name) for name in TRACE_COUNTERS}

    def trace_histogram(self):
        """This rank's backend request sizes: bin b counts sizes in [2^b, 2^(b+1)). Local."""
        bins = np.zeros(TRACE_BINS, dtype=np.int64)
        check(lib.esmio_trace_histogram(self._handle, _ptr(bins)))
        return bins

    def trace_reset(self):
        check(lib.esmio_trace_reset(self._handle))

    def trace_write(self, path):
        """Writes the trace report (every rank's counters and, with the timeline on, spans) to
        path now (esmio_trace_write, collective); esmio-report reads it."""
        check(lib.esmio_trace_write(self._handle, _encode(os.fspath(path))))


TraceCounter = collections.namedtuple("TraceCounter", "calls bytes seconds")


# ---- files ---------------------------------------------------------------------------------
class File(_Handle):
    """An open netCDF file (Instance.create / Instance.open). A context manager that closes it
    (collectively). Definitions and data calls are collective; the inquiries that list
    dimensions and variables are local; attribute reads are collective (the file is held by
    the I/O tasks)."""

    def __init__(self, instance, path, mode):
        super().__init__()
        self.instance = instance
        self.path = path
        self.mode = mode

    def close(self):
        """Flushes and closes (collective). Closing a closed file does nothing."""
        self._release(lib.esmio_close)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self._exit(self.close, exc)

    def __repr__(self):
        return f"<esmio.File {self.path!r} ({'closed' if self.closed else self.mode})>"

    def sync(self):
        check(lib.esmio_sync(self._handle))

    def enddef(self):
        check(lib.esmio_enddef(self._handle))

    def redef(self):
        check(lib.esmio_redef(self._handle))

    @property
    def settings(self):
        """The file's effective settings, backend and format resolved."""
        return _text_buffer(lib.esmio_inq_file_settings, self._handle)

    @property
    def nrecords(self):
        """Records written so far (length of the unlimited dimension)."""
        n = ctypes.c_int64()
        check(lib.esmio_inq_nrecords(self._handle, ctypes.byref(n)))
        return n.value

    # ---- definitions ----
    def def_dim(self, name, length):
        """Defines a dimension (None or 0: the unlimited one); returns its id."""
        dimid = ctypes.c_int(-1)
        check(lib.esmio_def_dim(self._handle, _encode(name),
                                UNLIMITED if length is None else int(length),
                                ctypes.byref(dimid)))
        return dimid.value

    def def_var(self, name, dtype, dims=()):
        """Defines a variable of dtype (numpy dtype or esmio type) over dims (names or ids,
        record dimension first); returns the Variable. An unknown dimension name gives
        ESMIO_EBADID and a dtype with no esmio type ESMIO_EBADTYPE, on every rank."""
        if isinstance(dims, (str, int)):
            dims = (dims,)
        dimids, notes = [], []
        for d in dims:
            if isinstance(d, str):
                i = ctypes.c_int(-1)
                if lib.esmio_inq_dimid(self._handle, _encode(d), ctypes.byref(i)) != 0:
                    notes.append(f"no dimension '{d}'")
                dimids.append(i.value)
            else:
                dimids.append(int(d))
        type_code = esmio_type(dtype)
        if type_code == 0:
            notes.append(_type_note(dtype))
        ids = (ctypes.c_int * max(1, len(dimids)))(*dimids)
        varid = ctypes.c_int(-1)
        check(lib.esmio_def_var(self._handle, _encode(name), type_code, len(dimids), ids,
                                ctypes.byref(varid)),
              f"esmio: def_var '{name}': " + "; ".join(notes) if notes else None)
        return Variable(self, varid.value)

    # ---- inquiry ----
    def _dim(self, dimid):
        n = ctypes.c_int64()
        check(lib.esmio_inq_dimlen(self._handle, dimid, ctypes.byref(n)))
        return _name_of(lib.esmio_inq_dimname, self._handle, dimid), n.value

    @property
    def dimensions(self):
        """{name: length} in definition order; the unlimited one has the records written."""
        n = ctypes.c_int()
        check(lib.esmio_inq_ndims(self._handle, ctypes.byref(n)))
        return dict(self._dim(d) for d in range(n.value))

    @property
    def unlimited(self):
        """Name of the unlimited dimension, or None."""
        d = ctypes.c_int(-1)
        check(lib.esmio_inq_unlimdim(self._handle, ctypes.byref(d)))
        return None if d.value < 0 else self._dim(d.value)[0]

    @property
    def variables(self):
        """{name: Variable} in definition order."""
        n = ctypes.c_int()
        check(lib.esmio_inq_nvars(self._handle, ctypes.byref(n)))
        return {v.name: v for v in (Variable(self, i) for i in range(n.value))}

    def __getitem__(self, name):
        """The variable called name; NotFoundError (a KeyError, ESMIO_ENOTVAR) if none."""
        varid = ctypes.c_int(-1)
        check(lib.esmio_inq_varid(self._handle, _encode(name), ctypes.byref(varid)))
        return Variable(self, varid.value)

    def __contains__(self, name):
        varid = ctypes.c_int(-1)
        return lib.esmio_inq_varid(self._handle, _encode(name), ctypes.byref(varid)) == 0

    @property
    def attrs(self):
        """Global attributes (collective reads; see Attributes)."""
        return Attributes(self, GLOBAL)


class Variable:
    """A variable of a File. Data calls are collective over the file's instance."""

    def __init__(self, file, varid):
        self.file = file
        self.varid = varid
        t, nd = ctypes.c_int(), ctypes.c_int()
        ids = (ctypes.c_int * 16)()
        check(lib.esmio_inq_var(file._handle, varid, ctypes.byref(t), ctypes.byref(nd), ids))
        self.name = _name_of(lib.esmio_inq_varname, file._handle, varid)
        self.dtype = numpy_dtype(t.value)
        self._dimids = tuple(ids[:nd.value])

    def __repr__(self):
        return f"<esmio.Variable {self.name!r} {self.dtype} {self.dimensions}>"

    @property
    def dimensions(self):
        return tuple(self.file._dim(d)[0] for d in self._dimids)

    @property
    def shape(self):
        """Lengths of the dimensions; the record dimension's is the records written so far."""
        return tuple(self.file._dim(d)[1] for d in self._dimids)

    @property
    def ndim(self):
        return len(self._dimids)

    @property
    def attrs(self):
        """The variable's attributes (collective reads; see Attributes)."""
        return Attributes(self.file, self.varid, self)

    # ---- definitions (define mode; collective) ----
    def def_fill(self, value):
        """Fill value for holes and out-of-range values, also written as _FillValue.

        value keeps its own type and C converts it to the variable's: one that does not fit
        (1e40 for a float32 variable) raises ESMIO_ERANGE on every rank.
        """
        v = _as_input(value).reshape(-1) if _is_value(value) else np.zeros(0)
        one = v.size == 1
        # Anything but one value reaches C as a null pointer (ESMIO_EINVAL), a value of a dtype
        # esmio lacks as type 0 (ESMIO_EBADTYPE): on every rank.
        check(lib.esmio_def_var_fill_typed(self.file._handle, self.varid,
                                           esmio_type(v.dtype) if one else TYPES["DOUBLE"],
                                           v.ctypes.data if one else None),
              None if one else f"esmio: fill value {value!r} is not one value")

    def def_chunking(self, chunks=None):
        """netCDF-4 chunk lengths, record dimension first; None: esmio's default."""
        c = None if chunks is None else _int64s(chunks)
        n = 0 if chunks is None else (self.ndim if c is None else c.size)
        check(lib.esmio_def_var_chunking(self.file._handle, self.varid, n, _ptr(c)),
              None if chunks is None or c is not None else f"esmio: bad chunks {chunks!r}")

    def def_compress(self, spec):
        """netCDF-4 codec: "none", "deflate[:1-9][:shuffle]", "zstd[:LEVEL][:shuffle]"."""
        check(lib.esmio_def_var_compress(self.file._handle, self.varid, _encode(spec)))

    def def_quantize(self, spec):
        """Lossy quantisation: "none", "bitround:NSB", "granularbr:NSD"."""
        check(lib.esmio_def_var_quantize(self.file._handle, self.varid, _encode(spec)))

    # ---- undecomposed data: every rank passes the same values ----
    def _box(self, start, count, default_count):
        """start and count as int64 arrays of ndim entries, or (None, None, note)."""
        nd = self.ndim
        s = _int64s((0,) * nd if start is None else start, nd)
        c = _int64s(default_count(s) if count is None else count, nd)
        if s is None or c is None:
            return None, None, f"esmio: {self.name}: start {start!r} / count {count!r} need " \
                               f"{nd} integers each"
        return s, c, None

    def put(self, values, start=None, count=None):
        """Writes values (esmio_put_var; with start/count esmio_put_vara). count defaults to
        values.shape. Collective: every rank passes the same values."""
        a = _as_input(values)
        mem = esmio_type(a.dtype)
        note = None if mem else _type_note(a.dtype)
        h = self.file._handle
        if start is None and count is None:
            check(lib.esmio_put_var(h, self.varid, mem, a.ctypes.data, a.size), note)
            return
        s, c, box_note = self._box(start, count, lambda s: a.shape)
        buf = a.ctypes.data
        if s is not None and a.size < math.prod(c):
            box_note, buf = f"esmio: {self.name}: {a.size} values for count {tuple(c)}", None
        # a bad box reaches C as null start/count or buffer: ESMIO_EINVAL on every rank
        check(lib.esmio_put_vara(h, self.varid, _ptr(s), _ptr(c), mem, buf), box_note or note)

    def get(self, start=None, count=None, dtype=None):
        """Reads the whole variable, or the box start/count (count defaults to the rest of
        each dimension); returns an array of shape count. Collective; every rank gets it."""
        dt = self.dtype if dtype is None else dtype
        mem = esmio_type(dt)
        note = None if mem else _type_note(dt)
        out_dtype = numpy_dtype(mem) if mem else np.dtype(np.int8)
        h = self.file._handle
        if start is None and count is None:
            shape = self.shape
            out = np.empty(shape, dtype=out_dtype)
            check(lib.esmio_get_var(h, self.varid, mem, out.ctypes.data, out.size), note)
            return out
        shape = self.shape
        s, c, box_note = self._box(start, count,
                                   lambda s: [n - b for n, b in zip(shape, s)] if s is not None
                                   else shape)
        out = np.empty(tuple(c) if c is not None else 0, dtype=out_dtype)
        check(lib.esmio_get_vara(h, self.varid, _ptr(s), _ptr(c), mem, out.ctypes.data),
              box_note or note)
        return out

    def __getitem__(self, key):
        """var[i, a:b, ...]: get() of the box (steps of 1 only); integer indices drop axes."""
        s, c, drop = _box_of(key, self.shape)
        out = self.get(s, c)
        return out.reshape([n for n, d in zip(out.shape, drop) if not d])

    def __setitem__(self, key, values):
        """var[...] = values: put() of the box, values broadcast to its shape."""
        s, c, drop = _box_of(key, self.shape, writing=True)
        kept = [n for n, d in zip(c, drop) if not d]
        self.put(np.broadcast_to(_as_input(values), kept).reshape(c), s, c)

    # ---- decomposed data ----
    def write_darray(self, decomp, values, record=0):
        """Writes this rank's part of one record through decomp (esmio_write_darray).

        values: at least decomp.nlocal values, taken in C order of the array (a C-contiguous
        array is used in place, anything else is copied once); their dtype is the memory type.
        Collective (cached writes agree at the next flush, README: agree_writes).
        """
        a = _as_input(values)
        mem = esmio_type(a.dtype)
        check(lib.esmio_write_darray(self.file._handle, self.varid, int(record),
                                     _decomp_handle(decomp), mem, a.ctypes.data, a.size),
              None if mem else _type_note(a.dtype))

    def read_darray(self, decomp, record=0, dtype=None, out=None):
        """Reads this rank's part of one record through decomp (esmio_read_darray).

        Returns a new array of decomp.local_shape and dtype (default: the variable's), or
        fills out (at least decomp.nlocal values; a C-contiguous out is filled in place,
        anything else through a temporary). Slots of holes (offset -1) are not written: 0 in a
        new array. Collective.
        """
        if out is not None and not isinstance(out, np.ndarray):
            raise TypeError(f"esmio: out must be a numpy array, not {type(out).__name__}")
        handle = _decomp_handle(decomp)
        if out is None:
            want = self.dtype if dtype is None else dtype
            mem = esmio_type(want)
            # zeros (calloc: no extra pass): the slots of holes (-1) are not written
            buf = np.zeros(decomp.nlocal, dtype=numpy_dtype(mem) if mem else np.int8)
            note = None if mem else _type_note(want)
        else:
            direct = out.flags.c_contiguous and out.flags.writeable and out.dtype.isnative
            buf = out if direct else np.empty(out.size, dtype=out.dtype.newbyteorder("="))
            mem = esmio_type(buf.dtype)
            note = None if mem else _type_note(out.dtype)
        check(lib.esmio_read_darray(self.file._handle, self.varid, int(record), handle, mem,
                                    buf.ctypes.data, buf.size), note)
        if out is None:
            return buf.reshape(decomp.local_shape)
        if buf is not out:
            out[...] = buf.reshape(out.shape)  # after the collective call: a failure stays local
        return out


def _box_of(key, shape, writing=False):
    """start, count and the axes indexed by an integer, of var[key] (basic slices only)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis for k in key):
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - len(key) + 1) + key[i + 1:]
    key = key + (slice(None),) * (len(shape) - len(key))
    if len(key) != len(shape):
        raise IndexError(f"esmio: {len(key)} indices for {len(shape)} dimensions")
    start, count, drop = [], [], []
    for d, (k, n) in enumerate(zip(key, shape)):
        # Writing may go past the records written so far (the record dimension grows).
        if writing and d == 0 and isinstance(k, slice) and k.stop is not None:
            n = max(n, k.stop)
        if isinstance(k, slice):
            b, e, step = k.indices(n)
            if step != 1:
                raise IndexError("esmio: slices with a step are not supported")
            start.append(b)
            count.append(max(0, e - b))
            drop.append(False)
        else:
            i = int(k)
            start.append(i + n if i < 0 else i)
            count.append(1)
            drop.append(True)
    return start, count, drop


def _decomp_handle(decomp):
    if not isinstance(decomp, Decomposition):
        raise TypeError(f"esmio: expected a Decomposition, not {type(decomp).__name__}")
    return decomp._handle


class Attributes(collections.abc.Mapping):
    """Attributes of a variable or of the file, as a mapping name -> value.

    Reading (a[name], in, iteration, len) is collective: every rank of the instance must read
    the same attributes in the same order. Text is str; numbers are numpy arrays, or a numpy
    scalar when there is one value. A missing attribute raises NotFoundError (ESMIO_ENOTATT),
    which is a KeyError, so get() and `in` work. Setting (define mode) writes the value with
    the dtype it has: str/bytes as text, a Python int as int32 (int64 if it does not fit), a
    Python float as float64, a numpy value in its own dtype. Deleting is not supported by esmio.
    """

    def __init__(self, file, varid, variable=None):
        self._file, self._varid, self._variable = file, varid, variable

    def __repr__(self):  # not the values: reading them is collective
        owner = "the file" if self._variable is None else f"variable '{self._variable.name}'"
        return f"<esmio.Attributes of {owner} of {self._file.path!r}>"

    def _inq(self, name):
        t, n = ctypes.c_int(), ctypes.c_int64()
        check(lib.esmio_inq_att(self._file._handle, self._varid, _encode(name), ctypes.byref(t),
                                ctypes.byref(n)))
        return t.value, n.value

    def __getitem__(self, name):
        t, n = self._inq(name)
        values = np.empty(n, dtype=numpy_dtype(t))
        check(lib.esmio_get_att(self._file._handle, self._varid, _encode(name), t, n,
                                values.ctypes.data))
        if t == TYPES["CHAR"]:
            return values.tobytes().decode(errors="replace")
        return values[0] if n == 1 else values

    def __contains__(self, name):
        try:
            self._inq(name)
            return True
        except NotFoundError:
            return False

    def _names(self):
        h, n = self._file._handle, ctypes.c_int()
        check(lib.esmio_inq_natts(h, self._varid, ctypes.byref(n)))
        names = []
        for i in range(n.value):
            buf = ctypes.create_string_buffer(MAX_NAME)
            check(lib.esmio_inq_attname(h, self._varid, i, buf, MAX_NAME))
            names.append(buf.value.decode(errors="replace"))
        return names

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        n = ctypes.c_int()
        check(lib.esmio_inq_natts(self._file._handle, self._varid, ctypes.byref(n)))
        return n.value

    def __setitem__(self, name, value):
        if name == "_FillValue" and self._variable is not None:
            self._variable.def_fill(value)  # in the variable's type, as esmio requires
            return
        if isinstance(value, (int, float)) or (isinstance(value, (list, tuple)) and value and
                                               all(isinstance(v, (int, float)) for v in value)):
            a = np.asarray(value).reshape(-1)
            if a.dtype.kind == "i":  # Python ints: int32 where they fit, like netCDF's NC_INT
                fits = a.size == 0 or (a.min() >= -2**31 and a.max() < 2**31)
                a = a.astype(np.int32 if fits else np.int64)
        else:
            a = _as_input(value).reshape(-1)
        t = esmio_type(a.dtype)
        check(lib.esmio_put_att(self._file._handle, self._varid, _encode(name), t, a.size,
                                a.ctypes.data), None if t else _type_note(a.dtype))

    def update(self, other=(), **kwargs):
        for k, v in dict(other, **kwargs).items():
            self[k] = v


# ---- decompositions ------------------------------------------------------------------------
class Decomposition(_Handle):
    """Which elements of a variable's (non-record) shape this rank holds, and in which order.

    Made collectively by from_offsets, from_block or from_file; freed by free() (a context
    manager frees it). local_shape is the shape read_darray gives its result.
    """

    def __init__(self, instance):
        super().__init__()
        self.instance = instance
        self.local_shape = None

    def _finish(self, code, note=None, local_shape=None):
        check(code, note)
        nd, n = ctypes.c_int(), ctypes.c_int64()
        dims = (ctypes.c_int64 * 16)()
        check(lib.esmio_decomp_inq(self._handle, ctypes.byref(nd), dims, ctypes.byref(n)))
        # Cached: they never change, and data calls on a freed decomposition must reach C.
        self.dims, self.nlocal = tuple(dims[:nd.value]), n.value
        self.local_shape = tuple(local_shape) if local_shape is not None else (self.nlocal,)
        return self

    @classmethod
    def from_offsets(cls, instance, dims, offsets):
        """This rank's elements, in memory order, as 0-based C-order offsets into dims; -1 is
        a hole (an element this rank does not write). Collective."""
        d, o = _int64s(dims), _int64s(offsets)
        self = cls(instance)
        note = None
        if d is None or o is None:  # C: -1 dimensions or a negative count, on every rank
            note = f"esmio: dims {dims!r} and offsets must be sequences of integers"
        code = lib.esmio_decomp_create(instance._handle, -1 if d is None else d.size, _ptr(d),
                                       -1 if o is None else o.size, _ptr(o),
                                       ctypes.byref(self._handle))
        return self._finish(code, note)

    @classmethod
    def from_block(cls, instance, dims, start, count, mem_order=None):
        """This rank holds the block start..start+count of dims (file dimension order), in
        memory as a C-order array whose i-th dimension is file dimension mem_order[i]
        (None: file order). CAM's A(lon,lev,lat), file (lev,lat,lon): mem_order=(1, 0, 2).
        Collective."""
        d = _int64s(dims)
        nd = -1 if d is None else d.size
        s, c = _int64s(start, nd), _int64s(count, nd)
        order = None if mem_order is None else _int64s(mem_order, nd)
        note = None
        if d is None or s is None or c is None or (mem_order is not None and order is None):
            note = f"esmio: dims, start, count and mem_order must have {max(nd, 0)} integers " \
                   f"each (got {dims!r}, {start!r}, {count!r}, {mem_order!r})"
            # C: null start/count (ESMIO_EINVAL), or -1 dimensions (ESMIO_EINVAL)
            s = c = order = None
        mem = None
        if order is not None:
            mem = (ctypes.c_int * max(nd, 1))(*order.tolist())
        self = cls(instance)
        code = lib.esmio_decomp_create_block(instance._handle, nd, _ptr(d), _ptr(s), _ptr(c),
                                             mem, ctypes.byref(self._handle))
        shape = None
        if code == 0:
            perm = range(nd) if order is None else order.tolist()
            shape = [int(c[i]) for i in perm]
        return self._finish(code, note, shape)

    @classmethod
    def from_file(cls, instance, path, format="pio"):
        """Reads a decomposition file: "pio", "esmio" or "e3sm:D<k>". Collective."""
        self = cls(instance)
        code = lib.esmio_decomp_load(instance._handle, _encode(path), _encode(format),
                                     ctypes.byref(self._handle))
        return self._finish(code)

    def save(self, path, format="pio"):
        """Writes the decomposition ("pio" or "esmio"); rank 0 writes. Collective."""
        check(lib.esmio_decomp_save(self._handle, _encode(path), _encode(format)))

    @property
    def offsets(self):
        """This rank's offsets (int64, -1 for holes)."""
        out = np.empty(self.nlocal, dtype=np.int64)
        check(lib.esmio_decomp_inq_offsets(self._handle, _ptr(out), out.size))
        return out

    def free(self):
        """Frees the decomposition. Freeing a freed one does nothing."""
        self._release(lib.esmio_decomp_free)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self._exit(self.free, exc)

    def __repr__(self):
        state = " (freed)" if self.closed else ""
        return f"<esmio.Decomposition dims={getattr(self, 'dims', None)} " \
               f"nlocal={getattr(self, 'nlocal', None)}{state}>"
