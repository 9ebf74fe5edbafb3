#!/usr/bin/env python3
"""The profile finalize as P grows: ring_allreduce (tests/programs) under mpidle at
2, 4, 8, 16 and 32 ranks (oversubscribed on a small machine: slow, but the finalize
figures are what counts). Per P: finalize rounds and seconds, bytes rank 0 received,
the largest message, profile.json and side-file sizes, rank 0's peak memory; and
rank 0's whole finalize with the trace windows (the default) and without
(MPIDLE_WINDOW_MS=0), medians of alternating runs, with the windows' analysis alone
and the part of it that measured clock offsets.
Prints a table, then one JSON line."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile


def run(args, ranks, out, windows=True):
    env = dict(os.environ, LD_PRELOAD=os.path.join(args.build, "lib", "libmpidle.so"),
               MPIDLE_OUTPUT=out, MPIDLE_SYMBOLIZE="0",
               MPIDLE_WINDOW_MS=os.environ.get("MPIDLE_WINDOW_MS", "50") if windows else "0")
    cmd = [args.mpiexec]
    if "openmpi" in os.path.basename(os.path.realpath(args.mpiexec)) or "orterun" in os.path.realpath(args.mpiexec):
        cmd += ["--oversubscribe", "-x", "LD_PRELOAD", "-x", "MPIDLE_OUTPUT", "-x", "MPIDLE_SYMBOLIZE",
                "-x", "MPIDLE_WINDOW_MS"]
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
            "rank_minima": size("rank_minima.jsonl"), "rank0_peak_rss": fin["rank0_peak_rss_bytes"],
            "total_s": fin.get("total_s", 0.0), "total_cpu_s": fin.get("total_cpu_s", 0.0),
            "windows_s": doc.get("calibration", {}).get("finalize_s", 0.0),
            "windows_cpu_s": doc.get("calibration", {}).get("finalize_cpu_s", 0.0),
            "offsets_s": doc.get("calibration", {}).get("offsets_s", 0.0)}


def finalize_with_and_without_windows(args, ranks, tmp):
    """Medians over alternating runs of rank 0's whole finalize, with windows and
    without, and of the windows' analysis alone: in time, and in its thread's CPU
    time (its work and the polling of its waits; with more ranks than cores most of
    the rest is the scheduler letting the ranks it waits for run)."""
    on, off, analysis, offsets = [], [], [], []
    on_cpu, off_cpu, analysis_cpu = [], [], []
    for i in range(args.repeats):
        r = run(args, ranks, os.path.join(tmp, f"off{ranks}-{i}"), False)
        off.append(r["total_s"])
        off_cpu.append(r["total_cpu_s"])
        r = run(args, ranks, os.path.join(tmp, f"on{ranks}-{i}"))
        on.append(r["total_s"])
        on_cpu.append(r["total_cpu_s"])
        analysis.append(r["windows_s"])
        analysis_cpu.append(r["windows_cpu_s"])
        offsets.append(r["offsets_s"])
    return {"ranks": ranks, "with_windows_s": statistics.median(on),
            "without_windows_s": statistics.median(off),
            "windows_analysis_s": statistics.median(analysis),
            "windows_offsets_s": statistics.median(offsets),
            "with_range": [min(on), max(on)], "without_range": [min(off), max(off)],
            "with_windows_cpu_s": statistics.median(on_cpu),
            "without_windows_cpu_s": statistics.median(off_cpu),
            "windows_analysis_cpu_s": statistics.median(analysis_cpu),
            "with_cpu_range": [min(on_cpu), max(on_cpu)],
            "without_cpu_range": [min(off_cpu), max(off_cpu)]}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec.mpich") or "mpiexec")
    ap.add_argument("--ranks", default="2,4,8,16,32")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
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
        print(f"rank 0's whole finalize, medians of {args.repeats} alternating runs: with trace "
              f"windows, without, and the windows' analysis")
        windows = []
        for p in (int(x) for x in args.ranks.split(",")):
            w = finalize_with_and_without_windows(args, p, tmp)
            windows.append(w)
            print(f"{p:>4} with {1e3 * w['with_windows_s']:8.2f} ms "
                  f"({1e3 * w['with_range'][0]:.2f}-{1e3 * w['with_range'][1]:.2f}), without "
                  f"{1e3 * w['without_windows_s']:8.2f} ms ({1e3 * w['without_range'][0]:.2f}-"
                  f"{1e3 * w['without_range'][1]:.2f}), windows' analysis "
                  f"{1e3 * w['windows_analysis_s']:8.2f} ms, of which offsets "
                  f"{1e3 * w['windows_offsets_s']:8.2f} ms", flush=True)
        print("the same, CPU time of rank 0's finalizing thread (its work and its waits' polling)")
        for w in windows:
            print(f"{w['ranks']:>4} with {1e3 * w['with_windows_cpu_s']:8.2f} ms "
                  f"({1e3 * w['with_cpu_range'][0]:.2f}-{1e3 * w['with_cpu_range'][1]:.2f}), without "
                  f"{1e3 * w['without_windows_cpu_s']:8.2f} ms ({1e3 * w['without_cpu_range'][0]:.2f}-"
                  f"{1e3 * w['without_cpu_range'][1]:.2f}), windows' analysis "
                  f"{1e3 * w['windows_analysis_cpu_s']:8.2f} ms, with/without "
                  f"{w['with_windows_cpu_s'] / w['without_windows_cpu_s']:.3f}", flush=True)
    print(json.dumps({"scale": rows, "finalize_windows": windows}))


if __name__ == "__main__":
    main()
