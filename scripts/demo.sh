#!/bin/sh
# `make demo`: profile the late-sender example on 2 ranks and print the report, then
# the procurement flow: probe this machine, trace a run, predict it on two models.
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

# Procurement: this machine's model, a traced run, and a prediction of that run on
# this machine and on a hand-written candidate (slower network, CPU 1.5x slower).
echo
echo "== mpidle probe -o $build/demo-here.json -- $mpiexec -n 2"
"$build/bin/mpidle" probe --quick -o "$build/demo-here.json" -- "$mpiexec" -n 2
python3 - "$build/demo-here.json" "$build/demo-candidate.json" <<'PY'
import json, sys
here = json.load(open(sys.argv[1]))
here["name"] = "candidate (10 us, 1 GB/s, CPU 1.5x slower)"
# Another machine: a model of this host and CPU would compute at factor 1.
here["host"] = "candidate-node"
here.pop("cpu_model", None)
here["p2p"] = {"intra_node": [{"bytes": 0, "seconds": 10e-6},
                              {"bytes": 1 << 20, "seconds": 10e-6 + (1 << 20) / 1e9}]}
here["compute"] = {k: v * 1.5 for k, v in here["compute"].items()}
json.dump(here, open(sys.argv[2], "w"), indent=1)
PY
trace_dir="$build/demo-trace"
rm -rf "$trace_dir"
echo
echo "== mpidle run --trace -- $mpiexec -n 2 $build/examples/loop_nest --outer 200"
"$build/bin/mpidle" run --trace --output "$trace_dir" -- "$mpiexec" -n 2 "$build/examples/loop_nest" --outer 200
echo
echo "== mpidle predict $trace_dir --source here.json --machine here.json --machine candidate.json"
"$build/bin/mpidle" predict "$trace_dir" --source "$build/demo-here.json" \
  --machine "$build/demo-here.json" --machine "$build/demo-candidate.json" --top 3
