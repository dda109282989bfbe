#!/usr/bin/env bash
# Creating a file in a missing directory, on a read-only file system: the same code (ESMIO_EIO)
# from every backend, on every rank, with the cause in words. Needs root to mount a read-only
# tmpfs; exits 77 otherwise (ctest: skipped). Usage: readonly_fs.sh MPIEXEC PROGRAM
set -u
mpiexec=$1 program=$2
if [ "$(id -u)" != 0 ]; then echo "readonly_fs: skipped: mounting a file system needs root"; exit 77; fi
dir=$(mktemp -d)
trap 'umount "$dir/ro" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/ro"
mount -t tmpfs -o ro,size=1m tmpfs "$dir/ro" || { echo "readonly_fs: mount failed"; exit 1; }
timeout 120 $mpiexec --oversubscribe -np 3 "$program" "$dir/ro/out.nc" "read-only file system"
rc1=$?
timeout 120 $mpiexec --oversubscribe -np 3 "$program" "$dir/missing/out.nc" "does not exist"
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && echo "readonly_fs: passed" && exit 0
echo "readonly_fs: FAILED"; exit 1
