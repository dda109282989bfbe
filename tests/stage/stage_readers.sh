#!/bin/bash
# Real readers of published files: esmio-bench writes the cam-fvd case (2 records, 95 variables)
# once staged (copied back at close, and in the background) and once straight to the target
# (esmio-unstaged), in the same run, for every backend (in the background: pnetcdf and netcdf4);
# then ncdump, CDO and xarray must read the published file exactly as the unstaged one (every
# value, bit for bit), and the stage is left empty. The five cases are independent: they run two
# at a time (each prints its lines when the pair ends), then one Python compares every pair.
# Usage: stage_readers.sh MPIEXEC ESMIO_BENCH NCDUMP CDO PYTHON COMPARE_PY
set -u
mpiexec=$1 bench=$2 ncdump=$3 cdo=$4 python=$5 compare=$6
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
base=$(mktemp -d /tmp/esmio_stage_readers.XXXXXX)
trap 'rm -rf "$base"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }

# one_case BACKEND MODE: writes, checks with ncdump and cdo; exit status 0 if all held.
one_case() {
  local backend=$1 mode=$2
  local name=$backend-$mode out=$base/$backend-$mode stage=$base/$backend-$mode-stage
  mkdir -p "$out" "$stage"
  if ! timeout -k 5 300 "$mpiexec" --oversubscribe -np 3 "$bench" cam-fvd --scale 0.05 \
      --records 2 --iotasks 2 --backend "$backend" --variants esmio,esmio-unstaged \
      --stage "$stage" --stage-copy "$mode" --repeat 1 --keep --dir "$out" \
      > "$base/$name.log" 2>&1; then
    fail "$name: esmio-bench failed"; tail -20 "$base/$name.log"; return 1
  fi
  local staged=$out/esmio-bench-cam-fvd-esmio.nc direct=$out/esmio-bench-cam-fvd-esmio-unstaged.nc
  [ -z "$(ls -A "$stage")" ] || fail "$name: the stage still holds $(ls "$stage")"
  [ -e "$staged" ] && [ -e "$direct" ] || { fail "$name: files missing: $(ls "$out")"; return 1; }
  # ncdump: the whole text (header and every value), without its first line (the file name).
  if ! diff <("$ncdump" "$staged" | tail -n +2) <("$ncdump" "$direct" | tail -n +2) > /dev/null
  then fail "$name: ncdump reads the published file differently"; fi
  # CDO: diffn prints a line for each field that differs, nothing (but a summary) otherwise.
  local cdo_out rc
  cdo_out=$("$cdo" -s diffn "$staged" "$direct" 2>&1); rc=$?
  if [ $rc != 0 ] || echo "$cdo_out" | grep -Eq '^ *[0-9]+ of [0-9]+ records differ|Error|error'
  then fail "$name: cdo diffn: rc $rc: $cdo_out"; fi
  [ $failed = 0 ] && echo "$name: ncdump and cdo read the published file as the unstaged one"
  return $failed
}

# Every backend copied back at close; in the background (the same copy, after close) the two
# parallel backends.
cases=()
for backend in pnetcdf netcdf4 serial; do
  modes="close background"
  [ $backend = serial ] && modes=close
  for mode in $modes; do cases+=("$backend-$mode"); done
done
for ((i = 0; i < ${#cases[@]}; i += 2)); do
  pids=()
  for c in "${cases[@]:i:2}"; do
    one_case "${c%-*}" "${c#*-}" > "$base/$c.out" 2>&1 &
    pids+=("$!")
  done
  for j in "${!pids[@]}"; do
    c=${cases[i + j]}
    wait "${pids[$j]}" || failed=1
    cat "$base/$c.out"
  done
done
pairs=()
for c in "${cases[@]}"; do
  pairs+=("$base/$c/esmio-bench-cam-fvd-esmio.nc" "$base/$c/esmio-bench-cam-fvd-esmio-unstaged.nc")
done
"$python" "$compare" "${pairs[@]}" || fail "xarray reads a published file differently"
[ $failed = 0 ] && echo "stage_readers: passed" || echo "stage_readers: FAILED"
exit $failed
