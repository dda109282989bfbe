#!/bin/bash
# part D: the real-field size ratios and compressed/uncompressed write times with the
# keepbits floor of 4 (an earlier run measured them with floor 2). The an earlier run command line
# (measure.sh: netCDF-4, np 2, 2 I/O tasks, durable, --variants esmio,raw), for uncompressed,
# lossless zstd:1:shuffle and information:0.99 + zstd:1:shuffle, run as ROUNDS rounds of one
# invocation per mode with --repeat PER (U L I U L I ...) so that the other jobs on the 2 shared
# cores load the three modes alike. Outputs: floor4/CASE-sS-np2-MODE-rN.{json,txt,log}.
# Run from the repository root:
#   bench/results/2026-11-25-keepbits-floor/run_floor4.sh BUILD [ROUNDS] [PER] [CASE:SCALE ...]
# BUILD: a build directory (BUILD/tools/esmio-bench) or a directory holding esmio-bench and
# libesmio.so.0 (put first on LD_LIBRARY_PATH, which overrides the binary's RUNPATH).
set -u
BUILD=${1:-build}; ROUNDS=${2:-3}; PER=${3:-2}; shift 3 2>/dev/null || shift $#
SPECS=("$@"); [ ${#SPECS[@]} -eq 0 ] && SPECS=("ocean:0.1" "cam-fvd:0.25")
B=$BUILD/tools/esmio-bench; [ -x $B ] || B=$BUILD/esmio-bench
export LD_LIBRARY_PATH=$(cd $BUILD && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=$(dirname "$0")/floor4
mkdir -p $OUT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=${ESMIO_BENCH_DIR:-/tmp/esmio-bench-keepbits-floor-floor4}
for spec in "${SPECS[@]}"; do
  case=${spec%%:*}; scale=${spec##*:}
  for r in $(seq 1 $ROUNDS); do
    for mode in uncompressed lossless information; do
      extra=""
      [ $mode = lossless ] && extra="--compression zstd:1:shuffle"
      [ $mode = information ] && extra="--compression zstd:1:shuffle --quantize information:0.99"
      name=$case-s$scale-np2-$mode-r$r
      echo "== $name $(cut -d' ' -f1-3 /proc/loadavg)"
      # shellcheck disable=SC2086
      timeout 900 mpirun --oversubscribe -np 2 -x LD_LIBRARY_PATH $B $case --scale $scale \
        --iotasks 2 --fields real --backend netcdf4 --durability durable --repeat $PER \
        --variants esmio,raw $extra --dir $DIR --json $OUT/$name.json > $OUT/$name.txt 2> $OUT/$name.log
      echo "   exit $?"
    done
  done
done
