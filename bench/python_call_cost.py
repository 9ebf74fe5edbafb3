#!/usr/bin/env python3
"""What mpidle adds to an MPI call made from Python (issue 43), in ns per call.

An mpi4py loop on 2 ranks of Open MPI (Debian's mpi4py is built for it), run with
Debian's /usr/bin/python3 bare, under the null interposer (every call only
forwarded to its PMPI name: the floor of any PMPI tool) and under libmpidle.so,
alternating, R rounds (default 7). Each run times N calls of comm.Iprobe() with
nothing pending (an untimed poll: mpidle's cheapest path, where the Python line
is what costs) and N comm.Sendrecv() of 8 bytes between the two ranks (a timed
call), from one line each. Reports the median ns per call of each and mpidle's
excess over bare and over null, with the range over rounds. With every call from
Python, each one looks up its Python line (python_callers.hpp); native programs
never take that path.

Needs python3-mpi4py and mpidle built for Open MPI (make build-openmpi).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = r'''
import sys, time
from mpi4py import MPI
comm = MPI.COMM_WORLD
n = int(sys.argv[1])
peer = 1 - comm.rank
buf, out = bytearray(8), bytearray(8)
comm.Barrier()
t = time.perf_counter()
for _ in range(n):
    comm.Iprobe(source=peer, tag=99)
probe = time.perf_counter() - t
comm.Barrier()
t = time.perf_counter()
for _ in range(n):
    comm.Sendrecv(buf, dest=peer, recvbuf=out, source=peer)
exchange = time.perf_counter() - t
if comm.rank == 0:
    print(probe / n * 1e9, exchange / n * 1e9)
'''


def run_once(args, mode, program, work):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    launch = [args.mpiexec, "-n", "2"]
    if os.geteuid() == 0:
        launch.append("--allow-run-as-root")
    if mode != "bare":
        lib = os.path.join(args.build, "lib", "libmpidle.so") if mode == "mpidle" else \
            os.path.join(args.build, "bench", "libmpidle-null.so")
        env["LD_PRELOAD"] = lib
        env["MPIDLE_OUTPUT"] = os.path.join(work, "run")
        env["MPIDLE_SYMBOLIZE"] = "0"
        launch += ["-x", "LD_PRELOAD", "-x", "MPIDLE_OUTPUT", "-x", "MPIDLE_SYMBOLIZE"]
    out = subprocess.run(launch + ["/usr/bin/python3", program, str(args.calls)], env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    probe, exchange = (float(x) for x in out.stdout.split())
    return probe, exchange


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build-openmpi")
    ap.add_argument("--mpiexec", default="mpiexec.openmpi")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calls", type=int, default=200000)
    args = ap.parse_args()
    if subprocess.run(["/usr/bin/python3", "-c", "import mpi4py"], capture_output=True).returncode:
        sys.exit("python_call_cost: needs Debian's python3-mpi4py")
    modes = ["bare", "null", "mpidle"]
    if not os.path.exists(os.path.join(args.build, "bench", "libmpidle-null.so")):
        modes.remove("null")
    figures = {m: {"probe": [], "exchange": []} for m in modes}
    with tempfile.TemporaryDirectory() as work:
        program = os.path.join(work, "loop.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        for _ in range(args.repeats):
            for m in modes:  # alternating: a slow spell hits every mode
                probe, exchange = run_once(args, m, program, work)
                figures[m]["probe"].append(probe)
                figures[m]["exchange"].append(exchange)
    result = {}
    for call in ("probe", "exchange"):
        med = {m: statistics.median(figures[m][call]) for m in modes}
        row = {m: med[m] for m in modes}
        row["range"] = {m: [min(figures[m][call]), max(figures[m][call])] for m in modes}
        row["mpidle_minus_bare_ns"] = med["mpidle"] - med["bare"]
        if "null" in med:
            row["mpidle_minus_null_ns"] = med["mpidle"] - med["null"]
        result[call] = row
        name = "comm.Iprobe, nothing pending" if call == "probe" else "comm.Sendrecv, 8 B"
        print(f"{name:30s} " + "  ".join(f"{m} {med[m]:7.0f} ns" for m in modes) +
              f"   mpidle - bare {row['mpidle_minus_bare_ns']:+.0f} ns" +
              (f", - null {row['mpidle_minus_null_ns']:+.0f} ns" if "null" in med else ""))
    print(json.dumps({"python_call_cost": result, "repeats": args.repeats, "calls": args.calls}))


if __name__ == "__main__":
    main()
