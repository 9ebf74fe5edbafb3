"""mpidle's outputs as pandas DataFrames: a run's profile.json, analysis.json and
prediction.json, and the fleet database (`mpidle fleet ingest`).

Only the standard library and pandas (Debian's python3-pandas). Examples::

    import mpidle
    run = mpidle.load_profile("mpidle-app-20261126-101500")
    run.ranks.sort_values("wait_s").tail()
    fleet = mpidle.load_fleet("fleet.db")
    fleet.jobs.groupby("application").wait_core_hours.sum()
"""
import json
import os
import sqlite3
import struct
from types import SimpleNamespace

import pandas as pd

__all__ = ["load_profile", "load_analysis", "load_prediction", "load_fleet", "MpidleError"]


class MpidleError(ValueError):
    """A file that is not the mpidle output it was given as."""


def _read_json(path, name, schema_prefix):
    if os.path.isdir(path):
        path = os.path.join(path, name)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise MpidleError("%s: %s" % (path, e)) from e
    schema = doc.get("schema", "") if isinstance(doc, dict) else ""
    if not schema.startswith(schema_prefix):
        raise MpidleError("%s: not an mpidle %s (schema %r)" % (path, name, schema))
    return doc


def _location(frames):
    if not frames:
        return "unknown"
    f = frames[0]
    if f.get("file"):
        return "%s:%s (%s)" % (os.path.basename(f["file"]), f.get("line", 0), f.get("function", ""))
    return f.get("function") or f.get("module", "unknown")


def load_profile(run):
    """A run directory (or its profile.json): SimpleNamespace with `run` and `job`
    (dicts), and DataFrames `ranks`, `functions`, `callsites` (one row per callsite,
    with its first frame's `location` and every wait estimate: `wait_s` is the one
    `run["wait_estimate"]` names)."""
    doc = _read_json(run, "profile.json", "mpidle-profile/")
    callsites = pd.DataFrame(
        [{"id": c.get("id"), "function": c.get("function"), "location": _location(c.get("frames")),
          "visits": c.get("visits", 0), "bytes": c.get("bytes", 0.0), "time_s": c.get("time_s", 0.0),
          "wait_s": c.get("wait_s", 0.0), "wait_s_global_min": c.get("wait_s_global_min", 0.0),
          # Profiles from before the robust estimate: wait_s is the minimum method's.
          "wait_s_robust": c.get("wait_s_robust", c.get("wait_s", 0.0)),
          "wait_s_minimum": c.get("wait_s_minimum", c.get("wait_s", 0.0)),
          "transfer_s": c.get("transfer_s", 0.0), "variation_s": c.get("variation_s", 0.0)}
         for c in doc.get("callsites", [])],
        columns=["id", "function", "location", "visits", "bytes", "time_s", "wait_s",
                 "wait_s_global_min", "wait_s_robust", "wait_s_minimum", "transfer_s",
                 "variation_s"])
    return SimpleNamespace(run=doc.get("run", {}), job=doc.get("job", {}),
                           ranks=pd.DataFrame(doc.get("ranks", [])),
                           functions=pd.DataFrame(doc.get("functions", [])),
                           callsites=callsites)


_PATTERNS = ("late_sender", "late_receiver", "wait_nxn", "wait_barrier", "late_broadcast",
             "early_reduce", "early_scan")
_RANK_WAITS = struct.Struct("<Ii7d")  # callsite row, rank, seconds per pattern


def _rank_waits(path, sites):
    """analysis_ranks.bin (schema mpidle-analysis/2): one row per (callsite, waiting rank)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MpidleError("%s: %s" % (path, e)) from e
    if len(data) < 16 or data[:4] != b"MPAR" or struct.unpack_from("<I", data, 4)[0] != 1:
        raise MpidleError("%s: not an mpidle analysis_ranks.bin" % path)
    (n,) = struct.unpack_from("<Q", data, 8)
    if len(data) != 16 + n * _RANK_WAITS.size:
        raise MpidleError("%s: truncated (%d rows announced)" % (path, n))
    rows = []
    for callsite, rank, *seconds in _RANK_WAITS.iter_unpack(data[16:]):
        if callsite >= len(sites):
            raise MpidleError("%s: a row names callsite %d of %d" % (path, callsite, len(sites)))
        c = sites[callsite]
        rows.append({"callsite": callsite, "function": c.get("function"), "rank": rank,
                     **dict(zip(_PATTERNS, seconds))})
    return rows


def load_analysis(run):
    """A trace run's analysis.json: `totals` (dict of wait-state seconds), and
    DataFrames `callsites` (callsite × pattern seconds) and `by_rank` (callsite,
    rank, pattern seconds: from analysis_ranks.bin, or version 1's by_rank arrays)."""
    doc = _read_json(run, "analysis.json", "mpidle-analysis/")
    rows, by_rank = [], []
    sites = doc.get("callsites", [])
    for i, c in enumerate(sites):
        base = {"callsite": i, "function": c.get("function"), "location": c.get("location"),
                "wait_s": c.get("wait_s", 0.0)}
        rows.append({**base, **c.get("patterns", {})})
        for r in c.get("by_rank", []):
            by_rank.append({"callsite": i, "function": c.get("function"), **r})
    if "rank_waits" in doc:
        run_dir = run if os.path.isdir(run) else os.path.dirname(run)
        by_rank = _rank_waits(os.path.join(run_dir, doc["rank_waits"].get("file", "")), sites)
    return SimpleNamespace(totals=doc.get("totals", {}), accuracy=doc.get("accuracy", {}),
                           callsites=pd.DataFrame(rows),
                           by_rank=pd.DataFrame(by_rank, columns=["callsite", "function", "rank",
                                                                  *_PATTERNS]))


def load_prediction(path):
    """prediction.json (`mpidle predict`): DataFrames `ranking` (machine, wall_s,
    speedup) and `targets` (one row per machine, the scalar fields)."""
    doc = _read_json(path, "prediction.json", "mpidle-prediction/")
    targets = []
    for t in doc.get("targets", []):
        row = {k: v for k, v in t.items() if not isinstance(v, (list, dict))}
        rng = t.get("wall_s_range")
        if isinstance(rng, list) and len(rng) == 2:
            row.update({"wall_s_low": rng[0], "wall_s_high": rng[1]})
        targets.append(row)
    return SimpleNamespace(ranking=pd.DataFrame(doc.get("ranking", [])),
                           targets=pd.DataFrame(targets))


def load_fleet(db):
    """The fleet database: a SQLite file, or any DB-API connection (for PostgreSQL,
    e.g. one from psycopg2). DataFrames `jobs` (with `start` and `end` as UTC
    timestamps), `metadata`, `functions`, `callsites`."""
    own = isinstance(db, (str, os.PathLike))
    if own:
        if not os.path.exists(db):
            raise MpidleError("%s: no such fleet database" % db)
        conn = sqlite3.connect("file:%s?mode=ro" % os.fspath(db), uri=True)
    else:
        conn = db
    try:
        jobs = pd.read_sql_query("SELECT * FROM jobs", conn)
        for col, name in (("start_time", "start"), ("end_time", "end")):
            jobs[name] = pd.to_datetime(jobs[col], unit="s", utc=True)
        return SimpleNamespace(
            jobs=jobs,
            metadata=pd.read_sql_query("SELECT * FROM job_metadata", conn),
            functions=pd.read_sql_query("SELECT * FROM job_functions", conn),
            callsites=pd.read_sql_query("SELECT * FROM job_callsites", conn))
    except Exception as e:  # sqlite3.DatabaseError, pandas' DatabaseError
        raise MpidleError("%s: not an mpidle fleet database (%s)" % (db, e)) from e
    finally:
        if own:
            conn.close()
