"""A folder of src/ is a layer and includes only the layers below it (DESIGN.md).

The table says which folders each folder may include; an include of any other folder of src/
(an upward or sideways one) fails the check, naming the file and line. A folder missing from
the table fails too, so that a new layer gets its place on purpose.
Usage: check_layers.py SRC_DIR
"""
import os
import re
import sys

# Lowest first. datapath: the one data path the API and the I/O servers both call.
ALLOWED = {
    "common": set(),
    "codec": {"common"},
    "convert": {"common"},
    "decomp": {"common"},
    "quantize": {"common"},
    "stage": {"common"},
    "rearrange": {"common", "decomp"},
    "backend": {"common", "codec", "decomp"},
    "trace": {"common", "backend"},
    "aggregate": {"common", "backend", "convert", "decomp", "quantize", "rearrange", "trace"},
    # datapath: the one data path, the Engine interface every file's calls go through, and the
    # local engine; stage for publishing a closed file (atomic rename, staged copy-back).
    "datapath": {"common", "aggregate", "backend", "codec", "convert", "decomp", "quantize",
                 "rearrange", "stage", "trace"},
    # async: the message protocol, the compute ranks' ring, the server loop and the forwarding
    # engine. The servers replay calls through the public C API (include/esmio.h) of an instance
    # of their own, so that both modes run the same entry points and data path; the forwarding
    # engine implements datapath's Engine (and converts values before they travel).
    "async": {"common", "convert", "datapath", "trace"},
    # api: entry points only. It hands every file call to the file's Engine and every instance
    # call to the instance's InstanceEngine (datapath/engine.hpp, instance_engine.hpp) and keeps
    # what checking the caller's arguments and settings needs: aggregate (the cache setting's
    # parser), codec (the storage settings' parsers, the zstd tally of the trace), convert
    # (which conversions exist), decomp (decompositions from maps and files, the partition of
    # default chunks) and stage (the staged and copy names of a path); async for esmio_init
    # alone, which picks the forwarding instance engine or runs an I/O server's loop.
    "api": {"common", "aggregate", "async", "codec", "convert", "datapath", "decomp", "stage",
            "trace"},
}

src = sys.argv[1]
errors = []
for folder in sorted(os.listdir(src)):
    if not os.path.isdir(os.path.join(src, folder)):
        continue
    if folder not in ALLOWED:
        errors.append(f"src/{folder}/ has no place in the layer table of {__file__}")
        continue
    for root, _, files in os.walk(os.path.join(src, folder)):
        for name in sorted(files):
            path = os.path.join(root, name)
            with open(path, errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
                    if m and m.group(1) != folder and m.group(1) in ALLOWED \
                            and m.group(1) not in ALLOWED[folder]:
                        rel = os.path.relpath(path, os.path.dirname(src))
                        errors.append(f"{rel}:{number}: {folder}/ includes {m.group(1)}/, "
                                      f"which is not below it")
for e in errors:
    print("FAIL:", e)
print(f"layers: {len(ALLOWED)} folders checked:", "FAILED" if errors else "passed")
sys.exit(1 if errors else 0)
