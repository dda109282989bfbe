#!/usr/bin/env bash
# esmio_init in asynchronous mode warns when MPI moves a compute rank's async buffer only while
# that rank is inside MPI (Open MPI's osc/pt2pt, forced here as on a node where vader's single
# copy is off, with async_transport=rma), and says nothing with Open MPI's defaults, which read
# it without the rank, nor with the shared-memory transport that async_transport=auto takes on
# one node, whatever the one-sided component.
# Usage: async_probe.sh MPIEXEC PROGRAM OUTDIR
set -u
mpiexec=$1 program=$2 out=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
warning='io_servers: MPI moves a compute rank'"'"'s async buffer only while that rank is inside MPI'
failures=0

timeout 60 "$mpiexec" --oversubscribe -np 3 "$program" >"$out/default.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL defaults: exit $rc"; failures=$((failures + 1)); fi
if grep -qF "$warning" "$out/default.log"; then
  echo "FAIL defaults: warned, though Open MPI's osc/rdma reads without the target"
  failures=$((failures + 1))
fi

pt2pt() {
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_osc=sm,pt2pt,rdma "$@"
}
pt2pt timeout 60 "$mpiexec" --oversubscribe -np 3 "$program" >"$out/shared.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL osc/pt2pt, auto: exit $rc"; failures=$((failures + 1)); fi
if grep -qF "$warning" "$out/shared.log"; then
  echo "FAIL osc/pt2pt, auto: warned, though one node's buffers are read out of shared memory"
  failures=$((failures + 1))
fi

ESMIO_ASYNC_TRANSPORT=rma pt2pt timeout 60 "$mpiexec" --oversubscribe -np 3 "$program" \
  >"$out/pt2pt.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL osc/pt2pt, rma: exit $rc"; failures=$((failures + 1)); fi
if [ "$(grep -cF "$warning" "$out/pt2pt.log")" != 1 ]; then
  echo "FAIL osc/pt2pt, rma: the warning is not printed exactly once"
  failures=$((failures + 1))
fi
# Under a file-size limit (ulimit -f) smaller than the shared-memory file the MPI library would
# write: auto takes rma (no MPI abort), shared is refused on every rank with ESMIO_ESETTING.
(ulimit -f 20000 && timeout 60 "$mpiexec" --oversubscribe -np 3 "$program") >"$out/limit.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL ulimit -f, auto: exit $rc"; failures=$((failures + 1)); fi
(ulimit -f 20000 && ESMIO_ASYNC_TRANSPORT=shared timeout 60 "$mpiexec" --oversubscribe -np 3 \
  "$program") >"$out/limit_shared.log" 2>&1
if ! grep -q "esmio_init and esmio_finalize: -19 .*async_transport=shared needs a shared-memory file of .*(ulimit -f)" "$out/limit_shared.log"; then
  echo "FAIL ulimit -f, shared: not refused with ESMIO_ESETTING naming the limit"
  failures=$((failures + 1))
fi
cat "$out/default.log" "$out/shared.log" "$out/pt2pt.log" "$out/limit.log" "$out/limit_shared.log"
[ $failures -eq 0 ] && echo "async probe: passed" || echo "async probe: $failures failure(s)"
exit $failures
