#!/bin/sh
# Re-runs the recorded esmio-bench measurements into bench/results/<date>-<name>/ (table.txt,
# results.json, results.png, progress.txt, command.txt). Run from the repository root after
# `make build`, on a machine as quiet as you can get: the load average at start and end is
# recorded in the table and the JSON (run.loadavg_*), because other jobs skew every rate.
#   sh bench/record.sh [BUILD_DIR] [OUT_DIR_FOR_FILES]
set -eu
BUILD=${1:-build}
FILES=${2:-/tmp/esmio-bench-out}
DATE=$(date -u +%F)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
record() {  # name, ranks, esmio-bench arguments...
  name=$1; np=$2; shift 2
  out=bench/results/$DATE-$name
  mkdir -p "$out"
  set -- mpirun --oversubscribe -np "$np" "$BUILD/tools/esmio-bench" "$@" --dir "$FILES" \
    --json "$out/results.json" --plot "$out/results.png"
  echo "$*" > "$out/command.txt"
  "$@" > "$out/table.txt" 2> "$out/progress.txt"
  echo "recorded $out"
}
record cam-fvd 4 cam-fvd --iotasks 2 --repeat 5 --durability durable
record cdi-cache 1 cdi --repeat 5 --durability cache
record cdi-durable 1 cdi --repeat 5 --durability durable
record small 4 small --iotasks 2 --repeat 5 --durability durable
