#!/usr/bin/env bash
# Times one PIO model's history write against NCAR's ParallelIO and against esmio's PIO layer,
# with esmio-bench's native esmio variant beside them, and prints a table (docs/pio.md, "Speed").
# tools/pio_bench.c, which uses only PIO's public C API, is compiled twice: against an installed
# PIO (PIO_INSTALL_DIR/include/pio.h, -lpioc) and against esmio's layer (include/pio.h,
# -lesmio_pio -lesmio). Nothing of PIO is kept in this repository: build and install PIO 2.7.0
# (C only) first, as docs/pio.md shows.
#
#   tools/pio_compare.sh PIO_INSTALL_DIR ESMIO_BUILD_DIR [WORK_DIR]
#
# For each case and each number of tasks it runs ROUNDS rounds of the three programs in turn
# (pio, pio-layer, esmio), one timed write each, so that a shared machine's drift hits them
# alike; files go to WORK_DIR/files (default WORK_DIR /tmp/pio-compare), logs and esmio-bench's
# JSON to WORK_DIR/log. The last round keeps its files, and the three are compared value by
# value (ncdump -p 9,17 of the data, which prints every float exactly). Environment: CASES
# (default "cam-fvd:0.5 e3sm-f": case[:scale]), NPS ("1 2 4"), ROUNDS (5), IOTASKS (I/O
# tasks: default the smaller of the tasks and the cores, esmio's automatic choice on one node),
# MPIEXEC (mpirun --oversubscribe), MPICC (mpicc), CHECK (1: compare the files; the exit
# status is 1 if they differ). Not part of the test suite (it needs PIO).
set -u
if [ $# -lt 2 ]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
pio=$(cd "$1" && pwd) || exit 2
build=$(cd "$2" && pwd) || exit 2
work=${3:-/tmp/pio-compare}
repo=$(cd "$(dirname "$0")/.." && pwd)
cases=${CASES:-cam-fvd:0.5 e3sm-f}
nps=${NPS:-1 2 4}
rounds=${ROUNDS:-5}
mpicc=${MPICC:-mpicc}
mpiexec=${MPIEXEC:-mpirun --oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
piolib=$build/pio
[ -e "$piolib/libesmio_pio.so" ] || piolib=$build
bench=$build/tools/esmio-bench
for need in "$pio/include/pio.h" "$pio/lib/libpioc.so" "$piolib/libesmio_pio.so" "$bench"; do
  [ -e "$need" ] || { echo "pio_compare.sh: $need not found" >&2; exit 2; }
done
netcdf_inc=/usr/lib/x86_64-linux-gnu/netcdf/mpi/include
[ -d $netcdf_inc ] || netcdf_inc=$(pkg-config --variable=includedir netcdf-mpi 2>/dev/null)
netcdf_lib=$(pkg-config --libs netcdf-mpi 2>/dev/null || echo -lnetcdf_mpi)
mkdir -p "$work/log" "$work/files"

# The same source, two libraries.
flags="-O2 -Wall -Wextra ${netcdf_inc:+-I$netcdf_inc}"
$mpicc $flags -I"$pio/include" "$repo/tools/pio_bench.c" -o "$work/pio_bench.pio" \
  -L"$pio/lib" -Wl,-rpath,"$pio/lib" -lpioc $netcdf_lib -lm || exit 2
$mpicc $flags -I"$repo/include" "$repo/tools/pio_bench.c" -o "$work/pio_bench.layer" \
  -L"$piolib" -L"$build" -Wl,-rpath,"$piolib" -Wl,-rpath,"$build" -lesmio_pio -lesmio \
  $netcdf_lib -lm || exit 2

cores=$(nproc)
results=$work/log/results.txt
: > "$results"
status=0
echo "commit $(git -C "$repo" rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in $cases; do
  case_name=${spec%%:*}
  scale=1
  [ "$spec" != "$case_name" ] && scale=${spec#*:}
  for np in $nps; do
    iot=${IOTASKS:-$((np < cores ? np : cores))}
    for r in $(seq 1 "$rounds"); do
      keep=
      [ "$r" = "$rounds" ] && keep=--keep
      for lib in pio layer; do
        log=$work/log/$case_name-np$np-$lib-$r.log
        $mpiexec -np "$np" "$work/pio_bench.$lib" "$case_name" --scale "$scale" --repeat 1 \
          --iotasks "$iot" --dir "$work/files" --data "$repo/tests/data" --label "$lib" $keep \
          > "$log" 2>&1 || { echo "pio_compare.sh: see $log" >&2; exit 1; }
        grep '^result ' "$log" | sed "s/^result /result round=$r /" >> "$results"
      done
      dir=$work/files/esmio-$case_name-np$np
      mkdir -p "$dir"
      json=$work/log/$case_name-np$np-esmio-$r.json
      ESMIO_BENCH_DATA=$repo/tests/data $mpiexec -np "$np" "$bench" "$case_name" \
        --scale "$scale" --repeat 1 --variants esmio --iotasks "$iot" --dir "$dir" \
        --json "$json" $keep > "$work/log/$case_name-np$np-esmio-$r.log" 2>&1 ||
        { echo "pio_compare.sh: see $work/log/$case_name-np$np-esmio-$r.log" >&2; exit 1; }
      /usr/bin/python3 - "$json" "$r" "$iot" >> "$results" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
res = [x for x in run["results"] if x["variant"] == "esmio" and x["operation"] == "write"][0]
if res.get("error") or not res.get("verified"):
    sys.exit("esmio-bench: " + str(res.get("error") or res.get("verify_note")))
print("result round=%s label=esmio case=%s np=%d iotasks=%s repeat=1 median=%.4f min=%.4f "
      "max=%.4f peak_mib=%s baseline_mib=%s" % (
          sys.argv[2], res["case"], res["ranks"], sys.argv[3], res["seconds"][0],
          res["seconds"][0], res["seconds"][0],
          ",".join("%.1f" % v for v in res["peak_rss_mib"]),
          ",".join("%.1f" % v for v in res["baseline_rss_mib"])))
EOF
      tail -3 "$results" | cut -d' ' -f2-8 | sed 's/^/  /'
    done
    if [ "${CHECK:-1}" = 1 ]; then
      # ncdump's data section at full float precision; the headers may differ (attributes).
      sums=
      for f in "$work/files/pio_bench-$case_name-pio.nc" "$work/files/pio_bench-$case_name-layer.nc" \
        "$dir"/*.nc; do
        sums="$sums $(ncdump -p 9,17 "$f" | sed '1,/^data:/d' | md5sum | cut -c1-12)"
      done
      set -- $sums
      verdict=differ
      [ $# = 3 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ] && verdict=agree
      [ $verdict = agree ] || status=1
      echo "files $case_name np=$np: pio, pio-layer, esmio data $verdict ($sums )" >> "$results"
      tail -1 "$results"
    fi
    rm -f "$work/files/pio_bench-$case_name-"*.nc "$dir"/*.nc
  done
done

# The table: median [min, max] seconds over the rounds; the median CPU seconds of all ranks
# during the write (pio_bench only: esmio-bench does not count them); peak (VmHWM during the
# write) and the baseline before it, MiB, the largest over ranks and rounds.
/usr/bin/python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("result "):
        continue
    kv = dict(f.split("=", 1) for f in line.split()[1:])
    key = (kv["case"], int(kv["np"]), kv["label"])
    r = rows.setdefault(key, {"s": [], "cpu": [], "peak": 0.0, "base": 0.0, "iot": kv["iotasks"]})
    r["s"].append(float(kv["median"]))
    if "cpu" in kv:
        r["cpu"].append(float(kv["cpu"]))
    r["peak"] = max(r["peak"], max(float(v) for v in kv["peak_mib"].split(",")))
    r["base"] = max(r["base"], max(float(v) for v in kv["baseline_mib"].split(",")))
print("| case | tasks (I/O) | program | seconds: median [min, max] | / PIO | CPU s (all ranks) "
      "| peak MiB per rank (max) | baseline MiB |")
print("|---|---|---|---|---|---|---|---|")
names = {"pio": "PIO 2.7.0", "layer": "esmio's PIO layer", "esmio": "esmio (native)"}
for (case, np, label) in sorted(rows, key=lambda k: (k[0], k[1], ["pio", "layer", "esmio"].index(k[2]))):
    r = rows[(case, np, label)]
    s = sorted(r["s"])
    pio = rows.get((case, np, "pio"))
    ratio = statistics.median(s) / statistics.median(pio["s"]) if pio else float("nan")
    cpu = "%.3f" % statistics.median(r["cpu"]) if r["cpu"] else "-"
    print("| %s | %d (%s) | %s | %.3f [%.3f, %.3f] | %.2f | %s | %.0f | %.0f |" % (
        case, np, r["iot"], names[label], statistics.median(s), s[0], s[-1], ratio, cpu,
        r["peak"], r["base"]))
EOF
grep '^files ' "$results"
echo "raw results: $results; logs: $work/log"
exit $status
