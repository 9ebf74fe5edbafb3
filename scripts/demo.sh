#!/bin/sh
# `make demo`: profile the late-sender example on 2 ranks and print the report.
set -eu
build=${1:-build}
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
run_dir="$build/demo-run"
rm -rf "$run_dir"

echo "== mpidle run -- $mpiexec -n 2 $build/examples/late_sender"
"$build/bin/mpidle" run --output "$run_dir" -- "$mpiexec" -n 2 "$build/examples/late_sender"
echo
echo "== mpidle report $run_dir"
"$build/bin/mpidle" report "$run_dir"
