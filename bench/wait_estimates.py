#!/usr/bin/env python3
"""The wait estimates against the truth, repeated (issue 30's validation matrix).

make test runs each case once; this runs each several times and prints the ratios
per run, so that docs/profile-format.md ("Two wait estimates") can state ranges:

- truth programs (tests/programs), 2 ranks, profile mode: the robust estimate and
  the minimum method against the wait the program observed itself;
- examples, trace mode: both against the exact wait of the trace analysis;
- LAMMPS (Debian, Open MPI; --openmpi-build and lmp needed), over shared memory and
  TCP, trace mode: both against the exact wait.

Prints a table and one JSON line, {"wait_estimates": [...]}.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

TRUTH = [  # (program, truth key, function)
    ("allreduce_rate", "allreduce_wait_s", "MPI_Allreduce"),
    ("big_transfer", "recv_wait_s", "MPI_Recv"),
]
EXAMPLES = [("examples", "late_sender"), ("examples", "imbalance_allreduce"),
            ("examples", "nonblocking_halo"), ("tests/bin", "halo_varying")]
SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def launch(mpiexec, build, program, args, out, extra_env, openmpi=False):
    env = dict(os.environ, LD_PRELOAD=os.path.join(build, "lib", "libmpidle.so"),
               MPIDLE_OUTPUT=out, **extra_env)
    argv = [mpiexec]
    if openmpi:
        argv += ["--oversubscribe", "--allow-run-as-root"]
        for name in ["LD_PRELOAD", "MPIDLE_OUTPUT", *extra_env]:
            argv += ["-x", name]
    argv += ["-n", "2", program, *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, check=True,
                          timeout=300).stdout


def function_row(out, name):
    profile = json.load(open(os.path.join(out, "profile.json")))
    return next(f for f in profile["functions"] if f["name"] == name)


def accuracy(out):
    return json.load(open(os.path.join(out, "analysis.json")))["accuracy"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--openmpi-build", default="build-openmpi")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    mpich = shutil.which("mpiexec.mpich") or "mpiexec"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for program, key, function in TRUTH:
                out = os.path.join(tmp, f"{program}{i}")
                text = launch(mpich, args.build, os.path.join(args.build, "tests", "bin", program),
                              ["--json"], out, {})
                truth = json.loads(text[text.index("{"):].splitlines()[0])[key]
                f = function_row(out, function)
                rows.append({"case": program, "against": "observed", "reference_s": truth,
                             "robust_s": f["wait_s_robust"], "minimum_s": f["wait_s_minimum"]})
            for directory, name in EXAMPLES:
                out = os.path.join(tmp, f"{name}{i}")
                launch(mpich, args.build, os.path.join(args.build, directory, name), [], out,
                       {"MPIDLE_TRACE": "1"})
                a = accuracy(out)
                rows.append({"case": name, "against": "trace", "reference_s": a["trace_s"],
                             "robust_s": a["robust_s"], "minimum_s": a["minimum_local_s"]})
            lib = os.path.join(args.openmpi_build, "lib", "libmpidle.so")
            if shutil.which("lmp") and os.path.exists(lib) and shutil.which("mpiexec.openmpi"):
                for transport in ("vader", "tcp"):
                    out = os.path.join(tmp, f"lammps_{transport}{i}")
                    launch("mpiexec.openmpi", args.openmpi_build, shutil.which("lmp"),
                           ["-in", os.path.join(SOURCE, "tests", "integration", "lammps_melt.in"),
                            "-log", "none", "-screen", "none"], out,
                           {"MPIDLE_TRACE": "1", "OMPI_MCA_btl": "self," + transport},
                           openmpi=True)
                    a = accuracy(out)
                    rows.append({"case": f"lammps_{transport}", "against": "trace",
                                 "reference_s": a["trace_s"], "robust_s": a["robust_s"],
                                 "minimum_s": a["minimum_local_s"]})
    print("wait estimates against the truth (2 ranks): robust and minimum / reference")
    print(f"{'case':22} {'against':9} {'reference':>11} {'robust':>11} {'ratio':>7} "
          f"{'minimum':>11} {'ratio':>7}")
    for r in rows:
        ref = r["reference_s"] or float("nan")
        print(f"{r['case']:22} {r['against']:9} {r['reference_s']:11.6f} {r['robust_s']:11.6f} "
              f"{r['robust_s'] / ref:7.2f} {r['minimum_s']:11.6f} {r['minimum_s'] / ref:7.2f}")
    print(json.dumps({"wait_estimates": rows}))


if __name__ == "__main__":
    main()
