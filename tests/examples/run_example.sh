#!/bin/bash
# One example under mpirun -np 4 (ESMIO_EXAMPLE_NP to change), then its checker on the file it
# wrote. Usage: run_example.sh MPIEXEC EXAMPLE PYTHON CHECKER OUT.nc SETTINGS
set -euo pipefail
mpiexec=$1 example=$2 python=$3 checker=$4 out=$5 settings=$6
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$(dirname "$out")"
rm -f "$out"
timeout 120 "$mpiexec" --oversubscribe -np "${ESMIO_EXAMPLE_NP:-4}" "$example" "$out" "$settings"
"$python" "$checker" "$out"
