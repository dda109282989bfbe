#!/bin/bash
# Device batch: every write case against raw at 4-16 ranks (1 MiB staging, read-ahead build),
# cold reads with read-ahead on and off, cdi, the I/O servers with a sleeping model, compressed
# netCDF-4 in bands, PIO's interface. Every run under a timeout, none started past LIMIT s;
# results packed after each.
set -u
R=/var/tmp/esmio-r7/r; T=/var/tmp/esmio-r7/t; mkdir -p "$R" "$T"
LIMIT=${LIMIT:-370}
D=/var/tmp/esmio-run/b
run() {  # NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  if (( SECONDS > LIMIT )); then echo "$name skipped at ${SECONDS}s" >> "$R/index.txt"; return; fi
  local t0=$SECONDS
  timeout "$t" "$@" 2>&1 | grep -v "unknown environment variable" > "$R/$name.txt"
  echo "$name rc=${PIPESTATUS[0]} $((SECONDS - t0))s (at ${SECONDS}s)" >> "$R/index.txt"
  rm -rf "$D"
  tar -C /var/tmp/esmio-r7 -czf "$OUT/results.tgz" r
}
B=esmio-bench
BIND="--bind-to core"
DUR="--durability durable --dir $D"
Z="--fields real --backend netcdf4 --compression zstd:1:shuffle --quantize information:0.99"
SLEEP="--compute-kind sleep --compute 1.5 --records 4 --repeat 2 --dir $D"
git -C "$ESMIO_CHECKOUT" rev-parse --short HEAD >> "$R/index.txt" 2>&1
run cam-np16 60 mpirun $BIND -np 16 $B cam-fvd --repeat 5 --read cold --variants esmio,raw,pnetcdf-direct $DUR --json $R/cam-np16.json
run cam-np16-ra0 50 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B cam-fvd --repeat 5 --read cold --variants esmio,raw $DUR --json $R/cam-np16-ra0.json
run f-np16 50 mpirun $BIND -np 16 $B e3sm-f --repeat 5 --read cold --variants esmio,raw $DUR --trace $T/tr-f16 --json $R/f-np16.json
run cdi-np1 40 mpirun -np 1 $B cdi --repeat 5 --read cold --variants esmio,raw $DUR --json $R/cdi-np1.json
run loop16-cam-s2 90 mpirun $BIND -np 16 $B model-loop $SLEEP --servers 2 --json $R/loop16-cam-s2.json
run nc4z-np16 70 mpirun $BIND -np 16 $B cam-fvd $Z --repeat 3 --variants esmio,pnetcdf-direct $DUR --trace $T/tr-nc4z --json $R/nc4z-np16.json
run small-np16 40 mpirun $BIND -np 16 $B small --repeat 5 --variants esmio,raw $DUR --trace $T/tr-small16 --json $R/small-np16.json
run cam-np4 40 mpirun $BIND -np 4 $B cam-fvd --repeat 5 --variants esmio,raw $DUR --json $R/cam-np4.json
run cam-np8 45 mpirun $BIND -np 8 $B cam-fvd --repeat 5 --variants esmio,raw,pio-layer $DUR --json $R/cam-np8.json
run f-np8 35 mpirun $BIND -np 8 $B e3sm-f --repeat 5 --variants esmio,raw $DUR --json $R/f-np8.json
run i-np16 40 mpirun $BIND -np 16 $B e3sm-i --repeat 5 --read cold --variants esmio,raw $DUR --json $R/i-np16.json
run ocean-np16 35 mpirun $BIND -np 16 $B ocean --repeat 5 --variants esmio,raw $DUR --json $R/ocean-np16.json
run small-np8 35 mpirun $BIND -np 8 $B small --repeat 5 --variants esmio,raw $DUR --json $R/small-np8.json
run loop16-f-s2 80 mpirun $BIND -np 16 $B model-loop $SLEEP --fields-of e3sm-f --servers 2 --json $R/loop16-f-s2.json
run f-np4 35 mpirun $BIND -np 4 $B e3sm-f --repeat 5 --variants esmio,raw $DUR --json $R/f-np4.json
run small-np4 35 mpirun $BIND -np 4 $B small --repeat 5 --variants esmio,raw $DUR --json $R/small-np4.json
run loop16-cam-s1 90 mpirun $BIND -np 16 $B model-loop $SLEEP --servers 1 --json $R/loop16-cam-s1.json
tar -C /var/tmp/esmio-r7 -czf "$OUT/results.tgz" r
tar -C /var/tmp/esmio-r7 -czf "$OUT/traces.tgz" t
