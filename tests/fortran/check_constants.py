"""The Fortran module's ESMIO_* constants equal esmio.h's, none is missing, and `use esmio`
makes every one of them public.

ESMIO_GLOBAL is the one intended difference (0 in Fortran, as NF90_GLOBAL; -1 in C).
Usage: check_constants.py esmio.h esmio_constants.F90 esmio.F90
"""
import re
import sys

header, constants, module = (open(p).read() for p in sys.argv[1:4])
c_values = {name: int(value) for name, value in
            re.findall(r"#define (ESMIO_[A-Z0-9_]+) \(?(-?\d+)\)?", header)}
c_values.update({name: int(value) for name, value in
                 re.findall(r"\b(ESMIO_[A-Z0-9_]+) = (\d+),?", header)})
f_values = {name: int(value) for name, value in
            re.findall(r"integer, parameter :: (ESMIO_[A-Z0-9_]+) = (-?\d+)", constants)}
public = set(re.findall(r"\bESMIO_[A-Z0-9_]+\b",
                        " ".join(re.findall(r"^\s*public ::(.*)$", module, re.M))))
version = {"ESMIO_VERSION_MAJOR", "ESMIO_VERSION_MINOR", "ESMIO_VERSION_PATCH"}
errors = []
for name, value in sorted(c_values.items()):
    if name in version:
        continue
    want = 0 if name == "ESMIO_GLOBAL" else value
    if name not in f_values:
        errors.append(f"{name} = {value} is missing from the Fortran module")
    elif f_values[name] != want:
        errors.append(f"{name}: Fortran {f_values[name]}, expected {want}")
for name in sorted(set(f_values) - set(c_values)):
    errors.append(f"{name} is in the Fortran module but not in esmio.h")
for name in sorted(set(f_values) - public):
    errors.append(f"{name} is not public in the esmio module")
for e in errors:
    print("FAIL:", e)
print(f"checked {len(c_values) - len(version)} constants:", "FAILED" if errors else "passed")
sys.exit(1 if errors else 0)
