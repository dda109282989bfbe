"""Shared by the Python tests: the world communicator, the output directory, and expect(),
which checks that every rank raised the same esmio error."""
import os
import sys
import traceback

from mpi4py import MPI

import esmio

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
OUT = os.environ.get("ESMIO_PY_OUT", "/tmp/esmio-python-tests")
if rank == 0:
    os.makedirs(OUT, exist_ok=True)
comm.Barrier()


def _abort(kind, value, tb):
    # One failing rank must end the run, not leave the others waiting in a collective.
    traceback.print_exception(kind, value, tb)
    sys.stderr.flush()
    comm.Abort(1)


sys.excepthook = _abort


def path(name):
    return os.path.join(OUT, name)


def expect(code, fn, *args, exception=esmio.Error, **kwargs):
    """Runs fn on every rank: each must raise exception with code (None: no esmio code), and
    all ranks must agree. Returns this rank's exception."""
    try:
        fn(*args, **kwargs)
        got, err = "no error", None
    except exception as e:
        got, err = getattr(e, "name", type(e).__name__), e
    want = esmio.CODE_NAMES[code] if code is not None else exception.__name__
    every = comm.allgather(got)
    assert all(g == want for g in every), f"{fn.__name__ if hasattr(fn, '__name__') else fn}: " \
        f"expected {want} on every rank, got {every} ({err})"
    return err


def ok(text):
    comm.Barrier()
    if rank == 0:
        print(f"ok   {text}", flush=True)
