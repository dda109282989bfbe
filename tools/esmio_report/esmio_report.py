#!/usr/bin/python3
"""esmio-report: where the I/O time went, from an esmio trace (ESMIO_TRACE=trace.json).

    esmio-report trace.json [-o report.html] [--text] [--png out.png] [--trace-events out.json]

The code is the package esmio_report/ beside this script (source tree), or under
../share/esmio/esmio-report/ (installed as bin/esmio-report); ESMIO_REPORT_LIB overrides both.
"""
import os
import sys

here = os.path.dirname(os.path.realpath(__file__))
for lib in (os.environ.get("ESMIO_REPORT_LIB"), here,
            os.path.join(here, os.pardir, "share", "esmio", "esmio-report")):
    if lib and os.path.isfile(os.path.join(lib, "esmio_report", "cli.py")):
        sys.path.insert(0, os.path.abspath(lib))
        break

from esmio_report.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
