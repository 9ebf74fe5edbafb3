#!/bin/sh
# `make bench`: overhead of mpidle per intercepted call, profiled vs bare.
set -eu
build=${1:-build}
exec python3 "$(dirname "$0")/../bench/run_bench.py" --build "$build"
