#!/bin/sh
# mpidle built without its optional libraries (OTF2, PAPI, libunwind, libdw, SimGrid), as on a
# machine that lacks them: the build says what it left out, a trace run with PAPI
# events and a deep callsite depth still works, says why it has no counters and why
# its callsites have no source lines, and
# `mpidle export --otf2` and `mpidle predict --engine simgrid` say in one line what is
# missing, and `mpidle predict` replays on mpidle's own engine.
#   minimal_build.sh SOURCE_DIR MPI (mpich or openmpi)
set -eu
source=$1 mpi=$2
# Beside the source's own build/ where it can (the same depth below the source): its
# files then compile as there, and ccache has most of them from `make`.
dir=$(mktemp -d "$source/build-minimal.XXXXXX" 2>/dev/null ||
  mktemp -d "${TMPDIR:-/tmp}/mpidle-minimal.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "minimal build: $*" >&2; exit 1; }

cmake -S "$source" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DMPIDLE_MPI="$mpi" \
  -DMPIDLE_WITH_OTF2=OFF -DMPIDLE_WITH_PAPI=OFF -DMPIDLE_WITH_LIBUNWIND=OFF -DMPIDLE_WITH_LIBDW=OFF \
  -DMPIDLE_WITH_SIMGRID=OFF -DMPIDLE_ENABLE_TESTS=OFF -DMPIDLE_ENABLE_BENCH=OFF >"$dir/configure.log" ||
  { cat "$dir/configure.log" >&2; fail "configure failed"; }
for line in "OTF2 export       OFF" "PAPI counters     OFF" "libunwind         OFF" \
  "libdw             OFF" "SimGrid engine    OFF"; do
  grep -q -- "$line" "$dir/configure.log" || fail "the configuration does not say: $line"
done
cmake --build "$dir" -j 2 --target mpidle mpidle_profiler loop_nest >"$dir/build.log" 2>&1 ||
  { tail -30 "$dir/build.log" >&2; fail "build failed"; }
if nm -D "$dir/lib/libmpidle.so" | grep -q -E " U (PAPI_|_?U?unw_|dwfl_|dwarf_)"; then
  fail "libmpidle.so still needs PAPI, libunwind or libdw"
fi

mpiexec=$(command -v "mpiexec.$mpi")
"$dir/bin/mpidle" run --trace --callsite-depth 3 --output "$dir/run" -- \
  env MPIDLE_PAPI_EVENTS=PAPI_TOT_INS "$mpiexec" -n 2 "$dir/examples/loop_nest" \
  --outer 3 --inner 2 >/dev/null 2>"$dir/run.log" || { cat "$dir/run.log" >&2; fail "run failed"; }
grep -q '"reason": "this libmpidle was built without PAPI"' "$dir/run/profile.json" ||
  fail "profile.json does not say PAPI was left out"
grep -q "built without libdw" "$dir/run.log" || fail "the run does not say callsites lack source lines"
# Callsites of depth 3 were walked (glibc's backtrace): three frames, the first in loop_nest.
python3 - "$dir/run/profile.json" <<'PY' || fail "callsites were not walked 3 frames deep"
import json, sys
callsites = json.load(open(sys.argv[1]))["callsites"]
assert callsites and all(len(c["frames"]) == 3 for c in callsites), callsites
assert all(c["frames"][0]["module"].endswith("loop_nest") for c in callsites)
PY

if "$dir/bin/mpidle" export "$dir/run" --otf2 "$dir/otf2" 2>"$dir/export.err"; then
  fail "export --otf2 succeeded without OTF2"
fi
grep -q "built without the OTF2 library" "$dir/export.err" || fail "export --otf2 did not say why"
[ "$(wc -l <"$dir/export.err")" -eq 1 ] || fail "export --otf2 wrote more than one line"
cat >"$dir/machine.json" <<'JSON'
{"schema": "mpidle-machine/2", "name": "hand",
 "p2p": {"intra_node": [{"bytes": 0, "seconds": 1e-6}, {"bytes": 1048576, "seconds": 1e-4}]}}
JSON
if "$dir/bin/mpidle" predict "$dir/run" --machine "$dir/machine.json" --engine simgrid \
  >/dev/null 2>"$dir/predict.err"; then
  fail "predict --engine simgrid succeeded without SimGrid"
fi
grep -q "built without SimGrid" "$dir/predict.err" || fail "predict --engine simgrid did not say why"
[ "$(wc -l <"$dir/predict.err")" -eq 1 ] || fail "predict --engine simgrid wrote more than one line"
"$dir/bin/mpidle" predict "$dir/run" --machine "$dir/machine.json" >"$dir/predict.out" \
  2>"$dir/predict.err" || { cat "$dir/predict.err" >&2; fail "predict failed without SimGrid"; }
grep -q "hand (CPU x1, mpidle)" "$dir/predict.out" || fail "predict did not replay on mpidle's engine"
echo "minimal build: passed"
