#!/bin/sh
# `make bench`: overhead of mpidle per intercepted call, profiled vs bare, and the
# profile finalize at 2 to 32 ranks.
set -eu
build=${1:-build}
python3 "$(dirname "$0")/../bench/run_bench.py" --build "$build"
# The profile finalize as the number of ranks grows (docs/scale.md).
python3 "$(dirname "$0")/../bench/scale_bench.py" --build "$build"
