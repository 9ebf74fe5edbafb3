"""The Python package against real outputs: run directories and a fleet database
made by the test suite's own runs (paths from the environment, set by CTest)."""
import json
import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import mpidle  # noqa: E402

RUN = os.environ.get("MPIDLE_TEST_RUN")          # a trace run with analysis.json
PREDICTION = os.environ.get("MPIDLE_TEST_PREDICTION")
FLEET = os.environ.get("MPIDLE_TEST_FLEET")       # a fleet database and its --json report


class Profiles(unittest.TestCase):
    def test_profile_matches_the_json(self):
        run = mpidle.load_profile(RUN)
        with open(os.path.join(RUN, "profile.json")) as f:
            doc = json.load(f)
        self.assertEqual(len(run.ranks), len(doc["ranks"]))
        self.assertAlmostEqual(run.ranks.wait_s.sum(), sum(r["wait_s"] for r in doc["ranks"]))
        self.assertEqual(set(run.functions.name), {f["name"] for f in doc["functions"]})
        self.assertEqual(len(run.callsites), len(doc["callsites"]))
        self.assertTrue(run.callsites.location.str.contains(r"\.c:\d+").any())
        self.assertEqual(run.job["ranks"], len(doc["ranks"]))

    def test_analysis(self):
        a = mpidle.load_analysis(RUN)
        with open(os.path.join(RUN, "analysis.json")) as f:
            doc = json.load(f)
        self.assertEqual(len(a.callsites), len(doc["callsites"]))
        self.assertAlmostEqual(a.callsites.late_sender.sum(),
                               sum(c["patterns"]["late_sender"] for c in doc["callsites"]))
        self.assertIn("rank", a.by_rank.columns)
        # analysis_ranks.bin holds every waiting rank: their waits add up to the totals.
        self.assertAlmostEqual(a.by_rank.late_sender.sum(), doc["totals"]["late_sender"])
        self.assertGreaterEqual(len(a.by_rank), 1)

    def test_prediction(self):
        p = mpidle.load_prediction(PREDICTION)
        self.assertGreaterEqual(len(p.ranking), 1)
        self.assertTrue((p.targets.wall_s > 0).all())
        self.assertTrue((p.targets.wall_s_low <= p.targets.wall_s_high).all())

    def test_wrong_files_raise_one_error(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "profile.json"), "w") as f:
                f.write('{"schema": "other/1"}')
            with self.assertRaises(mpidle.MpidleError):
                mpidle.load_profile(d)
            with self.assertRaises(mpidle.MpidleError):
                mpidle.load_analysis(d)
            with self.assertRaises(mpidle.MpidleError):
                mpidle.load_fleet(os.path.join(d, "missing.db"))
            with open(os.path.join(d, "text.db"), "w") as f:
                f.write("not a database at all, just some text")
            with self.assertRaises(mpidle.MpidleError):
                mpidle.load_fleet(os.path.join(d, "text.db"))


class Fleet(unittest.TestCase):
    def test_fleet_matches_the_report(self):
        fleet = mpidle.load_fleet(FLEET + "/fleet.db")
        with open(FLEET + "/report.json") as f:
            report = json.load(f)
        self.assertEqual(len(fleet.jobs), report["totals"]["jobs"])
        self.assertAlmostEqual(fleet.jobs.core_hours.sum(), report["totals"]["core_hours"], places=3)
        by_app = fleet.jobs.groupby("application").wait_core_hours.sum()
        for row in report["by_application"]:
            self.assertAlmostEqual(by_app[row["application"]], row["wait_core_hours"], places=3)
        self.assertEqual(str(fleet.jobs.start.dt.tz), "UTC")
        self.assertEqual(set(fleet.callsites.job) <= set(fleet.jobs.id), True)
        # Also through a connection the caller opened (a PostgreSQL one works alike).
        with sqlite3.connect(FLEET + "/fleet.db") as conn:
            self.assertEqual(len(mpidle.load_fleet(conn).jobs), len(fleet.jobs))


if __name__ == "__main__":
    unittest.main()
