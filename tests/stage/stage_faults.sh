#!/bin/bash
# Staging's failures on real file systems (root: it mounts small tmpfs targets), 1 and 3 ranks:
#   full:     the target's file system is smaller than the file: ESMIO_ENOSPC on every rank,
#             the staged file kept, no target, no copy left behind;
#   readonly: the target directory is on a read-only file system that holds a previous version:
#             ESMIO_EIO, the previous version byte for byte, the staged file kept;
#   killed:   kill -9 of the job during the copy-back (slowed by a test hook): the previous
#             version of the target intact (never a partial file under its name), and ncdump
#             reads it;
#   killed during the write: kill -9 of one rank while records are being written (to the
#             stage): the same, and no copy begun next to the target.
# Usage: stage_faults.sh MPIEXEC STAGE_FAULT NCDUMP. Not root: exits 77 (skipped).
set -u
mpiexec=$1 prog=$2 ncdump=$3
if [ "$(id -u)" != 0 ]; then echo "stage_faults: skipped: mounting needs root"; exit 77; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
base=$(mktemp -d /tmp/esmio_stage_faults.XXXXXX)
stage=$base/stage mnt=$base/mnt
mkdir -p "$stage" "$mnt"
failed=0
cleanup() { umount -l "$mnt" 2>/dev/null; rm -rf "$base"; }
trap cleanup EXIT
run() { timeout -k 5 120 "$mpiexec" --oversubscribe -np "$@"; }

for np in 1 3; do
  # full: a 6 MB target for a 16 MB file
  mount -t tmpfs -o size=6m tmpfs "$mnt"
  if ! run $np "$prog" "$mnt/out.nc" "$stage" 2 -28; then echo "FAIL full np$np"; failed=1; fi
  [ -e "$mnt/out.nc" ] && { echo "FAIL full np$np: a target appeared"; failed=1; }
  rm -f "$stage"/*.esmio-stage
  umount "$mnt"

  # readonly: a previous version on a file system remounted read-only
  mount -t tmpfs -o size=64m tmpfs "$mnt"
  echo "the previous version" > "$mnt/out.nc"
  mount -o remount,ro "$mnt"
  if ! run $np "$prog" "$mnt/out.nc" "$stage" 2 -14; then echo "FAIL readonly np$np"; failed=1; fi
  [ "$(cat "$mnt/out.nc")" = "the previous version" ] ||
    { echo "FAIL readonly np$np: the previous version changed"; failed=1; }
  rm -f "$stage"/*.esmio-stage
  umount "$mnt"

  # killed during the copy-back: a previous netCDF file must stay readable under the name
  mount -t tmpfs -o size=256m tmpfs "$mnt"
  run $np "$prog" "$mnt/out.nc" "$stage" 1 0 > /dev/null 2>&1 || { echo "FAIL killed np$np: the first write"; failed=1; }
  cp "$mnt/out.nc" "$base/previous.nc"
  log=$base/log
  ESMIO_TEST_STAGE_BLOCK_DELAY_MS=200 run $np "$prog" "$mnt/out.nc" "$stage" 4 0 > "$log" 2>&1 &
  job=$!
  for _ in $(seq 300); do
    [ -e "$mnt/out.nc.esmio-copy" ] && grep -q closing "$log" && break
    sleep 0.05
  done
  sleep 0.5
  # The kill must land during the copy, or this case tests nothing.
  [ -e "$mnt/out.nc.esmio-copy" ] ||
    { echo "FAIL killed np$np: no copy under way to kill"; failed=1; }
  pkill -9 -x "$(basename "$prog")"; wait $job 2>/dev/null
  if ! cmp -s "$mnt/out.nc" "$base/previous.nc"; then
    echo "FAIL killed np$np: the target is not the previous version"; failed=1
  elif ! "$ncdump" -h "$mnt/out.nc" > /dev/null; then
    echo "FAIL killed np$np: ncdump refuses the target"; failed=1
  fi

  # killed during the write: one rank dies while the records go to the stage (the copy the
  # kill above left next to the target goes first: the next copy would truncate it anyway)
  rm -f "$stage"/*.esmio-stage "$mnt/out.nc.esmio-copy"
  log=$base/log_write
  STAGE_FAULT_RECORD_SLEEP_MS=100 run $np "$prog" "$mnt/out.nc" "$stage" 100 0 > "$log" 2>&1 &
  job=$!
  for _ in $(seq 300); do grep -q writing "$log" && break; sleep 0.05; done
  sleep 0.3
  grep -q closing "$log" && { echo "FAIL killed-write np$np: the write ended before the kill"; failed=1; }
  victim=$(pgrep -n -x "$(basename "$prog")")
  [ -n "$victim" ] || { echo "FAIL killed-write np$np: no rank to kill"; failed=1; }
  kill -9 $victim; wait $job 2>/dev/null
  pkill -9 -x "$(basename "$prog")"
  if ! cmp -s "$mnt/out.nc" "$base/previous.nc"; then
    echo "FAIL killed-write np$np: the target is not the previous version"; failed=1
  elif ! "$ncdump" -h "$mnt/out.nc" > /dev/null; then
    echo "FAIL killed-write np$np: ncdump refuses the target"; failed=1
  fi
  [ -e "$mnt/out.nc.esmio-copy" ] && { echo "FAIL killed-write np$np: a copy was begun"; failed=1; }
  rm -f "$stage"/*.esmio-stage "$mnt"/*
  umount "$mnt"
  echo "np$np: done"
done
[ $failed = 0 ] && echo "stage_faults: passed" || echo "stage_faults: FAILED"
exit $failed
