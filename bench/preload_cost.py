#!/usr/bin/env python3
"""What preloading costs a process that never calls MPI (a job script's ls, cp,
python): /bin/true started bare, with the preload shim (libmpidle-preload.so) and
with libmpidle.so itself, alternating, median of R rounds of N starts each.
Goal (issue 29): the shim adds at most 1 ms per process. Prints one JSON line.

  preload_cost.py --build BUILD [--rounds R] [--starts N]
"""
import argparse
import json
import os
import statistics
import subprocess
import time


def starts(n, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    begin = time.monotonic()
    for _ in range(n):
        subprocess.run(["/bin/true"], env=env, check=True)
    return (time.monotonic() - begin) / n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--starts", type=int, default=100)
    a = p.parse_args()
    lib = os.path.abspath(os.path.join(a.build, "lib"))
    kinds = {"bare": None, "shim": os.path.join(lib, "libmpidle-preload.so"),
             "libmpidle": os.path.join(lib, "libmpidle.so")}
    times = {k: [] for k in kinds}
    for _ in range(a.rounds):
        for k, preload in kinds.items():
            times[k].append(starts(a.starts, preload))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(json.dumps({"preload_cost_ms": {
        "bare_process": round(med["bare"] * 1e3, 3),
        "shim_added": round((med["shim"] - med["bare"]) * 1e3, 3),
        "libmpidle_added": round((med["libmpidle"] - med["bare"]) * 1e3, 3),
        "goal_shim_added": 1.0}}))


if __name__ == "__main__":
    main()
