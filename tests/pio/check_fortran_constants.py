"""The integer constants of `use pio` (pio/fortran/esmio_pio_types.F90) equal pio.h's, whose
values are PIO's own or netCDF's (netcdf.h), so that a Fortran and a C model agree on every
iotype, mode, type and error code.

Two differences are PIO's own: PIO_GLOBAL is 0 in Fortran (ids start at 1, as in
netCDF-Fortran) and -1 in C, and PIO_MAX_VAR_DIMS is 6 in PIO's Fortran module. A Fortran name
that pio.h lacks is compared with netCDF's NC_ name of the same suffix (PIO_CHUNKED).
Usage: check_fortran_constants.py pio.h netcdf.h esmio_pio_types.F90
"""
import re
import sys

pio_h, netcdf_h, module = (open(p).read() for p in sys.argv[1:4])


def number(text):
    text = text.strip().strip("()").rstrip("LlUu")
    return int(text, 16) if text.lower().startswith(("0x", "-0x")) else int(text)


nc = {}
for name, value in re.findall(r"#define\s+(NC_\w+)\s+\(?\s*(-?(?:0x[0-9a-fA-F]+|\d+)L?)\s*\)?\s*(?:/|$)",
                              netcdf_h, re.M):
    nc[name] = number(value)
c = {}
for name, value in re.findall(r"#define\s+(PIO_\w+)\s+(\S+)", pio_h):
    if value in nc:
        c[name] = nc[value]
    elif re.fullmatch(r"\(?-?\d+\)?", value):
        c[name] = number(value)
for body in re.findall(r"enum\s+\w*\s*\{(.*?)\}", pio_h, re.S):
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    next_value = 0
    for item in filter(None, (i.strip() for i in body.split(","))):
        name, _, value = item.partition("=")
        next_value = number(value) if value else next_value
        c[name.strip()] = next_value
        next_value += 1

fortran = {}
for line in re.findall(r"^\s*integer, parameter, public ::(.*)$", module, re.M):
    for name, value in re.findall(r"(\w+)\s*=\s*(-?\d+)\b", line):
        fortran[name.upper()] = int(value)

own = {"PIO_GLOBAL": 0, "PIO_MAX_VAR_DIMS": 6}
errors = []
checked = 0
for name, value in sorted(fortran.items()):
    if not name.startswith("PIO_"):
        continue
    want = own.get(name, c.get(name, nc.get("NC_" + name[4:])))
    if want is None:
        errors.append(f"{name} = {value} has no counterpart in pio.h or netcdf.h")
    elif value != want:
        errors.append(f"{name}: Fortran {value}, C {want}")
    checked += 1
for e in errors:
    print("FAIL:", e)
print(f"checked {checked} constants:", "FAILED" if errors else "passed")
sys.exit(1 if errors or checked == 0 else 0)
