#!/bin/bash
# `pip install './python[mpi]'` into a fresh venv (system site packages: Debian's numpy and mpi4py
# satisfy the requirements), offline, from a copy of python/ (pip builds in the source directory),
# then a 1-process write and read from outside the source tree with only ESMIO_LIBRARY set; the
# installed metadata declares the mpi extra.
# Usage: test_pip_install.sh PYTHON SOURCE_DIR LIBESMIO WORK_DIR
set -euo pipefail
python=$1 src=$2 lib=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
cp -r "$src/python" "$work/src"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index "$work/src[mpi]"
cd "$work"
unset PYTHONPATH
ESMIO_LIBRARY=$lib "$work/venv/bin/python" - "$work" <<'PY'
import os, sys
import numpy as np
import esmio
assert esmio.__file__.startswith(os.path.join(sys.argv[1], "venv")), esmio.__file__
from importlib.metadata import metadata, version
assert version("esmio") == esmio.__version__, (version("esmio"), esmio.__version__)
requires = metadata("esmio").get_all("Requires-Dist") or []
import re
assert any(re.fullmatch(r"mpi4py\s*;\s*extra\s*==\s*['\"]mpi['\"]", r) for r in requires), requires
path = os.path.join(sys.argv[1], "installed.nc")
with esmio.Instance() as io, io.create(path) as f:
    f.def_dim("x", 4)
    v = f.def_var("v", np.float32, "x")
    f.enddef()
    with esmio.Decomposition.from_block(io, (4,), (0,), (4,)) as d:
        v.write_darray(d, np.arange(4.0))
        assert list(v.read_darray(d)) == [0, 1, 2, 3]
print(f"ok   pip install into a venv: esmio {esmio.__version__} from "
      f"{os.path.dirname(esmio.__file__)}")
PY
rm -rf "$work"
