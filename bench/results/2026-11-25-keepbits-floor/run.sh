#!/bin/bash
# part C: where the time of a compressed netCDF-4 write goes, and whether a cheap setting
# brings it closer to the uncompressed write. --fields real, np 2 on the 2-core VM, durable,
# 5 repeats, esmio and raw interleaved per repeat, a trace of the last esmio write of every run.
# Run from the repository root: bench/results/2026-11-25-keepbits-floor/run.sh BUILD_DIR
#   then /usr/bin/python3 bench/results/2026-11-25-keepbits-floor/summarize.py   (summary.md)
set -u
BUILD=${1:-build}
B=$BUILD/tools/esmio-bench
R=$BUILD/tools/esmio-report
OUT=$(dirname "$0")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=${ESMIO_BENCH_DIR:-/tmp/esmio-bench-keepbits-floor}
LOSSLESS="--compression zstd:1:shuffle"
INFO="--compression zstd:1:shuffle --quantize information:0.99"
# name | iotasks | ESMIO_CHUNKING (ocean) | ESMIO_CHUNKING (cam-fvd) | bench options
RUNS=(
  "uncompressed|2|||"
  "lossless|2|||$LOSSLESS"
  "information|2|||$INFO"
  "uncompressed-io1|1|||"
  "lossless-io1|1|||$LOSSLESS"
  "information-io1|1|||$INFO"
  "lossless-bigchunk|2|default:1x25x270x360|default:1x13x90x144|$LOSSLESS"
  "information-bigchunk|2|default:1x25x270x360|default:1x13x90x144|$INFO"
  "information-lvlchunk|2|default:1x1x270x360|default:1x1x90x144|$INFO"
  "information-zstdm1|2|||--compression zstd:-1:shuffle --quantize information:0.99"
)
for spec in "ocean:0.1" "cam-fvd:0.25"; do
  case=${spec%%:*}; scale=${spec##*:}
  for run in "${RUNS[@]}"; do
    IFS='|' read -r mode io chunk_ocean chunk_cam extra <<< "$run"
    chunk=$chunk_ocean; [ $case = cam-fvd ] && chunk=$chunk_cam
    name=$case-s$scale-np2-$mode
    mkdir -p $DIR/trace-$name  # esmio-bench does not create it
    echo "== $name $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2086
    ESMIO_CHUNKING=$chunk timeout 900 mpirun --oversubscribe -np 2 -x ESMIO_CHUNKING $B $case \
      --scale $scale --iotasks $io --fields real --backend netcdf4 --durability durable \
      --repeat 5 --variants esmio,raw $extra --dir $DIR --json $OUT/$name.json \
      --trace $DIR/trace-$name > $OUT/$name.txt 2> $OUT/$name.log
    echo "   exit $?"
    cp $DIR/trace-$name/esmio-bench-$case-trace.json $OUT/$name-trace.json
    $R $OUT/$name-trace.json --text --no-html > $OUT/$name-report.txt 2>&1
  done
done
