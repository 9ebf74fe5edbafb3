#!/usr/bin/env python3
"""Synthetic job records for the fleet: N runs in a log tree, as mpidle writes them
(LOG_DIR/YYYY/MM/DD/<user>_<app>_<job>_<time>/job.json), with known totals.

Used by the fleet tests (a few hundred jobs) and by `make bench` (10^5). Prints the
truth as JSON on stdout: totals, per application/user/account, and which
application's wait share rose in its last 7 days.

  fleet_synthetic.py LOG_DIR --jobs N [--seed S] [--days D] [--ranks-max R]
"""
import argparse
import datetime
import json
import os
import random

APPS = ["lammps", "cp2k", "gromacs", "wrf", "openfoam", "nekrs", "quantum-espresso", "hpcg"]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
ACCOUNTS = ["chem", "phys", "bio", "climate"]
RISING = "wrf"  # its wait share jumps in the last 7 days


def main():
    p = argparse.ArgumentParser()
    p.add_argument("log_dir")
    p.add_argument("--jobs", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--days", type=int, default=60)
    p.add_argument("--ranks-max", type=int, default=4096)
    a = p.parse_args()
    rng = random.Random(a.seed)
    end = datetime.datetime(2026, 11, 20, 12, 0, 0, tzinfo=datetime.timezone.utc)
    truth = {"jobs": 0, "core_hours": 0.0, "wait_core_hours": 0.0, "rank_seconds": 0.0,
             "by_application": {}, "by_user": {}, "by_account": {}, "rising": RISING,
             "parallel_efficiency_bins": [0] * 10}
    for i in range(a.jobs):
        app = APPS[i % len(APPS)]
        user = USERS[(i // 3) % len(USERS)]
        account = ACCOUNTS[USERS.index(user) % len(ACCOUNTS)]
        # Spread evenly over the days, the newest last.
        start = end - datetime.timedelta(seconds=(a.jobs - 1 - i) * a.days * 86400 // max(a.jobs, 1))
        ranks = 2 ** rng.randint(1, max(1, a.ranks_max.bit_length() - 1))
        wall = round(rng.uniform(60, 7200), 3)
        share = rng.uniform(0.15, 0.25)
        if app == RISING and (end - start).days < 7:
            share += 0.3
        wait = wall * ranks * share
        mpi = wait * 1.2
        job = {
            "scheduler": "slurm", "job_id": str(100000 + i), "step": "0", "array_index": None,
            "job_name": app, "user": user, "account": account, "partition": "batch",
            "nodes": max(1, ranks // 64), "nodes_allocated": max(1, ranks // 64),
            "node_list": "n[0001-%04d]" % max(1, ranks // 64), "ranks": ranks,
            "ranks_per_node": {"min": min(ranks, 64), "max": min(ranks, 64)},
            "executable": "/apps/%s/bin/%s" % (app, app), "executable_id": "build-id:%040x" % (i % 97),
            "mpi_library": "MPICH Version: 4.0.2", "mpidle_version": "0.1.0",
            "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end": (start + datetime.timedelta(seconds=wall)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "metadata": {"case": "c%d" % (i % 5)},
        }
        record = {
            "schema": "mpidle-job/1", "producer": "mpidle 0.1.0", "status": "whole",
            "ended": "MPI_Finalize", "mode": "profile", "application": app, "job": job,
            "wall_s": wall, "ranks": ranks, "core_hours": wall * ranks / 3600, "mpi_s": mpi,
            "wait_s": wait, "wait_core_hours": wait / 3600, "mpi_share": mpi / (wall * ranks),
            "wait_share": share, "wait_estimate": "robust",
            "rank_mpi_share": {"min": share, "mean": share * 1.2, "max": share * 1.5},
            "functions": [{"name": "MPI_Allreduce", "calls": 1000.0, "time_s": mpi, "wait_s": wait,
                           "bytes": 8000.0}],
            "callsites": [{"function": "MPI_Allreduce", "location": "solver.c:%d (solve)" % (10 + i % 3),
                           "visits": 1000.0, "time_s": mpi, "wait_s": wait}],
        }
        # POP's efficiencies; one job in ten has none (a record from before them).
        if i % 10 != 9:
            balance = rng.uniform(0.6, 1.0)
            communication = rng.uniform(0.5, 1.0)
            parallel = balance * communication
            record["efficiency"] = {"parallel": parallel, "load_balance": balance,
                                    "communication": communication}
            bin_ = min(9, int(parallel * 10))
            truth["parallel_efficiency_bins"][bin_] += 1
        day = start.strftime("%Y/%m/%d")
        run = os.path.join(a.log_dir, day, "%s_%s_%s_%s" % (user, app, job["job_id"], start.strftime("%H%M%S")))
        os.makedirs(run, exist_ok=True)
        with open(os.path.join(run, "job.json"), "w") as f:
            json.dump(record, f)
        truth["jobs"] += 1
        truth["core_hours"] += record["core_hours"]
        truth["wait_core_hours"] += wait / 3600
        truth["rank_seconds"] += wall * ranks
        for key, name in (("by_application", app), ("by_user", user), ("by_account", account)):
            g = truth[key].setdefault(name, {"jobs": 0, "core_hours": 0.0, "wait_core_hours": 0.0})
            g["jobs"] += 1
            g["core_hours"] += record["core_hours"]
            g["wait_core_hours"] += wait / 3600
    json.dump(truth, os.sys.stdout)
    print()


if __name__ == "__main__":
    main()
