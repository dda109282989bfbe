#!/usr/bin/env bash
# EIO from a failing device (failfs, a FUSE pass-through that fails writes past a byte limit)
# inside the file's size, under ompio and romio321, 1 and 3 ranks: test_io_error must end (no
# hang) with ESMIO_EIO on every rank. Needs root and /dev/fuse; exits 77 otherwise.
# Usage: io_error.sh MPIEXEC FAILFS PROGRAM
set -u
mpiexec=$1 failfs=$2 program=$3
if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ]; then
  echo "io_error: skipped: needs root and /dev/fuse"; exit 77
fi
dir=$(mktemp -d)
mkdir "$dir/backing" "$dir/mnt"
"$failfs" "$dir/backing" "$dir/mnt" >"$dir/failfs.log" 2>&1 &
fs=$!
trap 'fusermount3 -u "$dir/mnt" 2>/dev/null || umount "$dir/mnt" 2>/dev/null; kill $fs 2>/dev/null; rm -rf "$dir"' EXIT
for i in $(seq 50); do mountpoint -q "$dir/mnt" && break; sleep 0.1; done
mountpoint -q "$dir/mnt" || { echo "io_error: failfs did not mount"; cat "$dir/failfs.log"; exit 1; }
failures=0
for component in ompio romio321; do
  for np in 1 3; do
    echo "== $component np $np"
    # 1,000,000 bytes: inside record 0's end, so records 1 and 2 fail where the file exists.
    if ! OMPI_MCA_io=$component timeout 120 $mpiexec --oversubscribe -np $np "$program" \
        "$dir/mnt/out.nc" "$dir/backing/.failfs_limit" 1000000; then
      echo "FAIL $component np $np (rc $?; 124 is a hang)"; failures=$((failures + 1))
    fi
    rm -f "$dir/backing/.failfs_limit" "$dir/mnt/out.nc"
  done
done
[ $failures = 0 ] && echo "io_error: passed" && exit 0
echo "io_error: $failures failure(s)"; exit 1
