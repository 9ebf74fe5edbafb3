#!/usr/bin/env python3
"""Prediction across real changes of interconnect, on one host.

Candidates: shared memory; TCP through a link without limit; TCP at 1 Gbit/s and
at 200 Mbit/s, each on a split-duplex link (every rank's card its own token bucket,
as a real interconnect) and on a shared one (-shared: one bucket for both
directions, the loopback of one namespace). The TCP candidates are real links
(scripts/netns.sh; needs root, else only shared memory and plain TCP are run).
Every trace is predicted by both engines, SimGrid and mpidle's own replay
(--engines), side by side.
For one MPI build, each candidate is probed (`mpidle probe --launches N`: every
point and kernel the median of N launches), each program is traced R times on every candidate (the
candidates alternating within each repeat), and every trace is predicted on every
candidate's probe. The figures, per program and pair of candidates a -> b: the
median prediction of the traces made on a for b's probe, over the median wall time
of the real runs on b (a -> a is self-prediction); and the real runs' own spread
(largest over smallest) per candidate. The wall time of a run is its trace's span
(first enter to last exit over the ranks): a prediction predicts that span, and
every run, real or predicted from, goes through trace mode alike.

MPICH over UCX (shared memory: UCX_TLS unset; TCP: tcp,self on the link); Open MPI
with ob1 (self,vader against self,tcp on the link).

Prints a table and one JSON line. Needs the build's mpidle, examples and test
programs (make build or make build-openmpi) and NetPIPE (Debian's netpipe-mpich2
or netpipe-openmpi) for its rows; LAMMPS (lmp) and HPC Challenge (hpcc) add rows
for Open MPI, whose build Debian packages them with.
"""
import argparse
import atexit
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETNS = os.path.join(SOURCE, "scripts", "netns.sh")

MPIS = {
    "mpich": {"launcher": "mpiexec.mpich", "shm": [], "plain_tcp": ["-env", "UCX_TLS", "tcp,self"],
              "netpipe": "NPmpich2"},
    "openmpi": {"launcher": "mpiexec.openmpi",
                "shm": ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"],
                "plain_tcp": ["--mca", "pml", "ob1", "--mca", "btl", "self,tcp"],
                "netpipe": "NPopenmpi"},
}

# Candidate -> the link's rate and kind (rate None: shared memory; "loopback": TCP
# over the host's loopback, where netns.sh cannot run).
CANDIDATES = {"shm": (None, None), "tcp": ("unlimited", "split"), "tcp-1g": ("1gbit", "split"),
              "tcp-200m": ("200mbit", "split"), "tcp-1g-shared": ("1gbit", "shared"),
              "tcp-200m-shared": ("200mbit", "shared")}
DEFAULT_CANDIDATES = "shm,tcp,tcp-1g,tcp-200m,tcp-1g-shared,tcp-200m-shared"


def launch(mpi, candidate, before, after):
    """The command line that runs `before` (mpidle run/probe and its options, ending
    in "--") around a 2-rank launch of `after` on the candidate."""
    rate, kind = CANDIDATES[candidate]
    head = [mpi["launcher"]]
    if mpi["launcher"].endswith("openmpi") and os.geteuid() == 0:
        head.append("--allow-run-as-root")
    if rate is None:
        return before + head + ["-n", "2"] + mpi["shm"] + after
    if rate == "loopback":
        return before + head + ["-n", "2"] + mpi["plain_tcp"] + after
    name = f"mpidle-bench{os.getpid()}"
    return [NETNS, "run", name, rate, "2", kind, "--"] + before + head + \
        ["-n", "2", NETNS, "rank"] + after


def programs(build, netpipe, mpi_name, work):
    """(name, argv, working directory or None) of every program of the matrix."""
    examples = os.path.join(build, "examples")
    workload = os.path.join(build, "tests", "bin", "predict_workload")
    rows = [(name, [os.path.join(examples, name)], None)
            for name in ("late_sender", "imbalance_allreduce", "nonblocking_halo", "loop_nest")]
    rows.append(("allreduce 64 KiB", [workload, "--allreduce-only", "--iterations", "300",
                                      "--compute-us", "5", "--bytes", "65536"], None))
    rows.append(("ring 256 KiB", [workload, "--iterations", "100", "--compute-us", "50",
                                  "--bytes", "262144", "--allreduce-every", "10"], None))
    # NPB CG's exchange: Irecv, Send, Wait both ways at once.
    rows.append(("Irecv+Send both ways 256 KiB", [workload, "--irecv-send", "--iterations", "40",
                                                  "--compute-us", "2000", "--bytes", "262144"],
                 None))
    # LAMMPS (Debian's is built with Open MPI): the melt of tests/integration.
    if mpi_name == "openmpi" and shutil.which("lmp"):
        rows.append(("LAMMPS melt", [shutil.which("lmp"), "-in",
                                     os.path.join(SOURCE, "tests", "integration", "lammps_melt.in"),
                                     "-log", "none", "-screen", "none"], None))
    # HPC Challenge (Debian's hpcc, Open MPI): HPL, PTRANS, MPIRandomAccess, MPIFFT and
    # the rest at N = 1000, about 1 s over shared memory. It reads hpccinf.txt from its
    # working directory.
    if mpi_name == "openmpi" and shutil.which("hpcc"):
        import hpcc_randomaccess
        hpcc_dir = os.path.join(work, "hpcc")
        os.makedirs(hpcc_dir, exist_ok=True)
        with open(os.path.join(hpcc_dir, "hpccinf.txt"), "w") as f:
            f.write(hpcc_randomaccess.HPCCINF.format(n=1000))
        rows.append(("HPC Challenge N=1000", [shutil.which("hpcc")], hpcc_dir))
    # Three more packaged programs nobody here wrote, of three patterns. A pipelined
    # solver: ScaLAPACK's LU test driver (Debian's scalapack-mpi-test, for both MPIs),
    # panel factorizations broadcast along the process row, 6 factorizations of a
    # 640 x 640 matrix in blocks of 16 on a 1 x 2 grid. It reads LU.dat from its
    # working directory.
    inputs = os.path.join(SOURCE, "bench", "inputs")
    xdlu = f"/usr/lib/x86_64-linux-gnu/scalapack/{mpi_name}-tests/xdlu"
    if os.path.exists(xdlu):
        lu_dir = os.path.join(work, "scalapack")
        os.makedirs(lu_dir, exist_ok=True)
        shutil.copy(os.path.join(inputs, "scalapack_LU.dat"), os.path.join(lu_dir, "LU.dat"))
        rows.append(("ScaLAPACK LU 640", [xdlu], lu_dir))
    # All-to-all heavy: MPB (mpb-mpi, Open MPI), photonic bands by FFTW's MPI
    # transposes. A stencil: Meep (meep-openmpi), FDTD steps exchanging the halos of
    # its chunks.
    if mpi_name == "openmpi" and shutil.which("mpb-mpi"):
        rows.append(("MPB rods", [shutil.which("mpb-mpi"), os.path.join(inputs, "mpb_rods.ctl")],
                     work))
    if mpi_name == "openmpi" and shutil.which("meep"):
        rows.append(("Meep waveguide", [shutil.which("meep"),
                                        os.path.join(inputs, "meep_waveguide.ctl")], work))
    if shutil.which(netpipe):
        for size in (65536, 1 << 20):
            rows.append((f"NetPIPE {size >> 10} KiB",
                         [netpipe, "-l", str(size), "-u", str(size), "-n",
                          "200" if size <= 65536 else "20", "-p", "0",
                          "-o", "/dev/null"], None))
    return rows


def run(argv, timeout=90, cwd=None):
    # A hung launch is killed whole (its ranks spin otherwise, and every later
    # measurement would share the cores with them) and tried again. MPICH 4.0.2 over
    # UCX 1.13's TCP transport hung in PMPI_Finalize in a quarter of traced runs
    # until mpidle's ranks left its finalize together (2026-11-28); kept as a guard.
    for attempt in range(3):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, cwd=cwd)
        try:
            out, err = p.communicate(timeout=timeout)
            break
        except subprocess.TimeoutExpired:
            # TERM first: netns.sh removes its namespaces on it, never on KILL.
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
            print(f"predict_transports: {' '.join(argv[:6])}... hung; again", file=sys.stderr)
    else:
        sys.exit(f"predict_transports: {' '.join(argv)} hung 3 times")
    if p.returncode != 0:
        sys.exit(f"predict_transports: {' '.join(argv)} failed ({p.returncode}): {err[-400:]}")


def probe(mpidle, mpi, candidate, work, quick, probes):
    """The candidate probed with `mpidle probe --launches probes` (every point and
    kernel the median of the launches), and the launches' spread: their largest over
    smallest 64 KiB one-way time and compute kernels."""
    out = os.path.join(work, f"machine_{candidate}.json")
    before = [mpidle, "probe", "-o", out, "--name", candidate, "--launches", str(probes)]
    before += ["--quick"] if quick else []
    run(launch(mpi, candidate, before + ["--"], []), timeout=300 * probes)
    with open(out) as f:
        m = json.load(f)
    point = min(m["p2p"]["intra_node"], key=lambda p: abs(p["bytes"] - 65536))
    c = m["compute"]
    cpu = max(c.get("memory_bound_launch_spread", 0), c.get("compute_bound_launch_spread", 0))
    return out, {"p2p_64k": 1 + point.get("launch_spread", 0), "cpu": 1 + cpu}


def trace(mpidle, mpi, candidate, argv, out, cwd):
    shutil.rmtree(out, ignore_errors=True)
    run(launch(mpi, candidate, [mpidle, "run", "--trace", "--output", out, "--"], argv),
        timeout=120, cwd=cwd)


def predict(mpidle, trace_dir, machines, engine):
    """The predicted wall time of a trace on each machine, and its measured span."""
    argv = [mpidle, "predict", trace_dir, "--engine", engine]
    for m in machines:
        argv += ["--machine", m]
    run(argv)
    with open(os.path.join(trace_dir, "prediction.json")) as f:
        doc = json.load(f)
    # Targets come ranked, fastest first: find each by its machine's name.
    walls = {t["machine"]: t["wall_s"] for t in doc["targets"]}
    return [walls[os.path.basename(m)[len("machine_"):-len(".json")]] for m in machines], \
        doc["targets"][0]["measured_wall_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--mpi", choices=MPIS, default="mpich")
    ap.add_argument("--repeats", type=int, default=5, help="real runs per program and candidate")
    ap.add_argument("--quick-probe", action="store_true")
    ap.add_argument("--probes", type=int, default=3, help="probe launches per candidate (each point's median is used)")
    ap.add_argument("--engines", default="simgrid,mpidle", help="comma-separated: simgrid, mpidle")
    ap.add_argument("--candidates", default=DEFAULT_CANDIDATES,
                    help="comma-separated, of " + ", ".join(CANDIDATES))
    ap.add_argument("--only", help="run only the programs whose name contains this")
    ap.add_argument("--skip", default="", help="comma-separated: leave out the programs whose "
                    "name contains any of these")
    args = ap.parse_args()
    mpi = MPIS[args.mpi]
    engines = [e for e in args.engines.split(",") if e]
    args.build = os.path.abspath(args.build)  # hpcc runs in a directory of its own
    mpidle = os.path.join(args.build, "bin", "mpidle")
    order = [c for c in args.candidates.split(",") if c]
    for c in order:
        if c not in CANDIDATES:
            sys.exit(f"predict_transports: unknown candidate {c}")
    if subprocess.run([NETNS, "check"], capture_output=True).returncode != 0:
        limited = [c for c in order if CANDIDATES[c][0] not in (None, "unlimited")]
        if limited:
            print(f"predict_transports: {', '.join(limited)} left out: rate-limited links need "
                  "network namespaces (root)", file=sys.stderr)
        order = [c for c in order if c not in limited]
        CANDIDATES["tcp"] = ("loopback", None)
    # Whatever ends this script, no namespace of its own stays behind.
    atexit.register(lambda: subprocess.run([NETNS, "down", f"mpidle-bench{os.getpid()}"],
                                           capture_output=True))
    work = tempfile.mkdtemp(prefix="mpidle-transports-")
    machines, probe_spread = {}, {}
    for c in order:
        machines[c], probe_spread[c] = probe(mpidle, mpi, c, work, args.quick_probe, args.probes)
        print(f"probe launches of {c}: 64 KiB one-way 1 + range/median "
              f"{probe_spread[c]['p2p_64k']:.3f}, kernels {probe_spread[c]['cpu']:.3f}", flush=True)
    rows = []
    for name, argv, cwd in programs(args.build, mpi["netpipe"], args.mpi, work):
        if args.only and args.only not in name:
            continue
        if any(part and part in name for part in args.skip.split(",")):
            continue
        # predicted[e][a][b]: engine e's predictions of the runs on a for machine b.
        predicted = {e: {a: {b: [] for b in order} for a in order} for e in engines}
        measured = {a: [] for a in order}
        for i in range(args.repeats):
            for a in order:  # alternating, so that a slow spell hits every candidate
                out = os.path.join(work, f"{len(rows)}_{a}_{i}")
                trace(mpidle, mpi, a, argv, out, cwd)
                for e in engines:
                    walls, span = predict(mpidle, out, [machines[b] for b in order], e)
                    for b, w in zip(order, walls):
                        predicted[e][a][b].append(w)
                measured[a].append(span)
                shutil.rmtree(out, ignore_errors=True)
        row = {"program": name, "measured_s": {}, "spread": {}, "ratio": {e: {} for e in engines}}
        for b in order:
            row["measured_s"][b] = statistics.median(measured[b])
            row["spread"][b] = max(measured[b]) / min(measured[b])
            for e in engines:
                for a in order:
                    row["ratio"][e][f"{a}->{b}"] = \
                        statistics.median(predicted[e][a][b]) / row["measured_s"][b]
        rows.append(row)
        print(f"{name}: " + "  ".join(f"{b} {row['measured_s'][b]:.4f} s (spread "
                                      f"{row['spread'][b]:.3f})" for b in order), flush=True)
        for e in engines:
            for a in order:
                print(f"  {e:8s} from {a:16s}" +
                      "".join(f" {b}:{row['ratio'][e][f'{a}->{b}']:.3f}" for b in order), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    for e in engines:
        cross = [abs(v - 1) for r in rows for k, v in r["ratio"][e].items()
                 if k.split("->")[0] != k.split("->")[1]]
        within = sum(1 for v in cross if v <= 0.10)
        if cross:
            print(f"{e}: worst cross-candidate error {100 * max(cross):.1f}%, "
                  f"{within} of {len(cross)} cells within 10%")
    print(json.dumps({"mpi": args.mpi, "engines": engines, "candidates": order,
                      "probe_spread": probe_spread,
                      "predict_transports": rows}))


if __name__ == "__main__":
    main()
