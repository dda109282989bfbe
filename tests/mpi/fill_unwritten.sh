#!/usr/bin/env bash
# Variables defined and never written read as their fill value once the file is closed: the
# MPI program writes the files (every backend), netCDF4-python reads every value bit for bit.
# Usage: fill_unwritten.sh MPIEXEC NP WRITER CHECKER OUTDIR [INIT_SETTINGS]   (-: none)
set -u
mpiexec=$1 np=$2 writer=$3 checker=$4 out=$5 init=${6:--}
[ "$init" = - ] && init=
rm -rf "$out" && mkdir -p "$out" || exit 1
$mpiexec --oversubscribe -np "$np" "$writer" "$out" "$init" || { echo "FAIL the writer"; exit 1; }
/usr/bin/python3 "$checker" "$out" pnetcdf cdf2 mpiio netcdf4 serial || exit 1
rm -rf "$out"
