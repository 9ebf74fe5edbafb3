#!/usr/bin/env python3
"""The truth matrix of the wait-state patterns, repeated, as a table (issue 55).

make test runs every cell of tests/integration/test_wait_matrix.cpp once and checks
bounds; this runs each cell --repeats times under one MPI build and prints, per
cell, the medians and ranges of the ratios to the truth the program observed itself
(tests/programs/wait_patterns): the default estimate (calibrated), the robust one
and the minimum method in profile mode with default settings; the trace's exact
analysis against the truth, and the windows' estimate against the exact analysis
(MPIDLE_TRACE=1, MPIDLE_WINDOW_CHECK=1). A cell whose truth is below the program's
own cost spread prints absolute seconds instead of ratios.

  bench/wait_matrix.py --build build --mpiexec mpiexec.mpich [--repeats 3]
  bench/wait_matrix.py --build build-openmpi --mpiexec mpiexec.openmpi --openmpi
  bench/wait_matrix.py ... --cells late_receiver/send --forms systematic \
      --sizes 1048576 --repeats 10        (one cell, ten profile runs)

Prints the table and one JSON line {"wait_matrix": [...]} with every run.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wait_estimates import launch  # noqa: E402

CELLS = [("late_sender", m) for m in
         ["recv", "wait", "waitall", "waitany", "waitsome", "test", "sendrecv", "persistent",
          "probe"]] + [("late_receiver", m) for m in ["send", "ssend", "isend"]] + \
        [(p, "") for p in ["allreduce", "barrier", "bcast", "reduce", "scan"]]
FORMS = ["systematic", "varying", "none"]
SIZES = [1024, 1 << 20]


def truth_of(text):
    for line in text.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("the program printed no truth")


def run_cell(args, pattern, mode, form, size, trace):
    out = tempfile.mkdtemp(prefix="mpidle-wait-matrix-")
    argv = ["--pattern", pattern, "--form", form, "--bytes", str(size)]
    if mode:
        argv += ["--mode", mode]
    env = {"MPIDLE_TRACE": "1", "MPIDLE_WINDOW_CHECK": "1"} if trace else {}
    program = os.path.join(args.build, "tests", "bin", "wait_patterns")
    truth = truth_of(launch(args.mpiexec, args.build, program, argv, out, env, args.openmpi))
    with open(os.path.join(out, "profile.json")) as f:
        profile = json.load(f)
    function = truth["function"]
    row = {"truth": truth["truth_s"], "spread": truth["cost_spread_s"]}
    if trace:
        with open(os.path.join(out, "analysis.json")) as f:
            analysis = json.load(f)
        row["exact"] = sum(s["wait_s"] for s in analysis["callsites"] if s["function"] == function)
        row["windows"] = profile["calibration"]["window_check"]["functions"].get(function, 0.0)
    else:
        f = next(x for x in profile["functions"] if x["name"] == function)
        row.update(default=f["wait_s"], robust=f["wait_s_robust"],
                   minimum=f["wait_s_minimum"])
    return function, row


def ratio(values, against):
    pairs = [(v, a) for v, a in zip(values, against)]
    if all(a > 0 for _, a in pairs):
        rs = [v / a for v, a in pairs]
        return f"{statistics.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f})"
    return f"{statistics.median(values) * 1e3:.1f} ms"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--mpiexec", default="mpiexec.mpich")
    p.add_argument("--openmpi", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cells", nargs="*", help="pattern/mode, e.g. late_receiver/send")
    p.add_argument("--forms", nargs="*", default=FORMS)
    p.add_argument("--sizes", nargs="*", type=int, default=SIZES)
    p.add_argument("--no-trace", action="store_true", help="profile mode only")
    args = p.parse_args()
    cells = CELLS
    if args.cells:
        cells = [tuple((c + "/").split("/")[:2]) for c in args.cells]
    runs = []
    print("| cell | truth | default | robust | minimum | exact / truth | windows / exact |")
    print("|---|---|---|---|---|---|---|")
    for pattern, mode in cells:
        for size in args.sizes:
            for form in args.forms:
                prof, trace = [], []
                for _ in range(args.repeats):
                    function, row = run_cell(args, pattern, mode, form, size, False)
                    prof.append(row)
                    if not args.no_trace:
                        trace.append(run_cell(args, pattern, mode, form, size, True)[1])
                name = f"{pattern}{'/' + mode if mode else ''} {form} {size} B ({function})"
                truths = [r["truth"] for r in prof]
                small = statistics.median(truths) < statistics.median(r["spread"] for r in prof)
                cols = []
                for key in ["default", "robust", "minimum"]:
                    values = [r[key] for r in prof]
                    cols.append(f"{statistics.median(values) * 1e3:.1f} ms" if small
                                else ratio(values, truths))
                if trace:
                    exact = [r["exact"] for r in trace]
                    cols.append(ratio(exact, [r["truth"] for r in trace]) if not small
                                else f"{statistics.median(exact) * 1e3:.1f} ms")
                    cols.append(ratio([r["windows"] for r in trace], exact))
                else:
                    cols += ["", ""]
                print(f"| {name} | {statistics.median(truths):.4f} s | " + " | ".join(cols) + " |",
                      flush=True)
                runs.append({"cell": name, "profile": prof, "trace": trace})
    print(json.dumps({"wait_matrix": runs}))


if __name__ == "__main__":
    main()
