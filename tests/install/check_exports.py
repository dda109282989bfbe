"""libesmio.so exports the functions that include/esmio.h marks ESMIO_API, and nothing else: no
esmio:: internals, no template instantiations, nothing a program could come to depend on by
accident. Every C function the bindings call (python/esmio, the Fortran module's
bind(C, name=...)) must be among them.

Usage: check_exports.py LIBESMIO_SO SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

library, source = sys.argv[1:3]
out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True,
                     text=True).stdout
exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
header = open(os.path.join(source, "include", "esmio.h")).read()
public = set(re.findall(r"\bESMIO_API\b[^;(]*?\b(esmio_\w+)\s*\(", header))
python = set(re.findall(r'"(esmio_\w+)": \(',
                        open(os.path.join(source, "python", "esmio", "_lib.py")).read()))
fortran = set()
for path in glob.glob(os.path.join(source, "fortran", "*.F90")):
    fortran |= set(re.findall(r'bind\(C,\s*name="(esmio_\w+)"\)', open(path).read()))

errors = [f"{name} is exported but is not an ESMIO_API function of esmio.h"
          for name in sorted(exported - public)]
errors += [f"{name} is declared ESMIO_API in esmio.h but not exported"
           for name in sorted(public - exported)]
errors += [f"{name}, which the Python binding calls, is not exported"
           for name in sorted(python - exported)]
errors += [f"{name}, which the Fortran module calls, is not exported"
           for name in sorted(fortran - exported)]
if not public:
    errors.append("no ESMIO_API function found in esmio.h")
for e in errors:
    print("FAIL:", e)
print(f"{library}: {len(exported)} symbols exported, {len(public)} public functions "
      f"({len(python)} called from Python, {len(fortran)} from Fortran):",
      "FAILED" if errors else "passed")
sys.exit(1 if errors else 0)
