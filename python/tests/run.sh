#!/bin/sh
# Makes what the Python package's tests read (a trace run with its analysis and a
# prediction, a fleet database and its JSON report), then runs them with Debian's
# python3 and pandas. Exit 77 (skipped) without pandas.
#   run.sh BUILD_DIR SOURCE_DIR MPIEXEC
set -eu
build=$1 source=$2 mpiexec=$3
/usr/bin/python3 -c 'import pandas' 2>/dev/null ||
  { echo "python3-pandas is not installed: skipped"; exit 77; }
work=$(mktemp -d /tmp/mpidle-python-XXXXXX)
trap 'rm -rf "$work"' EXIT
root=""
[ "$(id -u)" -eq 0 ] && "$mpiexec" --version 2>/dev/null | grep -q "Open MPI" && root="--allow-run-as-root"
"$build/bin/mpidle" run --output "$work/run" --trace -- "$mpiexec" $root -n 2 \
  "$build/examples/late_sender" >/dev/null 2>"$work/run.err" || { cat "$work/run.err"; exit 1; }
"$build/bin/mpidle" predict "$work/run" --machine "$source/tests/fuzz/corpus/machine/tcp_v2.json" \
  >/dev/null 2>&1
/usr/bin/python3 "$source/bench/fleet_synthetic.py" "$work/logs" --jobs 60 >/dev/null
mkdir -p "$work/fleet"
"$build/bin/mpidle" fleet ingest "$work/logs" --db "$work/fleet/fleet.db" >/dev/null
"$build/bin/mpidle" fleet report --db "$work/fleet/fleet.db" --json >"$work/fleet/report.json"
MPIDLE_TEST_RUN="$work/run" MPIDLE_TEST_PREDICTION="$work/run/prediction.json" \
  MPIDLE_TEST_FLEET="$work/fleet" /usr/bin/python3 "$source/python/tests/test_mpidle.py" -v 2>&1
