#!/usr/bin/env python3
"""What a profile checkpoint costs a rank (docs/centre.md, "Killed and hung jobs").

Runs bench/checkpoint_cost_N (N = 10^3 and 10^4 distinct callsites, 2 ranks) with
MPIDLE_CHECKPOINT=1 until it kills itself, alternating N, R times each, then reads
each rank's latest checkpoint header: `previous_s` is the whole time of the
checkpoint before it (tables to bytes, symbolization, write and rename), `build_s`
its own making (tables to a summary, naming callsites within 0.1 s). A run of 2.5 s leaves checkpoint 2, whose previous_s is the first
checkpoint's (symbolizing every callsite: cold); a run of 4.5 s leaves checkpoint
4, whose previous_s is a later one's (symbols cached: steady). Medians over runs
and ranks, with their range; then the average share of a rank's time at the
default interval (600 s, the first at 60 s) for a one-hour job.
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import tempfile


def header(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"MPIDLECP":
        raise ValueError(path + ": not a checkpoint")
    (length,) = struct.unpack("<I", data[12:16])
    return json.loads(data[16 : 16 + length]), len(data)


def run(args, callsites, seconds):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        env = dict(os.environ, MPIDLE_OUTPUT=out, MPIDLE_CHECKPOINT="1",
                   LD_PRELOAD=os.path.join(args.build, "lib", "libmpidle.so"))
        program = os.path.join(args.build, "bench", "checkpoint_cost_%d" % callsites)
        subprocess.run([args.mpiexec, "-n", "2", program, str(seconds)], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        rows = []
        for rank in range(2):
            path = os.path.join(out, "checkpoints", "rank-%d" % rank)
            if os.path.exists(path):
                h, size = header(path)
                rows.append((h["sequence"], h["previous_s"], h["build_s"], size))
        return rows


def spread(values):
    return "%.2f ms (%.2f-%.2f)" % (1e3 * statistics.median(values), 1e3 * min(values),
                                    1e3 * max(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec.mpich") or "mpiexec")
    args = ap.parse_args()
    results = {}
    for _ in range(args.repeats):
        for callsites in (1000, 10000):
            for kind, seconds, sequence in (("cold", 2.5, 2), ("steady", 4.5, 4)):
                r = results.setdefault((callsites, kind), {"whole": [], "build": [], "bytes": []})
                for seq, previous, build, size in run(args, callsites, seconds):
                    if seq == sequence:
                        r["whole"].append(previous)
                        r["build"].append(build)
                        r["bytes"].append(size)
    figures = {}
    print("checkpoint cost per rank (2 ranks, medians of %d runs, range):" % args.repeats)
    for (callsites, kind), r in sorted(results.items()):
        if not r["whole"]:
            print("  %5d callsites, %s: no checkpoint read" % (callsites, kind))
            continue
        print("  %5d callsites, %-6s whole %s; the next one's making %s; %d KiB" %
              (callsites, kind, spread(r["whole"]), spread(r["build"]),
               statistics.median(r["bytes"]) // 1024))
        figures["%d_%s_s" % (callsites, kind)] = statistics.median(r["whole"])
    for callsites in (1000, 10000):
        cold = figures.get("%d_cold_s" % callsites)
        steady = figures.get("%d_steady_s" % callsites)
        if cold is None or steady is None:
            continue
        # A one-hour job: the first at 60 s (cold), then at 600, 1200, ... 3000 s.
        share = (cold + 5 * steady) / 3600
        figures["%d_hour_share" % callsites] = share
        print("  %5d callsites: a one-hour job at the default interval spends %.5f%% of a "
              "rank's time in checkpoints" % (callsites, 100 * share))
    print(json.dumps({"checkpoint_cost": figures}))


if __name__ == "__main__":
    main()
