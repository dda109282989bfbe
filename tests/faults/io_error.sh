#!/usr/bin/env bash
# EIO from a failing device (failfs, a FUSE pass-through that fails writes past a byte limit)
# inside the file's size, both backends, under ompio and romio321, 1 and 3 ranks: test_io_error
# must end (no hang) with ESMIO_EIO on every rank. Needs root and /dev/fuse; exits 77 otherwise.
# The runs are independent: two at a time, each slot on a failfs mount of its own (the limit is
# per backing directory); each run's output is printed whole when it ends.
# Usage: io_error.sh MPIEXEC FAILFS PROGRAM
set -u
mpiexec=$1 failfs=$2 program=$3
if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
  echo "io_error: skipped: needs root and /dev/fuse"; exit 77
fi
dir=$(mktemp -d)
fs=()
cleanup() {
  for slot in 0 1; do
    fusermount3 -u "$dir/$slot/mnt" 2>/dev/null || umount "$dir/$slot/mnt" 2>/dev/null
  done
  kill "${fs[@]}" 2>/dev/null; rm -rf "$dir"
}
trap cleanup EXIT
for slot in 0 1; do
  mkdir -p "$dir/$slot/backing" "$dir/$slot/mnt"
  "$failfs" "$dir/$slot/backing" "$dir/$slot/mnt" >"$dir/$slot/failfs.log" 2>&1 &
  fs+=("$!")
done
# Until each is mounted or its failfs has exited (ctest's time limit bounds a hang).
for slot in 0 1; do
  until mountpoint -q "$dir/$slot/mnt"; do
    kill -0 "${fs[$slot]}" 2>/dev/null ||
      { echo "io_error: failfs did not mount"; cat "$dir/$slot/failfs.log"; exit 1; }
    sleep 0.1
  done
done

# one_run SLOT NAME COMPONENT NP LIMIT BACKEND [COMPRESSION]: exit status 0 if the run passed.
one_run() {
  local slot=$1 name=$2 component=$3 np=$4; shift 4
  local backing=$dir/$slot/backing mnt=$dir/$slot/mnt
  echo "== $name"
  OMPI_MCA_io=$component timeout 120 $mpiexec --oversubscribe -np $np "$program" \
    "$mnt/out.nc" "$backing/.failfs_limit" "$@"
  local rc=$?
  rm -f "$backing/.failfs_limit" "$mnt/out.nc"
  if [ $rc != 0 ]; then echo "FAIL $name (rc $rc; 124 is a hang)"; return 1; fi
}

# 1,000,000 bytes: inside record 0's end (pnetcdf), before record 3's chunks end (netcdf4), so
# records 1 and 2 fail where the file exists. Then zstd-compressed netCDF-4, failing at its end.
runs=()
for backend in pnetcdf netcdf4; do
  for component in ompio romio321; do
    for np in 1 3; do
      runs+=("$backend $component np $np|$component $np 1000000 $backend")
    done
  done
done
runs+=("netcdf4 zstd ompio np 3|ompio 3 end netcdf4 zstd:1")

failures=0
for ((i = 0; i < ${#runs[@]}; i += 2)); do
  pids=()
  for slot in 0 1; do
    [ $((i + slot)) -lt ${#runs[@]} ] || break
    run=${runs[i + slot]}
    # shellcheck disable=SC2086  # the arguments are words
    one_run $slot "${run%%|*}" ${run#*|} > "$dir/$slot/out" 2>&1 &
    pids+=("$!")
  done
  for slot in "${!pids[@]}"; do
    wait "${pids[$slot]}" || failures=$((failures + 1))
    cat "$dir/$slot/out"
  done
done
[ $failures = 0 ] && echo "io_error: passed" && exit 0
echo "io_error: $failures failure(s)"; exit 1
