#!/bin/sh
# `make bench`: overhead of mpidle per intercepted call, profiled vs bare, HPC
# Challenge's polling kernel bare vs profiled (Open MPI build), the profile
# finalize at 2 to 32 ranks, the trace finalize out of core, and the fleet
# database at 10^5 jobs, and whether compare names the root cause on LAMMPS.
set -eu
build=${1:-build}
openmpi_build=${2:-build-openmpi}
python3 "$(dirname "$0")/../bench/run_bench.py" --build "$build"
# The profile finalize as the number of ranks grows (docs/scale.md).
python3 "$(dirname "$0")/../bench/scale_bench.py" --build "$build"
# What a profile checkpoint costs a rank, at 10^3 and 10^4 callsites.
python3 "$(dirname "$0")/../bench/checkpoint_cost.py" --build "$build"
# What preloading costs a process that never calls MPI: the shim against libmpidle.
python3 "$(dirname "$0")/../bench/preload_cost.py" --build "$build"
# The wait estimates against observed and exact wait, repeated (docs/profile-format.md).
python3 "$(dirname "$0")/../bench/wait_estimates.py" --build "$build" --openmpi-build "$openmpi_build"
# The trace finalize out of core, with and without a memory cgroup (docs/replay.md).
python3 "$(dirname "$0")/../bench/out_of_core_finalize.py" --build "$build"
# The fleet database at 10^5 synthetic jobs: ingest rate, report time, size per job.
python3 "$(dirname "$0")/../bench/fleet_bench.py" --build "$build"
# HPC Challenge's MPIRandomAccess (Debian's hpcc is built for Open MPI).
if command -v hpcc >/dev/null 2>&1 && [ -e "$openmpi_build/lib/libmpidle.so" ]; then
  python3 "$(dirname "$0")/../bench/hpcc_randomaccess.py" --build "$openmpi_build"
else
  echo "mpidle: HPC Challenge not measured (needs hpcc and $openmpi_build: make build-openmpi)"
fi
# Root causes on a program nobody here wrote: LAMMPS over shared memory against a
# 200 Mbit/s link, and a compute imbalance on one link (docs/analysis-format.md).
# Exit 77: skipped (no root for the link's namespaces, or no lmp).
status=0
python3 "$(dirname "$0")/../bench/root_causes.py" --build "$openmpi_build" || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ]
