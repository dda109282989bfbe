#!/usr/bin/env bash
# A writer killed with -9 in the middle of a run (two records synced, a third written but not
# synced). publish=in_place: the file holds exactly the synced records, with their values, and
# ncdump reads it. publish=atomic: nothing under the target name (a new file), or the previous
# version byte for byte; the partial file is left as TARGET.esmio-tmp. Both backends.
# Usage: kill_writer.sh MPIEXEC NP WRITER OUTDIR   (WRITER: test_publish, which has a writer mode)
set -u
mpiexec=$1 np=$2 writer=$3 out=$4
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# Starts the writer, waits until it says it is ready, kills every rank with -9.
run_and_kill() {  # mode backend path
  rm -f "$3.ready"
  $mpiexec --oversubscribe -np "$np" "$writer" writer "$1" "$2" "$3" >"$3.log" 2>&1 &
  local job=$! waited=0
  while [ ! -e "$3.ready" ] && [ $waited -lt 120 ]; do sleep 0.5; waited=$((waited + 1)); done
  [ -e "$3.ready" ] || { fail "$1/$2: the writer never got ready"; cat "$3.log"; }
  pkill -9 -f "$writer writer $1 $2 $3"
  wait $job 2>/dev/null
  rm -f "$3.ready" "$3.log"
}

# The records of v in path and whether each holds version 2's values (2000 + t + x % 100).
check_values() {  # path expected_records
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import sys
import numpy as np
import netCDF4
path, want = sys.argv[1], int(sys.argv[2])
with netCDF4.Dataset(path) as ds:
    v = ds.variables["v"]
    n = v.shape[0]
    if n != want:
        sys.exit(f"{path}: {n} records, expected {want}")
    x = np.arange(v.shape[1]) % 100
    for t in range(n):
        if not np.array_equal(np.asarray(v[t, :], dtype=np.float64), 2000.0 + t + x):
            sys.exit(f"{path}: record {t} does not hold the values written")
EOF
}

# One rank killed while the others wait in esmio: the job ends (Open MPI takes the others down),
# it does not hang; the file keeps its synced records.
one_rank_killed() {  # backend path
  rm -f "$2.ready" "$2"
  $mpiexec --oversubscribe -np "$np" "$writer" writer in_place "$1" "$2" >"$2.log" 2>&1 &
  local job=$! waited=0
  while [ ! -e "$2.ready" ] && [ $waited -lt 120 ]; do sleep 0.5; waited=$((waited + 1)); done
  local victim
  victim=$(pgrep -f "^$writer writer in_place $1 $2" | tail -1)
  [ -n "$victim" ] && kill -9 "$victim"
  waited=0
  while kill -0 $job 2>/dev/null && [ $waited -lt 120 ]; do sleep 0.5; waited=$((waited + 1)); done
  if kill -0 $job 2>/dev/null; then
    fail "one rank killed/$1: the job still runs 60 s later (hang)"
    pkill -9 -f "$writer writer in_place $1 $2"
  fi
  wait $job 2>/dev/null
  check_values "$2" 2 || fail "one rank killed/$1: the file does not hold the 2 synced records"
  rm -f "$2" "$2.ready" "$2.log"
}

one_backend() {  # backend
  local backend=$1 path before
  one_rank_killed $backend "$out/killed_one_rank_$backend.nc"

  # in place: the two synced records, readable.
  path="$out/killed_inplace_$backend.nc"
  rm -f "$path"
  run_and_kill in_place $backend "$path"
  if ! ncdump -h "$path" >/dev/null 2>&1; then
    fail "in_place/$backend: ncdump cannot read the file left behind"
  else
    check_values "$path" 2 || fail "in_place/$backend: the file does not hold the 2 synced records"
  fi
  rm -f "$path"

  # atomic, new file: nothing under the target name.
  path="$out/killed_atomic_$backend.nc"
  rm -f "$path" "$path.esmio-tmp"
  run_and_kill atomic $backend "$path"
  [ -e "$path" ] && fail "atomic/$backend: a killed run left a file under the target name"
  [ -e "$path.esmio-tmp" ] || fail "atomic/$backend: no partial file $path.esmio-tmp to clean up"
  rm -f "$path.esmio-tmp"

  # atomic over a previous version: it stays, byte for byte.
  printf 'previous version\n' >"$path"
  before=$(md5sum <"$path")
  run_and_kill atomic $backend "$path"
  [ "$(md5sum <"$path")" = "$before" ] || fail "atomic/$backend: the previous version was changed"
  rm -f "$path" "$path.esmio-tmp"
}

# Both backends at the same time (their files apart): the runs mostly wait for the writer.
pids=()
for backend in pnetcdf netcdf4; do
  (failures=0; one_backend $backend; exit $((failures > 0))) >"$out/run_$backend.txt" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait $pid || failures=$((failures + 1)); done
cat "$out/run_pnetcdf.txt" "$out/run_netcdf4.txt"
rm -f "$out/run_pnetcdf.txt" "$out/run_netcdf4.txt"

if [ $failures -eq 0 ]; then echo "kill_writer: passed"; else echo "kill_writer: $failures failure(s)"; fi
exit $((failures > 0))
