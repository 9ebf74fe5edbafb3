#!/usr/bin/env python3
"""The trace finalize out of core (docs/replay.md): a rank whose records exceed
MPIDLE_TRACE_MEM keeps its per-record arrays in files mapped shared, which the
kernel may reclaim. This runs tests/programs/many_calls on 2 ranks (rank 1 makes N
MPI_Iprobe calls) with MPIDLE_TRACE_MEM=4, once with no memory limit and once with
the whole job in a memory cgroup of --limit-mib (below rank 1's trace), and reports
each run's exit status, wall time, the cgroup's peak and rank 1's finalize memory
(resident and anonymous). The cgroup needs root and a writable memory controller
(v1 or v2); without one only the unlimited runs are made, and it says why.

Prints a table and one JSON line.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def own_memory_cgroup():
    """The directory of a memory cgroup this process may make children in, or (None, why)."""
    try:
        lines = open("/proc/self/cgroup").read().splitlines()
    except OSError as e:
        return None, f"cannot read /proc/self/cgroup: {e}"
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            base = "/sys/fs/cgroup/memory" + path
            if os.path.isdir(base):
                return ("v1", base), ""
    for line in lines:
        if line.startswith("0::"):
            base = "/sys/fs/cgroup" + line[3:]
            try:
                if "memory" in open(os.path.join(base, "cgroup.subtree_control")).read():
                    return ("v2", base), ""
            except OSError:
                pass
            return None, f"cgroup v2 at {base} does not delegate the memory controller"
    return None, "no memory cgroup controller"


class MemoryCgroup:
    def __init__(self, where, name, limit_bytes):
        self.kind, base = where
        self.path = os.path.join(base, name)
        os.mkdir(self.path)
        limit_file = "memory.limit_in_bytes" if self.kind == "v1" else "memory.max"
        with open(os.path.join(self.path, limit_file), "w") as f:
            f.write(str(limit_bytes))

    def enter(self):  # in the child, before exec
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def peak_bytes(self):
        name = "memory.max_usage_in_bytes" if self.kind == "v1" else "memory.peak"
        try:
            return int(open(os.path.join(self.path, name)).read())
        except OSError:
            return None

    def remove(self):
        try:
            os.rmdir(self.path)
        except OSError:
            pass


def run(build, calls, cgroup):
    out_dir = tempfile.mkdtemp(prefix="mpidle-ooc-", dir=os.environ.get("TMPDIR", "/tmp"))
    env = dict(os.environ, MPIDLE_OUTPUT=out_dir, MPIDLE_TRACE="1", MPIDLE_TRACE_MEM="4",
               LD_PRELOAD=os.path.join(build, "lib", "libmpidle.so"))
    cmd = ["mpiexec.mpich", "-n", "2", os.path.join(build, "tests", "bin", "many_calls"),
           str(calls), "peak", "last"]
    start = time.monotonic()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          preexec_fn=cgroup.enter if cgroup else None)
    row = {"calls": calls, "status": done.returncode,
           "wall_s": round(time.monotonic() - start, 2),
           "cgroup_peak_mib": (cgroup.peak_bytes() or 0) >> 20 if cgroup else None}
    try:
        profile = json.load(open(os.path.join(out_dir, "profile.json")))
        rank1 = profile["ranks"][1]
        row["out_of_core_ranks"] = profile["trace"]["out_of_core_ranks"]
        row["events"] = profile["trace"]["events"]
        row["rank1_finalize_mib"] = rank1["finalize_memory_bytes"] >> 20
        row["rank1_finalize_anonymous_mib"] = rank1.get("finalize_anonymous_bytes", 0) >> 20
    except (OSError, ValueError, KeyError, IndexError):
        row["profile"] = "none"
    shutil.rmtree(out_dir, ignore_errors=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--limit-mib", type=int, default=160)
    parser.add_argument("--calls", default="1000000,4000000,10000000")
    args = parser.parse_args()
    if shutil.which("mpiexec.mpich") is None:
        print("mpidle: out-of-core finalize not measured (no mpiexec.mpich)")
        return 0
    where, why = own_memory_cgroup()
    rows = []
    for i, calls in enumerate(int(c) for c in args.calls.split(",")):
        rows.append(dict(run(args.build, calls, None), limit_mib=None))
        if where is None:
            continue
        try:
            cgroup = MemoryCgroup(where, f"mpidle-bench-{os.getpid()}-{i}", args.limit_mib << 20)
        except OSError as e:
            where, why = None, f"cannot make a memory cgroup: {e}"
            continue
        try:
            rows.append(dict(run(args.build, calls, cgroup), limit_mib=args.limit_mib))
        finally:
            cgroup.remove()
    print(f"{'calls':>10} {'trace MiB':>9} {'limit':>7} {'status':>6} {'wall s':>7} "
          f"{'cgroup peak':>11} {'finalize MiB':>12} {'anonymous':>9}")
    for r in rows:
        print(f"{r['calls']:>10} {r['calls'] * 64 >> 20:>9} "
              f"{r['limit_mib'] if r['limit_mib'] else '-':>7} {r['status']:>6} {r['wall_s']:>7} "
              f"{r['cgroup_peak_mib'] if r['cgroup_peak_mib'] is not None else '-':>11} "
              f"{r.get('rank1_finalize_mib', '-'):>12} {r.get('rank1_finalize_anonymous_mib', '-'):>9}")
    if where is None:
        print(f"mpidle: no runs under a memory limit ({why})")
    print(json.dumps({"out_of_core_finalize": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
