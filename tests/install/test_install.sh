#!/bin/bash
# Installs esmio from the build tree into a fresh prefix, then builds a tiny C program and its
# Fortran twin outside the tree, each twice -- with pkg-config and with find_package(esmio) --
# and runs each on 2 ranks: all four files must be the same. Then both again, linked with an rpath
# as the README says, run without LD_LIBRARY_PATH.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/esmio_install_XXXXXX)
# (after the consumers below that run in the background, should they still run)
trap 'wait; rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

libdir=$(dirname "$(find "$prefix" -name 'libesmio.so' | head -1)")
for f in "$libdir/libesmio.so.0" "$libdir/pkgconfig/esmio.pc" "$libdir/cmake/esmio/esmioConfig.cmake" \
         "$prefix/include/esmio.h" "$libdir/libesmio_fortran.so.0" "$libdir/pkgconfig/esmio-fortran.pc" \
         "$libdir/cmake/esmio/esmioFortranTargets.cmake" "$prefix/include/esmio.mod" \
         "$libdir/libesmio_pio.so.0" "$libdir/pkgconfig/esmio_pio.pc" "$prefix/include/pio.h" \
         "$libdir/libesmio_piof.so.0" "$libdir/pkgconfig/esmio_piof.pc" "$prefix/include/pio.mod"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
soname=$(objdump -p "$libdir/libesmio.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libesmio.so.0" ] || { echo "FAIL: SONAME is '$soname'"; exit 1; }
# No path of the build tree in what is installed: not in a RUNPATH, not in the constants.
plugin=$libdir/esmio/hdf5-plugins/libesmio_h5zstd.so
[ -e "$plugin" ] || { echo "FAIL: $plugin not installed"; exit 1; }
build_abs=$(cd "$build" && pwd)
for f in "$libdir/libesmio.so" "$libdir/libesmio_fortran.so" "$libdir/libesmio_pio.so" \
         "$libdir/libesmio_piof.so" "$plugin"; do
  if readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -q "$build_abs"; then
    echo "FAIL: $f has a RUNPATH into the build tree:"; readelf -d "$f" | grep -E 'RPATH|RUNPATH'; exit 1
  fi
  if readelf -p .rodata "$f" 2>/dev/null | grep -q "$build_abs"; then
    echo "FAIL: $f holds the build tree's path in its constants"; exit 1
  fi
done

mpirun_=(mpirun --oversubscribe -np 2)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

export PKG_CONFIG_PATH=$libdir/pkgconfig

# The four find_package(esmio) projects (2, 4, 6 and 7 below) are configured and built in the
# background from here on, two at a time (CMake's configure step takes seconds, mostly its
# compiler checks), while the pkg-config programs are built and run; each is waited for where
# its program runs. consumer DIR SOURCE TAG: configure.log/build.log with _TAG.
consumer() {
  cmake -S "$src/tests/install/$1" -B "$work/$1" -DCMAKE_PREFIX_PATH="$prefix" \
    -DHELLO_SOURCE="$src/tests/install/$2" > "$work/configure$3.log" &&
    cmake --build "$work/$1" > "$work/build$3.log"
}
{ consumer consumer hello_esmio.c "" && consumer consumer_pio hello_pio.c _pio; } &
consumers_c=$!
{ consumer consumer_fortran hello_esmio.f90 _f && consumer consumer_piof hello_pio.f90 _piof; } &
consumers_f=$!
wait_for() { wait "$1" || { echo "FAIL: $2 did not configure and build:"; tail -n 20 "$work"/*.log; exit 1; }; }

# 1. pkg-config, with the MPI compiler wrapper (as esmio.pc says).
[ "$(pkg-config --modversion esmio)" = "$(awk '/ESMIO_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $3; sep="."}' "$prefix/include/esmio.h")" ] \
  || { echo "FAIL: pkg-config version differs from the header"; exit 1; }
# The installed esmio command finds its library by itself (RUNPATH $ORIGIN/../lib).
[ "$(env -u LD_LIBRARY_PATH "$prefix/bin/esmio" --version)" = "esmio $(pkg-config --modversion esmio)" ] \
  || { echo "FAIL: esmio --version: $("$prefix/bin/esmio" --version 2>&1)"; exit 1; }
mpicc -o "$work/hello_pc" "$src/tests/install/hello_esmio.c" $(pkg-config --cflags --libs esmio)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/hello_pc" "$work/pc.nc"
ncdump -h "$work/pc.nc" > /dev/null

# 2. find_package(esmio) in a CMake project of its own (with 6's, in the background).
wait_for $consumers_c "tests/install/consumer or consumer_pio"
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/consumer/hello_esmio" "$work/cmake.nc"
cmp <(ncdump "$work/pc.nc" | tail -n +2) <(ncdump "$work/cmake.nc" | tail -n +2)

# 3. The Fortran twin, with mpif90 and pkg-config esmio-fortran.
mpif90 -o "$work/hello_f_pc" "$src/tests/install/hello_esmio.f90" $(pkg-config --cflags --libs esmio-fortran)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/hello_f_pc" "$work/f_pc.nc"
cmp "$work/pc.nc" "$work/f_pc.nc"

# 4. The Fortran twin with find_package(esmio COMPONENTS fortran) (with 7's, in the background).
wait_for $consumers_f "tests/install/consumer_fortran or consumer_piof"
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/consumer_fortran/hello_esmio_f" "$work/f_cmake.nc"
cmp "$work/pc.nc" "$work/f_cmake.nc"
# 5. The README's link line: with an rpath to pkg-config's libdir the programs start without
# LD_LIBRARY_PATH (C, and Fortran, whose libesmio_fortran finds libesmio beside it).
rpath=-Wl,-rpath,$(pkg-config --variable=libdir esmio)
mpicc -o "$work/hello_rpath" "$src/tests/install/hello_esmio.c" $(pkg-config --cflags --libs esmio) "$rpath"
env -u LD_LIBRARY_PATH "${mpirun_[@]}" "$work/hello_rpath" "$work/rpath.nc"
cmp "$work/pc.nc" "$work/rpath.nc"
mpif90 -o "$work/hello_f_rpath" "$src/tests/install/hello_esmio.f90" \
  $(pkg-config --cflags --libs esmio-fortran) "$rpath"
env -u LD_LIBRARY_PATH "${mpirun_[@]}" "$work/hello_f_rpath" "$work/f_rpath.nc"
cmp "$work/pc.nc" "$work/f_rpath.nc"
# 6. A PIO program (pio.h, PIOc_*): with pkg-config esmio_pio, and with find_package(esmio) and
# esmio::pio; the two files must be the same.
mpicc -o "$work/hello_pio_pc" "$src/tests/install/hello_pio.c" $(pkg-config --cflags --libs esmio_pio)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/hello_pio_pc" "$work/pio_pc.nc"
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/consumer_pio/hello_pio" "$work/pio_cmake.nc"
cmp <(ncdump "$work/pio_pc.nc" | tail -n +2) <(ncdump "$work/pio_cmake.nc" | tail -n +2)
# 7. The PIO program's Fortran twin (use pio): with mpif90 and pkg-config esmio_piof, and with
# find_package(esmio) and esmio::piof; the same file as the C program's.
mpif90 -o "$work/hello_pio_f_pc" "$src/tests/install/hello_pio.f90" $(pkg-config --cflags --libs esmio_piof)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/hello_pio_f_pc" "$work/pio_f_pc.nc"
cmp <(ncdump "$work/pio_pc.nc" | tail -n +2) <(ncdump "$work/pio_f_pc.nc" | tail -n +2)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/consumer_piof/hello_pio_f" "$work/pio_f_cmake.nc"
cmp <(ncdump "$work/pio_pc.nc" | tail -n +2) <(ncdump "$work/pio_f_cmake.nc" | tail -n +2)
echo "PASS: installed esmio $(pkg-config --modversion esmio) found by pkg-config and find_package, from C, Fortran and PIO's C and Fortran interfaces"
