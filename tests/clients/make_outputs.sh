#!/bin/bash
# Client tests, step 1: write the demo's output three ways, for the client checks to read.
#
#   make_outputs.sh MPIEXEC NUMPROC_FLAG ESMIO_DEMO OUTDIR RECORDS GRID
#
#   OUTDIR/esmio.nc   the demo as shipped (pnetcdf backend, 2 I/O tasks, box layout)
#   OUTDIR/serial.nc  ESMIO_BACKEND=serial: the gather-to-root reference
#   OUTDIR/subset.nc  ESMIO_LAYOUT=subset ESMIO_NUM_IOTASKS=3
#   OUTDIR/nc4z.nc    ESMIO_FORMAT=netcdf4 ESMIO_COMPRESSION=default:zstd:3: netCDF-4, every
#                     variable zstd-compressed (lossless), through the netcdf4 backend
#
# Each run is 4 ranks (--oversubscribe) of the demo's 95 fields on GRID (LEVxLATxLON, the demo's
# third argument; its own default is 26x361x576). The demo itself reads every value back and must
# report "all equal"; the printed settings must show that the environment override took effect
# (otherwise the comparisons downstream would be vacuous).
set -euo pipefail

if [ $# -ne 6 ]; then
  echo "usage: $0 MPIEXEC NUMPROC_FLAG ESMIO_DEMO OUTDIR RECORDS GRID" >&2
  exit 2
fi
mpiexec=$1 npflag=$2 demo=$3 out=$4 nrec=$5 grid=$6

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v "$mpiexec" >/dev/null || fail "mpiexec '$mpiexec' not found (run make deps)"
[ -x "$demo" ] || fail "demo program '$demo' not built"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Settings inherited from the caller's environment would change what is tested: drop them.
for v in $(compgen -e); do
  case $v in ESMIO_TEST_DATA) ;; ESMIO_*) unset "$v" ;; esac
done

rm -rf "$out"
mkdir -p "$out"

# run NAME EXPECTED_SETTINGS... -- [VAR=VALUE...]
run() {
  local name=$1; shift
  local expect=()
  while [ "$1" != -- ]; do expect+=("$1"); shift; done
  shift
  local file=$out/$name.nc log=$out/$name.log
  echo "== $name: ${*:-(demo defaults)} $mpiexec --oversubscribe $npflag 4 esmio_demo $file $nrec $grid"
  local t0=$SECONDS rc=0
  env "$@" "$mpiexec" --oversubscribe "$npflag" 4 "$demo" "$file" "$nrec" "$grid" >"$log" 2>&1 || rc=$?
  sed 's/^/   | /' "$log"
  [ "$rc" -eq 0 ] || fail "$name: esmio_demo exited with $rc"
  grep -q "values checked: all equal (0 mismatches)" "$log" || fail "$name: demo read-back not all equal"
  grep -q "^esmio demo: 4 ranks, $nrec records" "$log" || fail "$name: expected 4 ranks, $nrec records"
  local settings
  settings=$(sed -n 's/^  settings: //p' "$log")
  for s in "${expect[@]}"; do
    [[ ",$settings," == *",$s,"* ]] || fail "$name: settings '$settings' lack '$s'"
  done
  [ -s "$file" ] || fail "$name: $file not written"
  echo "   ok: $name.nc written in $((SECONDS - t0)) s, $(stat -c %s "$file") bytes, settings include: ${expect[*]}"
}

# The runs are independent: two at a time (much of a small run is MPI's start), each one's
# output printed whole when the pair is done.
pids=() names=()
launch() {
  run "$@" >"$out/$1.out" 2>&1 &
  pids+=("$!") names+=("$1")
}
finish_pair() {
  local i failed=()
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${names[$i]}")
    cat "$out/${names[$i]}.out" && rm -f "$out/${names[$i]}.out"
  done
  pids=() names=()
  [ ${#failed[@]} -eq 0 ] || fail "${failed[*]} failed"
}

launch esmio backend=pnetcdf layout=box num_iotasks=2 format=cdf5 --
launch serial backend=serial format=cdf5 -- ESMIO_BACKEND=serial
finish_pair
launch subset backend=pnetcdf layout=subset num_iotasks=3 format=cdf5 -- \
  ESMIO_LAYOUT=subset ESMIO_NUM_IOTASKS=3
launch nc4z backend=netcdf4 format=netcdf4 compression=default:zstd:3 -- ESMIO_FORMAT=netcdf4 \
  ESMIO_COMPRESSION=default:zstd:3
finish_pair
echo "all four outputs written to $out"
