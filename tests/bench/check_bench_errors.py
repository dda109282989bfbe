#!/usr/bin/python3
"""esmio-bench's answers to a bad command line: one clear message, exit status 2 on every rank,
and nothing from the MPI runtime (no MPI_Abort and its noise).

usage: check_bench_errors.py unknown-case BENCH -- LAUNCH...
       check_bench_errors.py bad-dir OPTION -- COMMAND...

unknown-case: LAUNCH (mpiexec -n 1) runs BENCH with a case no table holds; the message must
name every case that BENCH --help lists under "Cases:", and no other.
bad-dir: COMMAND is run with OPTION (--dir or --trace) set to a directory whose parent does not
exist; the message must name that option and directory, once.
"""
import os
import re
import subprocess
import sys
import tempfile

# What the MPI runtime prints when a job ends through MPI_Abort or a rank fails.
MPI_NOISE = ("MPI_ABORT", "ORTE_ERROR_LOG", "Data unpack would read past end of buffer",
             "exited on signal",
             "mpirun has exited due to process")


def fail(msg, out=None):
    sys.stderr.write("check_bench_errors: FAIL: %s\n" % msg)
    if out is not None:
        sys.stderr.write("--- output ---\n%s\n" % out)
    sys.exit(1)


def start(command):
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)


def finish(proc):
    """The exit status and output of a command start() began (killed after 100 s, as run's)."""
    try:
        out, _ = proc.communicate(timeout=100)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, out


def run(command):
    return finish(start(command))


def check_clean_exit(rc, out, pattern):
    if rc != 2:
        fail("exit status %d, expected 2" % rc, out)
    for noise in MPI_NOISE:
        if noise in out:
            fail("the MPI runtime's noise '%s' in the output" % noise, out)
    found = [line for line in out.splitlines() if re.search(pattern, line)]
    if len(found) != 1:
        fail("%d lines match %r, expected one" % (len(found), pattern), out)
    return found[0]


def help_cases(rc, out):
    if rc != 0:
        fail("--help exited with %d" % rc, out)
    m = re.search(r"^Cases:\n(.*?)\n\n", out, re.S | re.M)
    if not m:
        fail("no 'Cases:' section in --help", out)
    names = re.findall(r"^  (\S+)", m.group(1), re.M)
    if len(names) < 2:
        fail("too few cases under 'Cases:' in --help", out)
    return names


def unknown_case(bench, launch):
    # The two runs are independent: they run at the same time (each is mostly MPI's start).
    helping, unknown = start(launch + [bench, "--help"]), start(launch + [bench, "no-such-case"])
    want = help_cases(*finish(helping))
    rc, out = finish(unknown)
    line = check_clean_exit(rc, out, r"unknown case 'no-such-case'")
    m = re.search(r"unknown case 'no-such-case' \(([^)]*)\)", line)
    if not m:
        fail("the message lists no cases: %s" % line)
    listed = [name.strip() for name in m.group(1).split(",")]
    if sorted(listed) != sorted(want):
        fail("the message lists %s; --help lists %s" % (listed, want))
    print("unknown case: one message listing the %d cases of --help, exit 2, no MPI noise"
          % len(want))


def bad_dir(option, command):
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "missing-parent", "out")
        rc, out = run(command + [option, target])
    line = check_clean_exit(rc, out, r"cannot create")
    if option not in line or target not in line:
        fail("the message does not name %s %s: %s" % (option, target, line))
    print("%s in a missing directory: one message, exit 2 on every rank, no MPI noise" % option)


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        fail(__doc__)
    sep = argv.index("--")
    mode, args, command = argv[1], argv[2:sep], argv[sep + 1:]
    if mode == "unknown-case" and len(args) == 1:
        unknown_case(args[0], command)
    elif mode == "bad-dir" and len(args) == 1:
        bad_dir(args[0], command)
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv)
