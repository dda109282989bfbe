#!/bin/bash
# The measurement: esmio staged on tmpfs (/dev/shm) against esmio written straight to
# the target (esmio-unstaged) and raw POSIX writes, in the same runs, durable.
#   fast target: the VM's ext4 (/tmp, host-cached: fsync and "cold" reads are fast)
#   slow target: failfs (tests/faults/failfs.c) over /tmp with FAILFS_SLOW=500:200, a device
#                of 200 MiB/s shared by all requests, plus 0.5 ms per request (a network
#                round trip); FUSE hands it requests of up to 128 KiB.
# usage: run.sh BUILD_DIR OUT_DIR   (root: mounts FUSE)
set -u
B=${1:?build dir}; O=${2:?out dir}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$O" /dev/shm/esmio-stage /tmp/esmio-stage-fast /tmp/esmio-stage-slowback /tmp/esmio-stage-slow
bench() {  # name np args...
  local name=$1 np=$2; shift 2
  timeout 1200 mpirun --oversubscribe -np "$np" "$B/tools/esmio-bench" "$@" \
    --json "$O/$name.json" > "$O/$name.txt" 2>&1 || echo "$name failed: see $O/$name.txt"
}
V="--variants esmio,esmio-unstaged,raw --stage /dev/shm/esmio-stage"
for np in 2 4; do
  bench small_fast_np$np $np small $V --repeat 5 --dir /tmp/esmio-stage-fast
  bench cam_fvd_fast_np$np $np cam-fvd $V --repeat 5 --dir /tmp/esmio-stage-fast
done
FAILFS_SLOW=500:200 "$B/tests/faults/failfs" /tmp/esmio-stage-slowback /tmp/esmio-stage-slow &
fs=$!
sleep 1
for np in 2 4; do
  for mode in close background; do
    bench small_slow_${mode}_np$np $np small $V --stage-copy $mode --repeat 3 \
      --dir /tmp/esmio-stage-slow
  done
done
bench cam_fvd_slow_background_np2 2 cam-fvd $V --stage-copy background --scale 0.5 --repeat 3 \
  --dir /tmp/esmio-stage-slow
fusermount3 -u /tmp/esmio-stage-slow || umount /tmp/esmio-stage-slow
wait $fs
