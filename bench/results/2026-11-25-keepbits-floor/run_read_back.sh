#!/bin/bash
# The cost of esmio's read_back (default true: after each write the I/O tasks read
# back two elements per box; for a compressed netCDF-4 variable each read decompresses a chunk).
# np 2, 2 I/O tasks, --fields real, durable, --variants esmio, for netCDF-4 + zstd:1:shuffle,
# netCDF-4 uncompressed and the pnetcdf backend, ESMIO_READ_BACK=true vs false. ROUNDS rounds of
# one invocation per (backend, read_back) with --repeat PER; within a backend on and off
# alternate (on,off in odd rounds, off,on in even ones). Then one --repeat 1 --trace run per
# read_back value for netCDF-4 + zstd (the trace's per-rank "codecs" counters).
# Outputs: read_back/CASE-sS-np2-BACKEND-rbV-rN.{json,txt,log}, read_back/CASE-sS-nc4zstd-rbV-trace.json
# Run from the repository root:
#   bench/results/2026-11-25-keepbits-floor/run_read_back.sh BUILD [ROUNDS] [PER] [CASE:SCALE ...]
set -u
BUILD=${1:-build}; ROUNDS=${2:-3}; PER=${3:-2}; shift 3 2>/dev/null || shift $#
SPECS=("$@"); [ ${#SPECS[@]} -eq 0 ] && SPECS=("cam-fvd:0.25" "ocean:0.1")
B=$BUILD/tools/esmio-bench; [ -x $B ] || B=$BUILD/esmio-bench
export LD_LIBRARY_PATH=$(cd $BUILD && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=$(dirname "$0")/read_back
mkdir -p $OUT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=${ESMIO_BENCH_DIR:-/tmp/esmio-bench-keepbits-floor-read-back}
# name | bench options
BACKENDS=(
  "nc4zstd|--backend netcdf4 --compression zstd:1:shuffle"
  "nc4|--backend netcdf4"
  "pnetcdf|--backend pnetcdf"
)
run() {  # name rb extra...
  local name=$1 rb=$2; shift 2
  echo "== $name $(cut -d' ' -f1-3 /proc/loadavg)"
  # shellcheck disable=SC2086
  ESMIO_READ_BACK=$rb timeout 900 mpirun --oversubscribe -np 2 -x LD_LIBRARY_PATH -x ESMIO_READ_BACK \
    $B $case --scale $scale --iotasks 2 --fields real --durability durable --variants esmio \
    --dir $DIR "$@" > $OUT/$name.txt 2> $OUT/$name.log
  echo "   exit $?"
}
for spec in "${SPECS[@]}"; do
  case=${spec%%:*}; scale=${spec##*:}
  for r in $(seq 1 $ROUNDS); do
    order="true false"; [ $((r % 2)) = 0 ] && order="false true"
    for be in "${BACKENDS[@]}"; do
      IFS='|' read -r bname extra <<< "$be"
      for rb in $order; do
        name=$case-s$scale-np2-$bname-rb$rb-r$r
        # shellcheck disable=SC2086
        run $name $rb $extra --repeat $PER --json $OUT/$name.json
      done
    done
  done
  for rb in true false; do
    name=$case-s$scale-np2-nc4zstd-rb$rb-trace
    mkdir -p $DIR/trace-$name
    run $name $rb --backend netcdf4 --compression zstd:1:shuffle --repeat 1 \
      --json $OUT/$name.json --trace $DIR/trace-$name
    cp $DIR/trace-$name/esmio-bench-$case-trace.json $OUT/$name-trace.json
  done
done
