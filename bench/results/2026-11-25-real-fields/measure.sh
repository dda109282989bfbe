#!/bin/bash
# --fields real with one source per variable: sizes and write rates of netCDF-4
# uncompressed, lossless zstd:1:shuffle and information:0.99 + zstd:1:shuffle, at np 2 and 4
# with 2 I/O tasks, durable, 5 repeats each (esmio and raw interleaved per repeat).
# Run from the repository root: bench/results/2026-11-25-real-fields/measure.sh BUILD_DIR
set -u
B=${1:-build}/tools/esmio-bench
OUT=$(dirname "$0")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=${ESMIO_BENCH_DIR:-/tmp/esmio-bench-before-real}
for spec in "ocean:0.1" "cam-fvd:0.25" "cam-fvd:1"; do
  case=${spec%%:*}; scale=${spec##*:}
  for np in 2 4; do
    for mode in uncompressed lossless information; do
      extra=""
      [ $mode = lossless ] && extra="--compression zstd:1:shuffle"
      [ $mode = information ] && extra="--compression zstd:1:shuffle --quantize information:0.99"
      name=$case-s$scale-np$np-$mode
      echo "== $name $(cut -d' ' -f1-3 /proc/loadavg)"
      timeout 900 mpirun --oversubscribe -np $np $B $case --scale $scale --iotasks 2 \
        --fields real --backend netcdf4 --durability durable --repeat 5 --variants esmio,raw \
        $extra --dir $DIR --json $OUT/$name.json > $OUT/$name.txt 2> $OUT/$name.log
      echo "   exit $?"
    done
  done
done
