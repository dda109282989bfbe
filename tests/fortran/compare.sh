#!/bin/bash
# The Fortran binding writes what the C API writes: fortran_writer and fortran_c_writer on NP ranks
# with the same settings; pnetcdf files must be equal byte for byte, netCDF-4 files (whose HDF5
# layout may differ in bookkeeping) equal as ncdump prints them.
# Usage: compare.sh BIN_DIR OUT_DIR NP SETTINGS
set -euo pipefail
bin=$1 out=$2 np=$3 settings=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tag=$(echo "$settings" | tr -c 'a-z0-9\n' '_')
f=$out/fortran_$tag.nc c=$out/c_$tag.nc
rm -f "$f" "$c"
timeout 120 mpirun --oversubscribe -np "$np" "$bin/fortran_writer" "$f" "$settings"
timeout 120 mpirun --oversubscribe -np "$np" "$bin/fortran_c_writer" "$c" "$settings"
if [[ $settings == *pnetcdf* ]]; then
  cmp "$f" "$c"
  echo "PASS: $f and $c are equal byte for byte"
else
  diff <(ncdump "$f" | tail -n +2) <(ncdump "$c" | tail -n +2)
  echo "PASS: $f and $c hold the same header and values (ncdump)"
fi
