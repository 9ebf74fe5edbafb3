#!/usr/bin/env python3
"""Overhead of mpidle, profiled vs bare, on this machine.

Runs bench/call_cost bare and under LD_PRELOAD=libmpidle.so, alternating, R times
each (median reported; this machine is noisy, so only differences within one run
of this script mean anything):
  - ns added per intercepted call: MPI_Iprobe with nothing pending, and MPI_Testany
    over 4 pending receives, 2 ranks (also with every poll timed, MPIDLE_POLL_SAMPLE=1);
  - 0-byte ping-pong half round trip.
Counts the instructions of six call patterns, bare, profiled and traced, with
callgrind (bench/instructions.py: exact, whatever the load). Also times the parts
of one call in isolation (bench/hot_path): a TSC read,
clock_gettime, one call-table update; the floor for "two clock reads and a table
update" on this machine; and the controlled logical clock's throughput on a
synthetic 10^7-event, 64-rank trace (bench/clc_throughput); the parallel replay
at 2..16 ranks against the sequential clock (bench/replay_scale); and loop-summary
compression (bench/compress_throughput), wait-state analysis on a synthetic
10^7-event, 64-rank trace (bench/analyze_throughput): symbols/s on 10^7 regular and random
symbols, and the summary's size for one loop body at 10^3..10^7 iterations.
Prints a table, then one JSON line with the figures.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

import instructions


def run_once(args, mode, n, profiled, out_dir, trace=False, poll_sample=None, windows_ms=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if trace:
        env["MPIDLE_TRACE"] = "1"
    if windows_ms is not None:
        env["MPIDLE_WINDOW_MS"] = str(windows_ms)
    if poll_sample is not None:
        env["MPIDLE_POLL_SAMPLE"] = str(poll_sample)
    if profiled:
        env["LD_PRELOAD"] = os.path.join(args.build, "lib", "libmpidle.so")
        env["MPIDLE_OUTPUT"] = out_dir
        env["MPIDLE_SYMBOLIZE"] = "0"
    cmd = [args.mpiexec, "-n", "2", os.path.join(args.build, "bench", "call_cost"), mode, str(n)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=300)
    return float(out.stdout.strip().splitlines()[-1])


WINDOWLESS = {}  # (mode, n) -> median ns without trace windows (MPIDLE_WINDOW_MS=0)


def measure(args, mode, n, every_poll=False):
    """Medians (bare, profiled, traced), and for polls (every_poll) also profiled with
    MPIDLE_POLL_SAMPLE=1 (every poll timed), all alternating. Profiled runs have their
    trace windows (the default); WINDOWLESS gets the same without them."""
    bare, profiled, traced, timed, windowless = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            bare.append(run_once(args, mode, n, False, tmp))
            windowless.append(run_once(args, mode, n, True, os.path.join(tmp, "w" + str(i)),
                                       windows_ms=0))
            profiled.append(run_once(args, mode, n, True, os.path.join(tmp, str(i))))
            traced.append(run_once(args, mode, n, True, os.path.join(tmp, "t" + str(i)), True))
            if every_poll:
                timed.append(run_once(args, mode, n, True, os.path.join(tmp, "e" + str(i)),
                                      poll_sample=1))
    WINDOWLESS[mode] = (statistics.median(windowless), min(windowless), max(windowless),
                        min(profiled), max(profiled))
    medians = (statistics.median(bare), statistics.median(profiled), statistics.median(traced))
    return medians + (statistics.median(timed),) if every_poll else medians


def trace_merge_times(args):
    """Seconds rank 0 spent in the trace finalize (offsets, folding, tree merge)."""
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for example in ("late_sender", "imbalance_allreduce", "nonblocking_halo"):
            out = os.path.join(tmp, example)
            env = dict(os.environ, LD_PRELOAD=os.path.join(args.build, "lib", "libmpidle.so"),
                       MPIDLE_OUTPUT=out, MPIDLE_TRACE="1", MPIDLE_SYMBOLIZE="0")
            subprocess.run([args.mpiexec, "-n", "2", os.path.join(args.build, "examples", example)],
                           env=env, capture_output=True, check=True, timeout=120)
            with open(os.path.join(out, "profile.json")) as f:
                trace = json.load(f)["trace"]
            times[example] = {"events": trace["events"], "merge_s": trace["merge_s"]}
    return times


def replay_scale(args, events_per_rank=200000, process_counts=(2, 4, 8, 16)):
    """The parallel replay (one rank per process, oversubscribed beyond the cores) next
    to the sequential clock on the same synthetic traces: seconds and peak memory."""
    rows = []
    binary = os.path.join(args.build, "bench", "replay_scale")
    for p in process_counts:
        cmd = [args.mpiexec, "-n", str(p)]
        if "openmpi" in os.path.basename(args.mpiexec):
            cmd += ["--oversubscribe"]
        parallel = json.loads(subprocess.run(cmd + [binary, "parallel", str(events_per_rank)],
                                             capture_output=True, text=True, check=True,
                                             timeout=900).stdout)
        sequential = json.loads(subprocess.run([binary, "sequential", str(events_per_rank), str(p)],
                                               capture_output=True, text=True, check=True,
                                               timeout=900).stdout)
        rows.append({"ranks": p, "events_per_rank": events_per_rank,
                     "parallel_s": parallel["seconds"], "parallel_peak_rss_mib": parallel["peak_rss_mib"],
                     "sequential_s": sequential["seconds"],
                     "sequential_peak_rss_mib": sequential["peak_rss_mib"]})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--pingpongs", type=int, default=200000)
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec.mpich") or "mpiexec")
    instructions.add_arguments(ap)
    args = ap.parse_args()

    parts = json.loads(subprocess.run([os.path.join(args.build, "bench", "hot_path")],
                                      capture_output=True, text=True, check=True).stdout)
    clc = json.loads(subprocess.run([os.path.join(args.build, "bench", "clc_throughput")],
                                    capture_output=True, text=True, check=True).stdout)
    analyze = json.loads(subprocess.run([os.path.join(args.build, "bench", "analyze_throughput")],
                                        capture_output=True, text=True, check=True).stdout)
    predict = json.loads(subprocess.run([os.path.join(args.build, "bench", "predict_throughput")],
                                        capture_output=True, text=True, check=True).stdout)
    # Both prediction engines on a cluster of one rank per node: 2 ranks (a 2-rank
    # trace on 2 nodes) and 64.
    engines = [json.loads(subprocess.run([os.path.join(args.build, "bench", "predict_engines"),
                                          str(ranks), str(events)],
                                         capture_output=True, text=True, check=True,
                                         timeout=600).stdout)
               for ranks, events in ((2, 100000), (64, 1000000))]
    summary = json.loads(subprocess.run([os.path.join(args.build, "bench", "compress_throughput")],
                                        capture_output=True, text=True, check=True).stdout)
    ib, ip, it, ie = measure(args, "iprobe", args.calls, every_poll=True)
    tb, tp, tt, te = measure(args, "testany", args.calls, every_poll=True)
    pb, pp, pt = measure(args, "pingpong", args.pingpongs)
    instruction_table = instructions.measure(args)
    merges = trace_merge_times(args)
    replay = replay_scale(args)
    simulated = json.loads(subprocess.run(
        [os.path.join(args.build, "bench", "replay_simulated"), "1000", "10000", "100000"],
        capture_output=True, text=True, check=True, timeout=900).stdout)["replay_simulated"]
    rows = [
        ("MPI_Iprobe, nothing pending (ns/call)", ib, ip, it),
        ("MPI_Testany, 4 pending (ns/call)", tb, tp, tt),
        ("0-byte ping-pong, half round trip (ns)", pb, pp, pt),
    ]
    print(f"mpidle overhead, median of {args.repeats} alternating runs, 2 ranks")
    print(f"{'measurement':42} {'bare':>9} {'profile':>9} {'+added':>8} {'trace':>9} {'+added':>8}")
    for name, bare, prof, trace in rows:
        print(f"{name:42} {bare:9.1f} {prof:9.1f} {prof - bare:8.1f} {trace:9.1f} {trace - bare:8.1f}")
    for (name, _, prof, _), mode in zip(rows, ("iprobe", "testany", "pingpong")):
        w, wlo, whi, plo, phi = WINDOWLESS[mode]
        print(f"  {name}: profile with trace windows {prof:.1f} ({plo:.1f}-{phi:.1f}), without "
              f"{w:.1f} ({wlo:.1f}-{whi:.1f}): windows add {100 * (prof / w - 1):+.1f}%")
    print(f"  polls timed one in 16 (MPIDLE_POLL_SAMPLE's default); every poll timed "
          f"(MPIDLE_POLL_SAMPLE=1): Iprobe +{ie - ib:.1f} ns, Testany +{te - tb:.1f} ns")
    instructions.print_table(instruction_table)
    for example, m in merges.items():
        print(f"trace finalize (offsets + merge) of {example}: {m['events']} events, "
              f"{m['merge_s'] * 1e3:.1f} ms")
    print(f"parts of one call: TSC read {parts['tsc_read_ns']:.1f} ns (two per call), "
          f"clock_gettime {parts['clock_gettime_ns']:.1f} ns, "
          f"table update {parts['table_update_ns']:.1f} ns; a region opened and closed "
          f"{parts['region_begin_end_ns']:.1f} ns (not on the calls' path)")
    print(f"controlled logical clock: {clc['events']} events on {clc['ranks']} ranks in "
          f"{clc['seconds']:.2f} s = {clc['events_per_s'] / 1e6:.2f} M events/s, "
          f"peak memory {clc['peak_rss_mib']:.0f} MiB")
    sizes = ", ".join(f"{s['iterations']:.0e}: {s['nodes']} nodes/{s['elements']} elements"
                      for s in summary["size_by_iterations"])
    print(f"loop summary: {summary['regular_symbols_per_s'] / 1e6:.1f} M symbols/s regular "
          f"(median of 5, peak {summary['regular_peak_bytes'] / 2**20:.1f} MiB), "
          f"{summary['random_symbols_per_s'] / 1e6:.1f} M symbols/s random; size by iterations: {sizes}")
    print(f"wait-state analysis: {analyze['events']} events on {analyze['ranks']} ranks in "
          f"{analyze['seconds']:.2f} s = {analyze['events_per_s'] / 1e6:.2f} M events/s, peak "
          f"memory {analyze['peak_rss_mib']:.0f} MiB with the delay analysis (the trace itself "
          f"{analyze['trace_mib']:.0f} MiB)")
    print(f"delay analysis (root causes): {analyze['delay_seconds']:.2f} s for the same trace = "
          f"{analyze['delay_events_per_s'] / 1e6:.2f} M events/s; at the trace finalize's bound "
          f"({analyze['finalize_events']} events, on rank 0) "
          f"{analyze['finalize_delay_seconds']:.2f} s")
    print(f"prediction replay: {predict['events']} events on {predict['ranks']} ranks: "
          f"{predict['events_per_s'] / 1e6:.2f} M events/s replaying ({predict['replay_s']:.2f} s), "
          f"{predict['events_per_s_with_matching'] / 1e6:.2f} M events/s with the message matching, "
          f"peak memory {predict['peak_rss_mib']:.0f} MiB")
    print("prediction engines, one rank per node (the synthetic ring trace):")
    for e in engines:
        line = (f"  {e['ranks']:3} ranks, {e['events']} events: mpidle {e['mpidle']['seconds']:.2f} s "
                f"({e['mpidle']['events_per_s'] / 1e6:.2f} M events/s, {e['mpidle']['peak_rss_mib']:.0f} MiB)")
        if "simgrid" in e:
            line += (f"; SimGrid {e['simgrid']['version']} {e['simgrid']['seconds']:.2f} s "
                     f"({e['simgrid']['events_per_s'] / 1e3:.0f} k events/s, "
                     f"{e['simgrid']['peak_rss_mib']:.0f} MiB in its process); predicted wall "
                     f"{e['simgrid']['wall_s'] / e['mpidle']['wall_s']:.4f} x mpidle's")
        print(line)
    print(f"parallel replay, {replay[0]['events_per_rank']} events per rank, one rank per process "
          f"({os.cpu_count()} cores: oversubscribed beyond), against the sequential clock:")
    for r in replay:
        print(f"  {r['ranks']:3} ranks: parallel {r['parallel_s']:7.2f} s, {r['parallel_peak_rss_mib']:6.1f} MiB "
              f"per process; sequential {r['sequential_s']:6.2f} s, {r['sequential_peak_rss_mib']:6.1f} MiB")
    print("parallel replay simulated, one process per rank on the loopback network, CG-like "
          "(ring + Allreduce, 8 iterations):")
    for r in simulated:
        print(f"  {r['ranks']:6} ranks: most items at one process {r['max_messages_per_process']} "
              f"({r['max_bytes_per_process'] / 1024:.0f} KiB), "
              f"{r['peak_mib_per_process'] * 1024:.0f} KiB per process, {r['seconds']:.2f} s")
    print(json.dumps({**parts, "clc_events_per_s": clc["events_per_s"],
        "replay_scale": replay,
        "replay_simulated": simulated,
        "analyze": analyze,
        "predict": predict,
        "predict_engines": engines,
        "summary": summary,
                      "clc_peak_rss_mib": clc["peak_rss_mib"],
        "repeats": args.repeats,
        "iprobe_bare_ns": round(ib, 2), "iprobe_profiled_ns": round(ip, 2),
        "added_ns_per_call": round(ip - ib, 2),
        "iprobe_traced_ns": round(it, 2), "trace_added_ns_per_call": round(it - ib, 2),
        "iprobe_every_poll_timed_ns": round(ie, 2),
        "testany_bare_ns": round(tb, 2), "testany_profiled_ns": round(tp, 2),
        "testany_traced_ns": round(tt, 2), "testany_every_poll_timed_ns": round(te, 2),
        "trace_merge": merges,
        "pingpong_half_rtt_bare_ns": round(pb, 2), "pingpong_half_rtt_profiled_ns": round(pp, 2),
        "pingpong_added_ns": round(pp - pb, 2),
        "instructions_per_iteration": instruction_table,
        "windowless_profiled_ns": {m: round(v[0], 2) for m, v in WINDOWLESS.items()},
    }))


if __name__ == "__main__":
    main()
