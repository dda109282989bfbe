#!/bin/bash
# Installs esmio from the build tree into a fresh prefix, then builds a tiny C program outside
# the tree twice -- with pkg-config and with find_package(esmio) -- and runs each on 2 ranks.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d /tmp/esmio_install_XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

libdir=$(dirname "$(find "$prefix" -name 'libesmio.so' | head -1)")
for f in "$libdir/libesmio.so.0" "$libdir/pkgconfig/esmio.pc" "$libdir/cmake/esmio/esmioConfig.cmake" \
         "$prefix/include/esmio.h"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
soname=$(objdump -p "$libdir/libesmio.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libesmio.so.0" ] || { echo "FAIL: SONAME is '$soname'"; exit 1; }
# No path of the build tree in what is installed: not in a RUNPATH, not in the constants.
plugin=$libdir/esmio/hdf5-plugins/libesmio_h5zstd.so
[ -e "$plugin" ] || { echo "FAIL: $plugin not installed"; exit 1; }
build_abs=$(cd "$build" && pwd)
for f in "$libdir/libesmio.so" "$plugin"; do
  if readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -q "$build_abs"; then
    echo "FAIL: $f has a RUNPATH into the build tree:"; readelf -d "$f" | grep -E 'RPATH|RUNPATH'; exit 1
  fi
  if readelf -p .rodata "$f" 2>/dev/null | grep -q "$build_abs"; then
    echo "FAIL: $f holds the build tree's path in its constants"; exit 1
  fi
done

mpirun_=(mpirun --oversubscribe -np 2)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# 1. pkg-config, with the MPI compiler wrapper (as esmio.pc says).
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion esmio)" = "$(awk '/ESMIO_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $3; sep="."}' "$prefix/include/esmio.h")" ] \
  || { echo "FAIL: pkg-config version differs from the header"; exit 1; }
mpicc -o "$work/hello_pc" "$src/tests/install/hello_esmio.c" $(pkg-config --cflags --libs esmio)
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/hello_pc" "$work/pc.nc"
ncdump -h "$work/pc.nc" > /dev/null

# 2. find_package(esmio) in a CMake project of its own.
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DHELLO_SOURCE="$src/tests/install/hello_esmio.c" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
LD_LIBRARY_PATH=$libdir "${mpirun_[@]}" "$work/consumer/hello_esmio" "$work/cmake.nc"
cmp <(ncdump "$work/pc.nc" | tail -n +2) <(ncdump "$work/cmake.nc" | tail -n +2)
echo "PASS: installed esmio $(pkg-config --modversion esmio) found by pkg-config and find_package"
