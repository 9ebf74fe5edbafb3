#!/usr/bin/env python3
"""The profile finalize as P grows: ring_allreduce (tests/programs) under mpidle at
2, 4, 8, 16 and 32 ranks (oversubscribed on a small machine: slow, but the finalize
figures are what counts). Per P: finalize rounds and seconds, bytes rank 0 received,
the largest message, profile.json and side-file sizes, rank 0's peak memory.
Prints a table, then one JSON line."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile


def run(args, ranks, out):
    env = dict(os.environ, LD_PRELOAD=os.path.join(args.build, "lib", "libmpidle.so"),
               MPIDLE_OUTPUT=out, MPIDLE_SYMBOLIZE="0")
    cmd = [args.mpiexec]
    if "openmpi" in os.path.basename(os.path.realpath(args.mpiexec)) or "orterun" in os.path.realpath(args.mpiexec):
        cmd += ["--oversubscribe", "-x", "LD_PRELOAD", "-x", "MPIDLE_OUTPUT", "-x", "MPIDLE_SYMBOLIZE"]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    cmd += ["-n", str(ranks), os.path.join(args.build, "tests", "bin", "ring_allreduce"),
            str(args.iterations)]
    subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=600)
    with open(os.path.join(out, "profile.json")) as f:
        doc = json.load(f)
    fin = doc["run"]["finalize"]
    size = lambda name: os.path.getsize(os.path.join(out, name))
    return {"ranks": ranks, "rounds": fin["rounds"], "finalize_s": fin["seconds"],
            "bytes_received": fin["bytes_received"], "largest_message": fin["largest_message_bytes"],
            "profile_json": size("profile.json"), "matrix": size("callsite_ranks.bin"),
            "rank_minima": size("rank_minima.jsonl"), "rank0_peak_rss": fin["rank0_peak_rss_bytes"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec.mpich") or "mpiexec")
    ap.add_argument("--ranks", default="2,4,8,16,32")
    ap.add_argument("--iterations", type=int, default=200)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'P':>4} {'rounds':>6} {'finalize':>10} {'rank0 recv':>11} {'largest':>9} "
              f"{'profile.json':>12} {'matrix':>8} {'minima':>8} {'rank0 RSS':>10}")
        for p in (int(x) for x in args.ranks.split(",")):
            r = run(args, p, os.path.join(tmp, str(p)))
            rows.append(r)
            print(f"{p:>4} {r['rounds']:>6} {1e3 * r['finalize_s']:>8.2f}ms {r['bytes_received']:>11} "
                  f"{r['largest_message']:>9} {r['profile_json']:>12} {r['matrix']:>8} "
                  f"{r['rank_minima']:>8} {r['rank0_peak_rss'] // 1024:>8}KiB", flush=True)
    print(json.dumps({"scale": rows}))


if __name__ == "__main__":
    main()
