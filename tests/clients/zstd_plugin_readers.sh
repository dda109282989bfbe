#!/bin/bash
# Client test: a netCDF-4 file written with esmio's Zstandard filter (HDF5 id 32015) is read by
# real readers linked to Debian's serial libhdf5 (ncdump, python netCDF4, CDO) through the plugin
# libesmio_h5zstd.so, and only through it.
#
#   zstd_plugin_readers.sh ZSTD_WRITER PLUGIN_SO PYTHON OUTDIR
#
# HDF5_PLUGIN_PATH (ctest sets it) must name PLUGIN_SO's directory. Checks, in order:
#   - the plugin needs libzstd and no libhdf5 or MPI, and exports the two H5PL entry points
#   - the writer runs without HDF5_PLUGIN_PATH, so that esmio's in-process registration is
#     what compresses (with the plugin path set, HDF5 would load the plugin instead)
#   - ncdump -hs shows _Filter = "32015,LEVEL" on every variable
#   - ncdump prints T and n as the formula gives them; python netCDF4 reads time, T and n bit for
#     bit equal to the formula
#   - cdo diffn finds no difference to an uncompressed reference that python writes from the
#     formula, and does find a one-ulp change in one value of T (so that the comparison can fail)
#   - without HDF5_PLUGIN_PATH, ncdump, python and cdo all fail to read the data
# Set ESMIO_CLIENTS_KEEP=1 to keep OUTDIR.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 ZSTD_WRITER PLUGIN_SO PYTHON OUTDIR" >&2
  exit 2
fi
writer=$1 plugin=$2 py=$3 out=$4
level=5

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok   $*"; }
for tool in ncdump cdo ldd nm; do
  command -v $tool >/dev/null || fail "$tool not found (run make deps)"
done
[ -x "$writer" ] || fail "writer '$writer' not built"
[ -f "$plugin" ] || fail "plugin '$plugin' not built"
plugin_dir=$(cd "$(dirname "$plugin")" && pwd)
[ "${HDF5_PLUGIN_PATH:-}" = "$plugin_dir" ] ||
  fail "HDF5_PLUGIN_PATH='${HDF5_PLUGIN_PATH:-}', expected '$plugin_dir'"

rm -rf "$out"
mkdir -p "$out"
file=$out/zstd.nc ref=$out/ref.nc ref_ulp=$out/ref_ulp.nc

# --- the plugin itself ------------------------------------------------------------------------
deps=$(ldd "$plugin")
grep -q 'libzstd\.so' <<<"$deps" || fail "plugin does not link libzstd: $deps"
if grep -Eq 'hdf5|libmpi' <<<"$deps"; then fail "plugin links HDF5 or MPI: $deps"; fi
syms=$(nm -D --defined-only "$plugin")
for sym in H5PLget_plugin_type H5PLget_plugin_info; do
  grep -qw "$sym" <<<"$syms" || fail "plugin does not export $sym"
done
ok "$(basename "$plugin") links $(grep -o 'libzstd[^ ]*' <<<"$deps" | head -1) and no libhdf5, exports H5PLget_plugin_{type,info}"

# --- write ------------------------------------------------------------------------------------
env -u HDF5_PLUGIN_PATH "$writer" "$file" $level || fail "writer failed"
ok "written with the in-process filter: $file ($(stat -c %s "$file") bytes)"

# --- header -----------------------------------------------------------------------------------
header=$(ncdump -hs "$file") || fail "ncdump -hs failed"
for var in time T n; do
  grep -Eq "^[[:space:]]+$var:_Filter = \"32015,$level\" ;" <<<"$header" ||
    fail "ncdump -hs shows no _Filter = \"32015,$level\" for $var:"$'\n'"$header"
done
ok "ncdump -hs: $(grep -F 'T:_Filter' <<<"$header" | sed 's/^[[:space:]]*//')"

# --- values -----------------------------------------------------------------------------------
# The formula of zstd_writer.cpp, shared by the python snippets below.
formula='
import numpy as np
NT, NLAT, NLON = 3, 96, 192
t, j, i = np.ogrid[0:NT, 0:NLAT, 0:NLON]
T = (((i * i + 3 * j * j + 17 * t + i * j) % 251 - 125) / 8).astype(np.float32)
n = (1000 * np.arange(NLON)[None, :] + np.arange(NLAT)[:, None]).astype(np.int32)
time = np.arange(NT, dtype=np.float64)
'

ncdump -v T,n "$file" >"$out/ncdump.txt" || fail "ncdump of the data failed"
"$py" - "$out/ncdump.txt" <<EOF || fail "ncdump's values differ from the formula"
import re, sys
$formula
text = open(sys.argv[1]).read().split("data:", 1)[1]
for name, want in (("T", T), ("n", n)):
    body = re.search(r"\b%s =(.*?);" % name, text, re.S).group(1)
    got = np.array([float(x) for x in body.replace(",", " ").split()])
    if got.size != want.size or not np.array_equal(got, want.ravel().astype(np.float64)):
        sys.exit("%s: %d values, %d differ" % (name, got.size, np.count_nonzero(got != want.ravel())))
print("ok   ncdump prints T (%d values) and n (%d values) as the formula gives them"
      % (T.size, n.size))
EOF

"$py" - "$file" "$ref" "$ref_ulp" <<EOF || fail "python netCDF4 check failed"
import sys
import netCDF4
$formula
path, ref, ref_ulp = sys.argv[1:4]
with netCDF4.Dataset(path) as ds:
    for name, want in (("time", time), ("T", T), ("n", n)):
        got = ds[name][:]
        got = got.filled() if hasattr(got, "filled") else got
        if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
            sys.exit("FAIL python netCDF4: %s differs from the formula" % name)
    units = ds["time"].units
print("ok   python netCDF4 %s reads time, T, n bit for bit equal to the formula"
      % netCDF4.__version__)

# Uncompressed references for cdo diffn: the formula, and the formula with T's last value one
# ulp larger.
for out, bump in ((ref, False), (ref_ulp, True)):
    with netCDF4.Dataset(out, "w", format="NETCDF4") as ds:
        ds.createDimension("time", None)
        ds.createDimension("lat", NLAT)
        ds.createDimension("lon", NLON)
        tv = ds.createVariable("time", "f8", ("time",))
        tv.units = units
        tv[:] = time
        v = ds.createVariable("T", "f4", ("time", "lat", "lon"))
        v.units = "K"
        data = T.copy()
        if bump:
            data[-1, -1, -1] = np.nextafter(data[-1, -1, -1], np.float32(np.inf))
        v[:] = data
        ds.createVariable("n", "i4", ("lat", "lon"))[:] = n
EOF

# --- cdo --------------------------------------------------------------------------------------
# CDO 2.1 diffn: equal -> exit 0, no output; different -> exit 1, "N of M records differ".
if ! diff_out=$(cdo -s diffn "$file" "$ref" 2>&1); then
  fail "cdo diffn zstd.nc ref.nc failed or found differences: $diff_out"
fi
grep -qi 'differ' <<<"$diff_out" && fail "cdo diffn zstd.nc ref.nc: $diff_out"
ok "cdo diffn: zstd.nc equals the uncompressed reference"
if diff_out=$(cdo -s diffn "$file" "$ref_ulp" 2>&1); then
  fail "cdo diffn did not see a one-ulp change: '$diff_out'"
fi
grep -Eq '1 of [0-9]+ records differ' <<<"$diff_out" || fail "cdo diffn with a one-ulp change: $diff_out"
ok "cdo diffn sees the one-ulp change: $(grep -E 'records differ' <<<"$diff_out" | head -1 | sed 's/^ *//')"

# --- without the plugin -----------------------------------------------------------------------
if msg=$(env -u HDF5_PLUGIN_PATH ncdump -v T "$file" 2>&1 >/dev/null); then
  fail "ncdump read the data without HDF5_PLUGIN_PATH"
fi
grep -qi 'filter' <<<"$msg" || fail "ncdump without the plugin failed for another reason: $msg"
ok "without HDF5_PLUGIN_PATH ncdump fails: $(head -1 <<<"$msg")"

env -u HDF5_PLUGIN_PATH "$py" - "$file" <<'EOF' || fail "python netCDF4 without the plugin"
import sys
import netCDF4
with netCDF4.Dataset(sys.argv[1]) as ds:
    try:
        ds["T"][:]
    except RuntimeError as e:
        if "filter" not in str(e).lower():
            sys.exit("FAIL python failed for another reason: %s" % e)
        print("ok   without HDF5_PLUGIN_PATH python netCDF4 fails: %s" % e)
    else:
        sys.exit("FAIL python read T without HDF5_PLUGIN_PATH")
EOF

if msg=$(env -u HDF5_PLUGIN_PATH cdo -s infon "$file" 2>&1); then
  fail "cdo read the data without HDF5_PLUGIN_PATH"
fi
grep -qi 'filter' <<<"$msg" || fail "cdo without the plugin failed for another reason: $msg"
ok "without HDF5_PLUGIN_PATH cdo fails: $(grep -i 'filter' <<<"$msg" | head -1)"

if [ -n "${ESMIO_CLIENTS_KEEP:-}" ]; then
  echo "kept $out"
else
  rm -rf "$out"
fi
