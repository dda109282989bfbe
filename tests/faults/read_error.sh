#!/usr/bin/env bash
# EIO on reads from a bad stretch of a device (failfs with direct I/O, failing reads past
# a byte limit) while small reads are batched: test_read_error at 1 and 3 ranks under a time
# limit each (no hang), the code the same on every rank. Needs root and /dev/fuse; exits 77
# otherwise. Usage: read_error.sh MPIEXEC FAILFS PROGRAM
set -u
mpiexec=$1 failfs=$2 program=$3
if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
  echo "read_error: skipped: needs root and /dev/fuse"; exit 77
fi
dir=$(mktemp -d)
fs_pid=
cleanup() {
  fusermount3 -u "$dir/mnt" 2>/dev/null || umount "$dir/mnt" 2>/dev/null
  [ -n "$fs_pid" ] && kill "$fs_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir/backing" "$dir/mnt"
FAILFS_DIRECT_IO=1 "$failfs" "$dir/backing" "$dir/mnt" >"$dir/failfs.log" 2>&1 &
fs_pid=$!
# Until it is mounted or failfs has exited (ctest's time limit bounds a hang).
until mountpoint -q "$dir/mnt"; do
  kill -0 "$fs_pid" 2>/dev/null ||
    { echo "read_error: failfs did not mount"; cat "$dir/failfs.log"; exit 1; }
  sleep 0.1
done
failures=0
for np in 1 3; do
  echo "== np $np"
  timeout 120 $mpiexec --oversubscribe -np $np "$program" "$dir/mnt/out.nc" \
    "$dir/backing/.failfs_read_limit"
  rc=$?
  rm -f "$dir/backing/.failfs_read_limit" "$dir/mnt/out.nc"
  if [ $rc != 0 ]; then echo "FAIL np $np (rc $rc; 124 is a hang)"; failures=$((failures + 1)); fi
done
[ $failures = 0 ] && echo "read_error: passed" && exit 0
echo "read_error: $failures failure(s)"; exit 1
