#!/usr/bin/env python3
"""The fleet at scale (issue 29's goals): ingest N synthetic job records into a
fresh SQLite database (goal: at least 2,000 jobs/s), re-ingest them (nothing
changed: the incremental pass), and report over all of them (goal: at most 2 s),
with the database's size per job. Prints one JSON line.

  fleet_bench.py --build BUILD [--jobs N]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed(argv):
    start = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--jobs", type=int, default=100000)
    a = p.parse_args()
    mpidle = os.path.join(a.build, "bin", "mpidle")
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="mpidle-fleet-bench-")
    try:
        logs = os.path.join(work, "logs")
        db = os.path.join(work, "fleet.db")
        subprocess.run([sys.executable, os.path.join(here, "fleet_synthetic.py"), logs,
                        "--jobs", str(a.jobs)], check=True, stdout=subprocess.DEVNULL)
        ingest_s = timed([mpidle, "fleet", "ingest", logs, "--db", db])
        again_s = timed([mpidle, "fleet", "ingest", logs, "--db", db])
        report_s = min(timed([mpidle, "fleet", "report", "--db", db]) for _ in range(3))
        size = os.path.getsize(db)
        print(json.dumps({"fleet": {
            "jobs": a.jobs,
            "ingest_jobs_per_s": round(a.jobs / ingest_s),
            "reingest_unchanged_s": round(again_s, 2),
            "report_s": round(report_s, 3),
            "database_bytes_per_job": round(size / a.jobs),
            "goals": {"ingest_jobs_per_s": 2000, "report_s": 2.0}}}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
