#!/usr/bin/env python3
"""Does `mpidle compare` name the root cause a user would fix?

Two cases, each traced twice and compared (docs/analysis-format.md, "Why it waited"):

  link       LAMMPS (Debian's lmp, Open MPI, 2 ranks, the melt of tests/integration)
             over shared memory against TCP through a 200 Mbit/s split-duplex link
             (scripts/netns.sh, a tc token bucket in network namespaces; needs root).
             Where the waiting at CommBrick::borders() and CommBrick::exchange()
             grows (at least doubles, by 1 ms or more), because each partner's own
             messages are slower on the link, compare must name communication
             (waiting for a partner's communication, or latency or bandwidth), never
             load balance. Callsites whose waiting did not grow are shown, not judged.
  imbalance  tests/programs/delay_causes imbalance (3 ranks; rank 0 computes 100 ms
             per step, the others 60 ms, before an MPI_Allreduce), on the same link in
             both runs: compare must name load balance at the Allreduce, at the
             computation before it on rank 0.

Each case runs traced (root causes from the whole trace) and profiled (from the
trace windows, --mode). The link case in profile mode is shown, not judged.
Prints every checked callsite's verdict and one JSON line; exits 1 where a verdict
is wrong, 77 where a case cannot run here (no root, no lmp).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETNS = os.path.join(SOURCE, "scripts", "netns.sh")
OPEN_MPI = ["--mca", "pml", "ob1"]
COMMUNICATION = ("waiting for a partner's communication", "latency (small messages)",
                 "bandwidth (large messages)", "waiting propagated from communication")
LOAD = "waiting/imbalance"
# analysis/callsite_verdict.cpp's names and the starts of its advice.
DOMINANT = (LOAD, "waiting or transfer (completion calls)", "waiting propagated from another callsite") + \
    COMMUNICATION
ADVICE = ("balance the load", "a late partner or", "lower network latency", "more network bandwidth",
          "a partner late because", "the partner was late because")


def launcher(mpi):
    head = [f"mpiexec.{mpi}"]
    if mpi == "openmpi":
        head += ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return head


def traced(mpidle, mpi, link, argv, out, ranks=2, mode="trace"):
    """`argv` on `ranks` ranks, traced (or profiled: mode "profile", the root causes
    from the trace windows) into `out`, over shared memory (link None) or TCP
    through a link of that rate."""
    shutil.rmtree(out, ignore_errors=True)
    run = [mpidle, "run"] + (["--trace"] if mode == "trace" else []) + ["--output", out, "--"] + \
        launcher(mpi) + ["-n", str(ranks)]
    if link is None:
        btl = ["--mca", "btl", "self,vader"] if mpi == "openmpi" else []
        argv = run + (OPEN_MPI + btl if mpi == "openmpi" else []) + argv
    else:
        cluster = [NETNS, "run", f"mpidle-causes{os.getpid()}", link, str(ranks), "split", "--"]
        argv = cluster + run + (OPEN_MPI if mpi == "openmpi" else []) + [NETNS, "rank"] + argv
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"root_causes: {' '.join(argv)} failed ({p.returncode}): {p.stderr[-600:]}")


def seconds(text):
    """compare's "1.43 ms" in seconds."""
    value, unit = text.split()
    return float(value) * {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]


def verdicts(mpidle, a, b):
    """compare's callsites: (function, location, dominated by, where, advice)."""
    p = subprocess.run([mpidle, "compare", a, b, "--top", "40"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"root_causes: mpidle compare failed: {p.stderr[-600:]}")
    rows, site, wait = [], None, (0.0, 0.0)
    for line in p.stdout.splitlines():
        head = re.match(r"^(?:>> |   )(MPI_\w+)\s+(.*?)(?:  \(only in [AB]\))?$", line)
        if head:
            site = (head.group(1), head.group(2))
            continue
        t = re.match(r"^\s+time .*, wait (\S+ \S+) -> (\S+ \S+) ", line)
        if t and site:
            wait = (seconds(t.group(1)), seconds(t.group(2)))
            continue
        m = re.match(r"^\s+.* per visit; dominated by (.*)$", line)
        if m and site:
            rest = m.group(1)
            name = next((n for n in DOMINANT if rest.startswith(n)), None)
            if name is None:
                sys.exit(f"root_causes: compare's verdict not understood: {line}")
            rest = rest[len(name):]
            where = re.match(r"^ \((.*?)\): (?=" + "|".join(map(re.escape, ADVICE)) + ")", rest)
            rows.append({"function": site[0], "location": site[1], "wait_a_s": wait[0],
                         "wait_b_s": wait[1], "dominated_by": name,
                         "where": where.group(1) if where else "",
                         "advice": rest[where.end() if where else 2:]})
            site = None
    return rows, p.stdout


def check(rows, select, expected, label, judged=lambda r: True):
    """The verdicts of the callsites `select` picks; those `judged` must be one of
    `expected` (at least one must be judged)."""
    chosen = [r for r in rows if select(r)]
    ok = any(judged(r) for r in chosen)
    for r in chosen:
        r["judged"] = judged(r)
        good = r["dominated_by"] in expected or not r["judged"]
        ok = ok and good
        verdict = "ok" if r["dominated_by"] in expected else "WRONG" if r["judged"] else "not judged"
        print(f"{label}: {r['function']} {r['location']}: wait {r['wait_a_s'] * 1e3:.2f} -> "
              f"{r['wait_b_s'] * 1e3:.2f} ms, {r['dominated_by']}"
              f"{' (' + r['where'] + ')' if r['where'] else ''} -> {verdict}")
    if not chosen:
        print(f"{label}: no such callsite in compare's list")
    return ok, chosen


def grew(r):
    """Waiting that the slower link made: at least doubled, by 1 ms or more. Where
    it did not grow, its cause may well be the computation in both runs."""
    return r["wait_b_s"] >= 2 * r["wait_a_s"] and r["wait_b_s"] - r["wait_a_s"] >= 1e-3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build-openmpi", help="an Open MPI build of mpidle")
    ap.add_argument("--mpi", default="openmpi", choices=("openmpi", "mpich"))
    ap.add_argument("--rate", default="200mbit")
    ap.add_argument("--cases", default="link,imbalance")
    ap.add_argument("--keep", help="keep the runs in this directory")
    ap.add_argument("--mode", default="trace,profile",
                    help="trace (root causes from the whole trace), profile (from the trace "
                         "windows), or both")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    mpidle = os.path.join(build, "bin", "mpidle")
    if not os.path.exists(mpidle):
        sys.exit(f"root_causes: no {mpidle}: build it first (make build-openmpi)")
    if subprocess.run(["sh", NETNS, "check"], capture_output=True).returncode != 0:
        print("root_causes: skipped: scripts/netns.sh cannot run here (needs root)")
        return 77
    work = args.keep or tempfile.mkdtemp(prefix="mpidle-causes-")
    os.makedirs(work, exist_ok=True)
    result, ok = {}, True
    cases = args.cases.split(",")
    for mode in args.mode.split(","):
        if "link" in cases:
            lmp = shutil.which("lmp")
            if args.mpi != "openmpi" or not lmp:
                print("root_causes: link case skipped: needs Debian's lmp (Open MPI)")
            else:
                melt = [lmp, "-in", os.path.join(SOURCE, "tests", "integration", "lammps_melt.in"),
                        "-log", "none", "-screen", "none"]
                shm = os.path.join(work, f"lammps-shm-{mode}")
                tcp = os.path.join(work, f"lammps-tcp-{mode}")
                traced(mpidle, args.mpi, None, melt, shm, mode=mode)
                traced(mpidle, args.mpi, args.rate, melt, tcp, mode=mode)
                rows, text = verdicts(mpidle, shm, tcp)
                # Profile mode is shown, not judged: borders() runs every 20 steps, and
                # the default windows see one to six of its wait states, fewer than
                # compare needs to follow their split (docs/analysis-format.md).
                good, chosen = check(
                    rows, lambda r: re.search(r"CommBrick::(borders|exchange)\b", r["location"]),
                    COMMUNICATION, f"link ({mode})",
                    judged=grew if mode == "trace" else lambda r: False)
                ok = ok and (good or mode != "trace")
                result[f"link_{mode}"] = {"ok": good, "callsites": chosen}
        if "imbalance" in cases:
            program = os.path.join(build, "tests", "bin", "delay_causes")
            a = os.path.join(work, f"imbalance-a-{mode}")
            b = os.path.join(work, f"imbalance-b-{mode}")
            for out in (a, b):
                traced(mpidle, args.mpi, args.rate, [program, "imbalance"], out, ranks=3,
                       mode=mode)
            rows, text = verdicts(mpidle, a, b)
            good, chosen = check(rows, lambda r: r["function"] == "MPI_Allreduce", (LOAD,),
                                 f"imbalance ({mode})")
            # The trace names where: the computation before the Allreduce on rank 0.
            if mode == "trace":
                good = good and all("on rank 0" in r["where"] for r in chosen)
            ok = ok and good
            result[f"imbalance_{mode}"] = {"ok": good, "callsites": chosen}
    print(json.dumps({"root_causes": result, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
