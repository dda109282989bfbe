#!/bin/bash
# PIO's Fortran interface writes what esmio's own API writes: pio_history (use pio; it also reads
# its file back and checks every value) and pio_history_native (use esmio) on NP tasks with the
# same iotype; ncdump of the two files must be the same apart from the first line (the name).
# Usage: compare_history.sh BIN_DIR OUT_DIR NP IOTYPE
set -euo pipefail
bin=$1 out=$2 np=$3 iotype=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
p=$out/history_pio_${iotype}_np$np.nc n=$out/history_native_${iotype}_np$np.nc
rm -f "$p" "$n"
timeout 120 mpirun --oversubscribe -np "$np" "$bin/pio_history" "$p" "$iotype"
timeout 120 mpirun --oversubscribe -np "$np" "$bin/pio_history_native" "$n" "$iotype"
diff <(ncdump "$p" | tail -n +2) <(ncdump "$n" | tail -n +2)
echo "PASS: $p and $n hold the same header and values (ncdump)"
