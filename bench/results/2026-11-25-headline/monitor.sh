#!/bin/bash
# Run alongside run.sh (started at 20:58:3x UTC, during cam-fvd-np4-rerun; not during `run.sh extra`): every 5 s, the processes
# other than esmio-bench/mpirun using > 20 % of a core, with the time, to other-processes.log.
OUT=/work/main/bench/results/2026-11-25-headline
while pgrep -f 2026-11-25-headline/run.sh > /dev/null; do
  top -bn1 -w 150 | awk -v t="$(date -u +%T)" 'NR>7 && $9+0>20 && $12!="esmio-bench" && $12!="mpirun" && $12!="top" {print t, $1, $9, $12}' >> "$OUT/other-processes.log"
  sleep 5
done
