#!/bin/bash
# An unknown ESMIO_* environment variable is reported once, by rank 0, naming the closest
# setting, and ignored; the settings' own variables and those esmio's tools read are not.
# Usage: unknown_environment.sh MPIEXEC ESMIO
set -uo pipefail
mpiexec=$1
esmio=$2
work=$(mktemp -d /tmp/esmio_unknown_env_XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }

env ESMIO_NUM_IOTAKS=2 ESMIO_LAYOUT=subset ESMIO_LIBRARY=/nowhere ESMIO_TEST_OUT=/tmp \
  "$mpiexec" --oversubscribe -np 2 "$esmio" --settings > "$work/out" 2> "$work/err" \
  || fail "esmio --settings failed"
want="esmio: unknown environment variable ESMIO_NUM_IOTAKS (did you mean ESMIO_NUM_IOTASKS?); ignored"
[ "$(grep -c '^esmio: unknown environment variable' "$work/err")" = 1 ] \
  || fail "expected one warning (rank 0's) for one unknown variable"
grep -qxF "$want" "$work/err" || fail "expected: $want"
grep -q 'layout=subset' "$work/out" || fail "ESMIO_LAYOUT not applied"
grep -q '^# I/O tasks: num_iotasks=0 (automatic' "$work/out" \
  || fail "ESMIO_NUM_IOTAKS was not ignored: the I/O tasks are not chosen automatically"

# Asynchronous mode: the I/O servers' own instances do not warn again.
env ESMIO_NUM_IOTAKS=2 ESMIO_IO_SERVERS=2 ESMIO_IO_SERVER_GROUPS=2 \
  "$mpiexec" --oversubscribe -np 4 "$esmio" --settings > "$work/out" 2> "$work/err" \
  || fail "esmio --settings with 2 I/O servers failed"
[ "$(grep -c '^esmio: unknown environment variable' "$work/err")" = 1 ] \
  || fail "expected one warning with I/O servers"

# Nothing unknown: no warning.
env ESMIO_LAYOUT=subset "$mpiexec" --oversubscribe -np 2 "$esmio" --settings > "$work/out" \
  2> "$work/err" || fail "esmio --settings failed"
grep -q '^esmio: unknown' "$work/err" && fail "a warning without an unknown variable"
echo "PASS: one warning for ESMIO_NUM_IOTAKS on 2 ranks (4 with servers), none for settings and tools' variables"
