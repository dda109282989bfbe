#!/usr/bin/env bash
# Asynchronous mode with two I/O servers (5 ranks: compute ranks 0-2, servers 3 and 4; server 3
# takes compute ranks 0 and 1, server 4 rank 2): kill -9 of the first server, the last server,
# or a compute rank while the model writes and syncs record after record (test_async_kill
# writer), with the pnetcdf and netcdf4 backends. Each time the job must end (mpirun exits
# non-zero, with a message naming the killed process, within the time limit: never a hang), and
# the file left behind must open with netCDF-C and hold every record an esmio_sync reported
# written (test_async_kill verify).
# Usage: kill_async.sh MPIEXEC PROGRAM OUTDIR
set -u
mpiexec=$1 program=$2 out=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
np=5 servers=2 limit=60
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

run_one() {  # backend world_rank role
  local backend=$1 victim=$2 role=$3
  local name="$backend: $role (world rank $victim) killed"
  local path="$out/async_killed_${backend}_$victim.nc" log="$out/async_killed_${backend}_$victim.log"
  rm -f "$path" "$log"
  echo "== $name"
  timeout --verbose -k 10 $limit "$mpiexec" --oversubscribe -np $np "$program" writer $servers "$backend" \
    "$path" >"$log" 2>&1 &
  local job=$!
  # Until three records are synced (the servers write), or the job ended by itself.
  while ! grep -q '^synced 3$' "$log" && kill -0 $job 2>/dev/null; do sleep 0.1; done
  local pid
  pid=$(awk -v r="$victim" '$1 == "rank" && $2 == r && $3 == "pid" {print $4; exit}' "$log")
  if ! grep -q '^synced 3$' "$log" || [ -z "$pid" ]; then
    fail "$name: the writer never synced 3 records"; cat "$log"
    kill $job 2>/dev/null; wait $job 2>/dev/null; rm -f "$path" "$log"; return
  fi
  # A server never returns from esmio_init before the end, so it never says "compute".
  local actual=server
  grep -q "^rank $victim compute$" "$log" && actual=compute
  [ "$actual" = "$role" ] || fail "$name: world rank $victim is a $actual rank"
  kill -9 "$pid"
  wait $job
  local rc=$?
  # timeout(1) says in the log when it had to stop the job (its exit status, 137 after its
  # KILL, is also what mpirun returns for a process killed with -9).
  if [ $rc -eq 124 ] || grep -q '^timeout: sending signal' "$log"; then
    fail "$name: the job hung (stopped by the $limit s limit)"; cat "$log"
  elif [ $rc -eq 0 ]; then
    fail "$name: the job succeeded: the kill did not end it"; cat "$log"
  elif ! grep -qi "signal 9\|killed" "$log"; then
    fail "$name: mpirun exited with $rc but no message names the killed process"; cat "$log"
  else
    echo "   the job ended: mpirun exited with $rc: $(grep -i -m1 'signal 9\|killed' "$log")"
  fi
  local synced
  synced=$(awk '$1 == "synced" {n = $2} END {print n + 0}' "$log")
  timeout $limit "$mpiexec" --oversubscribe -np 1 "$program" verify "$path" "$synced" ||
    fail "$name: the file does not hold the $synced records reported written"
  rm -f "$path" "$log"
}

# The two backends' runs of each victim at the same time (their files and logs apart): each run
# mostly waits (for records to sync, for mpirun to notice the kill).
for case in "3 server" "4 server" "1 compute"; do
  pids=()
  for backend in pnetcdf netcdf4; do
    (failures=0; run_one $backend $case; exit $((failures > 0))) >"$out/run_$backend.txt" 2>&1 &
    pids+=($!)
  done
  for i in 0 1; do
    wait ${pids[$i]} || failures=$((failures + 1))
  done
  cat "$out/run_pnetcdf.txt" "$out/run_netcdf4.txt"
  rm -f "$out/run_pnetcdf.txt" "$out/run_netcdf4.txt"
done
if [ $failures -eq 0 ]; then echo "kill_async: passed"; else echo "kill_async: $failures failure(s)"; fi
exit $((failures > 0))
