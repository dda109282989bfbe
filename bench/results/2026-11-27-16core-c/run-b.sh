#!/bin/bash
# Device batch: cold reads with small reads in batches (default) against one by one
# (ESMIO_READ_AHEAD=0, which also turns off the read-ahead thread), alternated, at 4-16 ranks.
set -u
R=/var/tmp/esmio-r8/r; T=/var/tmp/esmio-r8/t; mkdir -p "$R" "$T"
LIMIT=${LIMIT:-200}
D=/var/tmp/esmio-run/b
run() {  # NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  if (( SECONDS > LIMIT )); then echo "$name skipped at ${SECONDS}s" >> "$R/index.txt"; return; fi
  local t0=$SECONDS
  timeout "$t" "$@" 2>&1 | grep -v "unknown environment variable" > "$R/$name.txt"
  echo "$name rc=${PIPESTATUS[0]} $((SECONDS - t0))s (at ${SECONDS}s)" >> "$R/index.txt"
  rm -rf "$D"
  tar -C /var/tmp/esmio-r8 -czf "$OUT/results.tgz" r
}
B=esmio-bench
BIND="--bind-to core"
DUR="--durability durable --dir $D"
RD="--repeat 5 --read cold --variants esmio,raw $DUR"
git -C "$ESMIO_CHECKOUT" rev-parse --short HEAD >> "$R/index.txt" 2>&1
for k in 1 2; do
  run f-np16-batch-$k 40 mpirun $BIND -np 16 $B e3sm-f $RD --json $R/f-np16-batch-$k.json
  run f-np16-ra0-$k 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B e3sm-f $RD --json $R/f-np16-ra0-$k.json
done
run i-np16-batch 40 mpirun $BIND -np 16 $B e3sm-i $RD --json $R/i-np16-batch.json
run i-np16-ra0 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B e3sm-i $RD --json $R/i-np16-ra0.json
run f-np8-batch 40 mpirun $BIND -np 8 $B e3sm-f $RD --json $R/f-np8-batch.json
run f-np8-ra0 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 8 $B e3sm-f $RD --json $R/f-np8-ra0.json
run small-np16-batch 40 mpirun $BIND -np 16 $B small $RD --json $R/small-np16-batch.json
run small-np16-ra0 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B small $RD --json $R/small-np16-ra0.json
run ocean-np16-batch 40 mpirun $BIND -np 16 $B ocean $RD --json $R/ocean-np16-batch.json
run ocean-np16-ra0 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B ocean $RD --json $R/ocean-np16-ra0.json
run cam-np16-batch 60 mpirun $BIND -np 16 $B cam-fvd $RD --json $R/cam-np16-batch.json
run cam-np16-ra0 60 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 16 $B cam-fvd $RD --json $R/cam-np16-ra0.json
run f-np4-batch 40 mpirun $BIND -np 4 $B e3sm-f $RD --json $R/f-np4-batch.json
run f-np4-ra0 40 mpirun $BIND -x ESMIO_READ_AHEAD=0 -np 4 $B e3sm-f $RD --json $R/f-np4-ra0.json
run f-np16-batch-trace 40 mpirun $BIND -np 16 $B e3sm-f $RD --trace $T/tr-f16 --json $R/f-np16-batch-trace.json
tar -C /var/tmp/esmio-r8 -czf "$OUT/results.tgz" r
tar -C /var/tmp/esmio-r8 -czf "$OUT/traces.tgz" t
