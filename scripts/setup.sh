#!/bin/sh
# Installs the Debian packages mpidle needs, only those that are missing.
# Used by `make demo`, `make test` and CI; safe to run repeatedly.
# `setup.sh --test` adds what only the tests use: a browser to render the HTML
# report in, an image library to look at the render, BAGEL (a packaged C++
# MPICH program that finalizes MPI at exit) and LAMMPS (Open MPI, whose Waits hold
# transfers), iproute2 (the rate-limited links of scripts/netns.sh) and valgrind
# (memcheck over programs that call MPI after main returns), mpi4py (Open MPI's
# Python programs and their callsites) and Slurm with munge (a real scheduler of the
# tests' own, scripts/slurm.sh). Where those cannot be installed, the tests that
# need them are reported as skipped and the rest runs; on CI (CI=true) a package
# that cannot be installed is an error, so that a green CI run is one where every
# test could run. `setup.sh --bench` adds hpcc and mpi4py (the window checks of
# bench/wait_estimates.py).
set -eu

packages="mpich libmpich-dev libunwind-dev libpapi-dev nlohmann-json3-dev catch2 cmake g++ gfortran make python3 netpipe-mpich2 openmpi-bin libopenmpi-dev netpipe-openmpi clang-format git python3-jsonschema libotf2-trace-dev otf2-tools libdw-dev clang-14 libclang-rt-14-dev libacl1-dev libsqlite3-dev libpq-dev pkg-config python3-pandas python3-dev ccache libslurm-dev libsimgrid-dev"
optional=""
if [ "${1:-}" = "--test" ]; then
  packages=""
  optional="chromium python3-pil bagel postgresql lmod lammps iproute2 valgrind python3-mpi4py slurm-wlm munge"
fi
# `setup.sh --bench`: HPC Challenge (Open MPI), whose polling loop `make bench` times,
# mpi4py (Open MPI) for the Python program among the packaged ones, and the packaged
# programs of the prediction matrix (bench/predict_transports.py): ScaLAPACK's test
# drivers (both MPIs), MPB and Meep (Open MPI).
if [ "${1:-}" = "--bench" ]; then
  packages=""
  optional="hpcc python3-mpi4py iproute2 scalapack-mpi-test mpb-mpi meep-openmpi"
fi

missing=""
for p in $packages $optional; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if [ -n "$optional" ]; then
    echo "mpidle: not installed (test extras, needs root):$missing" >&2
    exit 0
  fi
  echo "mpidle: missing Debian packages:$missing" >&2
  echo "mpidle: run as root, or install them first: sudo apt-get install$missing" >&2
  exit 1
fi

echo "mpidle: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$optional" ]; then
  # One at a time: a package that cannot be installed here (lmod conflicts with an
  # installed environment-modules) must not keep the others out.
  apt-get update -qq || true
  failed=""
  for p in $missing; do
    apt-get install -y -qq "$p" >/dev/null 2>&1 || failed="$failed $p"
  done
  if [ -n "$failed" ]; then
    if [ "${CI:-}" = "true" ]; then
      echo "mpidle: could not install (CI=true: an error, not a skip):$failed" >&2
      exit 1
    fi
    echo "mpidle: could not install:$failed; the tests that need them will be skipped" >&2
  fi
  exit 0
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null
