#!/usr/bin/env bash
# Builds PIO 2.7's own C unit tests (tests/cunit of NCAR's ParallelIO source) out of tree against
# esmio's PIO layer (include/pio.h, libesmio_pio, libesmio), runs them on 4 tasks and prints a
# table: test, result, and why each one that does not pass failed. Nothing of PIO is kept in
# this repository: give the path of a PIO source tree (it needs tests/cunit and
# src/clib/pio_error.h, the tests' error macros).
#
#   tools/pio_cunit.sh PIO_SOURCE_DIR ESMIO_BUILD_DIR [WORK_DIR] [TEST ...]
#
# WORK_DIR (default /tmp/pio-cunit) receives the objects, executables, logs and files written.
# Without TEST names it runs the tests that use PIO's synchronous C API (ASYNC=1 adds the
# asynchronous ones). Each test is built and run twice, as PIO builds it: "classic" (a PIO built
# with PnetCDF, without netCDF-4: iotypes PNETCDF and NETCDF, the six classic types) and
# "netcdf4" (also NETCDF4C and NETCDF4P and the netCDF-4 types). Environment: NP (tasks, 4),
# TIMEOUT (seconds per run, 300), MPIEXEC (mpirun --oversubscribe), MPICC (mpicc).
#
# The tests include PIO's private headers; the stand-ins written into WORK_DIR/shim hold only
# what a build of PIO generates (config.h, pio_meta.h) and, for pio_internal.h, the system and
# netCDF headers it includes and the pure type functions the tests size their data with
# (find_mpi_type, NETCDF_*_SIZE, PIO_LONG_INTERNAL), written here. A test that uses anything
# else of PIO's internals (its I/O system, file or decomposition structures, its rearranger and
# support functions) cannot build against a public-API layer and is reported as such. A PIOc_
# function that the layer does not have is linked to a stand-in that prints "esmio-pio-cunit:
# NAME is not in esmio's PIO layer" and returns an error, so a test fails where it calls one
# and passes if it never does. Not part of the test suite (it needs PIO's sources).
set -u
if [ $# -lt 2 ]; then
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
pio_src=$(cd "$1" && pwd) || exit 2
build=$(cd "$2" && pwd) || exit 2
work=${3:-/tmp/pio-cunit}
shift $(($# < 3 ? $# : 3))
repo=$(cd "$(dirname "$0")/.." && pwd)
cunit=$pio_src/tests/cunit
np=${NP:-4}
limit=${TIMEOUT:-300}
mpicc=${MPICC:-mpicc}
mpiexec=${MPIEXEC:-mpirun --oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
piolib=$build/pio
[ -e "$piolib/libesmio_pio.so" ] || piolib=$build
for need in "$cunit/test_common.c" "$pio_src/src/clib/pio_error.h" "$piolib/libesmio_pio.so"; do
  [ -e "$need" ] || { echo "pio_cunit.sh: $need not found" >&2; exit 2; }
done
netcdf_inc=$(pkg-config --variable=includedir netcdf-mpi 2>/dev/null)
[ -d /usr/lib/x86_64-linux-gnu/netcdf/mpi/include ] && netcdf_inc=/usr/lib/x86_64-linux-gnu/netcdf/mpi/include

# The synchronous tests, in the order of the table; the asynchronous ones need PIOc_init_async.
sync_tests="test_simple test_darray test_darray_1d test_darray_3d test_darray_frame
  test_darray_multi test_darray_multivar test_darray_multivar2 test_darray_multivar3
  test_darray_fill test_darray_vard test_darray_append test_darray_lossycompress
  test_decomp_uneven test_decomp_frame test_decomps test_pioc test_pioc_unlim test_pioc_fill
  test_pioc_putget test_iosystem2_simple test_iosystem2_simple2 test_iosystem2
  test_iosystem3_simple test_iosystem3_simple2 test_iosystem3 test_rearr test_spmd test_perf2"
async_tests="test_async_simple test_async_3proc test_async_4proc test_async_multicomp
  test_async_multi2 test_async_manyproc test_async_1d test_async_mpi test_intercomm2
  test_darray_async_simple test_darray_async test_darray_async_many test_darray_2sync"
if [ $# -gt 0 ]; then
  tests="$*"
elif [ "${ASYNC:-0}" = 1 ]; then
  tests="$sync_tests $async_tests"
else
  tests=$sync_tests
fi

mkdir -p "$work/shim"
shim=$work/shim
cp "$pio_src/src/clib/pio_error.h" "$shim/"
cat > "$shim/pio_meta.h" <<'EOF'
/* Stand-in for the pio_meta.h a build of PIO 2.7.0 generates. */
#define PIO_VERSION_MAJOR 2
#define PIO_VERSION_MINOR 7
#define PIO_VERSION_PATCH 0
#define PIO_VERSION "2.7.0"
#define PIO_HAS_PAR_FILTERS 1
#define PIO_HAS_SZIP_WRITE 0
EOF
cat > "$shim/pio_internal.h" <<'EOF'
/* Stand-in for PIO's private header: the system and netCDF headers it includes, and the type
 * functions the tests size their data with; nothing of PIO's library state. */
#ifndef PIO_CUNIT_INTERNAL_H
#define PIO_CUNIT_INTERNAL_H
#include <config.h>
#include <limits.h>
#include <math.h>
#include <netcdf_meta.h>
#include <netcdf_par.h>
#include <pio.h>
#include <pio_error.h>
#include <stdint.h>
#ifdef _PNETCDF
#include <pnetcdf.h>
#endif
#define NETCDF_CHAR_SIZE 1
#define NETCDF_SHORT_SIZE 2
#define NETCDF_INT_FLOAT_SIZE 4
#define NETCDF_DOUBLE_INT64_SIZE 8
#define PIO_LONG_INTERNAL 13 /* the tag PIO's tests use for C's long */
static inline int find_mpi_type(int pio_type, MPI_Datatype *mpi_type, int *type_size)
{
    MPI_Datatype t;
    int size;
    switch (pio_type)
    {
    case PIO_BYTE: t = MPI_SIGNED_CHAR; size = 1; break;
    case PIO_CHAR: t = MPI_CHAR; size = 1; break;
    case PIO_SHORT: t = MPI_SHORT; size = 2; break;
    case PIO_INT: t = MPI_INT; size = 4; break;
    case PIO_FLOAT: t = MPI_FLOAT; size = 4; break;
    case PIO_DOUBLE: t = MPI_DOUBLE; size = 8; break;
    case PIO_UBYTE: t = MPI_UNSIGNED_CHAR; size = 1; break;
    case PIO_USHORT: t = MPI_UNSIGNED_SHORT; size = 2; break;
    case PIO_UINT: t = MPI_UNSIGNED; size = 4; break;
    case PIO_INT64: t = MPI_LONG_LONG; size = 8; break;
    case PIO_UINT64: t = MPI_UNSIGNED_LONG_LONG; size = 8; break;
    case PIO_STRING: t = MPI_CHAR; size = 1; break;
    default: return PIO_EBADTYPE;
    }
    if (mpi_type) *mpi_type = t;
    if (type_size) *type_size = size;
    return PIO_NOERR;
}
#endif
EOF
for flavor in classic netcdf4; do
  mkdir -p "$shim/$flavor"
  { echo "/* Stand-in for the config.h of a PIO 2.7.0 build ($flavor). */"
    echo "#define _PNETCDF 1"
    echo "#define PIO_BUFFER_SIZE 134217728"
    [ $flavor = netcdf4 ] && echo "#define _NETCDF4 1"
  } > "$shim/$flavor/config.h"
done

# PIO's (netCDF's) text for an error code, to explain the codes the tests print.
printf '#include <pio.h>\nint main(int c, char **v) { char t[PIO_MAX_NAME + 1];\n'\
'  PIOc_strerror(c > 1 ? atoi(v[1]) : 0, t); puts(t); return 0; }\n' > "$work/strerror.c"
$mpicc -I"$repo/include" ${netcdf_inc:+-I$netcdf_inc} "$work/strerror.c" -o "$work/strerror" \
  -L"$piolib" -L"$build" -Wl,-rpath,"$piolib" -Wl,-rpath,"$build" -lesmio_pio -lesmio || exit 2

exported=$(nm -D --defined-only "$piolib/libesmio_pio.so" | awk '{print $3}' | sort -u)
cflags="-std=gnu99 -g -O0 -w -I$shim/FLAVOR -I$shim -I$repo/include -I$cunit ${netcdf_inc:+-I$netcdf_inc}"
# Some tests check their files through netCDF or PnetCDF directly, as PIO's build links them.
libs="-L$piolib -L$build -Wl,-rpath,$piolib -Wl,-rpath,$build -lesmio_pio -lesmio
  $(pkg-config --libs netcdf-mpi pnetcdf 2>/dev/null || echo -lnetcdf -lpnetcdf) -lm"

# build FLAVOR TEST: prints "ok" or "cannot build: why"; the executable is $work/FLAVOR/TEST.
build_one() {
  local flavor=$1 t=$2 dir=$work/$1 srcs objs=() s
  local flags=${cflags//FLAVOR/$flavor}
  srcs="$t.c test_common.c"
  grep -q 'run_test_main\|test_all(' "$cunit/$t.c" && srcs="$srcs test_shared.c"
  for s in $srcs; do
    local o=$dir/obj/${s%.c}.o
    [ "$s" = "$t.c" ] && o=$dir/obj/$t.main.o
    if [ ! -e "$o" ] || [ "$s" = "$t.c" ]; then
      if ! $mpicc $flags -c "$cunit/$s" -o "$o" 2> "$dir/log/$t.build"; then
        echo "cannot build: $(why_not_built "$dir/log/$t.build")"
        return
      fi
    fi
    objs+=("$o")
  done
  # Stand-ins for the PIOc_ functions the layer lacks, and for pio_error.h's two globals.
  { echo '#include <stdio.h>'
    echo '__attribute__((weak)) char err_buffer[1024]; __attribute__((weak)) int resultlen;'
    nm -u "${objs[@]}" | awk '/ U (PIOc_|GDALc_)/ {print $2}' | sort -u | comm -23 - <(echo "$exported") |
      while read -r f; do
        echo "int $f() { fprintf(stderr, \"esmio-pio-cunit: $f is not in esmio's PIO layer\\n\"); return -1000; }"
      done
  } > "$dir/obj/$t.missing.c"
  if ! $mpicc $flags -c "$dir/obj/$t.missing.c" -o "$dir/obj/$t.missing.o" 2>> "$dir/log/$t.build" ||
     ! $mpicc -o "$dir/$t" "${objs[@]}" "$dir/obj/$t.missing.o" $libs 2>> "$dir/log/$t.build"; then
    echo "cannot build: $(why_not_built "$dir/log/$t.build")"
    return
  fi
  echo ok
}

# What a failed build lacks: the names of PIO's internals it uses (undeclared identifiers,
# unknown types, structure members, undefined functions), and those that PIO's public pio.h has
# and esmio's has not.
why_not_built() {
  local names internal= public= n
  names=$(grep -o "‘[A-Za-z_][A-Za-z0-9_]*’ undeclared\|unknown type name ‘[^’]*’\|request for member ‘[^’]*’\|undefined reference to \`[^']*'\|fatal error: [^ ]*: No such" "$1" |
    sed "s/‘\([^’]*\)’ undeclared/\1/; s/unknown type name ‘\([^’]*\)’/\1/; s/request for member ‘\([^’]*\)’/->\1/; s/undefined reference to \`\([^']*\)'/\1/; s/fatal error: \([^ ]*\): No such/\1/" |
    awk '!seen[$0]++')
  for n in $names; do
    if [ "${n#->}" = "$n" ] && ! grep -qw "$n" "$pio_src/src/clib/pio_internal.h" &&
       grep -qw "$n" "$pio_src/src/clib/pio.h"; then
      public="$public${public:+, }$n"
    elif [ "$(echo "$internal" | tr -cd , | wc -c)" -lt 3 ]; then
      internal="$internal${internal:+, }$n"
    fi
  done
  [ -n "$internal" ] && echo -n "uses PIO's internal state or functions ($internal)"
  [ -n "$internal" ] && [ -n "$public" ] && echo -n "; "
  [ -n "$public" ] && echo -n "needs $public of PIO's pio.h"
  [ -z "$internal$public" ] && echo -n "$(grep -m1 error "$1" | cut -c1-120)"
  echo
}

# A code a test reports: the tests' own (pio_tests.h: ERR_WRONG and friends, a wrong value or
# result), else netCDF's or PIO's.
code_name() {
  case $1 in
    1109) echo "ERR_CHECK" ;;
    1110) echo "ERR_INIT" ;;
    1111) echo "ERR_AWFUL" ;;
    1112) echo "ERR_WRONG" ;;
    1113) echo "ERR_GPTL" ;;
    1114) echo "ERR_MPI" ;;
    1115) echo "ERR_MEM" ;;
    *) echo "error $1 ($("$work/strerror" "$1"))" ;;
  esac
}

# run FLAVOR TEST: prints "pass" or "FAIL: why".
run_one() {
  local flavor=$1 t=$2 dir=$work/$1/run/$2 log=$work/$1/log/$2.run rc
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && timeout -k 10 "$limit" $mpiexec -np "$np" "$work/$flavor/$t") > "$log" 2>&1
  rc=$?
  local late=
  [ $rc = 124 ] || [ $rc = 137 ] && late=" (then no end after ${limit} s)"
  if [ $rc = 0 ]; then
    echo pass
  elif grep -q 'esmio-pio-cunit: ' "$log"; then
    # The first function the layer lacks is why (a test whose tasks then part ways may hang).
    local f
    f=$(grep -o 'esmio-pio-cunit: [A-Za-z_0-9]*' "$log" | head -1 | cut -d' ' -f2)
    if grep -qw "$f" "$pio_src/src/clib/pio.h"; then
      echo "FAIL: calls $f, not in the layer$late"
    else
      echo "FAIL: calls $f, an internal function of PIO$late"
    fi
  elif grep -qE '^[0-9]+ (Async )?Error -?[0-9]+ in' "$log"; then
    # PIO's ERR macro: "rank Error code in file, line n"; the code is netCDF's, PIO's, or the
    # tests' own (1109-1115: ERR_WRONG and friends, a wrong value or result).
    local line code file where
    line=$(grep -m1 -E '^[0-9]+ (Async )?Error -?[0-9]+ in' "$log" | sed 's/ Async / /')
    code=$(echo "$line" | awk '{print $3}')
    file=$(echo "$line" | grep -o '[^ ,]*\.c' | head -1)
    where="$(basename "$file"):$(echo "$line" | sed 's/.*, line //')"
    echo "FAIL: $(code_name "$code") at $where$late"
  elif [ -n "$late" ]; then
    echo "FAIL: no end after ${limit} s"
  elif grep -q 'Exit code:' "$log"; then
    # A test that returns a code from main: the exit status is its low byte.
    local status
    status=$(grep -m1 'Exit code:' "$log" | awk '{print $3}')
    if [ "$status" -ge 85 ] && [ "$status" -le 91 ]; then
      echo "FAIL: returns $(code_name $((status + 1024)))"
    else
      echo "FAIL: returns $(code_name $((status - 256)))"
    fi
  else
    echo "FAIL: $(grep -m1 -E 'Error|error|failed|FAIL' "$log" | cut -c1-160)"
  fi
}

echo "PIO C unit tests from $pio_src on esmio's PIO layer in $build, $np tasks"
printf '| test | classic | netcdf4 |\n|---|---|---|\n'
npass=(0 0) ntotal=0
for t in $tests; do
  [ -e "$cunit/$t.c" ] || { printf '| %s | not in this PIO source | |\n' "$t"; continue; }
  ntotal=$((ntotal + 1))
  row="| $t "
  i=0
  for flavor in classic netcdf4; do
    mkdir -p "$work/$flavor/obj" "$work/$flavor/log"
    result=$(build_one $flavor "$t")
    [ "$result" = ok ] && result=$(run_one $flavor "$t")
    [ "$result" = pass ] && npass[$i]=$((npass[$i] + 1))
    row="$row| $result "
    i=$((i + 1))
  done
  echo "$row|"
done
internal=0
for t in $tests; do
  grep -q '#include <pio_internal.h>' "$cunit/$t.c" 2>/dev/null && internal=$((internal + 1))
done
echo "passed: ${npass[0]} of $ntotal (classic), ${npass[1]} of $ntotal (netcdf4);" \
  "$internal of them include pio_internal.h; logs in $work/{classic,netcdf4}/log"
