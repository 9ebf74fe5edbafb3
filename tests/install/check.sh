#!/bin/sh
# Installs mpidle into a scratch prefix and uses it as a user would: a trace run
# through the installed `mpidle run`, then a downstream project built with
# find_package(mpidle) and again with pkg-config reads that run with the installed
# readers. Its figures must agree with each other and with analysis.json.
#   check.sh BUILD_DIR SOURCE_DIR MPIEXEC EXAMPLE
set -eu
build=$1 source=$2 mpiexec=$3 example=$4
prefix=$(mktemp -d "${TMPDIR:-/tmp}/mpidle-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

fail() { echo "install check: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/mpidle bin/mpidle-replay lib/libmpidle.so lib/libmpidle_model.a \
         lib/cmake/mpidle/mpidleConfig.cmake lib/cmake/mpidle/mpidleConfigVersion.cmake \
         lib/pkgconfig/mpidle.pc include/mpidle/model/trace_file.hpp \
         include/mpidle/model/mpi_catalog.inc share/man/man1/mpidle.1 \
         share/man/man1/mpidle-export.1 include/mpidle.h lib/libmpidle_regions.a; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# A trace run with the installed command, which finds the installed library.
"$prefix/bin/mpidle" run --trace --output "$prefix/run" -- "$mpiexec" -n 2 "$example" \
  >/dev/null 2>"$prefix/run.log" || { cat "$prefix/run.log" >&2; fail "mpidle run failed"; }
[ -f "$prefix/run/trace.mpidle" ] || fail "the installed mpidle wrote no trace"

# find_package(mpidle)
cmake -S "$source/tests/install" -B "$prefix/downstream" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || fail "find_package(mpidle) failed"
cmake --build "$prefix/downstream" >/dev/null || fail "the downstream project did not build"
by_cmake=$("$prefix/downstream/read_run" "$prefix/run")

# pkg-config
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --exists mpidle || fail "pkg-config knows no mpidle"
# shellcheck disable=SC2046
c++ -O1 -o "$prefix/read_run_pc" "$source/tests/install/read_run.cpp" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs mpidle) ||
  fail "the downstream program did not build with pkg-config"
by_pkg_config=$("$prefix/read_run_pc" "$prefix/run")

echo "find_package: $by_cmake"
echo "pkg-config:   $by_pkg_config"
[ "$by_cmake" = "$by_pkg_config" ] || fail "the two builds disagree"
case "$by_cmake" in
  "ranks=2 profile_ranks=2 records="*) ;;
  *) fail "unexpected figures: $by_cmake" ;;
esac
# Collective calls by the catalog = collective instances matched by the analysis,
# = what the run's own analysis.json counted.
calls=$(echo "$by_cmake" | sed 's/.*collective_calls=\([0-9]*\).*/\1/')
matched=$(echo "$by_cmake" | sed 's/.*collectives=\([0-9]*\)$/\1/')
[ "$calls" -gt 0 ] || fail "no collective calls read"
[ "$matched" -eq $((calls / 2)) ] || fail "$calls collective calls on 2 ranks but $matched instances"
grep -q "\"collectives\": *$matched\b" "$prefix/run/analysis.json" ||
  fail "analysis.json does not count $matched collectives"

# Code regions: the installed header builds a program without MPI or mpidle, and
# the program runs (the calls do nothing then).
printf '#include <mpidle.h>\nint main(void) {\n  mpidle_region_begin("solve");\n  mpidle_region_end("solve");\n  return 0;\n}\n' \
  >"$prefix/regions.c"
cc -Wall -Wextra -Werror -o "$prefix/regions" "$prefix/regions.c" -I"$prefix/include" ||
  fail "a program with the installed mpidle.h did not build"
"$prefix/regions" || fail "a program with mpidle.h failed without mpidle"

# A version the package cannot satisfy is refused.
mkdir -p "$prefix/too_new"
printf 'cmake_minimum_required(VERSION 3.22)\nproject(x LANGUAGES CXX)\nfind_package(mpidle 99 REQUIRED)\n' \
  >"$prefix/too_new/CMakeLists.txt"
if cmake -S "$prefix/too_new" -B "$prefix/too_new/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >/dev/null 2>&1; then
  fail "find_package(mpidle 99) succeeded"
fi
echo "install check: passed"
