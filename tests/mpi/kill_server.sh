#!/bin/bash
# A killed I/O server (or compute rank) ends the job through the MPI runtime: never a hang.
# Usage: kill_server.sh MPIEXEC PROGRAM OUTDIR server|compute
set -u
mpiexec=$1 program=$2 out=$3 victim=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
log=$(mktemp)
ESMIO_TEST_OUT=$out timeout 60 "$mpiexec" --oversubscribe -np 3 "$program" serve-and-die >"$log" 2>&1 &
job=$!
pid=""
for _ in $(seq 100); do
  # The server is the last rank (io_servers=1, placement last), a compute rank the first.
  if [ "$victim" = server ]; then want=2; else want=0; fi
  pid=$(awk -v r="$want" '$1 == "rank" && $2 == r {print $4; exit}' "$log")
  [ -n "$pid" ] && break
  sleep 0.1
done
if [ -z "$pid" ]; then
  echo "FAIL: no $victim PID printed"; cat "$log"; kill -9 $job 2>/dev/null; exit 1
fi
sleep 1  # writes under way
kill -9 "$pid"
wait $job
rc=$?
rm -f "$out/async_killed.nc"
# timeout(1) exits with 124 when it had to stop the job (a killed process makes mpirun exit with
# that process's status, 137 for SIGKILL).
if [ $rc -eq 124 ]; then
  echo "FAIL: the job hung after the $victim (pid $pid) was killed"; cat "$log"; exit 1
fi
if [ $rc -eq 0 ]; then
  echo "FAIL: the job succeeded after the $victim was killed"; cat "$log"; exit 1
fi
if ! grep -qi "signal\|killed\|terminated\|exited" "$log"; then
  echo "FAIL: no message from the MPI runtime"; cat "$log"; exit 1
fi
echo "kill_server ($victim): the job ended with code $rc and a message"
rm -f "$log"
