#!/bin/bash
# The same file from C (c_writer) and from Python (same_as_c.py) on 4 ranks: byte-identical.
# Usage: same_as_c.sh MPIEXEC C_WRITER PYTHON SCRIPT_DIR OUT_DIR NAME "FILE SETTINGS"
set -euo pipefail
mpiexec=$1 writer=$2 python=$3 scripts=$4 out=$5 name=$6 settings=$7
mkdir -p "$out"
rm -f "$out/$name"_c.nc "$out/$name"_py.nc
"$mpiexec" -n 4 "$writer" "$out/${name}_c.nc" "$settings"
"$mpiexec" -n 4 "$python" "$scripts/same_as_c.py" "$out/${name}_py.nc" "$settings"
cmp "$out/${name}_c.nc" "$out/${name}_py.nc"
bytes=$(stat -c %s "$out/${name}_c.nc")
echo "ok   ${name}_c.nc and ${name}_py.nc are byte-identical ($bytes bytes)"
